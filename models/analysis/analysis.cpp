// SPDX-License-Identifier: MIT
#include "analysis/analysis.h"

#include "analysis/internal.h"
#include "core/time_format.h"

#include <algorithm>
#include <chrono>

namespace stallscope {

using namespace analysis;

std::string incidentLabel(const Incident& inc)
{
    switch (inc.kind) {
    case IncidentKind::LinkFlap:
        return inc.jobCrashed ? "crash: link down past the retry budget" : "link flap";
    case IncidentKind::DeadRank:
        return inc.jobCrashed ? "crash: a rank died" : "dead rank";
    case IncidentKind::Straggler:
        return "straggler";
    case IncidentKind::Hang:
        return inc.jobCrashed ? "hang, then the job died" : "hang";
    case IncidentKind::Unknown:
        break;
    }
    return inc.jobCrashed ? "crash, cause unknown" : "stall, cause unknown";
}

std::string costPerDayText(const PolicyVerdict& p)
{
    if (!p.recurrence.empty()) {
        // Name the rate the figure assumes: with no period it is the sightings over the span, a day at least, so
        // "once" reads "at 1 a day" rather than an unexplained daily cost.
        return p.recurrence + ": \u2248 " + formatFixed(p.costPerDayGpuHours, 1) + " GPU-h per day at "
            + formatFixed(p.flapsPerDay, p.flapsPerDay < 10 ? 1 : 0) + " a day";
    }
    return "if it recurs hourly: " + formatFixed(p.costPerDayIfHourlyGpuHours, 1) + " GPU-h per day";
}

std::string_view toString(IncidentKind k)
{
    switch (k) {
    case IncidentKind::LinkFlap:
        return "link_flap";
    case IncidentKind::DeadRank:
        return "dead_rank";
    case IncidentKind::Straggler:
        return "straggler";
    case IncidentKind::Hang:
        return "hang";
    case IncidentKind::Unknown:
        return "unknown";
    }
    return "unknown";
}

namespace {

std::string rankList(const std::vector<std::uint32_t>& ranks, std::size_t max = 8)
{
    std::string s;
    for (std::size_t i = 0; i < ranks.size() && i < max; ++i) {
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > max) {
        s += ", … (" + std::to_string(ranks.size()) + " ranks)";
    }
    return s;
}

// Decides the kind from the evidence gathered, names the suspects, writes the one-line summary.
void classify(const JobSnapshot& snap, Incident& inc)
{
    if (inc.kind == IncidentKind::Straggler && inc.suspectRanks.empty()) {
        return; // waits of the ranks with records, folded with their summary (foldUnexplainedWaits)
    }
    if (inc.kind == IncidentKind::Straggler) {
        inc.summary = "rank " + std::to_string(inc.suspectRanks.front()) + " ("
            + snap.str(snap.ranks[inc.suspectRanks.front()].host) + ") arrives last, by "
            + formatDuration(inc.stragglerLeadNs) + " (median); no link implicated";
        return;
    }
    if (inc.culprit) {
        inc.kind = IncidentKind::LinkFlap;
        inc.suspectRanks = inc.firstFailedRanks;
        inc.summary = "link " + inc.culprit->a.node + " port " + std::to_string(inc.culprit->a.port) + " <-> "
            + inc.culprit->b.node + " port " + std::to_string(inc.culprit->b.port)
            + (inc.culprit->symbolBurst ? " dropped packets in a symbol-error burst, never down ("
                   : inc.culprit->retrained ? " retrained without going down ("
                                            : " went down (")
            + inc.culprit->confidence
            + " confidence)";
        return;
    }
    const auto story = hostStory(snap, inc);
    const auto told = story.empty() ? std::string() : "; " + story;
    if (!inc.missingRanks.empty()) {
        inc.kind = IncidentKind::DeadRank;
        inc.suspectRanks = inc.missingRanks;
        inc.summary
            = "no link implicated; rank(s) " + rankList(inc.missingRanks) + " never entered the collective" + told;
        return;
    }
    if (!inc.silentRanks.empty()) {
        // The ranks with records all entered; of those without, the logs say these never reached it.
        inc.kind = IncidentKind::DeadRank;
        inc.suspectRanks = inc.silentRanks;
        inc.summary = "no link implicated; rank(s) " + rankList(inc.silentRanks)
            + " never reached it: no timeout in their logs while the others timed out (no collective record of "
              "theirs)"
            + told;
        return;
    }
    if (inc.killedRank) {
        // Every rank entered, so the dumps cannot tell who died; the scheduler can.
        inc.kind = IncidentKind::DeadRank;
        inc.suspectRanks = { *inc.killedRank };
        inc.summary = "no link implicated" + told;
        return;
    }
    if (inc.rasRank) {
        // Every rank entered and Slurm said nothing; NCCL's RAS saw one rank drop out of the communicator.
        inc.kind = IncidentKind::DeadRank;
        inc.suspectRanks = { *inc.rasRank };
        inc.summary = "no link implicated" + told;
        return;
    }
    if (inc.launcherRank) {
        // Every rank entered (or no dump says); torchrun saw this rank fail first, with an error of its own.
        inc.kind = IncidentKind::DeadRank;
        inc.suspectRanks = { *inc.launcherRank };
        inc.summary = "no link implicated" + told;
        return;
    }
    if (!inc.firstFailedRanks.empty()) {
        inc.kind = IncidentKind::Hang;
        inc.suspectRanks = inc.firstFailedRanks;
        inc.summary = "no link implicated; rank(s) " + rankList(inc.firstFailedRanks) + " failed first" + told;
        return;
    }
    inc.summary = inc.kind == IncidentKind::Hang ? "no link implicated; every rank entered and none completed"
                                                 : "no link implicated; the collective stretched on every rank";
}

// With thin coverage the ranks affected were extrapolated to the whole group; a suspect the logs or Slurm name
// dead, with no record of its own and not already left out as missing, was not inside the collective.
void leaveOutDeadSuspects(const JobSnapshot& snap, Incident& inc)
{
    if (!inc.coverage.extrapolated || inc.kind != IncidentKind::DeadRank) {
        return;
    }
    const double seconds = double(inc.endNs - inc.startNs) / 1e9;
    for (const auto r : inc.suspectRanks) {
        const bool recorded = r < snap.collectives.size() && snap.collectives[r].size() > 0;
        const bool counted = std::find(inc.missingRanks.begin(), inc.missingRanks.end(), r) != inc.missingRanks.end();
        if (!recorded && !counted && inc.ranksAffected > 0) {
            --inc.ranksAffected;
            inc.gpuSecondsLost = std::max(0.0, inc.gpuSecondsLost - seconds);
        }
    }
}

} // namespace

AnalysisResult analyze(const JobSnapshot& snap, const AnalysisOptions& options, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    AnalysisResult out;
    out.recordsScanned = snap.collectiveCount();
    out.collectives = matchCollectives(snap, progress);
    progress.report("Finding stalls", 0, 1);
    out.incidents = findStalls(snap, out.collectives, options);
    auto stragglers = findStragglers(snap, out.collectives);
    out.logStory = readLogStory(snap);
    for (auto& inc : out.incidents) {
        describeAbsentRanks(snap, out.logStory, inc);
    }
    if (out.logStory) { // the logs' story as the incident the records lack; the fabric's evidence (topology,
        if (auto inc = logOnlyIncident(snap, *out.logStory, out.incidents)) { // counters) is weighed for it below
            out.incidents.push_back(std::move(*inc));
        }
    }
    // In thousandths of an incident: at 131,072 ranks one incident's links take a second.
    const std::uint64_t perIncident = 1000;
    const std::uint64_t stageTotal = out.incidents.size() * perIncident;
    progress.report("Attributing to the fabric", 0, stageTotal);
    const FabricIndex fabric(snap);
    for (std::size_t i = 0; i < out.incidents.size(); ++i) {
        if (progress.cancelled()) {
            break;
        }
        attributeToFabric(fabric, out.incidents[i], [&](std::size_t done, std::size_t total) {
            progress.report("Attributing to the fabric", i * perIncident + done * perIncident / total, stageTotal);
        });
        progress.report("Attributing to the fabric", (i + 1) * perIncident, stageTotal);
    }
    foldUnexplainedWaits(out.incidents);
    out.incidents.insert(
        out.incidents.end(), std::make_move_iterator(stragglers.begin()), std::make_move_iterator(stragglers.end()));

    std::stable_sort(out.incidents.begin(), out.incidents.end(),
        [](const Incident& a, const Incident& b) { return a.startNs < b.startNs; });
    for (std::size_t i = 0; i < out.incidents.size(); ++i) {
        auto& inc = out.incidents[i];
        inc.number = static_cast<int>(i + 1);
        attachHostNotes(snap, inc);
        classify(snap, inc);
        leaveOutDeadSuspects(snap, inc);
        priceIncident(snap, inc);
    }
    priceRecurrence(snap, out.incidents);
    out.whyPassed = whyItPassed(snap, out.incidents, options, &fabric);
    out.degradedLinks = findDegradedLinks(snap, fabric, out.collectives);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

AnalysisResult analyze(const JobSnapshot& snap, const AnalysisOptions& options)
{
    NullProgress none;
    return analyze(snap, options, none);
}

std::vector<TimeRange> stallWindows(const AnalysisResult& result)
{
    std::vector<TimeRange> out;
    for (const auto& inc : result.incidents) {
        if (inc.kind != IncidentKind::Straggler) {
            out.push_back({ inc.startNs, inc.endNs });
        }
    }
    return out;
}

} // namespace stallscope
