// SPDX-License-Identifier: MIT
// How many ranks an incident rests on (analysis.h Coverage), for people, and what the ranks without records say
// in their logs about the same window. O(log facts) per incident.
#include "analysis/internal.h"

#include "core/stats.h"
#include "core/time_format.h"

#include <algorithm>
#include <map>

namespace stallscope {

std::string coverageText(const Coverage& c)
{
    if (c.recorded == 0) {
        return "no rank has a collective record: told by the logs alone";
    }
    std::string s;
    if (c.seen == 0) {
        s = "told by the logs: "
            + (c.onlyRank != kNoRank
                      ? "the one rank with records (rank " + std::to_string(c.onlyRank) + ") does not show it"
                                     : "none of the " + formatCount(c.recorded) + " ranks with records shows it")
            + " (records end before it, or keep completed collectives only, as a profiler trace does)";
    } else if (c.onlyRank != kNoRank) {
        // One rank's record shows how long it waited inside the collective, not whom it waited for: a fabric stall
        // and a late peer look alike on it.
        s = "seen on rank " + std::to_string(c.onlyRank)
            + "'s record alone: it shows where that rank waited, not which peer or link held it";
    } else {
        s = std::string(c.seen == c.recorded ? "seen on all " : "seen on ") + formatCount(c.seen) + " of "
            + formatCount(c.recorded) + " ranks with records";
    }
    if (c.partial()) {
        const auto none = c.groupRanks - c.recorded;
        s += "; " + formatCount(none) + (none == 1 ? " rank has none" : " ranks have none");
        if (!c.absentLogs.empty()) {
            s += " (their logs: " + c.absentLogs + ")";
        }
    }
    if (c.extrapolated) {
        s += "; ranks affected and GPU-s lost extrapolated to the group's " + formatCount(c.groupRanks) + " ranks";
    }
    return s;
}

namespace analysis {

namespace {

// Log facts that say something went wrong on a rank, by how people name them.
const char* failureWord(LogEventKind k)
{
    switch (k) {
    case LogEventKind::WatchdogTimeout:
        return "watchdog timeout";
    case LogEventKind::CompletionError:
        return "NCCL completion error";
    case LogEventKind::PortError:
        return "HCA port error";
    case LogEventKind::DeviceFatal:
        return "HCA fatal error";
    case LogEventKind::Terminated:
    case LogEventKind::WatchdogException:
    case LogEventKind::WatchdogFailure:
        return "abort";
    case LogEventKind::SocketError:
        return "socket error";
    default:
        return nullptr;
    }
}

} // namespace

void describeAbsentRanks(const JobSnapshot& snap, const std::optional<LogStory>& story, Incident& inc)
{
    auto& c = inc.coverage;
    if (!c.partial() || c.recorded == 0 || inc.group >= snap.groups.size()) {
        return;
    }
    std::vector<bool> absent(snap.ranks.size(), false);
    bool anyLog = false; // does any absent rank have a log at all (a timed line, or any fact such as its init)
    for (const auto r : snap.groups[inc.group].ranks) {
        if (r < absent.size() && (r >= snap.collectives.size() || snap.collectives[r].size() == 0)) {
            absent[r] = true;
            anyLog = anyLog || snap.ranks[r].logFirstNs != kNoTime;
        }
    }
    // The window the incident held the ranks, with a little slack for clocks and for lines written as it ended.
    constexpr TimeNs kSlackNs = 5 * kNsPerSec;
    const TimeNs from = inc.startNs - kSlackNs;
    const TimeNs to = std::max(inc.endNs, inc.jobDiedNs == kNoTime ? inc.endNs : inc.jobDiedNs) + kSlackNs;
    std::map<std::string, std::vector<std::uint32_t>> said; // what → ranks, each rank once per kind
    for (const auto& f : snap.logFacts) {
        anyLog = anyLog || (f.rank < absent.size() && absent[f.rank] && !isAnalyzerFinding(f.kind));
        const char* word = failureWord(f.kind);
        if (word && f.rank < absent.size() && absent[f.rank] && f.timeNs != kNoTime && f.timeNs >= from
            && f.timeNs <= to) {
            auto& v = said[word];
            if (v.empty() || v.back() != f.rank) {
                v.push_back(f.rank);
            }
        }
    }
    if (story && story->hang && story->hang->seq == std::int64_t(inc.seq)) {
        // The logs' hang is this collective: an absent rank with a log and no timeout of its own never reached it.
        for (const auto r : story->hang->neverReached) {
            if (r < absent.size() && absent[r]) {
                inc.silentRanks.push_back(r);
            }
        }
    }
    std::string s;
    for (auto& [word, ranks] : said) {
        std::sort(ranks.begin(), ranks.end());
        ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
        s += (s.empty() ? "" : "; ") + std::string(word) + " on rank" + (ranks.size() > 1 ? "s " : " ")
            + rankRuns(ranks);
    }
    if (!inc.silentRanks.empty()) {
        s += (s.empty() ? "" : "; ") + std::string("the log of rank") + (inc.silentRanks.size() > 1 ? "s " : " ")
            + rankRuns(inc.silentRanks) + " has no timeout of its own while the others timed out";
    }
    if (s.empty()) {
        s = !anyLog ? "none in the folder" : "no error, timeout or abort in this window";
    }
    c.absentLogs = s;
}

void foldUnexplainedWaits(std::vector<Incident>& incidents)
{
    constexpr std::size_t kMinRun = 3; // fewer waits are read one by one
    constexpr TimeNs kMaxGapNs = 30 * kNsPerSec; // waits further apart are separate events
    const auto foldable = [](const Incident& i) {
        return i.coverage.extrapolated && i.kind == IncidentKind::Unknown && !i.culprit && !i.jobCrashed;
    };
    std::vector<Incident> out;
    for (std::size_t i = 0; i < incidents.size();) {
        std::size_t j = i + 1;
        while (foldable(incidents[i]) && j < incidents.size() && foldable(incidents[j])
            && incidents[j].group == incidents[i].group && incidents[j].startNs - incidents[j - 1].endNs <= kMaxGapNs) {
            ++j;
        }
        if (j - i < kMinRun) {
            out.push_back(std::move(incidents[i]));
            ++i;
            continue;
        }
        std::vector<TimeNs> waits;
        for (std::size_t k = i; k < j; ++k) {
            waits.push_back(incidents[k].endNs - incidents[k].startNs);
        }
        Incident run = std::move(incidents[i]);
        for (std::size_t k = i + 1; k < j; ++k) {
            run.gpuSecondsLost += incidents[k].gpuSecondsLost;
            run.coverage.seen = std::min(run.coverage.seen, incidents[k].coverage.seen);
        }
        run.kind = IncidentKind::Straggler;
        run.endNs = incidents[j - 1].endNs;
        run.stragglerLeadNs = median(waits);
        run.otherLinks.clear();
        run.summary = "the ranks with records waited about " + formatDuration(run.stragglerLeadNs) + " in "
            + formatCount(j - i) + " collectives, with no fabric evidence: a peer without records arrived late each "
              "time (a straggler the records cannot name)";
        out.push_back(std::move(run));
        i = j;
    }
    incidents = std::move(out);
}

std::optional<Incident> logOnlyIncident(
    const JobSnapshot& snap, const LogStory& story, const std::vector<Incident>& fromRecords)
{
    std::uint32_t recorded = 0;
    for (const auto& c : snap.collectives) {
        recorded += c.size() > 0;
    }
    if (recorded > 0 && double(recorded) >= AnalysisOptions {}.quorum * double(snap.collectives.size())) {
        return std::nullopt;
    }
    auto inc = logIncident(snap, story);
    if (!inc) {
        return std::nullopt;
    }
    constexpr TimeNs kSlackNs = 60 * kNsPerSec; // a watchdog line can follow the stall it reports by its timeout
    for (const auto& other : fromRecords) {
        if (other.startNs <= inc->endNs + kSlackNs && other.endNs + snap.policy.collectiveTimeoutNs + kSlackNs >= inc->startNs) {
            return std::nullopt;
        }
    }
    if (recorded > 0 && inc->group < snap.groups.size()) {
        auto& c = inc->coverage;
        for (const auto r : snap.groups[inc->group].ranks) {
            ++c.groupRanks;
            if (r < snap.collectives.size() && snap.collectives[r].size() > 0) {
                c.onlyRank = c.recorded == 0 ? r : kNoRank;
                ++c.recorded;
            }
        }
        c.extrapolated = true;
    }
    return inc;
}

} // namespace analysis

} // namespace stallscope
