// SPDX-License-Identifier: MIT
// The format table and, for each format, how what its reader returns joins the folder's facts. Runs on the
// calling thread except the `parse` functions, which touch nothing shared.
// Over 600 lines as one file: each format's parse and add functions write into folder::Gathered and are named
// by their row of the table at the end, so a row and the code it runs are read together.
#include "import/folder/formats.h"
#include "import/common/line_scan.h"

#include "core/mapped_file.h"
#include "core/parse_number.h"
#include "import/common/file_bytes.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/kineto/kineto_trace.h"
#include "import/logs/paste_wrappers.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace stallscope::folder {

namespace fs = std::filesystem;

namespace {

// Files the simulator writes beside a raw folder: recognised so they are not reported as unknown, never read.
constexpr const char* kSimulatorTruthMarker = "\"generator\": \"stallscope simulate\"";

TimeNs modifiedNs(const fs::path& p)
{
    std::error_code ec;
    const auto t = fs::last_write_time(p, ec);
    if (ec) {
        return kNoTime;
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::file_clock::to_sys(t).time_since_epoch())
        .count();
}

// "; pg 0: last completed 1841, started 1842, enqueued 1843" — where each group stood when the dump was taken.
std::string statusNote(const RankRecords& d)
{
    std::string out;
    for (const auto& [pg, st] : d.pgStatus) {
        out += "; pg " + pg + ": last completed " + std::to_string(st.lastCompleted) + ", started "
            + std::to_string(st.lastStarted) + ", enqueued " + std::to_string(st.lastEnqueued);
        if (out.size() > 200) {
            break;
        }
    }
    return out;
}

// "2 considered dead, 1 unresponsive": how many of each kind a file's events or facts hold.
template <typename Items> std::string countsByKind(const Items& items)
{
    std::map<std::string_view, int> kinds;
    for (const auto& e : items) {
        ++kinds[toString(e.kind)];
    }
    std::string said;
    for (const auto& [kind, n] : kinds) {
        said += (said.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(kind);
    }
    return said;
}

// --- Flight Recorder dumps and profiler traces: parsed on worker threads ---

// A rank number no job reaches: the file that says it is left out (it would size every per-rank array).
std::optional<LoadIssue> outsideAnyJob(std::uint32_t rank, const std::string& file)
{
    if (rank < JobInfo::kMaxWorldSize) {
        return std::nullopt;
    }
    return LoadIssue { file, 0, -1,
        "rank " + std::to_string(rank) + " is beyond any job (at most " + std::to_string(JobInfo::kMaxWorldSize)
            + " ranks)" };
}

// Group members no job reaches are dropped from pg_config's lists, with one warning per group.
void dropRanksOutsideAnyJob(
    std::map<std::string, GroupInfo>& groups, const std::string& file, std::vector<LoadIssue>& warnings)
{
    for (auto& [name, grp] : groups) {
        const auto before = grp.ranks.size();
        std::erase_if(grp.ranks, [](std::uint32_t r) { return r >= JobInfo::kMaxWorldSize; });
        if (grp.ranks.size() != before) {
            warnings.push_back({ file, 0, -1,
                "process group \"" + name + "\" lists " + std::to_string(before - grp.ranks.size())
                    + " ranks beyond any job (at most " + std::to_string(JobInfo::kMaxWorldSize)
                    + " ranks): they are left out of it" });
        }
    }
}

std::any parsePickleDump(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto d = parseFlightRecorderPickle(file, text);
    if (d) {
        hold(d->warnings, file);
    }
    return d;
}

std::any parseJsonDump(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto d = parseFlightRecorderJson(file, text);
    if (d) {
        hold(d->warnings, file);
    }
    return d;
}

std::any parseTrace(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto t = parseKinetoTrace(file, text);
    if (t) {
        hold(t->collectives.warnings, file);
    }
    return t;
}

// A rank's record that holds nothing the views and the analysis follow (a pipeline stage's send/recv only, or a trace
// of the CPU alone) leaves its row unknown: say why by the file, or the rank looks as if its record were missing.
void warnNothingJoinable(const std::string& file, std::uint32_t rank, const RankRecords& r, std::size_t kernels,
    bool trace, Gathered& g)
{
    if (!r.entries.empty()) {
        return;
    }
    const auto who = "rank " + std::to_string(rank) + "'s " + (trace ? "trace" : "dump");
    if (r.p2pSkipped > 0) {
        g.warnings.push_back({ file, 0, -1,
            who + " holds send/recv only (" + std::to_string(r.p2pSkipped)
                + "): point-to-point transfers are not collectives every rank joins, so its row has no record" });
    } else if (trace && kernels == 0) {
        g.warnings.push_back({ file, 0, -1,
            who + " has no NCCL kernel (a trace of the CPU alone, or of a process that ran no collective), so its "
                  "row has no record" });
    }
}

std::optional<LoadIssue> addDump(FileInput& in, Gathered& g, const char* what)
{
    auto& d = std::any_cast<Result<RankRecords>&>(in.parsed);
    if (!d) {
        g.warnings.push_back({ d.error().file, d.error().line, d.error().offset,
            d.error().message + " (this rank's dump is left out)" });
        return std::nullopt;
    }
    if (!d->rank) {
        g.warnings.push_back({ in.path.string(), 0, -1, "Flight Recorder dump without a rank in its name: skipped" });
        return std::nullopt;
    }
    if (const auto bad = outsideAnyJob(*d->rank, in.path.string())) {
        return bad;
    }
    dropRanksOutsideAnyJob(d->groups, in.path.string(), g.warnings);
    g.warn(d->warnings);
    warnNothingJoinable(in.path.string(), *d->rank, d.value(), 0, false, g);
    g.note(in.path, what,
        "rank " + std::to_string(*d->rank) + ", version " + d->version + ", " + std::to_string(d->entries.size())
            + " collectives" + statusNote(d.value()));
    g.dumps.emplace_back(in.path.string(), std::move(d.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addPickleDump(FileInput& in, Gathered& g)
{
    return addDump(in, g, "Flight Recorder pickle dump");
}

std::optional<LoadIssue> addJsonDump(FileInput& in, Gathered& g)
{
    return addDump(in, g, "Flight Recorder JSON dump");
}

std::optional<LoadIssue> addTrace(FileInput& in, Gathered& g)
{
    auto& t = std::any_cast<Result<KinetoTrace>&>(in.parsed);
    if (!t) {
        return t.error();
    }
    const bool named = !t->rank;
    if (!t->rank) {
        t->rank = rankFromTraceFileName(in.path.string()); // rank-3.json.gz, rank3_trace.json, ...
        t->collectives.rank = t->rank;
    }
    if (!t->rank) {
        g.warnings.push_back({ in.path.string(), 0, -1,
            "profiler trace without distributedInfo.rank and without a rank in its name: skipped" });
        return std::nullopt;
    }
    if (const auto bad = outsideAnyJob(*t->rank, in.path.string())) {
        return bad;
    }
    if (t->worldSize > JobInfo::kMaxWorldSize) {
        g.warnings.push_back({ in.path.string(), 0, -1,
            "distributedInfo.world_size " + std::to_string(t->worldSize) + " is more ranks than any job has (over "
                + std::to_string(JobInfo::kMaxWorldSize) + "): not used" });
        t->worldSize = 0;
    }
    g.warn(t->collectives.warnings);
    warnNothingJoinable(in.path.string(), *t->rank, t->collectives, t->kernels, true, g);
    g.note(in.path, "profiler trace",
        "rank " + std::to_string(*t->rank) + (named ? " (from the file name)" : "") + ", "
            + std::to_string(t->collectives.entries.size()) + " collectives from " + std::to_string(t->kernels)
            + " NCCL kernels"
            + (t->collectives.p2pSkipped ? ", " + std::to_string(t->collectives.p2pSkipped) + " send/recv skipped"
                                         : std::string())
            + (t->collectives.seqFromOrder ? ", matched by order (no Seq)" : ""));
    g.worldHint = std::max(g.worldHint, t->worldSize);
    g.traces.emplace_back(in.path.string(), std::move(t->collectives));
    return std::nullopt;
}

// --- NCCL's own reports ---

std::any parseInspector(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto f = parseNcclInspector(file, text);
    if (f) {
        hold(f->warnings, file);
    }
    return f;
}

std::optional<LoadIssue> addInspector(FileInput& in, Gathered& g)
{
    auto& f = std::any_cast<Result<InspectorFile>&>(in.parsed);
    if (!f) {
        return f.error();
    }
    g.warn(f->warnings);
    std::string comms;
    for (const auto& c : f->comms) {
        if (comms.size() < 120) {
            comms += (comms.empty() ? "" : ", ") + c.name + " (rank " + std::to_string(c.rank) + " of "
                + std::to_string(c.size) + ")";
        }
    }
    g.note(in.path, "NCCL Inspector log",
        f->host + " pid " + std::to_string(f->pid) + ", " + std::to_string(f->records.size()) + " collectives in "
            + std::to_string(f->comms.size()) + " communicators: " + comms
            + (f->verbose ? ", with kernel times" : ", times of writing only")
            + (f->p2p ? ", " + std::to_string(f->p2p) + " send/recv skipped" : std::string()));
    g.inspector.emplace_back(in.path.string(), std::move(f.value()));
    return std::nullopt;
}

// RAS stamps in the local time of the host that answered: the mapping file's "ras" zone, else the rank logs'.
LogClock rasClock(const Gathered& g)
{
    auto clock = g.clock;
    if (const auto it = g.mapping.timeZones.find("ras"); it != g.mapping.timeZones.end()) {
        clock.utcOffsetNs = it->second;
    }
    return clock;
}

std::optional<LoadIssue> addRasReport(FileInput& in, Gathered& g, Result<RasReport> r)
{
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    const auto said = countsByKind(r->facts);
    const bool monitor = r->form.rfind("monitor", 0) == 0;
    g.note(in.path, monitor ? "NCCL RAS monitor log" : "NCCL RAS status",
        (r->form.find("JSON") != std::string::npos ? "JSON, " : "")
            + (r->ncclVersion.empty() ? std::string() : "NCCL " + r->ncclVersion + ", ")
            + (r->processes ? std::to_string(r->processes) + " processes on " + std::to_string(r->nodes) + " nodes, "
                            : std::string())
            + (r->communicators ? std::to_string(r->communicators) + " communicators, " : std::string())
            + (said.empty() ? "nothing wrong reported" : said));
    g.ras.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addRasText(FileInput& in, Gathered& g)
{
    return addRasReport(in, g, parseRasText(in.path.string(), in.text, rasClock(g)));
}

std::optional<LoadIssue> addRasJson(FileInput& in, Gathered& g)
{
    return addRasReport(in, g, parseRasJson(in.path.string(), in.text, rasClock(g)));
}

// --- Fabric tools ---

std::optional<LoadIssue> addIbnetdiscover(FileInput& in, Gathered& g)
{
    const auto before = std::pair(g.fabric.nodeCount(), g.fabric.linkCount());
    auto r = readIbnetdiscover(in.path.string(), in.text, g.fabric, g.warnings);
    if (!r) {
        return r.error();
    }
    g.note(in.path, "ibnetdiscover topology",
        std::to_string(g.fabric.nodeCount() - before.first) + " new nodes, "
            + std::to_string(g.fabric.linkCount() - before.second) + " new links");
    return std::nullopt;
}

std::optional<LoadIssue> addIbNodeList(FileInput& in, Gathered& g)
{
    auto r = readIbNodeList(in.path.string(), in.text, g.fabric, g.warnings);
    if (!r) {
        return r.error();
    }
    g.note(in.path, "ibhosts/ibswitches node list",
        std::to_string(r->cas) + " HCAs, " + std::to_string(r->switches) + " switches"
            + (r->routers > 0 ? ", " + std::to_string(r->routers) + " routers" : std::string()) + "; no links");
    return std::nullopt;
}

std::optional<LoadIssue> addRankPlacement(FileInput& in, Gathered& g)
{
    auto r = parseRankPlacement(in.path.string(), in.text);
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    const bool counted = std::all_of(r->hosts.begin(), r->hosts.end(), [](const auto& h) { return h.slots > 0; });
    std::uint64_t slots = 0;
    for (const auto& h : r->hosts) {
        slots += h.slots;
    }
    g.note(in.path, "rank placement", r->source + ": " + std::to_string(r->hosts.size()) + " hosts"
            + (counted ? ", " + std::to_string(slots) + " ranks" : std::string(", ranks per host not said")));
    g.placements.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addIblinkinfo(FileInput& in, Gathered& g)
{
    auto r = readIblinkinfo(in.path.string(), in.text, g.fabric, g.warnings);
    if (!r) {
        return r.error();
    }
    const auto down = std::count_if(r->ports.begin(), r->ports.end(), [](const auto& s) { return !s.up; });
    g.note(in.path, "iblinkinfo", std::to_string(r->links) + " links up, " + std::to_string(down) + " ports down");
    g.linkinfo.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addPerfquery(FileInput& in, Gathered& g)
{
    auto r = readPerfquery(in.path.string(), in.text, g.warnings);
    if (!r) {
        return r.error();
    }
    g.note(in.path, "perfquery counters", std::to_string(r->size()) + " values");
    g.perfquery.emplace_back(DatedFile { in.path.string(), modifiedNs(in.path) }, std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addCollectorCsv(FileInput& in, Gathered& g)
{
    g.note(in.path, "counters CSV", "stallscope collect");
    g.csvs.push_back(in.path.string()); // read once the topology is known
    return std::nullopt;
}

std::optional<LoadIssue> addOpensmLog(FileInput& in, Gathered& g)
{
    auto opensmClock = g.clock;
    const auto zone = g.mapping.timeZones.find("opensm");
    opensmClock.utcOffsetNs = zone == g.mapping.timeZones.end() ? 0 : zone->second;
    auto l = parseOpensmLog(in.path.string(), in.text, opensmClock);
    if (l) {
        g.warn(l->warnings);
        g.note(in.path, "OpenSM log",
            std::to_string(l->events.size()) + " port removals/discoveries, " + std::to_string(l->linkStateTraps)
                + " link-state traps");
        g.opensm.push_back(std::move(l.value()));
    }
    return std::nullopt;
}

// --- Prometheus ---

// Lines into series and readings on a worker thread; the series resolved against the fabric in `add`.
std::any scanExposition(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto scan = scanPrometheusExposition(file, text);
    hold(scan.warnings, file);
    return scan;
}

// A series' id across the folder's scrapes: the same port counter in every file is one series.
std::uint32_t expositionSeriesId(const ExpositionSample& s, Gathered& g)
{
    const auto identity = (s.hostSide ? "h " + s.host + " " + s.device : "g " + std::to_string(s.guid)) + " "
        + std::to_string(s.port) + " " + std::to_string(static_cast<int>(s.kind));
    auto [it, fresh]
        = g.expositionSeriesIds.try_emplace(identity, static_cast<std::uint32_t>(g.expositionSeries.size()));
    if (fresh) {
        g.expositionSeries.push_back(s);
    }
    return it->second;
}

// A scrape's readings into the folder's counters (provisional: the fabric is not known yet), checked for going
// backwards in file order (`backwards`: one per file, whatever pieces it is read in); what is kept of the file is
// its states and dates.
void sinkExposition(const DatedFile& dated, ExpositionFile& ef, Gathered& g, BackwardsCheck& backwards)
{
    std::vector<std::uint32_t> idOf(ef.series.size());
    for (std::size_t i = 0; i < ef.series.size(); ++i) {
        idOf[i] = expositionSeriesId(ef.series[i], g);
    }
    for (const auto& p : ef.points) {
        const auto& s = ef.series[p.series];
        const auto t = p.timeNs == kNoTime ? dated.modified : p.timeNs;
        backwards.see(idOf[p.series], t, p.value, p.line, g.warnings, [&] {
            return (s.hostSide ? s.host + " " + s.device : formatGuid(s.guid)) + " port " + std::to_string(s.port) + " "
                + std::string(semantics(s.kind).name);
        });
        g.counters.provisional(idOf[p.series], s.kind, t, p.value);
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
std::optional<LoadIssue> addLargeExposition(FileInput& in, Gathered& g)
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
        if (!g.progress) {
            return false;
        }
        g.progress->report(stage, done, 2 * std::uint64_t(text.size()));
        return g.progress->cancelled();
    };
    forEachPiece(*map, text, from, g.scratch.pieceBytes, [&](std::string_view piece) {
        if (stop(piece)) {
            return false;
        }
        if (auto host = startExpositionScan(piece).unameHost; !host.empty()) {
            cursor.unameHost = std::move(host);
        }
        return true;
    });
    DatedFile dated { file, modifiedNs(in.path) };
    ExpositionFile kept; // states, counts and dates; the readings are in g.counters
    BackwardsCheck backwards(file);
    forEachPiece(*map, text, from, g.scratch.pieceBytes, [&](std::string_view piece) {
        if (stop(piece)) {
            return false;
        }
        auto r = resolvePrometheusExposition(file, scanPrometheusExpositionPart(file, piece, cursor), g.fabric);
        if (!r) {
            return true; // a piece of other series only (the whole file is judged below)
        }
        g.warn(r->warnings);
        sinkExposition(dated, r.value(), g, backwards);
        kept.hostSeries += r->hostSeries;
        kept.fabricSeries += r->fabricSeries;
        kept.infoSeries += r->infoSeries;
        kept.undated = kept.undated || r->undated;
        kept.states.insert(kept.states.end(), r->states.begin(), r->states.end());
        return true;
    });
    if (map->cutShort()) { // rewritten by its collector as we read: what came before the cut was read as written
        g.warnings.push_back({ file, 0, -1, map->cutShortMessage() + " (the readings before it are kept)" });
    }
    if (kept.hostSeries + kept.fabricSeries + kept.infoSeries == 0 && kept.states.empty()) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    g.note(in.path, "Prometheus exposition",
        std::to_string(kept.hostSeries) + " host-side and " + std::to_string(kept.fabricSeries)
            + " switch-side samples, " + std::to_string(kept.infoSeries) + " info series, read in pieces");
    g.exposition.emplace_back(std::move(dated), std::move(kept));
    return std::nullopt;
}

std::optional<LoadIssue> addExposition(FileInput& in, Gathered& g)
{
    if (!in.parsed.has_value()) {
        return addLargeExposition(in, g);
    }
    auto r
        = resolvePrometheusExposition(in.path.string(), std::move(std::any_cast<ExpositionScan&>(in.parsed)), g.fabric);
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    g.note(in.path, "Prometheus exposition",
        std::to_string(r->hostSeries) + " host-side and " + std::to_string(r->fabricSeries) + " switch-side samples, "
            + std::to_string(r->infoSeries) + " info series");
    DatedFile dated { in.path.string(), modifiedNs(in.path) };
    BackwardsCheck backwards(dated.file);
    sinkExposition(dated, r.value(), g, backwards);
    g.exposition.emplace_back(std::move(dated), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addMatrix(FileInput& in, Gathered& g)
{
    const auto file = in.path.string();
    auto m = parsePrometheusMatrix(file, in.text);
    if (!m) {
        return m.error();
    }
    g.warn(m->warnings);
    std::size_t switchSamples = 0;
    ExpositionFile labels; // info series, warnings
    for (auto& ls : m->switchSide) {
        const auto key = readExpositionSeriesKey(file, ls.line, g.fabric, labels);
        if (!key) {
            continue;
        }
        Gathered::SwitchSeries s;
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
        g.matrixSwitch.push_back(std::move(s));
    }
    g.warn(labels.warnings);
    g.note(in.path, "Prometheus matrix",
        std::to_string(m->series.size()) + " host-side series"
            + (switchSamples ? ", " + std::to_string(switchSamples) + " switch-side samples" : std::string()));
    std::move(m->series.begin(), m->series.end(), std::back_inserter(g.matrix));
    return std::nullopt;
}

// --- Rank logs and the mapping file ---

// One rank's facts into `g`; `partOf` > 0 when they came from a combined log of that many ranks. Named in the
// recognised files when `noteIt`; true when the rank said something about how it went.
bool addRankFacts(const fs::path& path, RankLogFacts f, std::size_t partOf, Gathered& g, bool noteIt = true)
{
    const bool named = !f.rank; // the content did not say: the name has to
    if (!f.rank && partOf == 0) {
        // "rank17.log", "rank_17.err", "17.log" — not "gpu-a017.log" or NCCL_DEBUG_FILE's "nccl.host.pid"
        f.rank = rankFromFolderName(path.stem().string());
        if (!f.rank) {
            f.rank = rankFromFolderName(path.parent_path().filename().string()); // "logs/17/stderr.log"
        }
        if (named && f.rank) {
            g.rankFromName.insert(g.logs.size());
        }
    }
    g.warn(f.warnings);
    // What the rank said about how it went: "2 completion errors, 1 watchdog timeout (1 without a time)".
    std::map<std::string_view, int> kinds;
    int untimed = 0;
    for (const auto& e : f.events) {
        ++kinds[toString(e.kind)];
        untimed += e.timeNs == kNoTime;
    }
    std::string said;
    for (const auto& [kind, n] : kinds) {
        said += (said.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(kind) + (n > 1 ? "s" : "");
    }
    if (untimed > 0 && !said.empty()) {
        said += " (" + std::to_string(untimed) + " without a time)";
    }
    if (noteIt) {
        g.note(path, "rank log",
            (f.rank ? "rank " + std::to_string(*f.rank) : std::string("no rank"))
                + (f.host.empty() ? "" : ", host " + f.host)
                + (partOf > 0 ? " (one of " + std::to_string(partOf) + " ranks in this file)" : "")
                + (said.empty() ? "" : ": " + said));
    } else {
        ++g.counts["rank log"];
    }
    g.logs.emplace_back(path.string(), std::move(f));
    return !said.empty();
}

// The host a file of kernel lines without host names is about: "gpu-b005.dmesg" or "gpu-b005/dmesg.txt" — the
// node tools' rule (a name with a digit and no tool's or capture's word in it), one for every host file.
std::string hostOfFile(const fs::path& path)
{
    return hostOfNodeFile(path.string());
}

// A log parsed once the clock is known (on a worker thread): Slurm's and the kernel's lines, and each rank's facts.
struct LogRead
{
    std::optional<Result<HostLogFacts>> host; // nullopt: not looked for (a rank log without host lines)
    std::vector<RankLogFacts> ranks; // one per process of a combined log that said something; one for a rank's own
    std::size_t parts = 0; // the processes a combined log holds (0: one file, one rank, named by the file maybe)
    std::optional<LoadIssue> rankError; // a rank's own log with nothing readable
};

std::any readHostLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    LogRead r;
    r.host = parseHostLog(file, text, clock, hostOfFile(file));
    return r;
}

// One process's share of a combined log, read into `r` when it says something.
void readPart(const std::string& file, const RankLines& part, const LogClock& clock, LogRead& r)
{
    auto f = parseRankLog(file, part.text, clock);
    if (!f) {
        return; // this rank printed nothing Stallscope reads
    }
    restoreLineNumbers(f.value(), file, part.lineNumbers);
    // The launcher's prefix names the global rank — unless it is srun's task and NCCL's world communicator
    // says this process is another rank (torchrun under srun: one task per node).
    const bool node = part.srunTask && f->rank && f->nranks && *f->rank != *part.rank;
    if (part.rank && !node) {
        f->rank = part.rank;
    }
    r.ranks.push_back(std::move(f.value()));
}

std::any readRankLog(const std::string& file, const std::string& original, const LogClock& clock)
{
    LogRead r;
    if (looksLikeHostLog(original)) { // a job's output: srun's fates after the ranks' lines
        r.host = parseHostLog(file, original, clock, hostOfFile(file));
    }
    // Lines pasted from a thread or written through a logger: their wrappers off, line for line.
    const auto unwrapped = logs::unwrapPastedLines(original);
    const std::string& text = unwrapped ? *unwrapped : original;
    const auto parts = splitByRankPrefix(text); // a launcher's combined output: one part per rank
    r.parts = parts.size();
    if (parts.empty()) {
        auto f = parseRankLog(file, text, clock);
        if (f) {
            r.ranks.push_back(std::move(f.value()));
        } else {
            r.rankError = f.error();
        }
        return r;
    }
    for (const auto& part : parts) {
        // srun's label over torchrun is a node: its part holds that node's ranks, told apart by NCCL's prefix.
        auto inner = part.srunTask ? splitByRankPrefix(part.text) : std::vector<RankLines> {};
        if (inner.empty()) {
            readPart(file, part, clock, r);
        }
        for (auto& p : inner) {
            for (auto& n : p.lineNumbers) {
                n = n >= 1 && static_cast<std::size_t>(n) <= part.lineNumbers.size() ? part.lineNumbers[n - 1] : n;
            }
            p.rank.reset(); // the lines say whose they are
            readPart(file, p, clock, r);
        }
    }
    return r;
}

// The log as Format::parseWithClock left it (readFolder parses every log on the worker threads first); parsed here
// when it was not, so `add` does not depend on that order.
LogRead logRead(
    FileInput& in, const Gathered& g, std::any (*read)(const std::string&, const std::string&, const LogClock&))
{
    auto any = in.parsed.has_value() ? std::move(in.parsed) : read(in.path.string(), in.text, g.clock);
    return std::any_cast<LogRead>(std::move(any));
}

// Slurm's and the kernel's lines (a file of their own, or a job's output that also holds rank lines).
void addHostFacts(const fs::path& path, Result<HostLogFacts> f, Gathered& g, bool alone)
{
    if (!f) {
        if (alone) {
            g.warnings.push_back(f.error());
        }
        return;
    }
    g.warn(f->warnings);
    auto said = countsByKind(f->events);
    if (alone && f->unknownLines > 0) { // a kernel log is mostly other messages: how many, and the first
        said += "; " + std::to_string(f->unknownLines) + " other lines kept unread (first: line "
            + std::to_string(f->unknown.front().first) + " \"" + f->unknown.front().second.substr(0, 60) + "\")";
    }
    g.note(path, alone ? "host log" : "host lines in a rank log", said);
    g.hostLogs.emplace_back(path.string(), std::move(f.value()));
}

std::optional<LoadIssue> addHostLog(FileInput& in, Gathered& g)
{
    auto r = logRead(in, g, readHostLog);
    addHostFacts(in.path, std::move(*r.host), g, true);
    return std::nullopt;
}

std::optional<LoadIssue> addRankLog(FileInput& in, Gathered& g)
{
    auto r = logRead(in, g, readRankLog);
    if (r.host) {
        addHostFacts(in.path, std::move(*r.host), g, false);
    }
    if (r.rankError) {
        g.warnings.push_back(*r.rankError);
    }
    // A launcher's output of a whole job holds every process: the first are named one by one, the rest counted
    // (a log naming 1,000,000 processes printed 1,000,000 lines in `info` and the window).
    constexpr std::size_t kNamedEach = 16;
    std::size_t saidMore = 0;
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
        saidMore += addRankFacts(in.path, std::move(r.ranks[i]), r.parts, g, i < kNamedEach) && i >= kNamedEach;
    }
    if (r.ranks.size() > kNamedEach) {
        g.recognised.push_back(g.shown(in.path) + ": rank log, and " + std::to_string(r.ranks.size() - kNamedEach)
            + " more of the " + std::to_string(r.parts) + " ranks in this file, read like those above"
            + (saidMore > 0 ? " (" + std::to_string(saidMore) + " of them said how they went: see the incidents)"
                            : std::string()));
    }
    return std::nullopt;
}

// The Flight Recorder analyzer's output, saved or pasted: read before the clocks are known (it carries no time, so
// it says nothing about the year). A job's output that also holds the ranks' own lines is read in the logs' phase,
// as a rank log too (frTraceInRankLog).
bool frTraceAlone(const std::string& text)
{
    return !looksLikeRankLog(text) && looksLikeFrTraceText(text); // the cheaper test first
}

bool frTraceInRankLog(const std::string& text)
{
    return looksLikeRankLog(text) && looksLikeFrTraceText(text);
}

std::optional<LoadIssue> addFrTrace(FileInput& in, Gathered& g)
{
    auto r = parseFrTraceText(in.path.string(), in.text);
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    const auto said = countsByKind(r->facts);
    g.note(in.path, "Flight Recorder analyzer output", said.empty() ? "no rank named" : said);
    g.frTrace.emplace_back(in.path.string(), std::move(r.value()));
    return looksLikeRankLog(in.text) ? addRankLog(in, g) : std::nullopt;
}

std::optional<LoadIssue> addMapping(FileInput& in, Gathered& g)
{
    auto m = parseMapping(in.path.string(), in.text);
    if (!m) {
        return m.error();
    }
    g.mapping = std::move(m.value());
    g.haveMapping = true;
    if (auto it = g.mapping.timeZones.find("rank_logs"); it != g.mapping.timeZones.end()) {
        g.clock.utcOffsetNs = it->second;
    }
    g.note(in.path, "mapping file",
        std::to_string(g.mapping.ranks.size()) + " rank placements, " + std::to_string(g.mapping.timeZones.size())
            + " time zones, " + std::to_string(g.mapping.clockOffsets.size()) + " clock offsets");
    return std::nullopt;
}

// --- Known, not read ---

bool looksLikeSimulatorTruth(const std::string& text)
{
    return findText(text, kSimulatorTruthMarker) != std::string::npos;
}

std::optional<LoadIssue> noteIbsimNet(FileInput& in, Gathered& g)
{
    g.note(in.path, "ibsim net file", "the simulator's input, not read (captures of the fabric are)");
    return std::nullopt;
}

// A training exercise's sheet (docs/training.md): the briefing, read by the Training menu, not by the import.
bool looksLikeExerciseSheet(const std::string& text)
{
    return findText(text, "\"format\": \"stallscope-exercise\"") != std::string::npos;
}

std::optional<LoadIssue> noteExerciseSheet(FileInput& in, Gathered& g)
{
    g.note(in.path, "training exercise sheet", "the briefing of the exercise this folder is");
    return std::nullopt;
}

std::optional<LoadIssue> noteTruth(FileInput& in, Gathered& g)
{
    g.note(in.path, "simulator truth", "not read: it is what the analysis is checked against");
    return std::nullopt;
}

bool pickleText(const std::string& text)
{
    return looksLikeFlightRecorderPickle(text);
}

} // namespace

const std::vector<Format>& formats()
{
    // Order matters where formats overlap: JSON kinds before the text kinds whose markers they may quote,
    // ibsim's net file before ibnetdiscover, rank logs before exposition text (a log may print metric lines).
    static const std::vector<Format> table = {
        { "Flight Recorder pickle dump", pickleText, 0, parsePickleDump, addPickleDump },
        // Before the scrapes of fabric counters: a DCGM scrape is exposition text too, of GPU fields.
        { "dcgm-exporter scrape", looksLikeDcgmScrape, 3, nullptr, addDcgm },
        // Scrape files are large and unmistakable from their first sample line: recognised here, before every
        // recogniser that would scan them whole (the full test, below, finds IB series deep in a full scrape).
        { "Prometheus exposition", looksLikeExpositionHead, 0, scanExposition, addExposition, true },
        { "NCCL Inspector log", looksLikeNcclInspector, 0, parseInspector, addInspector },
        { "NCCL RAS JSON", looksLikeRasJson, 3, nullptr, addRasJson },
        { "profiler trace", looksLikeKinetoTrace, 0, parseTrace, addTrace },
        { "Flight Recorder JSON dump", looksLikeFlightRecorderJson, 0, parseJsonDump, addJsonDump },
        { "Prometheus matrix", looksLikePrometheusMatrix, 0, nullptr, addMatrix },
        { "counters CSV", looksLikeCollectorCsv, 0, nullptr, addCollectorCsv, true },
        { "mapping file", looksLikeMapping, 0, nullptr, addMapping },
        { "simulator truth", looksLikeSimulatorTruth, 0, nullptr, noteTruth },
        { "training exercise sheet", looksLikeExerciseSheet, 0, nullptr, noteExerciseSheet },
        { "ibsim net file", looksLikeIbsimNet, 0, nullptr, noteIbsimNet },
        // Before ibnetdiscover: ibswitches' "Switch\t: 0x…" lines start as ibnetdiscover's "Switch\t36 …" do.
        { "ibhosts/ibswitches node list", looksLikeIbNodeList, 0, nullptr, addIbNodeList },
        { "ibnetdiscover topology", looksLikeIbnetdiscover, 0, nullptr, addIbnetdiscover },
        { "iblinkinfo", looksLikeIblinkinfo, 1, nullptr, addIblinkinfo },
        { "perfquery counters", looksLikePerfquery, 2, nullptr, addPerfquery },
        { "node InfiniBand tools", looksLikeNodeTools, 3, nullptr, addNodeTools },
        { "NCCL RAS output", looksLikeRasText, 3, nullptr, addRasText },
        { "OpenSM log", looksLikeOpensmLog, 3, nullptr, addOpensmLog },
        { "Flight Recorder analyzer output", frTraceAlone, 0, nullptr, addFrTrace },
        { "Flight Recorder analyzer output", frTraceInRankLog, 3, nullptr, addFrTrace },
        { "rank log", looksLikeRankLog, 3, nullptr, addRankLog, false, readRankLog },
        { "host log", looksLikeHostLog, 3, nullptr, addHostLog, false, readHostLog },
        { "rank placement", looksLikeRankPlacement, 3, nullptr, addRankPlacement },
        { "Prometheus exposition", looksLikePrometheusExposition, 0, scanExposition, addExposition },
    };
    return table;
}

const Format* recognise(const std::string& text)
{
    for (const auto& f : formats()) {
        if (f.recognise(text)) {
            return &f;
        }
    }
    return nullptr;
}

std::optional<std::uint32_t> rankFromFolderName(const std::string& name)
{
    std::string digits = name;
    for (const char* prefix : { "rank_", "rank-", "rank" }) {
        if (digits.rfind(prefix, 0) == 0) {
            digits = digits.substr(std::strlen(prefix));
            break;
        }
    }
    if (digits.empty() || digits.size() > 7 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) {
        return std::nullopt;
    }
    return parseNumber<std::uint32_t>(digits);
}

} // namespace stallscope::folder
