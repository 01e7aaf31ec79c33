// SPDX-License-Identifier: MIT
// Rank logs, host logs (Slurm, the kernel) and the Flight Recorder analyzer's output into a raw folder's facts.
#include "import/logs/logs_glue.h"

#include "core/parse_number.h"
#include "import/common/host_file.h"
#include "import/logs/paste_wrappers.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

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
    return parseNumber<std::uint32_t>(digits);
}

// Where a log's rank facts go.
struct Into
{
    FolderSink& sink;
    RankLogFiles& logs;
    std::set<std::size_t>& rankFromName;
};

// One rank's facts into `to`; `partOf` > 0 when they came from a combined log of that many ranks. Named in the
// recognised files when `noteIt`; true when the rank said something about how it went.
bool addRankFacts(const fs::path& path, RankLogFacts f, std::size_t partOf, Into& to, bool noteIt = true)
{
    const bool named = !f.rank; // the content did not say: the name has to
    if (!f.rank && partOf == 0) {
        // "rank17.log", "rank_17.err", "17.log" — not "gpu-a017.log" or NCCL_DEBUG_FILE's "nccl.host.pid"
        f.rank = rankFromFolderName(path.stem().string());
        if (!f.rank) {
            f.rank = rankFromFolderName(path.parent_path().filename().string()); // "logs/17/stderr.log"
        }
        if (named && f.rank) {
            to.rankFromName.insert(to.logs.size());
        }
    }
    to.sink.warn(f.warnings);
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
        to.sink.note(path, "rank log",
            (f.rank ? "rank " + std::to_string(*f.rank) : std::string("no rank"))
                + (f.host.empty() ? "" : ", host " + f.host)
                + (partOf > 0 ? " (one of " + std::to_string(partOf) + " ranks in this file)" : "")
                + (said.empty() ? "" : ": " + said));
    } else {
        ++to.sink.counts["rank log"];
    }
    to.logs.emplace_back(path.string(), std::move(f));
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

// The log as Format::parseWithClock left it (readFolder parses every log on the worker threads first); parsed here
// when it was not, so `add` does not depend on that order.
LogRead logRead(
    FileInput& in, const LogClock& clock, std::any (*read)(const std::string&, const std::string&, const LogClock&))
{
    auto any = in.parsed.has_value() ? std::move(in.parsed) : read(in.path.string(), in.text, clock);
    return std::any_cast<LogRead>(std::move(any));
}

// Slurm's and the kernel's lines (a file of their own, or a job's output that also holds rank lines).
void addHostFacts(const fs::path& path, Result<HostLogFacts> f, FolderSink& sink, HostLogFiles& hostLogs, bool alone)
{
    if (!f) {
        if (alone) {
            sink.warnings.push_back(f.error());
        }
        return;
    }
    sink.warn(f->warnings);
    auto said = countsByKind(f->events);
    if (alone && f->unknownLines > 0) { // a kernel log is mostly other messages: how many, and the first
        said += "; " + std::to_string(f->unknownLines) + " other lines kept unread (first: line "
            + std::to_string(f->unknown.front().first) + " \"" + f->unknown.front().second.substr(0, 60) + "\")";
    }
    sink.note(path, alone ? "host log" : "host lines in a rank log", said);
    hostLogs.emplace_back(path.string(), std::move(f.value()));
}

} // namespace

std::any readHostLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    LogRead r;
    r.host = parseHostLog(file, text, clock, hostOfFile(file));
    return r;
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

std::optional<LoadIssue> addHostLog(FileInput& in, FolderSink& sink, const LogClock& clock, HostLogFiles& hostLogs)
{
    auto r = logRead(in, clock, readHostLog);
    addHostFacts(in.path, std::move(*r.host), sink, hostLogs, true);
    return std::nullopt;
}

void addHostLogWithin(
    FileInput& in, FolderSink& sink, const LogClock& clock, HostLogFiles& hostLogs, const std::string& host)
{
    if (!looksLikeHostLog(in.text)) {
        return;
    }
    const auto file = in.path.string();
    if (auto h = parseHostLog(file, in.text, clock, host)) {
        sink.warn(h->warnings);
        hostLogs.emplace_back(file, std::move(h.value()));
    }
}

std::optional<LoadIssue> addRankLog(FileInput& in, FolderSink& sink, const LogClock& clock, RankLogFiles& logs,
    std::set<std::size_t>& rankFromName, HostLogFiles& hostLogs)
{
    auto r = logRead(in, clock, readRankLog);
    if (r.host) {
        addHostFacts(in.path, std::move(*r.host), sink, hostLogs, false);
    }
    if (r.rankError) {
        sink.warnings.push_back(*r.rankError);
    }
    // A launcher's output of a whole job holds every process: the first are named one by one, the rest counted
    // (a log naming 1,000,000 processes printed 1,000,000 lines in `info` and the window).
    constexpr std::size_t kNamedEach = 16;
    std::size_t saidMore = 0;
    Into to { sink, logs, rankFromName };
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
        saidMore += addRankFacts(in.path, std::move(r.ranks[i]), r.parts, to, i < kNamedEach) && i >= kNamedEach;
    }
    if (r.ranks.size() > kNamedEach) {
        sink.recognised.push_back(sink.shown(in.path) + ": rank log, and " + std::to_string(r.ranks.size() - kNamedEach)
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

std::optional<LoadIssue> addFrTrace(FileInput& in, FolderSink& sink, const LogClock& clock, RankLogFiles& logs,
    std::set<std::size_t>& rankFromName, HostLogFiles& hostLogs, FrTraceFiles& frTrace)
{
    auto r = parseFrTraceText(in.path.string(), in.text);
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    const auto said = countsByKind(r->facts);
    sink.note(in.path, "Flight Recorder analyzer output", said.empty() ? "no rank named" : said);
    frTrace.emplace_back(in.path.string(), std::move(r.value()));
    return looksLikeRankLog(in.text) ? addRankLog(in, sink, clock, logs, rankFromName, hostLogs) : std::nullopt;
}

} // namespace stallscope
