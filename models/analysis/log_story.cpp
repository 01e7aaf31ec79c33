// SPDX-License-Identifier: MIT
// The story the ranks' logs tell (analysis.h LogStory), read from the snapshot's log facts and Slurm's notes alone:
// the collective the watchdogs timed out in and who never reached it, ranks that disagree about one SeqNum
// (a desync), the first error in time and the link it points at, a dead or crashed rank, a time-limit cancel.
// O(facts log facts).
// Over 600 lines as one file: every part of the story is read from the same log facts into one LogStory, which
// storySummary words and logIncident turns into an incident; split, each part would need the others' fields.
#include "analysis/internal.h"

#include "core/time_format.h"

#include <algorithm>
#include <limits>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace stallscope {

namespace {

constexpr std::int64_t kSigAbrt = 6;
// torchrun's exitcode when its table did not say one (import/logs/host_log.h kNoExitCode).
constexpr std::int64_t kNoExitCode = std::numeric_limits<std::int64_t>::min();

} // namespace

std::string rankRuns(const std::vector<std::uint32_t>& ranks)
{
    // Sorted ranks in pieces: "3" alone, "0..7" consecutive, "0..16376 every 8" evenly spaced (a rail's ranks:
    // one GPU of each host). At most kShown pieces are written, the rest counted, so a line about 16,384 ranks
    // stays a line.
    constexpr std::size_t kShown = 12;
    std::string s;
    std::size_t pieces = 0, left = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        auto j = i;
        const auto step = i + 1 < ranks.size() ? ranks[i + 1] - ranks[i] : 0;
        while (step > 0 && j + 1 < ranks.size() && ranks[j + 1] - ranks[j] == step) {
            ++j;
        }
        if (step > 1 && j - i < 2) {
            j = i; // two evenly spaced ranks are just two ranks
        }
        if (pieces++ < kShown) {
            s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]) + (j > i ? ".." + std::to_string(ranks[j]) : "")
                + (j > i && step > 1 ? " every " + std::to_string(step) : "");
        } else {
            left += j - i + 1;
        }
        i = j + 1;
    }
    const bool strided = s.find(" every ") != std::string::npos;
    return s + (left > 0 ? " and " + formatCount(left) + " more" : "")
        + (strided || left > 0 ? " (" + formatCount(ranks.size()) + " ranks)" : "");
}

namespace {

struct Key
{
    std::string pg;
    std::int64_t seq;
    auto operator<=>(const Key&) const = default;
};

// The group a timeout belongs to: its own line's, else the group a watchdog status line of the same rank and
// SeqNum names (the timeout line says "[Rank N]" only; the status line after it "[PG 1 Rank N]"), else the one
// group any rank's lines name for that SeqNum (not every rank prints the status line).
class GroupOfTimeout
{
public:
    explicit GroupOfTimeout(const JobSnapshot& snap)
    {
        for (const auto& f : snap.logFacts) {
            const auto& pg = snap.str(f.pg);
            const bool watchdog = f.kind == LogEventKind::WatchdogFailure || f.kind == LogEventKind::WatchdogTimeout;
            if (watchdog && f.rank != kNoRank && f.seq >= 0 && !pg.empty()) {
                m_ofRank.try_emplace({ f.rank, f.seq }, pg);
                m_ofSeq[f.seq].insert(pg);
            }
        }
    }
    std::string operator()(const std::string& own, std::uint32_t rank, std::int64_t seq) const
    {
        if (!own.empty()) {
            return own;
        }
        if (const auto it = m_ofRank.find({ rank, seq }); it != m_ofRank.end()) {
            return it->second;
        }
        const auto it = m_ofSeq.find(seq);
        return it != m_ofSeq.end() && it->second.size() == 1 ? *it->second.begin() : std::string();
    }

private:
    std::map<std::pair<std::uint32_t, std::int64_t>, std::string> m_ofRank;
    std::map<std::int64_t, std::set<std::string>> m_ofSeq;
};

// One watchdog timeout per rank, by the collective (group, SeqNum) it names.
using Timeouts = std::map<Key, std::map<std::uint32_t, const LogFact*>>;

// Desyncs: one SeqNum of one group, different operations or sizes on different ranks.
// PyTorch's own desync check names the two ranks and their collectives at one SequenceNumber: a desync as the
// timeouts' disagreement is, with each side its variant (sizes not said).
void findMismatches(const JobSnapshot& snap, LogStory& story)
{
    // op → ranks, per SequenceNumber (the group: the first line's prefix that names one; most name none)
    std::map<std::int64_t, std::map<std::string, std::set<std::uint32_t>>> bySeq;
    std::map<std::int64_t, std::string> groupOf;
    for (const auto& f : snap.logFacts) {
        if (f.kind != LogEventKind::CollectiveMismatch || f.seq < 0 || f.namedRank < 0) {
            continue;
        }
        if (auto& pg = groupOf[f.seq]; pg.empty()) {
            pg = snap.str(f.pg);
        }
        auto& ops = bySeq[f.seq];
        ops[snap.str(f.op)].insert(std::uint32_t(f.namedRank));
        if (f.peerRank >= 0) {
            ops[snap.str(f.peerOp)].insert(std::uint32_t(f.peerRank));
        }
    }
    for (const auto& entry : bySeq) {
        const std::int64_t seq = entry.first; // a plain variable: clang 14 cannot capture a structured binding
        const auto& ops = entry.second;
        const bool known = std::any_of(
            story.desyncs.begin(), story.desyncs.end(), [&](const LogDesync& d) { return d.seq == seq; });
        if (known || ops.size() < 2) {
            continue;
        }
        LogDesync d { groupOf[seq], seq, {} };
        for (const auto& [op, ranks] : ops) {
            d.variants.push_back({ op, -1, -1, std::vector<std::uint32_t>(ranks.begin(), ranks.end()) });
        }
        story.desyncs.push_back(std::move(d));
    }
}

void findDesyncs(const JobSnapshot& snap, const Timeouts& byCollective, LogStory& story)
{
    for (const auto& [k, ranks] : byCollective) {
        LogDesync d { k.pg, k.seq, {} };
        for (const auto& [rank, fact] : ranks) {
            const LogFact* f = fact; // a plain variable: clang 14 cannot capture a structured binding
            const auto op = snap.str(f->op);
            auto it = std::find_if(d.variants.begin(), d.variants.end(), [&](const LogDesync::Variant& v) {
                return v.op == op && v.numelIn == f->numelIn && v.numelOut == f->numelOut;
            });
            if (it == d.variants.end()) {
                d.variants.push_back({ op, f->numelIn, f->numelOut, {} });
                it = d.variants.end() - 1;
            }
            it->ranks.push_back(rank);
        }
        if (d.variants.size() > 1) {
            story.desyncs.push_back(std::move(d));
        }
    }
}

// The collective and who timed out in it, when.
LogHang hangOf(const JobSnapshot& snap, const Timeouts::value_type& hung)
{
    LogHang h;
    h.pg = hung.first.pg;
    h.seq = hung.first.seq;
    const auto* first = hung.second.begin()->second;
    // PyTorch's "Timeout at NCCL work: N" alone names no operation: another rank's line may.
    for (const auto& [rank, f] : hung.second) {
        if (!snap.str(f->op).empty()) {
            first = f;
            break;
        }
    }
    h.op = snap.str(first->op).empty() ? "collective" : snap.str(first->op);
    h.numelIn = first->numelIn;
    h.numelOut = first->numelOut;
    h.timeoutMs = first->timeoutMs;
    for (const auto& [rank, f] : hung.second) {
        h.timedOut.push_back(rank);
        if (f->timeNs == kNoTime) {
            continue;
        }
        if (h.firstTimeoutNs == kNoTime || f->timeNs < h.firstTimeoutNs) {
            h.firstTimeoutNs = f->timeNs;
            h.startedNs = f->ranForMs >= 0 ? f->timeNs - f->ranForMs * kNsPerMs : kNoTime;
        }
        h.lastTimeoutNs = std::max(h.lastTimeoutNs == kNoTime ? f->timeNs : h.lastTimeoutNs, f->timeNs);
    }
    return h;
}

// The ranks with a log that did not time out in the hung collective: elsewhere, or never reached it — and of
// those, the ones whose log stops before the first timeout, with no timeout of their own, died (or hung outside
// NCCL).
void placeTheOthers(
    const JobSnapshot& snap, const std::map<std::uint32_t, Key>& rankTimeout, LogHang& h, LogStory& story)
{
    std::set<std::uint32_t> withLog;
    for (const auto& f : snap.logFacts) {
        if (f.rank != kNoRank && !isAnalyzerFinding(f.kind)) { // fr_trace's findings are no line of the rank's log
            withLog.insert(f.rank);
        }
    }
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        if (snap.ranks[r].logLastNs != kNoTime) {
            withLog.insert(r);
        }
    }
    const std::set<std::uint32_t> timedOut(h.timedOut.begin(), h.timedOut.end());
    for (const auto r : withLog) {
        if (timedOut.count(r)) {
            continue;
        }
        if (const auto it = rankTimeout.find(r); it != rankTimeout.end()) {
            h.elsewhere.emplace_back(r, it->second.seq);
            continue;
        }
        h.neverReached.push_back(r);
        const auto last = r < snap.ranks.size() ? snap.ranks[r].logLastNs : kNoTime;
        if (last != kNoTime && h.firstTimeoutNs != kNoTime && last < h.firstTimeoutNs) {
            story.deadRanks.push_back(r);
        }
    }
}

void findHang(const JobSnapshot& snap, LogStory& story)
{
    const GroupOfTimeout groupOf(snap);
    Timeouts byCollective;
    std::map<std::uint32_t, Key> rankTimeout; // each rank's first timeout
    for (const auto& f : snap.logFacts) {
        if (f.kind != LogEventKind::WatchdogTimeout || f.rank == kNoRank || f.seq < 0) {
            continue;
        }
        const Key k { groupOf(snap.str(f.pg), f.rank, f.seq), f.seq };
        byCollective[k].try_emplace(f.rank, &f);
        rankTimeout.try_emplace(f.rank, k);
    }
    findDesyncs(snap, byCollective, story);
    if (byCollective.empty()) {
        return;
    }
    // The hang: the collective the most ranks timed out in (the lowest SeqNum on a tie).
    const auto best = std::max_element(byCollective.begin(), byCollective.end(),
        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    auto h = hangOf(snap, *best);
    placeTheOthers(snap, rankTimeout, h, story);
    story.hang = std::move(h);
}

// "group 0 (default_pg)" from fr_trace's "0:default_pg".
std::string analyzerGroup(const std::string& pg)
{
    const auto colon = pg.find(':');
    return "group " + (colon == std::string::npos ? pg : pg.substr(0, colon) + " (" + pg.substr(colon + 1) + ")");
}

// The Flight Recorder analyzer's findings, one per collective it printed (in its order), and the ranks it had no
// dump from.
void readAnalyzer(const JobSnapshot& snap, LogStory& story)
{
    // (file, group, seq, op) → the finding's index
    std::map<std::tuple<std::string, std::string, std::int64_t, std::string>, std::size_t> index;
    std::set<std::uint32_t> noDump;
    for (const auto& f : snap.logFacts) {
        if (!isAnalyzerFinding(f.kind)) {
            continue;
        }
        if (f.kind == LogEventKind::AnalyzerNoDump) {
            if (f.rank != kNoRank) {
                noDump.insert(f.rank);
            }
            continue;
        }
        const auto key = std::tuple(snap.str(f.file), snap.str(f.pg), f.seq, snap.str(f.op));
        const auto [it, added] = index.try_emplace(key, story.analyzer.size());
        if (added) {
            story.analyzer.push_back({ snap.str(f.pg), f.seq, snap.str(f.op), {}, {}, {}, snap.str(f.file), f.line });
        }
        auto& a = story.analyzer[it->second];
        if (f.kind == LogEventKind::AnalyzerMissingRank && f.rank != kNoRank) {
            a.missing.push_back(f.rank);
        } else if (f.kind == LogEventKind::AnalyzerMismatch && f.rank != kNoRank) {
            a.culprits.emplace_back(f.rank, snap.str(f.text));
        } else if (f.kind == LogEventKind::AnalyzerMismatch) {
            a.mismatch = snap.str(f.text);
        }
    }
    for (auto& a : story.analyzer) { // the same output saved twice names its ranks twice
        std::sort(a.missing.begin(), a.missing.end());
        a.missing.erase(std::unique(a.missing.begin(), a.missing.end()), a.missing.end());
    }
    story.analyzerNoDump.assign(noDump.begin(), noDump.end());
}

// "Flight Recorder analyzer: rank(s) 3, 5 never joined nccl:all_reduce SeqNum 57 of group 0 (default_pg)".
std::string analyzerClause(const LogStory& s)
{
    const std::string c = "Flight Recorder analyzer: ";
    if (s.analyzer.empty()) {
        return c + "no dump from rank(s) " + rankRuns(s.analyzerNoDump) + ", so it could not decide";
    }
    const auto& a = s.analyzer.front();
    const auto what
        = a.op + (a.seq < 0 ? std::string() : " SeqNum " + std::to_string(a.seq)) + " of " + analyzerGroup(a.pg);
    const auto more = s.analyzer.size() > 1 ? " (and " + std::to_string(s.analyzer.size() - 1) + " more finding(s))"
                                            : std::string();
    if (!a.missing.empty()) {
        return c + "rank(s) " + rankRuns(a.missing) + " never joined " + what + more;
    }
    if (!a.culprits.empty()) {
        std::vector<std::uint32_t> ranks;
        for (const auto& [rank, text] : a.culprits) {
            ranks.push_back(rank);
        }
        const auto& type = a.culprits.front().second;
        return c + "rank(s) " + rankRuns(ranks) + " disagree on " + what + " (" + type.substr(0, type.find(',')) + ")"
            + more;
    }
    return c + what + ": " + a.mismatch + more;
}

bool isError(LogEventKind k)
{
    return k == LogEventKind::CompletionError || k == LogEventKind::DeviceFatal || k == LogEventKind::PortError;
}

LogError errorOf(const JobSnapshot& snap, const LogFact& f)
{
    return { f.timeNs, f.rank, snap.str(f.host), snap.str(f.hca), snap.str(f.peer), std::string(toString(f.kind)),
        snap.str(f.file), f.status, f.vendorErr, f.line, {} };
}

// The HCA a rank's error names, else the one the rank uses.
std::string hcaOf(const JobSnapshot& snap, const LogFact& f)
{
    if (!snap.str(f.hca).empty() || f.rank >= snap.ranks.size()) {
        return snap.str(f.hca);
    }
    return snap.str(snap.ranks[f.rank].hca);
}

// "gpu-b003 mlx5_2 port 1", and the switch port at its other end when a topology places the HCA.
std::string suspectOf(const JobSnapshot& snap, const std::string& host, const std::string& hca)
{
    if (host.empty() && hca.empty()) {
        return {};
    }
    std::string s = host + (hca.empty() ? std::string() : " " + hca + " port 1");
    const auto& topo = snap.topology;
    for (std::size_t i = 0; i < topo.nodes().size(); ++i) {
        const auto& n = topo.nodes()[i];
        if (n.kind != NodeKind::Hca || snap.str(n.host) != host || snap.str(n.hcaName) != hca) {
            continue;
        }
        const auto link = topo.linkAt({ NodeId(static_cast<std::uint32_t>(i)), 1 });
        if (!link) {
            break;
        }
        const auto& l = topo.link(*link);
        const auto other = l.a.node == NodeId(static_cast<std::uint32_t>(i)) ? l.b : l.a;
        s += " <-> " + snap.str(topo.node(other.node).description) + " port " + std::to_string(other.port);
        break;
    }
    return s;
}

void findFirstError(const JobSnapshot& snap, LogStory& story)
{
    const LogFact* first = nullptr;
    for (const auto& f : snap.logFacts) { // time order, untimed last
        if (isError(f.kind) && f.kind != LogEventKind::PortError) {
            first = &f;
            break;
        }
    }
    if (!first) { // a port that went down with no completion error after it
        for (const auto& f : snap.logFacts) {
            if (f.kind == LogEventKind::PortError) {
                first = &f;
                break;
            }
        }
    }
    if (!first) {
        return;
    }
    story.firstError = errorOf(snap, *first);
    story.firstError->hca = hcaOf(snap, *first);
    story.suspect = suspectOf(snap, story.firstError->host, story.firstError->hca);
    std::set<std::string> hosts { story.firstError->host };
    for (const auto& f : snap.logFacts) {
        if (&f != first && isError(f.kind) && hosts.insert(snap.str(f.host)).second) {
            story.consequences.push_back(errorOf(snap, f));
            story.consequences.back().hca = hcaOf(snap, f);
        }
    }
}

// An NCCL warning that reports a failure rather than a condition ("Call to ibv_create_qp failed", "Cuda failure 2
// 'out of memory'", "socketStartConnect: Connect to … failed", "local access violation").
bool reportsFailure(std::string_view text)
{
    for (const char* word : { "fail", "Fail", "error", "Error", "violation", "abort", "Abort" }) {
        if (text.find(word) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

void findFirstProblem(const JobSnapshot& snap, LogStory& story)
{
    for (const auto& f : snap.logFacts) { // time order, untimed last
        const bool problem = f.kind == LogEventKind::SocketError || f.kind == LogEventKind::WatchdogFailure
            || f.kind == LogEventKind::WatchdogException || f.kind == LogEventKind::HeartbeatTimeout
            || f.kind == LogEventKind::Terminated || f.kind == LogEventKind::CollectiveMismatch
            || (f.kind == LogEventKind::NcclWarning && reportsFailure(snap.str(f.text)));
        if (problem) {
            story.firstProblem = errorOf(snap, f);
            story.firstProblem->text = snap.str(f.text);
            if (f.kind == LogEventKind::CollectiveMismatch) {
                story.firstProblem->text = describe(f, snap.strings);
            }
            if (f.kind == LogEventKind::WatchdogFailure && f.seq >= 0) {
                const auto said = snap.str(f.text); // "dump signal: rank 13 timed out"
                story.firstProblem->text = "at work " + std::to_string(f.seq)
                    + (f.lastCompleted >= 0 ? ", last completed " + std::to_string(f.lastCompleted) : std::string())
                    + (said.empty() ? std::string() : " (" + said + ")");
            }
            return;
        }
    }
}

// Slurm's own words for why it cancelled a job or step ("DUE TO JOB REQUEUE"), worded; none given: scancel.
std::string cancelReason(const std::string& line)
{
    const auto due = line.find(" DUE TO ");
    if (due == std::string::npos) {
        return "no reason given: scancel by a user or an administrator";
    }
    auto reason = line.substr(due + 8);
    reason = reason.substr(0, reason.find(" ***"));
    while (!reason.empty() && (reason.back() == ' ' || reason.back() == '*')) {
        reason.pop_back();
    }
    if (reason == "JOB REQUEUE") {
        return "requeued: preempted or requeued by an administrator, not a failure of the job";
    }
    if (reason == "PREEMPTION") {
        return "preempted by a higher-priority job";
    }
    if (reason == "NODE FAILURE") {
        return "a node of the job failed";
    }
    std::transform(reason.begin(), reason.end(), reason.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return "due to " + reason;
}

void readSlurm(const JobSnapshot& snap, LogStory& story)
{
    for (const auto& n : snap.notes) {
        if (snap.str(n.source) != "slurm" || snap.str(n.kind) != "cancelled") {
            continue;
        }
        const auto text = snap.str(n.text);
        if (text.find("TIME LIMIT") != std::string::npos) {
            story.timeLimit = story.timeLimit.empty() ? text : story.timeLimit;
        } else if (story.cancelled.empty()) {
            story.cancelled = text;
            story.cancelReason = cancelReason(text);
        }
    }
    // A cancelled step's tasks are sent SIGTERM: "Terminated" then is the cancellation, not a crash.
    const bool cancelled = !story.timeLimit.empty() || !story.cancelled.empty();
    constexpr std::int64_t kSigTerm = 15;
    std::set<std::uint32_t> killed, others;
    for (const auto& n : snap.notes) {
        const auto kind = snap.str(n.kind);
        const bool fate = snap.str(n.source) == "slurm" && (kind == "killed by signal" || kind == "exited");
        story.tasksEnded += fate; // a note per task placed on a rank, else one per srun line
        if (!fate || n.rank == kNoRank) {
            continue;
        }
        if (kind == "killed by signal" && n.code != kSigAbrt && !(cancelled && n.code == kSigTerm)) {
            if (killed.insert(n.rank).second && killed.size() == 1) {
                story.crash = snap.str(n.text);
            }
        } else if (kind == "killed by signal" || kind == "exited") {
            others.insert(n.rank);
        }
    }
    if (killed.size() == 1 && !others.count(*killed.begin())) {
        story.crashedRank = *killed.begin();
    } else {
        story.crash.clear();
    }
}

// torchrun's tables: the root cause it observed first (the earliest when several agents printed one), and the
// count of failed ranks.
void readLauncher(const JobSnapshot& snap, LogStory& story)
{
    for (const auto& n : snap.notes) {
        if (snap.str(n.source) != "torchrun") {
            continue;
        }
        ++story.launcherFailures;
        if (snap.str(n.kind) != "first observed failure") {
            continue;
        }
        auto& f = story.firstFailure;
        const bool earlier = f && n.timeNs != kNoTime && (f->timeNs == kNoTime || n.timeNs < f->timeNs);
        if (!f || earlier) {
            f = LogLauncherFailure { n.timeNs, n.rank, snap.str(n.host), snap.str(n.text), n.code };
        }
    }
}

void readTransports(const JobSnapshot& snap, LogStory& story)
{
    std::map<std::string, std::vector<std::uint32_t>> byTransport;
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto t = snap.str(snap.ranks[r].transport);
        if (t.empty()) {
            continue;
        }
        const auto hca = snap.str(snap.ranks[r].hca);
        byTransport[t + (t != "Socket" && !hca.empty() ? " via " + hca : "")].push_back(r);
        story.socketFallback = story.socketFallback || t == "Socket";
    }
    for (const auto& [t, ranks] : byTransport) {
        story.transports.push_back(t + ": rank" + (ranks.size() > 1 ? "s " : " ") + rankRuns(ranks));
    }
}

// "exited with code 1", "killed by signal 6 (SIGABRT)": torchrun's exitcode, negative for a signal.
std::string exitWording(std::int64_t code)
{
    if (code == kNoExitCode) {
        return "failed (its exitcode not said)";
    }
    if (code >= 0) {
        return "exited with code " + std::to_string(code);
    }
    const std::pair<std::int64_t, const char*> names[] = { { 1, "SIGHUP" }, { 2, "SIGINT" }, { 4, "SIGILL" },
        { 6, "SIGABRT" }, { 7, "SIGBUS" }, { 8, "SIGFPE" }, { 9, "SIGKILL" }, { 11, "SIGSEGV" }, { 15, "SIGTERM" } };
    std::string name;
    for (const auto& [sig, n] : names) {
        name = sig == -code ? std::string(" (") + n + ")" : name;
    }
    return "killed by signal " + std::to_string(-code) + name;
}

std::string storySummary(const JobSnapshot& snap, const LogStory& s)
{
    auto who = [&](std::uint32_t r) {
        const auto host = r < snap.ranks.size() ? snap.str(snap.ranks[r].host) : std::string();
        return (r == kNoRank ? std::string("a rank its line does not name") : "rank " + std::to_string(r))
            + (host.empty() ? "" : " (" + host + ")");
    };
    std::string out;
    auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
    if (s.firstError) {
        add("first error: " + s.firstError->kind + " on "
            + (s.firstError->rank == kNoRank && !s.firstError->host.empty() ? s.firstError->host
                                                                             : who(s.firstError->rank))
            + (s.suspect.empty() ? "" : " — suspect " + s.suspect));
    }
    if (s.crashedRank) {
        add(who(*s.crashedRank) + " crashed (" + s.crash + "), the others collateral");
    }
    if (s.firstFailure) {
        const auto& f = *s.firstFailure;
        add("torchrun's first observed failure: "
            + (f.rank != kNoRank     ? who(f.rank)
                    : f.host.empty() ? std::string("a rank")
                                     : "a rank on " + f.host)
            + " " + exitWording(f.exitCode)
            + (f.exitCode == -kSigAbrt ? " (an abort: how ranks end after a watchdog timeout, so perhaps not the cause)"
                                       : ""));
    } else if (s.launcherFailures > 0) {
        add("torchrun: " + std::to_string(s.launcherFailures) + " rank(s) failed");
    }
    if (!s.deadRanks.empty()) {
        add("rank(s) " + rankRuns(s.deadRanks) + " stopped logging before the others timed out");
    }
    if (!s.desyncs.empty()) {
        add("desync at SeqNum " + std::to_string(s.desyncs.front().seq) + ": ranks disagree on the collective");
    }
    if (s.hang) {
        add("hang in " + s.hang->op + " SeqNum " + std::to_string(s.hang->seq) + " ("
            + std::to_string(s.hang->timedOut.size()) + " rank(s) timed out"
            + (s.hang->neverReached.empty() ? ""
                                            : ", " + std::to_string(s.hang->neverReached.size()) + " never reached it")
            + ")");
    }
    if (!s.analyzer.empty() || !s.analyzerNoDump.empty()) {
        add(analyzerClause(s));
    }
    if (!s.timeLimit.empty()) {
        add("Slurm cancelled the job at its time limit");
    }
    if (!s.cancelled.empty()) {
        add("Slurm cancelled the job (" + s.cancelReason + ")");
    }
    if (s.socketFallback) {
        add("NCCL fell back to TCP sockets on some ranks");
    }
    if (out.empty() && s.tasksEnded > 0) {
        add("Slurm: " + std::to_string(s.tasksEnded) + " task(s) killed or exited with an error");
    }
    if (out.empty() && s.firstProblem) {
        const auto& p = *s.firstProblem;
        add(p.kind + " on " + (p.rank == kNoRank ? std::string("a rank") : who(p.rank))
            + (p.text.empty() ? std::string() : ": " + p.text.substr(0, 120)));
    }
    return out.empty() ? "no error, timeout or abort in the logs: the job looks healthy" : out;
}

// PyTorch's OpType ("ALLREDUCE", "_REDUCE_SCATTER_BASE", "ALLGATHER_COALESCED") as an operation.
CollectiveOp opOfType(std::string_view t)
{
    const std::pair<std::string_view, CollectiveOp> kinds[]
        = { { "ALLREDUCE", CollectiveOp::AllReduce }, { "REDUCE_SCATTER", CollectiveOp::ReduceScatter },
              { "ALLGATHER", CollectiveOp::AllGather }, { "ALLTOALL", CollectiveOp::AllToAll },
              { "BROADCAST", CollectiveOp::Broadcast }, { "BARRIER", CollectiveOp::Barrier },
              { "REDUCE", CollectiveOp::Reduce }, { "SEND", CollectiveOp::Send }, { "RECV", CollectiveOp::Recv } };
    for (const auto& [name, op] : kinds) {
        if (t.find(name) != std::string_view::npos) {
            return op;
        }
    }
    return CollectiveOp::Other;
}

// fr_trace's op ("nccl:all_reduce", "nccl:_reduce_scatter_base") as an operation.
CollectiveOp opOfAnalyzer(const std::string& op)
{
    std::string t;
    for (const char c : std::string_view(op).substr(op.find(':') + 1)) { // npos + 1: the whole name
        if (c != '_') {
            t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
    }
    return t.find("REDUCESCATTER") != std::string::npos ? CollectiveOp::ReduceScatter : opOfType(t);
}

// fr_trace matched every rank's dump: when no error names a rank, the ranks it says never joined a collective (else
// those whose collective disagrees with the others') are the suspects, more precisely than the ranks whose log
// shows no timeout; with no hang in the logs, its collective is the incident's.
void useAnalyzer(const JobSnapshot& snap, const LogStory& s, Incident& inc)
{
    const auto it = std::find_if(s.analyzer.begin(), s.analyzer.end(),
        [](const LogAnalyzerFinding& a) { return !a.missing.empty() || !a.culprits.empty(); });
    if (it == s.analyzer.end() || !inc.firstFailedRanks.empty()) {
        return;
    }
    if (!it->missing.empty()) {
        inc.missingRanks = it->missing;
        inc.suspectRanks = it->missing;
    } else {
        inc.suspectRanks.clear();
        for (const auto& [rank, text] : it->culprits) {
            inc.suspectRanks.push_back(rank);
        }
        std::sort(inc.suspectRanks.begin(), inc.suspectRanks.end());
        inc.suspectRanks.erase(std::unique(inc.suspectRanks.begin(), inc.suspectRanks.end()), inc.suspectRanks.end());
    }
    if (s.hang) {
        return;
    }
    const auto name = it->pg.substr(0, it->pg.find(':'));
    for (std::size_t g = 0; g < snap.groups.size(); ++g) {
        if (snap.str(snap.groups[g].name) == name) {
            inc.group = static_cast<std::uint16_t>(g);
        }
    }
    inc.seq = static_cast<std::uint32_t>(std::clamp<std::int64_t>(it->seq, 0, 0xffffffff));
    inc.op = opOfAnalyzer(it->op);
}

} // namespace

std::optional<Incident> analysis::logIncident(const JobSnapshot& snap, const LogStory& s)
{
    const bool firstFailure = s.firstFailure && s.firstFailure->rank != kNoRank;
    if (snap.groups.empty() || snap.job.worldSize == 0
        || (!s.hang && !s.firstError && !s.crashedRank && !firstFailure && s.analyzer.empty())) {
        return std::nullopt;
    }
    Incident inc;
    inc.startNs = inc.endNs = kNoTime; // set from the logs below
    inc.kind = IncidentKind::Hang;
    inc.ranksAffected = snap.job.worldSize;
    const auto errorNs = s.firstError ? s.firstError->timeNs : kNoTime;
    if (s.hang) {
        const auto& h = *s.hang;
        for (std::size_t g = 0; g < snap.groups.size(); ++g) {
            if (snap.str(snap.groups[g].name) == (h.pg.empty() ? "0" : h.pg)) {
                inc.group = static_cast<std::uint16_t>(g);
            }
        }
        inc.seq = static_cast<std::uint32_t>(std::clamp<std::int64_t>(h.seq, 0, 0xffffffff));
        inc.op = opOfType(h.op);
        inc.timedOutRanks = static_cast<std::uint32_t>(h.timedOut.size());
        inc.startNs = h.startedNs != kNoTime ? h.startedNs : h.firstTimeoutNs;
        inc.endNs = h.lastTimeoutNs;
        if (!s.firstError) {
            inc.missingRanks = h.neverReached; // no error names a rank: those that never arrived are the suspects
        }
    }
    if (inc.startNs == kNoTime || (errorNs != kNoTime && errorNs < inc.startNs)) {
        inc.startNs = errorNs;
    }
    if (inc.startNs == kNoTime && firstFailure) {
        inc.startNs = s.firstFailure->timeNs;
    }
    if (inc.startNs == kNoTime) {
        inc.startNs = snap.job.span.start;
    }
    inc.endNs = inc.endNs == kNoTime ? std::max(inc.startNs, snap.job.span.end) : inc.endNs;
    if (s.hang && s.hang->lastTimeoutNs != kNoTime) { // the watchdogs gave up: the job went down with them
        inc.jobCrashed = true;
        inc.jobDiedNs = s.hang->lastTimeoutNs;
    }
    inc.ranksAffected -= std::min<std::uint32_t>(inc.ranksAffected, std::uint32_t(inc.missingRanks.size()));
    inc.gpuSecondsLost = double(inc.ranksAffected) * double(inc.endNs - inc.startNs) / 1e9;
    if (s.firstError && s.firstError->rank != kNoRank) {
        inc.firstFailedRanks = { s.firstError->rank };
    }
    inc.suspectRanks = inc.firstFailedRanks.empty() ? inc.missingRanks : inc.firstFailedRanks;
    useAnalyzer(snap, s, inc);
    if (inc.suspectRanks.empty() && s.crashedRank) {
        inc.suspectRanks = { *s.crashedRank };
    }
    if (inc.suspectRanks.empty() && firstFailure) {
        inc.suspectRanks = { s.firstFailure->rank };
    }
    return inc;
}

std::optional<LogStory> readLogStory(const JobSnapshot& snap)
{
    const bool fates = std::any_of(snap.notes.begin(), snap.notes.end(),
        [&](const HostNote& n) { return snap.str(n.source) == "slurm" || snap.str(n.source) == "torchrun"; });
    if (snap.logFacts.empty() && !fates) {
        return std::nullopt;
    }
    LogStory story;
    story.facts = snap.logFacts.size();
    std::map<LogEventKind, std::size_t> counts;
    for (const auto& f : snap.logFacts) {
        ++counts[f.kind];
    }
    for (const auto& [k, n] : counts) {
        story.counts.emplace_back(std::string(toString(k)), n);
    }
    findHang(snap, story);
    findMismatches(snap, story);
    findFirstError(snap, story);
    findFirstProblem(snap, story);
    readSlurm(snap, story);
    readLauncher(snap, story);
    readTransports(snap, story);
    readAnalyzer(snap, story);
    story.summary = storySummary(snap, story);
    return story;
}

} // namespace stallscope
