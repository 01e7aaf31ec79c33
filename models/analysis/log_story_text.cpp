// SPDX-License-Identifier: MIT
// The logs' story (analysis.h LogStory) as text and JSON (docs/analysis-format.md "logs"; keep them in sync).
#include "analysis/internal.h"

#include "core/time_format.h"

#include <sstream>

namespace stallscope {

namespace {

std::string when(TimeNs t)
{
    return t == kNoTime ? std::string("(no time)") : formatUtc(t);
}

std::string rankList(const std::vector<std::uint32_t>& ranks, std::size_t most = 16)
{
    std::string s;
    for (std::size_t i = 0; i < ranks.size() && i < most; ++i) {
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    return ranks.size() > most ? s + ", … (" + std::to_string(ranks.size()) + " ranks)" : s;
}

std::string errorText(const LogError& e)
{
    std::string s = when(e.timeNs) + "  "
        + (e.rank == kNoRank ? std::string("rank ?") : "rank " + std::to_string(e.rank))
        + (e.host.empty() ? "" : " " + e.host) + (e.hca.empty() ? "" : " " + e.hca) + "  " + e.kind;
    if (e.status >= 0) {
        s += ", status " + std::to_string(e.status);
    }
    if (e.vendorErr >= 0) {
        s += ", vendor err " + std::to_string(e.vendorErr);
    }
    if (!e.peer.empty()) {
        s += ", peer " + e.peer;
    }
    return s + "  (" + e.file + ":" + std::to_string(e.line) + ")";
}

std::string numel(std::int64_t in, std::int64_t out)
{
    if (in < 0 && out < 0) {
        return {};
    }
    return ", NumelIn " + std::to_string(in) + ", NumelOut " + std::to_string(out);
}

// fr_trace's findings: "  fr_trace       nccl:all_reduce SeqNum 57 of group 0:default_pg: rank(s) 3, 5 never
// joined  (fr.txt:5)", a line per culprit, and the ranks it had no dump from.
void analyzerText(std::ostringstream& o, const LogStory& s)
{
    for (const auto& a : s.analyzer) {
        const auto what = a.op + (a.seq < 0 ? std::string() : " SeqNum " + std::to_string(a.seq)) + " of group "
            + (a.pg.empty() ? "?" : a.pg);
        const auto where = "  (" + a.file + ":" + std::to_string(a.line) + ")\n";
        if (!a.missing.empty()) {
            o << "  fr_trace       " << what << ": rank(s) " << rankList(a.missing) << " never joined" << where;
        }
        for (const auto& [rank, text] : a.culprits) {
            o << "  fr_trace       " << what << ": culprit rank " << rank << ", " << text << where;
        }
        if (!a.mismatch.empty()) {
            o << "  fr_trace       " << what << ": " << a.mismatch << where;
        }
    }
    if (!s.analyzerNoDump.empty()) {
        o << "  fr_trace       no dump from rank(s) " << rankList(s.analyzerNoDump) << ": it could not decide\n";
    }
}

nlohmann::ordered_json analyzerJson(const LogStory& s)
{
    using nlohmann::ordered_json;
    ordered_json findings = ordered_json::array();
    for (const auto& a : s.analyzer) {
        ordered_json culprits = ordered_json::array();
        for (const auto& [rank, text] : a.culprits) {
            culprits.push_back({ { "rank", rank }, { "error", text } });
        }
        findings.push_back({ { "pg", a.pg }, { "seq", a.seq < 0 ? ordered_json(nullptr) : ordered_json(a.seq) },
            { "op", a.op }, { "missing_ranks", a.missing }, { "culprits", culprits }, { "mismatch", a.mismatch },
            { "file", a.file }, { "line", a.line } });
    }
    return { { "findings", findings }, { "no_dump_ranks", s.analyzerNoDump } };
}

} // namespace

std::string logStoryText(const JobSnapshot&, const LogStory& s)
{
    std::ostringstream o;
    o << "\nWhat the logs say (" << s.facts << " facts";
    for (const auto& [kind, n] : s.counts) {
        o << "; " << n << " " << kind;
    }
    o << ")\n  " << s.summary << '\n';
    if (s.firstError) {
        o << "  first error    " << errorText(*s.firstError) << '\n';
        if (!s.suspect.empty()) {
            o << "  suspect        " << s.suspect << '\n';
        }
        for (const auto& e : s.consequences) {
            o << "  then           " << errorText(e) << "  (a consequence)\n";
        }
    }
    if (s.firstProblem && !s.firstError && !s.hang) {
        o << "  problem        " << errorText(*s.firstProblem)
          << (s.firstProblem->text.empty() ? std::string() : "  " + s.firstProblem->text.substr(0, 200)) << '\n';
    }
    if (s.hang) {
        const auto& h = *s.hang;
        o << "  hang           " << h.op << " SeqNum " << h.seq << " of group " << (h.pg.empty() ? "?" : h.pg)
          << numel(h.numelIn, h.numelOut)
          << (h.timeoutMs >= 0 ? ", timeout " + formatDuration(h.timeoutMs * kNsPerMs) : std::string()) << '\n';
        o << "  timed out      rank(s) " << rankList(h.timedOut) << " from " << when(h.firstTimeoutNs) << '\n';
        for (const auto& [rank, seq] : h.elsewhere) {
            o << "  elsewhere      rank " << rank << " timed out at SeqNum " << seq << '\n';
        }
        if (!h.neverReached.empty()) {
            o << "  never reached  rank(s) " << rankList(h.neverReached) << '\n';
        }
    }
    for (const auto& d : s.desyncs) {
        o << "  desync         SeqNum " << d.seq << " of group " << (d.pg.empty() ? "?" : d.pg) << ":";
        for (const auto& v : d.variants) {
            o << " " << v.op << numel(v.numelIn, v.numelOut) << " on rank(s) " << rankList(v.ranks) << ";";
        }
        o << '\n';
    }
    if (!s.deadRanks.empty()) {
        o << "  dead rank(s)   " << rankList(s.deadRanks) << ": the log stops before the others time out\n";
    }
    if (s.crashedRank) {
        o << "  crash          rank " << *s.crashedRank << ": " << s.crash << " (the others' aborts followed)\n";
    }
    if (s.firstFailure) {
        const auto& f = *s.firstFailure;
        o << "  first failure  " << (f.rank == kNoRank ? std::string("rank ?") : "rank " + std::to_string(f.rank))
          << (f.host.empty() ? "" : " on " + f.host) << (f.timeNs == kNoTime ? std::string() : " at " + when(f.timeNs))
          << ": " << f.text << " (torchrun's root cause";
        if (s.launcherFailures > 1) {
            o << "; " << s.launcherFailures - 1 << " other rank(s) failed after it";
        }
        o << ")\n";
    } else if (s.launcherFailures > 0) {
        o << "  failed         " << s.launcherFailures << " rank(s), as torchrun reports them\n";
    }
    if (!s.timeLimit.empty()) {
        o << "  time limit     " << s.timeLimit << '\n';
    }
    if (!s.cancelled.empty()) {
        o << "  cancelled      " << s.cancelled << " (" << s.cancelReason << ")\n";
    }
    analyzerText(o, s);
    for (const auto& t : s.transports) {
        o << "  transport      " << t << '\n';
    }
    if (s.socketFallback) {
        o << "  warning        NCCL found no InfiniBand device on some ranks and used TCP sockets\n";
    }
    return o.str();
}

nlohmann::ordered_json logStoryJson(const LogStory& s)
{
    using nlohmann::ordered_json;
    auto t = [](TimeNs v) { return v == kNoTime ? ordered_json(nullptr) : ordered_json(v); };
    auto err = [&](const LogError& e) {
        return ordered_json { { "t_ns", t(e.timeNs) },
            { "rank", e.rank == kNoRank ? ordered_json(nullptr) : ordered_json(e.rank) }, { "host", e.host },
            { "hca", e.hca }, { "kind", e.kind }, { "status", e.status }, { "vendor_err", e.vendorErr },
            { "peer", e.peer }, { "file", e.file }, { "line", e.line } };
    };
    ordered_json j;
    j["facts"] = s.facts;
    ordered_json counts = ordered_json::object();
    for (const auto& [kind, n] : s.counts) {
        counts[kind] = n;
    }
    j["counts"] = counts;
    j["summary"] = s.summary;
    j["first_error"] = s.firstError ? err(*s.firstError) : ordered_json(nullptr);
    if (s.firstProblem) {
        auto p = err(*s.firstProblem);
        p["text"] = s.firstProblem->text;
        j["first_problem"] = p;
    } else {
        j["first_problem"] = nullptr;
    }
    j["suspect"] = s.suspect;
    ordered_json later = ordered_json::array();
    for (const auto& e : s.consequences) {
        later.push_back(err(e));
    }
    j["consequences"] = later;
    if (s.hang) {
        const auto& h = *s.hang;
        ordered_json elsewhere = ordered_json::array();
        for (const auto& [rank, seq] : h.elsewhere) {
            elsewhere.push_back({ { "rank", rank }, { "seq", seq } });
        }
        j["hang"] = { { "pg", h.pg }, { "seq", h.seq }, { "op", h.op }, { "numel_in", h.numelIn },
            { "numel_out", h.numelOut }, { "timeout_ms", h.timeoutMs }, { "first_timeout_ns", t(h.firstTimeoutNs) },
            { "timed_out_ranks", h.timedOut }, { "elsewhere", elsewhere }, { "never_reached", h.neverReached } };
    } else {
        j["hang"] = nullptr;
    }
    ordered_json desyncs = ordered_json::array();
    for (const auto& d : s.desyncs) {
        ordered_json vs = ordered_json::array();
        for (const auto& v : d.variants) {
            vs.push_back(
                { { "op", v.op }, { "numel_in", v.numelIn }, { "numel_out", v.numelOut }, { "ranks", v.ranks } });
        }
        desyncs.push_back({ { "pg", d.pg }, { "seq", d.seq }, { "variants", vs } });
    }
    j["desyncs"] = desyncs;
    j["dead_ranks"] = s.deadRanks;
    j["crashed_rank"] = s.crashedRank ? ordered_json(*s.crashedRank) : ordered_json(nullptr);
    j["crash"] = s.crash;
    j["slurm_tasks_ended"] = s.tasksEnded;
    if (s.firstFailure) {
        const auto& f = *s.firstFailure;
        j["first_failure"] = { { "rank", f.rank != kNoRank ? ordered_json(f.rank) : ordered_json(nullptr) },
            { "host", f.host }, { "exitcode", f.exitCode }, { "text", f.text } };
    } else {
        j["first_failure"] = nullptr;
    }
    j["launcher_failures"] = s.launcherFailures;
    j["time_limit"] = s.timeLimit;
    j["cancelled"] = s.cancelled.empty() ? ordered_json(nullptr)
                                         : ordered_json({ { "line", s.cancelled }, { "reason", s.cancelReason } });
    j["transports"] = s.transports;
    j["socket_fallback"] = s.socketFallback;
    j["fr_trace"] = analyzerJson(s);
    return j;
}

} // namespace stallscope
