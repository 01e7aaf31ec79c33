// SPDX-License-Identifier: MIT
#include "folder_import.h"

#include "import_flight_recorder.h"
#include "import_ibnetdiscover.h"
#include "import_opensm_log.h"
#include "import_prometheus.h"
#include "import_rank_log.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

enum class Kind {
    FlightRecorderJson,
    FlightRecorderPickle,
    RankLog,
    Ibnetdiscover,
    CollectorCsv,
    OpensmLog,
    PrometheusMatrix,
    Unknown
};

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// By content: the first bytes and a few markers (formats.md "Quick identification").
Kind sniff(const std::string& text)
{
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x80 && text[1] >= 2 && text[1] <= 5) {
        return Kind::FlightRecorderPickle;
    }
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{' && text.find("\"entries\"") != std::string::npos
        && text.find("\"version\"") != std::string::npos) {
        return Kind::FlightRecorderJson;
    }
    if (first != std::string::npos && text[first] == '{'
        && text.find("\"collective_seq_id\"") < text.find('\n', first)) { // JSON lines, one entry a line
        return Kind::FlightRecorderJson;
    }
    if (looksLikePrometheusMatrix(text)) {
        return Kind::PrometheusMatrix;
    }
    if (text.rfind("t_ns,host,device,port", 0) == 0) {
        return Kind::CollectorCsv;
    }
    if (text.find("\nSwitch\t") != std::string::npos || text.rfind("Switch\t", 0) == 0
        || text.find("# Topology file") != std::string::npos
        || (text.rfind("SW ", 0) == 0 && text.find(" - ") != std::string::npos)) {
        return Kind::Ibnetdiscover;
    }
    if (looksLikeOpensmLog(text)) {
        return Kind::OpensmLog;
    }
    if (text.find("NCCL INFO") != std::string::npos || text.find("NCCL WARN") != std::string::npos
        || text.find("[rank") != std::string::npos) {
        return Kind::RankLog;
    }
    return Kind::Unknown;
}

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == ',') {
        out.emplace_back();
    }
    return out;
}

struct Gathered
{
    std::vector<std::pair<std::string, FrDump>> dumps;
    std::vector<std::pair<std::string, RankLogFacts>> logs;
    std::optional<ImportedTopology> topology;
    std::vector<std::pair<std::string, std::string>> csvs; // file, text
    std::vector<OpensmLog> opensm;
    std::vector<PromSeries> prometheus;
};

// Counters from collector CSV rows: one series per (host, device, port, counter), raw values.
// Where imported counter series go: node lookup by description ("<host> <hca>"), one counter port per
// (GUID, port), series columns owned by the snapshot. Shared by every counter source.
struct CounterSink
{
    JobSnapshot& snap;
    OwnedColumns& owned;
    std::vector<std::uint32_t>& seriesBlock;
    std::unordered_map<std::string, std::uint64_t> guidByDesc;
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::uint32_t> portIndex;

    CounterSink(JobSnapshot& s, OwnedColumns& o, std::vector<std::uint32_t>& b)
        : snap(s)
        , owned(o)
        , seriesBlock(b)
    {
        for (const auto& n : snap.topology.nodes()) {
            guidByDesc.emplace(snap.str(n.description), n.guid);
        }
    }
    std::optional<std::uint64_t> guidOf(const std::string& desc) const
    {
        auto it = guidByDesc.find(desc);
        return it == guidByDesc.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
    }
    // Raw values at full width (the sources do not say the counter's width).
    void add(std::uint64_t guid, std::uint16_t port, CounterKind kind, std::vector<TimeNs> times,
        const std::vector<std::uint64_t>& values)
    {
        auto [pit, fresh] = portIndex.try_emplace({ guid, port }, static_cast<std::uint32_t>(snap.counterPorts.size()));
        if (fresh) {
            snap.counterPorts.push_back({ guid, port, std::nullopt });
        }
        CounterSeries cs;
        cs.port = pit->second;
        cs.kind = kind;
        cs.bits = semantics(kind).defaultBits;
        cs.storageBytes = 8;
        std::vector<std::uint8_t> bytes(values.size() * 8);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        seriesBlock.push_back(static_cast<std::uint32_t>(owned.counterTimes.size()));
        owned.counterTimes.push_back(std::move(times));
        owned.counterValues.push_back(std::move(bytes));
        snap.counters.push_back(cs);
    }
};

void addCollectorCounters(
    const std::string& file, const std::string& text, CounterSink& sink, std::vector<LoadIssue>& warnings)
{
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    const auto header = splitCsv(line);
    struct Acc
    {
        std::vector<TimeNs> t;
        std::vector<std::uint64_t> v;
    };
    std::map<std::tuple<std::string, std::string, std::string, std::size_t>, Acc> series;
    std::int64_t lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto cells = splitCsv(line);
        if (cells.size() != header.size()) {
            warnings.push_back({ file, lineNo, -1,
                "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(cells.size())
                    + ": row skipped" });
            continue;
        }
        TimeNs t = 0;
        try {
            t = std::stoll(cells[0]);
        } catch (...) {
            warnings.push_back({ file, lineNo, -1, "expected a time in ns in the first column: row skipped" });
            continue;
        }
        for (std::size_t c = 5; c < header.size(); ++c) {
            if (cells[c].empty() || !parseCounterKind(header[c])) {
                continue;
            }
            std::uint64_t value = 0;
            try {
                std::size_t used = 0;
                value = std::stoull(cells[c], &used);
                if (used != cells[c].size()) {
                    throw std::invalid_argument("trailing characters");
                }
            } catch (const std::exception&) {
                warnings.push_back({ file, lineNo, -1,
                    "column \"" + header[c] + "\": expected a counter value, got \"" + cells[c]
                        + "\": sample skipped" });
                continue;
            }
            auto& acc = series[{ cells[1], cells[2], cells[3], c }];
            acc.t.push_back(t);
            acc.v.push_back(value);
        }
    }
    for (auto& [key, acc] : series) {
        const auto& [host, device, port, column] = key;
        const auto guid = sink.guidOf(host + " " + device);
        if (!guid) {
            warnings.push_back(
                { file, 0, -1, "no topology node named \"" + host + " " + device + "\": its counters are skipped" });
            continue;
        }
        sink.add(*guid, static_cast<std::uint16_t>(std::atoi(port.c_str())), *parseCounterKind(header[column]),
            std::move(acc.t), acc.v);
    }
}

} // namespace

bool isRawFolder(const std::string& dir)
{
    std::error_code ec;
    return fs::is_directory(dir, ec) && !fs::exists(fs::path(dir) / "manifest.json", ec);
}

Result<LoadedBundle> loadRawFolder(const std::string& dir, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    LoadedBundle out;
    auto snap = std::make_shared<JobSnapshot>();
    Gathered g;
    std::map<std::string, int> recognised;
    std::error_code ec;
    std::vector<fs::path> files;
    std::vector<std::pair<fs::path, std::string>> deferred; // logs: local times without a year
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.is_regular_file(ec)) {
            files.push_back(e.path());
            out.bytesOnDisk += e.file_size(ec);
        }
    }
    std::sort(files.begin(), files.end());
    for (std::size_t i = 0; i < files.size(); ++i) {
        progress.report("Recognising files", i, files.size());
        const auto& p = files[i];
        const auto text = readAll(p);
        const auto file = p.string();
        switch (sniff(text)) {
        case Kind::FlightRecorderJson:
        case Kind::FlightRecorderPickle: {
            const bool pickle = sniff(text) == Kind::FlightRecorderPickle;
            auto d = pickle ? parseFlightRecorderPickle(file, text) : parseFlightRecorderJson(file, text);
            if (!d) {
                return d.error();
            }
            if (!d->rank) {
                out.warnings.push_back({ file, 0, -1, "Flight Recorder dump without a rank in its name: skipped" });
                break;
            }
            out.warnings.insert(out.warnings.end(), d->warnings.begin(), d->warnings.end());
            const std::string what = pickle ? "Flight Recorder pickle dump" : "Flight Recorder JSON dump";
            out.recognised.push_back(p.filename().string() + ": " + what + ", rank " + std::to_string(*d->rank)
                + ", version " + d->version + ", " + std::to_string(d->entries.size()) + " collectives");
            g.dumps.emplace_back(file, std::move(d.value()));
            ++recognised[what];
            break;
        }
        case Kind::RankLog:
        case Kind::OpensmLog:
            deferred.emplace_back(p, text); // needs the year from the dumps: parsed below
            break;
        case Kind::Ibnetdiscover: {
            auto t = parseIbnetdiscover(file, text, snap->strings);
            if (!t) {
                return t.error();
            }
            out.warnings.insert(out.warnings.end(), t->warnings.begin(), t->warnings.end());
            out.recognised.push_back(p.filename().string() + ": ibnetdiscover topology, "
                + std::to_string(t->topology.nodes().size()) + " nodes, " + std::to_string(t->topology.links().size())
                + " links");
            g.topology = std::move(t.value());
            ++recognised["ibnetdiscover topology"];
            break;
        }
        case Kind::CollectorCsv:
            out.recognised.push_back(p.filename().string() + ": counters CSV (stallscope collect)");
            g.csvs.emplace_back(file, text);
            ++recognised["counters CSV"];
            break;
        case Kind::PrometheusMatrix: {
            auto m = parsePrometheusMatrix(file, text);
            if (!m) {
                return m.error();
            }
            out.warnings.insert(out.warnings.end(), m->warnings.begin(), m->warnings.end());
            out.recognised.push_back(p.filename().string() + ": Prometheus query_range matrix, "
                + std::to_string(m->series.size()) + " InfiniBand counter series");
            for (auto& ps : m->series) {
                g.prometheus.push_back(std::move(ps));
            }
            ++recognised["Prometheus matrix"];
            break;
        }
        case Kind::Unknown:
            out.warnings.push_back({ file, 0, -1, "not a recognised format: skipped" });
            break;
        }
    }
    if (g.dumps.empty()) {
        return LoadIssue { dir, 0, -1,
            "manifest.json is missing and no Flight Recorder dump was found: nothing to open" };
    }
    // Logs carry local times without a year: take the year from the dumps (epoch ns, UTC).
    LogClock clock;
    for (const auto& [file, d] : g.dumps) {
        if (!d.entries.empty()) {
            const auto secs = static_cast<std::time_t>(d.entries.front().enqueueNs / kNsPerSec);
            std::tm tm {};
            gmtime_r(&secs, &tm);
            clock.year = tm.tm_year + 1900;
            break;
        }
    }
    for (const auto& [p, text] : deferred) {
        const auto file = p.string();
        if (looksLikeOpensmLog(text)) {
            auto l = parseOpensmLog(file, text, clock);
            if (l) {
                out.warnings.insert(out.warnings.end(), l->warnings.begin(), l->warnings.end());
                out.recognised.push_back(p.filename().string() + ": OpenSM log, " + std::to_string(l->events.size())
                    + " port removals/discoveries, " + std::to_string(l->linkStateTraps) + " link-state traps");
                g.opensm.push_back(std::move(l.value()));
                ++recognised["OpenSM log"];
            }
            continue;
        }
        auto f = parseRankLog(file, text, clock);
        if (f && !f->rank) {
            f->rank = rankFromFileName(p.stem().string()); // "rank17.log" when no [rank17] line
        }
        if (f) {
            out.warnings.insert(out.warnings.end(), f->warnings.begin(), f->warnings.end());
            out.recognised.push_back(p.filename().string() + ": rank log"
                + (f->rank ? ", rank " + std::to_string(*f->rank) : std::string())
                + (f->host.empty() ? "" : ", host " + f->host));
            g.logs.emplace_back(file, std::move(f.value()));
            ++recognised["rank log"];
        }
    }
    // Ranks and groups.
    std::uint32_t world = 0;
    for (const auto& [file, d] : g.dumps) {
        world = std::max(world, *d.rank + 1);
        for (const auto& [name, grp] : d.groups) {
            for (auto r : grp.ranks) {
                world = std::max(world, r + 1);
            }
        }
    }
    snap->job.name = fs::path(dir).filename().string();
    snap->job.worldSize = world;
    snap->ranks.assign(world, RankInfo {});
    std::map<std::string, std::uint16_t> groupIndex;
    for (const auto& [file, d] : g.dumps) {
        for (const auto& [name, grp] : d.groups) {
            if (groupIndex.count(name)) {
                continue;
            }
            groupIndex[name] = static_cast<std::uint16_t>(snap->groups.size());
            ProcessGroup pg { snap->strings.intern(name), snap->strings.intern(grp.desc), grp.ranks };
            std::sort(pg.ranks.begin(), pg.ranks.end());
            snap->groups.push_back(std::move(pg));
        }
    }
    // Rank → host → HCA from the logs: the HCA NCCL uses for the rank's CUDA device.
    for (const auto& [file, f] : g.logs) {
        if (!f.rank || *f.rank >= world) {
            continue;
        }
        auto& ri = snap->ranks[*f.rank];
        ri.host = snap->strings.intern(f.host);
        ri.localGpu = static_cast<std::uint16_t>(f.cudaDev.value_or(0));
        if (!f.hcas.empty()) {
            const auto d = static_cast<std::size_t>(f.cudaDev.value_or(0));
            ri.hca = snap->strings.intern(f.hcas.size() == 1 ? f.hcas[0] : f.hcas[std::min(d, f.hcas.size() - 1)]);
        }
    }
    // Collectives.
    auto owned = std::make_shared<OwnedColumns>();
    owned->ranks.resize(world);
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const auto& [file, d] : g.dumps) {
        auto& col = owned->ranks[*d.rank];
        for (const auto& e : d.entries) {
            auto git = groupIndex.find(e.pg);
            if (git == groupIndex.end()) {
                groupIndex[e.pg] = static_cast<std::uint16_t>(snap->groups.size());
                snap->groups.push_back({ snap->strings.intern(e.pg), {}, {} });
                git = groupIndex.find(e.pg);
                out.warnings.push_back({ file, 0, -1, "process group \"" + e.pg + "\" is not in pg_config" });
            }
            auto shape = internShape(snap->shapes, { git->second, e.op, e.bytes });
            if (!shape) {
                return LoadIssue { file, 0, -1, "more than 65535 distinct (group, op, bytes) shapes" };
            }
            col.push(e.enqueueNs, e.startNs, e.endNs, e.seq, *shape, e.state);
            first = std::min(first, e.enqueueNs);
        }
        col.sortByEnqueue();
    }
    snap->job.clockOriginNs = first == std::numeric_limits<TimeNs>::max() ? 0 : first;
    snap->job.span = { snap->job.clockOriginNs, snap->job.clockOriginNs };
    if (g.topology) {
        snap->topology = std::move(g.topology->topology);
    }
    std::vector<std::uint32_t> seriesBlock;
    CounterSink sink(*snap, *owned, seriesBlock);
    for (const auto& [file, text] : g.csvs) {
        addCollectorCounters(file, text, sink, out.warnings);
    }
    // Port events the ranks saw on their own HCA become link events ("nccl" source).
    const auto source = snap->strings.intern("nccl");
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if ((e.kind != LogEventKind::PortError && e.kind != LogEventKind::PortActive) || e.timeNs == kNoTime) {
                continue;
            }
            const auto hca = e.hca.empty() && !f.hcas.empty() ? f.hcas[0] : e.hca;
            if (const auto guid = sink.guidOf(f.host + " " + hca)) {
                snap->linkEvents.push_back({ e.timeNs, *guid, 1,
                    e.kind == LogEventKind::PortError ? LinkState::Down : LinkState::Up, source });
            }
        }
    }
    // Prometheus series: host + device → the HCA node; one counter series each (values already in model units).
    for (auto& ps : g.prometheus) {
        const auto guid = sink.guidOf(ps.host + " " + ps.device);
        if (!guid) {
            out.warnings.push_back({ dir, 0, -1,
                "Prometheus series of \"" + ps.host + " " + ps.device + "\" match no HCA in the topology: skipped" });
            continue;
        }
        sink.add(*guid, ps.port, ps.kind, std::move(ps.timesNs), ps.values);
    }
    // The subnet manager removing / rediscovering an HCA port: the link down / up ("opensm" source).
    const auto opensm = snap->strings.intern("opensm");
    for (const auto& log : g.opensm) {
        for (const auto& e : log.events) {
            if (const auto guid = sink.guidOf(e.nodeDescription)) {
                snap->linkEvents.push_back({ e.timeNs, *guid, 1, e.up ? LinkState::Up : LinkState::Down, opensm });
            }
        }
    }
    std::stable_sort(snap->linkEvents.begin(), snap->linkEvents.end(),
        [](const LinkEvent& a, const LinkEvent& b) { return a.timeNs < b.timeNs; });
    attachOwnedColumns(*snap, owned, seriesBlock);
    resolveJoins(*snap);
    // The span covers every record and sample.
    TimeNs lo = snap->job.span.start, hi = snap->job.span.end;
    for (const auto& c : snap->collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            for (auto t : { c.enqueueNs[i], c.startNs[i], c.endNs[i] }) {
                if (t != kNoTime) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            }
        }
    }
    snap->job.span = { lo, hi };
    std::string summary;
    for (const auto& [what, n] : recognised) {
        summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + what + (n > 1 ? "s" : "");
    }
    out.recognised.insert(out.recognised.begin(), summary);
    out.collectiveBytes = owned->memoryBytes();
    out.snapshot = std::move(snap);
    out.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace stallscope
