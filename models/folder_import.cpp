// SPDX-License-Identifier: MIT
#include "folder_import.h"

#include "counter_sink.h"
#include "fabric_builder.h"
#include "import_fabric_tools.h"
#include "import_flight_recorder.h"
#include "import_ibnetdiscover.h"
#include "import_kineto.h"
#include "import_opensm_log.h"
#include "import_prom_text.h"
#include "import_prometheus.h"
#include "import_rank_log.h"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

enum class Kind {
    FlightRecorderJson,
    FlightRecorderPickle,
    KinetoTrace,
    RankLog,
    Ibnetdiscover,
    Iblinkinfo,
    Perfquery,
    CollectorCsv,
    OpensmLog,
    PrometheusMatrix,
    PrometheusText,
    IbsimNet,
    SimulatorTruth,
    Unknown
};

// The file's bytes; gzip files (profiler traces are often .json.gz) are inflated. A corrupt gzip stream
// gives what inflated before the damage; the format reader then reports the truncation.
std::string readAll(const fs::path& p)
{
    std::string bytes;
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
        return bytes;
    }
    bytes.reserve(size + jsonPadding()); // simdjson reads up to its padding past the end
    bytes.resize(size);
    if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
        bytes.resize(std::fread(bytes.data(), 1, size, f));
        std::fclose(f);
    } else {
        bytes.clear();
    }
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f
        || static_cast<unsigned char>(bytes[1]) != 0x8b) {
        return bytes;
    }
    std::string out;
    z_stream z {};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        return bytes;
    }
    z.next_in = reinterpret_cast<Bytef*>(bytes.data());
    z.avail_in = static_cast<uInt>(bytes.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (rc == Z_STREAM_END && z.avail_in > 0) { // concatenated members
            inflateReset(&z);
            rc = Z_OK;
        }
    }
    inflateEnd(&z);
    out.reserve(out.size() + jsonPadding());
    return out;
}

// Every regular file under `dir`, a few levels deep (clusters leave logs/rank17/stderr.log and the like);
// hidden entries and symbolic links to folders are not followed.
std::vector<fs::path> listFiles(const fs::path& dir, std::uint64_t& bytes)
{
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (!name.empty() && name[0] == '.') {
            if (it->is_directory(ec)) {
                it.disable_recursion_pending();
            }
            continue;
        }
        if (it.depth() >= 4 && it->is_directory(ec)) {
            it.disable_recursion_pending();
        }
        if (it->is_regular_file(ec)) {
            files.push_back(it->path());
            bytes += it->file_size(ec);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// By content: the first bytes and a few markers (formats.md "Quick identification").
Kind sniff(const std::string& text)
{
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x80 && text[1] >= 2 && text[1] <= 5) {
        return Kind::FlightRecorderPickle;
    }
    if (looksLikeKinetoTrace(text)) {
        return Kind::KinetoTrace;
    }
    const auto first = text.find_first_not_of(" \t\r\n");
    const bool object = first != std::string::npos && text[first] == '{';
    if (object && text.find("\"entries\"") != std::string::npos && text.find("\"version\"") != std::string::npos) {
        return Kind::FlightRecorderJson;
    }
    if (object && text.find("\"collective_seq_id\"") < text.find('\n', first)) { // JSON lines, one entry a line
        return Kind::FlightRecorderJson;
    }
    if (looksLikePrometheusMatrix(text)) {
        return Kind::PrometheusMatrix;
    }
    if (text.rfind("t_ns,host,device,port", 0) == 0) {
        return Kind::CollectorCsv;
    }
    if (text.find("\"generator\": \"stallscope simulate\"") != std::string::npos) {
        return Kind::SimulatorTruth;
    }
    if (text.rfind("Hca\t", 0) == 0 || text.find("\nHca\t") != std::string::npos) {
        return Kind::IbsimNet; // ibsim's net file: node ids, no GUIDs
    }
    if (text.find("\nSwitch\t") != std::string::npos || text.rfind("Switch\t", 0) == 0
        || text.find("# Topology file") != std::string::npos
        || ((text.rfind("SW ", 0) == 0 || text.rfind("CA ", 0) == 0) && text.find(" - ") != std::string::npos)) {
        return Kind::Ibnetdiscover;
    }
    if (looksLikeIblinkinfo(text)) {
        return Kind::Iblinkinfo;
    }
    if (looksLikePerfquery(text)) {
        return Kind::Perfquery;
    }
    if (looksLikeOpensmLog(text)) {
        return Kind::OpensmLog;
    }
    if (text.find("NCCL INFO") != std::string::npos || text.find("NCCL WARN") != std::string::npos
        || text.find("[rank") != std::string::npos) {
        return Kind::RankLog;
    }
    if (looksLikePrometheusExposition(text)) {
        return Kind::PrometheusText;
    }
    return Kind::Unknown;
}

// Files whose reading depends on others come later: iblinkinfo names peers by the LIDs topology files
// gave; logs take their year from the dumps; perfquery blocks name ports by LID.
int order(Kind k)
{
    switch (k) {
    case Kind::Iblinkinfo:
        return 1;
    case Kind::Perfquery:
        return 2;
    case Kind::RankLog:
    case Kind::OpensmLog:
        return 3;
    default:
        return 0;
    }
}

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

struct DatedFile
{
    std::string file;
    TimeNs modified = kNoTime; // the sample time of undated snapshots
};

// What the folder's files say, before it becomes a snapshot.
struct Gathered
{
    std::vector<std::pair<std::string, FrDump>> dumps;
    std::vector<std::pair<std::string, FrDump>> traces; // profiler traces, as dumps without open entries
    std::uint32_t worldHint = 0; // distributedInfo.world_size
    std::vector<std::pair<std::string, RankLogFacts>> logs;
    std::vector<OpensmLog> opensm;
    std::vector<PromSeries> matrix;
    std::vector<std::pair<DatedFile, ExpositionFile>> exposition;
    std::vector<std::pair<DatedFile, std::vector<PerfquerySample>>> perfquery;
    std::vector<std::pair<std::string, IblinkinfoSnapshot>> linkinfo;
    std::vector<std::pair<std::string, std::string>> csvs; // file, text
    FabricBuilder fabric;
    LogClock clock;
    bool yearKnown = false;

    std::vector<LoadIssue> warnings;
    std::vector<std::string> recognised;
    std::map<std::string, int> counts;

    void note(const fs::path& p, const std::string& what, const std::string& detail)
    {
        recognised.push_back(p.filename().string() + ": " + what + (detail.empty() ? "" : ", " + detail));
        ++counts[what];
    }
    template <typename W> void warn(const W& ws) { warnings.insert(warnings.end(), ws.begin(), ws.end()); }
};

// "17" or "rank17" / "rank_17" as a folder name; not "attempt_0".
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
    return static_cast<std::uint32_t>(std::stoul(digits));
}

void learnYear(Gathered& g)
{
    for (const auto* list : { &g.dumps, &g.traces }) {
        for (const auto& [file, d] : *list) {
            if (d.entries.empty()) {
                continue;
            }
            const auto secs = static_cast<std::time_t>(d.entries.front().enqueueNs / kNsPerSec);
            std::tm tm {};
            gmtime_r(&secs, &tm);
            g.clock.year = tm.tm_year + 1900; // logs carry local times without a year
            return;
        }
    }
}

// One file: recognised and read into `g`. A file that cannot be read is returned as an issue; the caller
// leaves it out with a warning (partial input opens).
std::optional<LoadIssue> readOne(const fs::path& p, Kind kind, const std::string& text, Gathered& g)
{
    const auto file = p.string();
    switch (kind) {
    case Kind::FlightRecorderJson:
    case Kind::FlightRecorderPickle: {
        const bool pickle = kind == Kind::FlightRecorderPickle;
        auto d = pickle ? parseFlightRecorderPickle(file, text) : parseFlightRecorderJson(file, text);
        if (!d) {
            g.warnings.push_back({ d.error().file, d.error().line, d.error().offset,
                d.error().message + " (this rank's dump is left out)" });
            return std::nullopt;
        }
        if (!d->rank) {
            g.warnings.push_back({ file, 0, -1, "Flight Recorder dump without a rank in its name: skipped" });
            return std::nullopt;
        }
        g.warn(d->warnings);
        g.note(p, pickle ? "Flight Recorder pickle dump" : "Flight Recorder JSON dump",
            "rank " + std::to_string(*d->rank) + ", version " + d->version + ", " + std::to_string(d->entries.size())
                + " collectives");
        g.dumps.emplace_back(file, std::move(d.value()));
        return std::nullopt;
    }
    case Kind::KinetoTrace: {
        auto t = parseKinetoTrace(file, text);
        if (!t) {
            return t.error();
        }
        if (!t->rank) {
            g.warnings.push_back({ file, 0, -1, "profiler trace without distributedInfo.rank: skipped" });
            return std::nullopt;
        }
        g.warn(t->collectives.warnings);
        g.note(p, "profiler trace",
            "rank " + std::to_string(*t->rank) + ", " + std::to_string(t->collectives.entries.size())
                + " NCCL kernels with collective args");
        g.worldHint = std::max(g.worldHint, t->worldSize);
        g.traces.emplace_back(file, std::move(t->collectives));
        return std::nullopt;
    }
    case Kind::Ibnetdiscover: {
        const auto before = std::pair(g.fabric.nodeCount(), g.fabric.linkCount());
        auto r = readIbnetdiscover(file, text, g.fabric, g.warnings);
        if (!r) {
            return r.error();
        }
        g.note(p, "ibnetdiscover topology",
            std::to_string(g.fabric.nodeCount() - before.first) + " new nodes, "
                + std::to_string(g.fabric.linkCount() - before.second) + " new links");
        return std::nullopt;
    }
    case Kind::Iblinkinfo: {
        auto r = readIblinkinfo(file, text, g.fabric, g.warnings);
        if (!r) {
            return r.error();
        }
        std::size_t down = 0;
        for (const auto& s : r->ports) {
            down += s.up ? 0 : 1;
        }
        g.note(p, "iblinkinfo", std::to_string(r->links) + " links up, " + std::to_string(down) + " ports down");
        g.linkinfo.emplace_back(file, std::move(r.value()));
        return std::nullopt;
    }
    case Kind::Perfquery: {
        auto r = readPerfquery(file, text, g.warnings);
        if (!r) {
            return r.error();
        }
        g.note(p, "perfquery counters", std::to_string(r->size()) + " values");
        g.perfquery.emplace_back(DatedFile { file, modifiedNs(p) }, std::move(r.value()));
        return std::nullopt;
    }
    case Kind::PrometheusText: {
        auto r = readPrometheusExposition(file, text, g.fabric);
        if (!r) {
            return r.error();
        }
        g.warn(r->warnings);
        g.note(p, "Prometheus exposition",
            std::to_string(r->hostSeries) + " host-side and " + std::to_string(r->fabricSeries)
                + " switch-side samples, " + std::to_string(r->infoSeries) + " info series");
        g.exposition.emplace_back(DatedFile { file, modifiedNs(p) }, std::move(r.value()));
        return std::nullopt;
    }
    case Kind::CollectorCsv:
        g.note(p, "counters CSV", "stallscope collect");
        g.csvs.emplace_back(file, text);
        return std::nullopt;
    case Kind::PrometheusMatrix: {
        auto m = parsePrometheusMatrix(file, text);
        if (!m) {
            return m.error();
        }
        g.warn(m->warnings);
        g.note(p, "Prometheus matrix", std::to_string(m->series.size()) + " InfiniBand counter series");
        for (auto& ps : m->series) {
            g.matrix.push_back(std::move(ps));
        }
        return std::nullopt;
    }
    case Kind::OpensmLog: {
        auto l = parseOpensmLog(file, text, g.clock);
        if (l) {
            g.warn(l->warnings);
            g.note(p, "OpenSM log",
                std::to_string(l->events.size()) + " port removals/discoveries, " + std::to_string(l->linkStateTraps)
                    + " link-state traps");
            g.opensm.push_back(std::move(l.value()));
        }
        return std::nullopt;
    }
    case Kind::RankLog: {
        auto f = parseRankLog(file, text, g.clock);
        if (!f) {
            g.warnings.push_back(f.error());
            return std::nullopt;
        }
        if (!f->rank) {
            f->rank = rankFromFileName(p.stem().string()); // "rank17.log" when no [rank17] line
        }
        if (!f->rank) {
            f->rank = rankFromFolderName(p.parent_path().filename().string()); // "logs/17/stderr.log"
        }
        g.warn(f->warnings);
        g.note(p, "rank log",
            (f->rank ? "rank " + std::to_string(*f->rank) : std::string("no rank"))
                + (f->host.empty() ? "" : ", host " + f->host));
        g.logs.emplace_back(file, std::move(f.value()));
        return std::nullopt;
    }
    case Kind::IbsimNet:
        g.note(p, "ibsim net file", "the simulator's input, not read (captures of the fabric are)");
        return std::nullopt;
    case Kind::SimulatorTruth:
        g.note(p, "simulator truth", "not read: it is what the analysis is checked against");
        return std::nullopt;
    case Kind::Unknown:
        g.warnings.push_back({ file, 0, -1, "not a recognised format: skipped" });
        return std::nullopt;
    }
    return std::nullopt;
}

void leaveOut(LoadIssue issue, Gathered& g)
{
    issue.message += " (the file is left out)";
    g.warnings.push_back(std::move(issue));
}

// What the logs say that a Flight Recorder dump cannot: a rank whose transport gave up (completion error)
// failed in the collective in flight at that moment; a watchdog timeout names the sequence number and the
// moment the rank gave up. Both end records the dump left open.
void applyLogOutcomes(OwnedColumns& owned, const Gathered& g)
{
    for (const auto& [file, f] : g.logs) {
        if (!f.rank || *f.rank >= owned.ranks.size()) {
            continue;
        }
        auto& col = owned.ranks[*f.rank];
        auto open = [&](std::size_t i) {
            const auto st = static_cast<CollectiveState>(col.state[i]);
            return st != CollectiveState::Completed && st != CollectiveState::Scheduled;
        };
        for (const auto& e : f.events) {
            if (e.timeNs == kNoTime) {
                continue;
            }
            if (e.kind == LogEventKind::CompletionError) {
                // The latest record enqueued before the error and still open at it.
                for (std::size_t i = col.size(); i-- > 0;) {
                    if (col.enqueueNs[i] <= e.timeNs && open(i)) {
                        col.state[i] = static_cast<std::uint8_t>(CollectiveState::Failed);
                        col.endNs[i] = e.timeNs;
                        break;
                    }
                }
            } else if (e.kind == LogEventKind::WatchdogTimeout) {
                for (std::size_t i = 0; i < col.size(); ++i) {
                    if (col.seq[i] == e.seq && open(i) && col.enqueueNs[i] <= e.timeNs
                        && static_cast<CollectiveState>(col.state[i]) != CollectiveState::Failed) {
                        col.state[i] = static_cast<std::uint8_t>(CollectiveState::TimedOut);
                        col.endNs[i] = e.timeNs;
                    }
                }
            }
        }
    }
}

// Profiler traces join the dumps: a rank with a dump gains the collectives its dump no longer holds (the ring
// buffer keeps the last entries only; a profiler window is often earlier); a rank without one gets a dump made
// of its traces. Several windows of one rank merge.
void mergeTraces(Gathered& g)
{
    std::map<std::uint32_t, std::size_t> dumpOf;
    for (std::size_t i = 0; i < g.dumps.size(); ++i) {
        dumpOf[*g.dumps[i].second.rank] = i;
    }
    for (auto& [file, t] : g.traces) {
        auto it = dumpOf.find(*t.rank);
        if (it == dumpOf.end()) {
            dumpOf[*t.rank] = g.dumps.size();
            g.dumps.emplace_back(file, std::move(t));
            continue;
        }
        auto& d = g.dumps[it->second].second;
        std::set<std::pair<std::string, std::uint32_t>> have;
        for (const auto& e : d.entries) {
            have.insert({ e.pg, e.seq });
        }
        for (auto& e : t.entries) {
            if (have.insert({ e.pg, e.seq }).second) {
                d.entries.push_back(std::move(e));
            }
        }
        for (auto& [name, grp] : t.groups) {
            d.groups.try_emplace(name, std::move(grp));
        }
    }
    g.traces.clear();
}

// Ranks, groups and collective records from the dumps; rank → host → HCA from the logs.
Result<std::uint32_t> addCollectives(JobSnapshot& snap, OwnedColumns& owned, Gathered& g)
{
    std::uint32_t world = 0;
    std::map<std::uint32_t, std::string> seen;
    std::vector<std::pair<std::string, FrDump>> unique;
    for (auto& [file, d] : g.dumps) {
        if (auto [it, fresh] = seen.emplace(*d.rank, file); !fresh) {
            g.warnings.push_back({ file, 0, -1,
                "a second dump of rank " + std::to_string(*d.rank) + " (the first is " + it->second
                    + "): this one is left out" });
            continue;
        }
        unique.emplace_back(file, std::move(d));
    }
    g.dumps = std::move(unique);
    mergeTraces(g);
    world = g.worldHint;
    for (const auto& [file, d] : g.dumps) {
        world = std::max(world, *d.rank + 1);
        for (const auto& [name, grp] : d.groups) {
            for (auto r : grp.ranks) {
                world = std::max(world, r + 1);
            }
        }
    }
    snap.job.worldSize = world;
    snap.ranks.assign(world, RankInfo {});
    std::map<std::string, std::uint16_t> groupIndex;
    for (const auto& [file, d] : g.dumps) {
        for (const auto& [name, grp] : d.groups) {
            if (groupIndex.count(name)) {
                continue;
            }
            groupIndex[name] = static_cast<std::uint16_t>(snap.groups.size());
            ProcessGroup pg { snap.strings.intern(name), snap.strings.intern(grp.desc), grp.ranks };
            std::sort(pg.ranks.begin(), pg.ranks.end());
            snap.groups.push_back(std::move(pg));
        }
    }
    for (const auto& [file, f] : g.logs) {
        if (!f.rank || *f.rank >= world) {
            continue;
        }
        auto& ri = snap.ranks[*f.rank];
        ri.host = snap.strings.intern(f.host);
        ri.localGpu = static_cast<std::uint16_t>(f.cudaDev.value_or(0));
        if (!f.hcas.empty()) {
            // Several HCAs listed: the one at the rank's CUDA device index (rail-optimized hosts pair GPU i with
            // HCA i); a guess where NCCL's channel lines would say exactly.
            const auto d = static_cast<std::size_t>(f.cudaDev.value_or(0));
            ri.hca = snap.strings.intern(f.hcas.size() == 1 ? f.hcas[0] : f.hcas[std::min(d, f.hcas.size() - 1)]);
        }
    }
    owned.ranks.resize(world);
    std::map<std::uint16_t, std::set<std::uint32_t>> implicit; // groups no source lists: who ran them
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const auto& [file, d] : g.dumps) {
        auto& col = owned.ranks[*d.rank];
        for (const auto& e : d.entries) {
            auto git = groupIndex.find(e.pg);
            if (git == groupIndex.end()) {
                git = groupIndex.emplace(e.pg, static_cast<std::uint16_t>(snap.groups.size())).first;
                snap.groups.push_back({ snap.strings.intern(e.pg), {}, {} });
                if (d.version != "kineto") { // traces name groups only where an op carries its ranks
                    g.warnings.push_back({ file, 0, -1,
                        "process group \"" + e.pg + "\" is not in pg_config: its members are the ranks that ran it" });
                }
            }
            if (snap.groups[git->second].ranks.empty() || implicit.count(git->second)) {
                implicit[git->second].insert(*d.rank);
            }
            auto shape = internShape(snap.shapes, { git->second, e.op, e.bytes });
            if (!shape) {
                return LoadIssue { file, 0, -1, "more than 65535 distinct (group, op, bytes) shapes" };
            }
            col.push(e.enqueueNs, e.startNs, e.endNs, e.seq, *shape, e.state);
            first = std::min(first, e.enqueueNs);
        }
        col.sortByEnqueue();
    }
    for (const auto& [group, members] : implicit) {
        snap.groups[group].ranks.assign(members.begin(), members.end());
    }
    snap.job.clockOriginNs = first == std::numeric_limits<TimeNs>::max() ? 0 : first;
    snap.job.span = { snap.job.clockOriginNs, snap.job.clockOriginNs };
    return world;
}

// Every counter source into the sink, joined to canonical node GUIDs.
void addCounters(const std::string& dir, Gathered& g, CounterSink& sink)
{
    auto& fabric = g.fabric;
    const GuidOfHca guidOfHca = [&](const std::string& desc) { return fabric.guidOfHca(desc); };
    for (const auto& [file, text] : g.csvs) {
        readCollectorCsv(file, text, guidOfHca, sink, g.warnings);
    }
    std::set<std::string> unknown;
    for (auto& ps : g.matrix) {
        const auto desc = ps.host + " " + ps.device;
        const auto guid = fabric.guidOfHca(desc);
        if (!guid) {
            if (unknown.insert(desc).second) {
                g.warnings.push_back(
                    { dir, 0, -1, "Prometheus series of \"" + desc + "\" match no HCA in the topology: skipped" });
            }
            continue;
        }
        for (std::size_t i = 0; i < ps.timesNs.size(); ++i) {
            sink.sample(*guid, ps.port, ps.kind, ps.timesNs[i], ps.values[i]);
        }
    }
    for (const auto& [dated, ef] : g.exposition) {
        if (ef.undated) {
            g.warnings.push_back({ dated.file, 0, -1,
                "samples without a timestamp or stamp line are dated by the file's modification time" });
        }
        for (const auto& s : ef.samples) {
            const auto t = s.timeNs == kNoTime ? dated.modified : s.timeNs;
            if (s.hostSide) {
                const auto desc = s.host + " " + s.device;
                if (const auto guid = fabric.guidOfHca(desc)) {
                    sink.sample(*guid, s.port, s.kind, t, s.value);
                } else if (unknown.insert(desc).second) {
                    g.warnings.push_back(
                        { dated.file, 0, -1, "node_exporter series of \"" + desc + "\" match no HCA: skipped" });
                }
            } else {
                sink.sample(fabric.canonical(s.guid), s.port, s.kind, t, s.value);
            }
        }
    }
    for (const auto& [dated, samples] : g.perfquery) {
        bool undated = false;
        std::set<std::uint32_t> unknownLids;
        for (const auto& s : samples) {
            const auto guid = fabric.guidOfLid(s.lid);
            if (!guid) {
                if (unknownLids.insert(s.lid).second) {
                    g.warnings.push_back({ dated.file, 0, -1,
                        "LID " + std::to_string(s.lid)
                            + " is in no topology file (ibnetdiscover or iblinkinfo): its counters are skipped" });
                }
                continue;
            }
            undated = undated || s.timeNs == kNoTime;
            const bool dataOrPackets = s.kind == CounterKind::PortXmitData || s.kind == CounterKind::PortRcvData
                || s.kind == CounterKind::PortXmitPackets || s.kind == CounterKind::PortRcvPackets;
            sink.sample(*guid, s.port, s.kind, s.timeNs == kNoTime ? dated.modified : s.timeNs, s.value,
                dataOrPackets ? (s.extended ? 64 : 32) : 0);
        }
        if (undated) {
            g.warnings.push_back({ dated.file, 0, -1,
                "perfquery blocks without a stamp line before them are dated by the file's modification time" });
        }
    }
}

// Port events from the ranks' logs ("nccl"), the subnet manager ("opensm") and dated iblinkinfo snapshots.
void addLinkEvents(JobSnapshot& snap, Gathered& g)
{
    const auto nccl = snap.strings.intern("nccl");
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if ((e.kind != LogEventKind::PortError && e.kind != LogEventKind::PortActive) || e.timeNs == kNoTime) {
                continue;
            }
            const auto hca = e.hca.empty() && !f.hcas.empty() ? f.hcas[0] : e.hca;
            if (const auto guid = g.fabric.guidOfHca(f.host + " " + hca)) {
                snap.linkEvents.push_back(
                    { e.timeNs, *guid, 1, e.kind == LogEventKind::PortError ? LinkState::Down : LinkState::Up, nccl });
            }
        }
    }
    const auto opensm = snap.strings.intern("opensm");
    for (const auto& log : g.opensm) {
        for (const auto& e : log.events) {
            if (const auto guid = g.fabric.guidOfHca(e.nodeDescription)) {
                snap.linkEvents.push_back({ e.timeNs, *guid, 1, e.up ? LinkState::Up : LinkState::Down, opensm });
            }
        }
    }
    // A port seen down in a dated snapshot, on a link another snapshot saw up: the link was down then.
    const auto linkinfo = snap.strings.intern("iblinkinfo");
    std::map<std::pair<std::uint64_t, std::uint16_t>, bool> last;
    std::sort(g.linkinfo.begin(), g.linkinfo.end(),
        [](const auto& a, const auto& b) { return a.second.stampNs < b.second.stampNs; });
    for (const auto& [file, s] : g.linkinfo) {
        if (s.stampNs == kNoTime) {
            continue;
        }
        for (const auto& p : s.ports) {
            const auto guid = g.fabric.canonical(p.guid);
            const auto node = snap.topology.findNodeByGuid(guid);
            if (!node || !snap.topology.linkAt({ *node, p.port })) {
                continue; // never cabled in any snapshot
            }
            auto [it, fresh] = last.try_emplace({ guid, p.port }, true);
            if (it->second != p.up || (fresh && !p.up)) {
                snap.linkEvents.push_back(
                    { s.stampNs, guid, p.port, p.up ? LinkState::Up : LinkState::Down, linkinfo });
            }
            it->second = p.up;
        }
    }
    std::stable_sort(snap.linkEvents.begin(), snap.linkEvents.end(),
        [](const LinkEvent& a, const LinkEvent& b) { return a.timeNs < b.timeNs; });
}

void widenSpan(JobSnapshot& snap)
{
    TimeNs lo = snap.job.span.start, hi = snap.job.span.end;
    for (const auto& c : snap.collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            for (auto t : { c.enqueueNs[i], c.startNs[i], c.endNs[i] }) {
                if (t != kNoTime) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            }
        }
    }
    snap.job.span = { lo, hi };
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
    Gathered g;
    const auto files = listFiles(dir, out.bytesOnDisk);
    std::vector<std::pair<fs::path, Kind>> later;
    for (std::size_t i = 0; i < files.size(); ++i) {
        progress.report("Reading files", i, files.size() * 2);
        if (progress.cancelled()) {
            return LoadIssue { dir, 0, -1, "opening cancelled" };
        }
        const auto text = readAll(files[i]);
        const auto kind = sniff(text);
        if (order(kind) > 0) {
            later.emplace_back(files[i], kind);
            continue;
        }
        if (auto err = readOne(files[i], kind, text, g)) {
            leaveOut(*err, g);
        }
    }
    learnYear(g);
    std::stable_sort(
        later.begin(), later.end(), [](const auto& a, const auto& b) { return order(a.second) < order(b.second); });
    for (std::size_t i = 0; i < later.size(); ++i) {
        progress.report("Reading files", files.size() + i, files.size() * 2);
        if (auto err = readOne(later[i].first, later[i].second, readAll(later[i].first), g)) {
            leaveOut(*err, g);
        }
    }
    if (g.dumps.empty() && g.traces.empty()) {
        return LoadIssue { dir, 0, -1,
            "manifest.json is missing and no readable Flight Recorder dump or profiler trace was found: nothing to "
            "open" };
    }
    auto snap = std::make_shared<JobSnapshot>();
    snap->job.name = fs::path(dir).filename().string();
    auto owned = std::make_shared<OwnedColumns>();
    if (auto w = addCollectives(*snap, *owned, g); !w) {
        return w.error();
    }
    applyLogOutcomes(*owned, g);
    if (!g.fabric.empty()) {
        snap->topology = g.fabric.build(snap->strings, dir, g.warnings);
    }
    CounterSink sink;
    addCounters(dir, g, sink);
    const auto seriesBlock = sink.flush(*snap, *owned);
    addLinkEvents(*snap, g);
    attachOwnedColumns(*snap, owned, seriesBlock);
    resolveJoins(*snap);
    widenSpan(*snap);
    std::string summary;
    for (const auto& [what, n] : g.counts) {
        summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + what + (n > 1 ? "s" : "");
    }
    out.recognised = std::move(g.recognised);
    out.recognised.insert(out.recognised.begin(), summary);
    out.warnings = std::move(g.warnings);
    out.collectiveBytes = owned->memoryBytes();
    out.snapshot = std::move(snap);
    out.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace stallscope
