// SPDX-License-Identifier: MIT
// Prometheus scrapes (exposition text, whole or in pieces) and query_range answers into a raw folder's facts.
#include "import/prometheus/prometheus_glue.h"

#include "core/mapped_file.h"
#include "core/topology.h"
#include "import/common/file_bytes.h"
#include "import/common/host_file.h"
#include "import/prometheus/dcgm.h"

#include <algorithm>
#include <iterator>

namespace stallscope {

namespace {

// Where a scrape's readings go.
struct Into
{
    FolderSink& sink;
    FabricBuilder& fabric;
    CounterSink& counters;
    ExpositionScrapes& scrapes;
};

// A series' id across the folder's scrapes: the same port counter in every file is one series.
std::uint32_t expositionSeriesId(const ExpositionSample& s, ExpositionScrapes& scrapes)
{
    const auto identity = (s.hostSide ? "h " + s.host + " " + s.device : "g " + std::to_string(s.guid)) + " "
        + std::to_string(s.port) + " " + std::to_string(static_cast<int>(s.kind));
    auto [it, fresh] = scrapes.seriesIds.try_emplace(identity, static_cast<std::uint32_t>(scrapes.series.size()));
    if (fresh) {
        scrapes.series.push_back(s);
    }
    return it->second;
}

// A scrape's readings into the folder's counters (provisional: the fabric is not known yet), checked for going
// backwards in file order (`backwards`: one per file, whatever pieces it is read in); what is kept of the file is
// its states and dates.
void sinkExposition(const DatedFile& dated, ExpositionFile& ef, Into& to, BackwardsCheck& backwards)
{
    std::vector<std::uint32_t> idOf(ef.series.size());
    for (std::size_t i = 0; i < ef.series.size(); ++i) {
        idOf[i] = expositionSeriesId(ef.series[i], to.scrapes);
    }
    for (const auto& p : ef.points) {
        const auto& s = ef.series[p.series];
        const auto t = p.timeNs == kNoTime ? dated.modified : p.timeNs;
        backwards.see(idOf[p.series], t, p.value, p.line, to.sink.warnings, [&] {
            return (s.hostSide ? s.host + " " + s.device : formatGuid(s.guid)) + " port " + std::to_string(s.port) + " "
                + std::string(semantics(s.kind).name);
        });
        to.counters.provisional(idOf[p.series], s.kind, t, p.value);
    }
    std::vector<ExpositionPoint>().swap(ef.points);
    std::vector<ExpositionSample>().swap(ef.series);
}

// Calls fn(piece) (false: stop) for pieces of about `pieceBytes` (64 MiB) of whole lines, front to back, each piece's
// pages released after it: the file never sits in memory whole. A file cut short on disk as it is read (a collector
// rewriting it) ends at its last whole line before the cut: the zeros past it are never parsed.
// `from`: where the file's first data lies (past a hole at its start: import/common/file_bytes.h).
template <typename Fn>
void forEachPiece(const MappedFile& map, std::string_view text, std::size_t from, std::size_t pieceBytes, Fn&& fn)
{
    for (std::size_t pos = from; pos < text.size();) {
        auto end = std::min(text.size(), pos + std::max<std::size_t>(pieceBytes, 1));
        if (const auto nl = text.find('\n', end); end < text.size()) {
            end = nl == std::string_view::npos ? text.size() : nl + 1;
        }
        if (!map.intact(pos, end - pos)) {
            const auto cut = text.substr(0, std::max(pos, map.readableBytes())).rfind('\n');
            end = cut == std::string_view::npos || cut < pos ? pos : cut + 1;
            if (end > pos) {
                fn(text.substr(pos, end - pos));
            }
            return;
        }
        const bool more = fn(text.substr(pos, end - pos));
        map.release(pos, end - pos);
        pos = more ? end : text.size();
    }
}

// A scrape file too large to scan whole (a week of timestamped samples): mapped and scanned in pieces of whole
// lines, each piece's readings into the folder's counters and its pages released before the next.
std::optional<LoadIssue> addLargeExposition(FileInput& in, Into& to, Progress* progress, std::size_t pieceBytes)
{
    const auto file = in.path.string();
    std::string error;
    const auto map = MappedFile::open(file, error, false);
    if (!map) {
        return LoadIssue { file, 0, -1, "cannot be mapped: " + error };
    }
    // Without the zeros at either end, which readAndParse has named: a hole before the first line (a writer that
    // does not append, after copytruncate) and blocks allocated but never written after the last.
    std::string_view text(reinterpret_cast<const char*>(map->bytes().data()), map->size());
    const auto from = std::min<std::size_t>(leadingHoleBytes(in.path), text.size());
    text = text.substr(0, std::max(from, text.size() - std::min<std::size_t>(trailingZeroBytes(in.path), text.size())));
    ExpositionScanCursor cursor; // node_uname_info may come anywhere (last one wins): found before the readings
    std::uint64_t done = 0; // bytes of both passes, for progress
    const auto stage = "Reading " + in.path.filename().string() + " in pieces";
    const auto stop = [&](std::string_view piece) { // reports, and tells when the load was cancelled
        done += piece.size();
        if (!progress) {
            return false;
        }
        progress->report(stage, done, 2 * std::uint64_t(text.size()));
        return progress->cancelled();
    };
    forEachPiece(*map, text, from, pieceBytes, [&](std::string_view piece) {
        if (stop(piece)) {
            return false;
        }
        if (auto host = startExpositionScan(piece).unameHost; !host.empty()) {
            cursor.unameHost = std::move(host);
        }
        return true;
    });
    DatedFile dated { file, modifiedNs(in.path) };
    ExpositionFile kept; // states, counts and dates; the readings are in the counter sink
    BackwardsCheck backwards(file);
    forEachPiece(*map, text, from, pieceBytes, [&](std::string_view piece) {
        if (stop(piece)) {
            return false;
        }
        auto r = resolvePrometheusExposition(file, scanPrometheusExpositionPart(file, piece, cursor), to.fabric);
        if (!r) {
            return true; // a piece of other series only (the whole file is judged below)
        }
        to.sink.warn(r->warnings);
        sinkExposition(dated, r.value(), to, backwards);
        kept.hostSeries += r->hostSeries;
        kept.fabricSeries += r->fabricSeries;
        kept.infoSeries += r->infoSeries;
        kept.undated = kept.undated || r->undated;
        kept.states.insert(kept.states.end(), r->states.begin(), r->states.end());
        return true;
    });
    if (map->cutShort()) { // rewritten by its collector as we read: what came before the cut was read as written
        to.sink.warnings.push_back({ file, 0, -1, map->cutShortMessage() + " (the readings before it are kept)" });
    }
    if (kept.hostSeries + kept.fabricSeries + kept.infoSeries == 0 && kept.states.empty()) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    to.sink.note(in.path, "Prometheus exposition",
        std::to_string(kept.hostSeries) + " host-side and " + std::to_string(kept.fabricSeries)
            + " switch-side samples, " + std::to_string(kept.infoSeries) + " info series, read in pieces");
    to.scrapes.files.emplace_back(std::move(dated), std::move(kept));
    return std::nullopt;
}

} // namespace

// Lines into series and readings on a worker thread; the series resolved against the fabric in `add`.
std::any scanExposition(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto scan = scanPrometheusExposition(file, text);
    hold(scan.warnings, file);
    return scan;
}

std::optional<LoadIssue> addExposition(FileInput& in, FolderSink& sink, FabricBuilder& fabric, CounterSink& counters,
    Progress* progress, const ScratchPolicy& scratch, ExpositionScrapes& scrapes)
{
    Into to { sink, fabric, counters, scrapes };
    if (!in.parsed.has_value()) {
        return addLargeExposition(in, to, progress, scratch.pieceBytes);
    }
    auto r
        = resolvePrometheusExposition(in.path.string(), std::move(std::any_cast<ExpositionScan&>(in.parsed)), fabric);
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    sink.note(in.path, "Prometheus exposition",
        std::to_string(r->hostSeries) + " host-side and " + std::to_string(r->fabricSeries) + " switch-side samples, "
            + std::to_string(r->infoSeries) + " info series");
    DatedFile dated { in.path.string(), modifiedNs(in.path) };
    BackwardsCheck backwards(dated.file);
    sinkExposition(dated, r.value(), to, backwards);
    scrapes.files.emplace_back(std::move(dated), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addMatrix(FileInput& in, FolderSink& sink, FabricBuilder& fabric,
    std::vector<PromSeries>& matrix, std::vector<MatrixSwitchSeries>& matrixSwitch)
{
    const auto file = in.path.string();
    auto m = parsePrometheusMatrix(file, in.text);
    if (!m) {
        return m.error();
    }
    sink.warn(m->warnings);
    std::size_t switchSamples = 0;
    ExpositionFile labels; // info series, warnings
    for (auto& ls : m->switchSide) {
        const auto key = readExpositionSeriesKey(file, ls.line, fabric, labels);
        if (!key) {
            continue;
        }
        MatrixSwitchSeries s;
        s.guid = key->key.guid;
        s.port = key->key.port;
        s.kind = key->key.kind;
        s.timesNs = std::move(ls.timesNs);
        s.values = std::move(ls.values);
        for (auto& v : s.values) {
            v /= key->divisor;
        }
        switchSamples += s.timesNs.size();
        if (key->key.hostSide) {
            continue; // node_exporter's names are PromSeries already; nothing else reaches here
        }
        matrixSwitch.push_back(std::move(s));
    }
    sink.warn(labels.warnings);
    sink.note(in.path, "Prometheus matrix",
        std::to_string(m->series.size()) + " host-side series"
            + (switchSamples ? ", " + std::to_string(switchSamples) + " switch-side samples" : std::string()));
    std::move(m->series.begin(), m->series.end(), std::back_inserter(matrix));
    return std::nullopt;
}

std::optional<LoadIssue> addDcgm(
    FileInput& in, FolderSink& sink, std::vector<NodeToolsFile>& nodeTools, HostLogFiles& hostLogs)
{
    const auto file = in.path.string();
    auto r = parseDcgmScrape(file, in.text, hostOfNodeFile(file));
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    std::string detail = std::to_string(r->samples) + " samples of " + std::to_string(r->gpus) + " GPUs";
    if (!r->hosts.empty()) {
        detail += " on " + (r->hosts.size() == 1 ? r->hosts[0] : std::to_string(r->hosts.size()) + " hosts");
    }
    detail += r->xids.empty() ? std::string() : "; " + std::to_string(r->xids.size()) + " Xids";
    sink.note(in.path, "dcgm-exporter scrape", detail);
    NodeToolsFile gpus;
    gpus.tools = { "dcgm-exporter" };
    gpus.hosts = r->hosts;
    gpus.nvlinks = std::move(r->nvlinks);
    nodeTools.push_back(std::move(gpus));
    HostLogFacts xids; // as the kernel's Xid lines, so the Xid catalog and the inventory's GPU checks see them
    for (const auto& x : r->xids) {
        HostEvent e;
        e.kind = HostEventKind::GpuXid;
        e.host = x.host;
        e.code = x.code;
        e.device = x.pci.empty() ? std::string() : "PCI:" + x.pci;
        e.text = "Xid " + std::to_string(x.code) + " (dcgm-exporter's last Xid of GPU " + std::to_string(x.gpu) + ")";
        e.evidence = x.evidence;
        e.line = x.line;
        xids.events.push_back(std::move(e));
    }
    if (!xids.events.empty()) {
        hostLogs.emplace_back(file, std::move(xids));
    }
    return std::nullopt;
}

} // namespace stallscope
