// SPDX-License-Identifier: MIT
// Reading a raw folder: every file recognised by its content and read into folder::Gathered.
#include "import/folder/gathered.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/kineto/kineto_trace.h"
#include "import/common/file_bytes.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <set>
#include <thread>

namespace stallscope::folder {

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
    Mapping,
    Unknown
};

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
    // A JSON dump omits "entries" when its buffer is empty (formats.md §1b): pg_config says what it is then.
    if (object && text.find("\"version\"") != std::string::npos
        && (text.find("\"entries\"") != std::string::npos || text.find("\"pg_config\"") != std::string::npos)) {
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
    if (looksLikeMapping(text)) {
        return Kind::Mapping;
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

// "17", "rank17", "rank_17", "rank-17" as a folder or file name (without extension); not "attempt_0".
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

// A file read and, when its parse depends on no other file, parsed — on any thread.
struct Parsed
{
    Kind kind = Kind::Unknown;
    std::string text; // kept for the kinds parsed later, on the calling thread
    std::optional<Result<RankRecords>> dump;
    std::optional<Result<KinetoTrace>> trace;
};

Parsed readAndParse(const fs::path& p)
{
    Parsed r;
    std::string text = readFileBytes(p);
    r.kind = sniff(text);
    const auto file = p.string();
    if (r.kind == Kind::FlightRecorderPickle) {
        r.dump = parseFlightRecorderPickle(file, text);
    } else if (r.kind == Kind::FlightRecorderJson) {
        r.dump = parseFlightRecorderJson(file, text);
    } else if (r.kind == Kind::KinetoTrace) {
        r.trace = parseKinetoTrace(file, text);
    } else {
        r.text = std::move(text);
    }
    return r;
}

std::optional<LoadIssue> readOne(const fs::path& p, Parsed& parsed, Gathered& g)
{
    const Kind kind = parsed.kind;
    const std::string& text = parsed.text;
    const auto file = p.string();
    switch (kind) {
    case Kind::FlightRecorderJson:
    case Kind::FlightRecorderPickle: {
        const bool pickle = kind == Kind::FlightRecorderPickle;
        auto& d = *parsed.dump;
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
                + " collectives" + statusNote(d.value()));
        g.dumps.emplace_back(file, std::move(d.value()));
        return std::nullopt;
    }
    case Kind::KinetoTrace: {
        auto& t = *parsed.trace;
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
        std::size_t switchSamples = 0;
        if (!m->switchSide.empty()) {
            auto e = readPrometheusExposition(file, m->switchSide, g.fabric);
            if (e) {
                switchSamples = e->samples.size();
                g.exposition.emplace_back(DatedFile { file, modifiedNs(p) }, std::move(e.value()));
            }
        }
        g.note(p, "Prometheus matrix",
            std::to_string(m->series.size()) + " host-side series"
                + (switchSamples ? ", " + std::to_string(switchSamples) + " switch-side samples" : std::string()));
        for (auto& ps : m->series) {
            g.matrix.push_back(std::move(ps));
        }
        return std::nullopt;
    }
    case Kind::OpensmLog: {
        auto opensmClock = g.clock;
        const auto zone = g.mapping.timeZones.find("opensm");
        opensmClock.utcOffsetNs = zone == g.mapping.timeZones.end() ? 0 : zone->second;
        auto l = parseOpensmLog(file, text, opensmClock);
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
        const bool named = !f->rank; // the content did not say: the name has to
        if (!f->rank) {
            // "rank17.log", "rank_17.err", "17.log" — not "gpu-a017.log" or NCCL_DEBUG_FILE's "nccl.host.pid"
            f->rank = rankFromFolderName(p.stem().string());
        }
        if (!f->rank) {
            f->rank = rankFromFolderName(p.parent_path().filename().string()); // "logs/17/stderr.log"
        }
        if (named && f->rank) {
            g.rankFromName.insert(g.logs.size());
        }
        g.warn(f->warnings);
        g.note(p, "rank log",
            (f->rank ? "rank " + std::to_string(*f->rank) : std::string("no rank"))
                + (f->host.empty() ? "" : ", host " + f->host));
        g.logs.emplace_back(file, std::move(f.value()));
        return std::nullopt;
    }
    case Kind::Mapping: {
        auto m = parseMapping(file, text);
        if (!m) {
            return m.error();
        }
        g.mapping = std::move(m.value());
        g.haveMapping = true;
        if (auto it = g.mapping.timeZones.find("rank_logs"); it != g.mapping.timeZones.end()) {
            g.clock.utcOffsetNs = it->second;
        }
        g.note(p, "mapping file",
            std::to_string(g.mapping.ranks.size()) + " rank placements, " + std::to_string(g.mapping.timeZones.size())
                + " time zones, " + std::to_string(g.mapping.clockOffsets.size()) + " clock offsets");
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

// A rank taken from a file or folder name is dropped when logs of other hosts claim the same rank: torchrun's
// --log-dir names its folders by LOCAL rank (attempt_0/3/stderr.log on every node), which is no global rank.
void dropAmbiguousNames(Gathered& g)
{
    std::map<std::uint32_t, std::set<std::string>> hostsOf;
    for (const auto& [file, f] : g.logs) {
        if (f.rank) {
            hostsOf[*f.rank].insert(f.host);
        }
    }
    std::size_t dropped = 0;
    for (auto i : g.rankFromName) {
        auto& f = g.logs[i].second;
        if (f.rank && hostsOf[*f.rank].size() > 1) {
            f.rank.reset();
            ++dropped;
        }
    }
    if (dropped > 0) {
        g.warnings.push_back({ g.logs.front().first, 0, -1,
            std::to_string(dropped)
                + " logs take their rank from a file or folder name that logs of other hosts share (a local rank?): "
                  "they are not placed; NCCL_DEBUG=INFO lines or a mapping file would place them" });
    }
}

// Every file read, recognised and — for the formats whose parse needs no other file (dumps, traces) — parsed,
// on up to four threads (one of them the caller, which reports progress and watches for cancel). Large folders
// are mostly dumps: this is where opening them spends its time.
std::vector<Parsed> readEverything(const std::vector<fs::path>& files, Progress& progress, bool& cancelled)
{
    std::vector<Parsed> out(files.size());
    std::atomic<std::size_t> next { 0 }, done { 0 };
    std::atomic<bool> stop { false };
    auto work = [&](bool reporter) {
        for (std::size_t i = next++; i < files.size() && !stop; i = next++) {
            out[i] = readAndParse(files[i]);
            const auto n = ++done;
            if (reporter) {
                progress.report("Reading files", n, files.size() * 2);
                if (progress.cancelled()) {
                    stop = true;
                }
            }
        }
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k) {
        pool.emplace_back(work, false);
    }
    work(true);
    for (auto& t : pool) {
        t.join();
    }
    cancelled = stop;
    return out;
}

} // namespace

std::optional<LoadIssue> readFolder(const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes)
{
    const auto files = listFiles(dir, bytes);
    bool cancelled = false;
    auto parsed = readEverything(files, progress, cancelled);
    if (cancelled) {
        return LoadIssue { dir, 0, -1, "opening cancelled" };
    }
    std::vector<std::size_t> later;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (order(parsed[i].kind) > 0) {
            later.push_back(i);
        } else if (auto err = readOne(files[i], parsed[i], g)) {
            leaveOut(*err, g);
        }
        parsed[i].dump.reset(); // moved into g or reported; free the rest early
    }
    learnYear(g);
    std::stable_sort(later.begin(), later.end(),
        [&](std::size_t a, std::size_t b) { return order(parsed[a].kind) < order(parsed[b].kind); });
    for (std::size_t k = 0; k < later.size(); ++k) {
        progress.report("Reading files", files.size() + k, files.size() * 2);
        if (auto err = readOne(files[later[k]], parsed[later[k]], g)) {
            leaveOut(*err, g);
        }
        parsed[later[k]].text.clear();
    }
    dropAmbiguousNames(g);
    return std::nullopt;
}

} // namespace stallscope::folder
