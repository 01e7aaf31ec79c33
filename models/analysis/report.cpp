// SPDX-License-Identifier: MIT
// Text and JSON forms of an analysis (the JSON schema is docs/analysis-format.md; keep them in sync).
#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/node_findings.h"
#include "core/json_text.h"

#include "core/time_format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace stallscope {

namespace {

std::string clock(TimeNs t)
{
    return formatUtc(t).substr(11, 12);
} // "00:05:00.052"

std::string culpritOrSuspect(const Incident& inc)
{
    if (inc.culprit) {
        return inc.culprit->a.node + " p" + std::to_string(inc.culprit->a.port) + " <-> " + inc.culprit->b.node + " p"
            + std::to_string(inc.culprit->b.port) + " (" + inc.culprit->confidence + ")";
    }
    if (!inc.suspectRanks.empty()) {
        std::string s = "no link; rank " + std::to_string(inc.suspectRanks[0]);
        if (inc.suspectRanks.size() > 1) {
            s += " +" + std::to_string(inc.suspectRanks.size() - 1);
        }
        return s;
    }
    return "no link implicated";
}

void whatIfTable(std::ostream& o, const PolicyVerdict& p)
{
    std::vector<TimeNs> outages;
    for (const auto& row : p.whatIf) {
        if (std::find(outages.begin(), outages.end(), row.outageNs) == outages.end()) {
            outages.push_back(row.outageNs);
        }
    }
    o << "  what-if      NCCL_IB_TIMEOUT (budget)";
    for (auto t : outages) {
        std::string h = "  " + formatDuration(t) + (t == p.outageNs ? "*" : "");
        h.resize(15, ' ');
        o << h;
    }
    o << '\n';
    for (std::size_t i = 0; i < p.whatIf.size(); i += outages.size()) {
        std::string head
            = "               " + p.whatIf[i].label() + " (" + formatDuration(p.whatIf[i].retryBudgetNs) + ")";
        head.resize(39, ' ');
        o << head;
        for (std::size_t j = 0; j < outages.size() && i + j < p.whatIf.size(); ++j) {
            const auto& row = p.whatIf[i + j];
            std::string cell = "  " + (row.crash ? std::string("CRASH") : "stall " + formatDuration(row.stallNs));
            cell.resize(15, ' ');
            o << cell;
        }
        o << '\n';
    }
    o << "               (* = this incident's outage; a crash costs the retry budget, the collective timeout,\n"
         "                half a checkpoint interval of work and the restart, on every GPU";
    if (p.recovery && *p.recovery != Recovery::LinkUp) {
        o << ";\n                every column assumes the path is rerouted as it was here: "
          << (*p.recovery == Recovery::AdaptiveRouting ? "at once (adaptive routing)"
                                                       : "after ~" + formatDuration(p.rerouteNs) + " (subnet manager)");
    }
    o << ")\n";
}

// "  collective   pg 0 seq 1580 all_reduce 64 MiB (usually 12ms)".
void collectiveLine(std::ostream& o, const JobSnapshot& snap, const Incident& inc)
{
    const auto& group = snap.groups[inc.group];
    o << "  collective   pg " << snap.str(group.name);
    if (group.ranks.size() < snap.job.worldSize) {
        const auto desc = snap.str(group.desc);
        o << " (" << (desc.empty() || desc == "undefined" ? std::string() : std::string(desc) + ", ")
          << group.ranks.size() << " ranks)";
    }
    o << " seq " << inc.seq << ' ' << toString(inc.op) << ' '
      << (inc.bytes > 0 ? formatBytes(double(inc.bytes)) : "(size not known: no record of it)");
    if (inc.baselineNs > 0) {
        o << " (usually " << formatDuration(inc.baselineNs) << ')';
    }
    o << '\n';
}

void incidentDetail(std::ostream& o, const JobSnapshot& snap, const Incident& inc)
{
    o << "\nIncident " << inc.number << " — " << toString(inc.kind) << ", ";
    if (snap.job.untimed()) {
        o << "time unknown";
    } else {
        o << formatUtc(inc.startNs) << " (" << formatSince(inc.startNs, snap.job.clockOriginNs) << "), "
          << formatDuration(inc.endNs - inc.startNs);
    }
    o << ", " << formatCount(inc.ranksAffected) << " ranks\n";
    o << "  summary      " << inc.summary << '\n';
    if (snap.collectiveCount() == 0 && inc.seq == 0) { // logs alone, and no watchdog line named a collective
        o << "  collective   none named (no collective records, and no timeout line in the logs)\n";
    } else {
        collectiveLine(o, snap, inc);
    }
    if (inc.coverage.partial() && inc.coverage.recorded > 0) {
        o << "  coverage     " << coverageText(inc.coverage) << '\n';
    }
    if (inc.heldRanks > 0) {
        o << "  held         " << inc.heldRanks << " ranks of other groups waited for it in their next collective\n";
    }
    if (!inc.missingRanks.empty()) {
        o << "  missing      " << inc.missingRanks.size() << " rank(s) never entered it:";
        for (std::size_t i = 0; i < inc.missingRanks.size() && i < 8; ++i) {
            const auto host = snap.str(snap.ranks[inc.missingRanks[i]].host);
            o << ' ' << inc.missingRanks[i] << (host.empty() ? "" : " (" + std::string(host) + ')');
        }
        o << '\n';
    }
    if (!inc.firstFailedRanks.empty()) {
        o << "  failed first";
        for (std::size_t i = 0; i < inc.firstFailedRanks.size() && i < 8; ++i) {
            o << ' ' << inc.firstFailedRanks[i];
        }
        o << " (transport-retry errors point at the culprit, not the many timeouts after)\n";
    }
    if (inc.timedOutRanks > 0) {
        o << "  timed out    " << inc.timedOutRanks << " rank(s) at the collective timeout ("
          << formatDuration(snap.policy.collectiveTimeoutNs) << ")\n";
    }
    if (inc.jobCrashed) {
        o << "  job died     " << formatUtc(inc.jobDiedNs) << '\n';
    }
    if (inc.culprit) {
        const auto& c = *inc.culprit;
        o << "  culprit      " << c.a.node << " (" << formatGuid(c.a.guid) << ") port " << c.a.port << " <-> "
          << c.b.node << " (" << formatGuid(c.b.guid) << ") port " << c.b.port << ", " << c.confidence
          << " confidence\n";
        for (std::size_t i = 0; i < c.evidence.size(); ++i) {
            o << (i == 0 ? "  evidence     " : "               ") << clock(c.evidence[i].timeNs) << "  "
              << c.evidence[i].what << '\n';
        }
    } else if (inc.kind != IncidentKind::Straggler) {
        o << "  fabric       no link implicated: no link event or link_downed/link_error_recovery increase fits the "
             "stall\n";
    }
    for (std::size_t i = 0; i < inc.hostEvidence.size(); ++i) {
        const auto& e = inc.hostEvidence[i];
        o << (i == 0 ? "  hosts said   " : "               ")
          << (e.timeNs == kNoTime ? std::string("(no time)   ") : clock(e.timeNs)) << "  " << e.what << '\n';
    }
    for (const auto& other : inc.otherLinks) {
        o << "  not blamed   " << other.a.node << " p" << other.a.port << " <-> " << other.b.node << " p"
          << other.b.port << " (score " << formatFixed(other.score, 1) << ")\n";
    }
    const auto& p = inc.policy;
    if (inc.kind == IncidentKind::LinkFlap) {
        o << "  policy       ";
        if (p.outageNs != kNoTime) {
            o << "outage " << formatDuration(p.outageNs) << " (" << p.outageSource << ")";
            if (p.recovery == Recovery::AdaptiveRouting) {
                o << ", rerouted at once by adaptive routing";
            } else if (p.recovery == Recovery::SubnetManager) {
                o << ", no route for ~" << formatDuration(p.pathDownNs) << " until the subnet manager rerouted";
            }
            o << " vs retry budget " << formatDuration(p.retryBudgetNs) << ": "
              << (p.underBudget ? "under budget, the collective stretched and no error was raised"
                                : "over budget, the ranks next to the link failed and the job crashed")
              << '\n';
        } else {
            o << (inc.jobCrashed ? "over the retry budget: the job crashed\n" : "outage unknown\n");
        }
        if (inc.culprit && !inc.culprit->recoveryText.empty()) {
            o << "  recovery     " << inc.culprit->recoveryText << '\n';
        }
    }
    o << "  cost         " << formatCount(std::uint64_t(p.stallGpuSeconds + 0.5)) << " GPU-s stalled";
    if (p.crashGpuSeconds > 0) {
        o << " + " << formatCount(std::uint64_t(p.crashGpuSeconds + 0.5)) << " GPU-s of lost work and restart";
    }
    o << " = " << formatFixed(p.totalGpuSeconds / 3600, 2) << " GPU-h; " << costPerDayText(p) << '\n';
    if (!p.whatIf.empty()) {
        whatIfTable(o, p);
    }
}

// Links trained below their tier's rate: a persistent slowdown, not an incident in time.
void degradedText(std::ostream& o, const AnalysisResult& r)
{
    if (r.degradedLinks.empty()) {
        return;
    }
    o << "\nDegraded links (" << r.degradedLinks.size() << ", from the topology)\n";
    for (const auto& d : r.degradedLinks) {
        o << "  " << d.a.node << " (" << formatGuid(d.a.guid) << ") port " << d.a.port << " <-> " << d.b.node << " ("
          << formatGuid(d.b.guid) << ") port " << d.b.port << ": trained at " << d.rate << " vs " << d.usual << "; "
          << d.why << '\n';
        if (!d.impact.empty()) {
            o << "    " << d.impact << '\n';
        } else if (d.jobCrosses) {
            o << "    the job's traffic crosses it\n";
        }
    }
}

} // namespace

std::string incidentText(const JobSnapshot& snap, const Incident& inc)
{
    std::ostringstream o;
    incidentDetail(o, snap, inc);
    auto text = o.str();
    return text.empty() || text[0] != '\n' ? text : text.substr(1);
}

std::string noIncidentText(const JobSnapshot& snap)
{
    if (snap.collectiveCount() > 0) {
        return "No job-wide stall, hang or straggler found.";
    }
    if (!snap.logFacts.empty() || !snap.notes.empty()) { // a rank's lines, or Slurm's, torchrun's, a host's
        return "No job-wide stall, hang or straggler found in the logs (no rank has a collective record).";
    }
    return "Nothing to find a stall in: no rank has a collective record and no rank's log was read (the warnings say "
           "what each file held).";
}

std::string analysisText(const JobSnapshot& snap, const AnalysisResult& r)
{
    std::ostringstream o;
    o << "Job " << snap.job.name << ": " << snap.job.worldSize << " ranks, "
      << (snap.job.untimed() ? std::string("time unknown")
                  : formatUtc(snap.job.span.start) + " .. " + formatUtc(snap.job.span.end))
      << "; "
      << (snap.policy.adaptive.on ? snap.policy.timerText()
                                  : "NCCL_IB_TIMEOUT=" + std::to_string(snap.policy.ncclIbTimeout));
    if (!snap.policy.infiniteRetry()) {
        o << " (retry budget " << formatDuration(snap.policy.retryBudgetNs()) << ")";
    }
    o << '\n'
      << r.incidents.size() << " incident(s); analysed " << formatCount(r.recordsScanned) << " records in "
      << formatFixed(r.seconds, 2) << " s\n";
    const auto nodes = nodeFindingsText(findNodeProblems(snap)); // what node tools and sysfs copies show
    const auto logs = r.logStory ? logStoryText(snap, *r.logStory) : std::string();
    if (r.incidents.empty()) {
        o << noIncidentText(snap) << '\n' << logs;
        degradedText(o, r);
        o << (nodes.empty() ? "" : "\n" + nodes);
        return o.str();
    }
    // The culprit last: its length varies (and "↔" is one column but three bytes), so nothing after it can line up.
    o << "\n  #  start (UTC)                 since job start  duration  kind       ranks  GPU-s lost  culprit link / "
         "suspect\n";
    for (const auto& inc : r.incidents) {
        char line[512];
        const bool noTime = snap.job.untimed();
        std::snprintf(line, sizeof line, "%3d  %-27s  %-13s    %-8s  %-9s  %5u  %10s  %s\n", inc.number,
            noTime ? "time unknown" : formatUtc(inc.startNs).c_str(),
            noTime ? "" : formatSince(inc.startNs, snap.job.clockOriginNs).c_str(),
            noTime ? "" : formatDuration(inc.endNs - inc.startNs).c_str(), std::string(toString(inc.kind)).c_str(),
            inc.ranksAffected, formatCount(std::uint64_t(inc.policy.totalGpuSeconds + 0.5)).c_str(),
            culpritOrSuspect(inc).c_str());
        o << line;
    }
    for (const auto& inc : r.incidents) {
        incidentDetail(o, snap, inc);
    }
    o << (nodes.empty() ? "" : "\n" + nodes);
    const auto& w = r.whyPassed;
    if (w.applicable) {
        o << "\nWhy nothing caught it\n";
        o << "  health check  a " << formatDuration(w.checkNs) << " check every " << formatDuration(w.checkEveryNs)
          << " overlaps a " << formatDuration(w.outageNs) << " outage "
          << (w.flapPeriodNs > 0 ? "recurring every " + formatDuration(w.flapPeriodNs)
                                 : std::string("(if it recurs hourly)"))
          << " with a chance of " << formatFixed(100 * w.chancePerCheck, 1) << "% per check, "
          << formatFixed(100 * w.chancePerDay, 1) << "% per day\n";
        const auto pct = [](double v, int digits) {
            return v < 0 ? std::string("n/a (too little data)") : formatFixed(v, digits) + "%";
        };
        o << "  dashboards    traffic averaged over 1 min dips " << pct(w.dip1MinPercent, 1) << ", over 5 min "
          << pct(w.dip5MinPercent, 1) << "; the raw counters show a " << pct(w.dipRawPercent, 0) << " drop\n";
    }
    o << logs;
    degradedText(o, r);
    return o.str();
}

std::string analysisJson(const JobSnapshot& snap, const AnalysisResult& r)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = "stallscope.analysis/1";
    j["job"] = { { "name", snap.job.name }, { "world_size", snap.job.worldSize }, { "start_ns", snap.job.span.start },
        { "end_ns", snap.job.span.end } };
    j["timeout_policy"]
        = { { "nccl_ib_timeout", snap.policy.ncclIbTimeout }, { "nccl_ib_retry_cnt", snap.policy.ncclIbRetryCnt },
              { "retry_period_ns", snap.policy.retryPeriodNs() }, { "retry_budget_ns", snap.policy.retryBudgetNs() },
              { "collective_timeout_ns", snap.policy.collectiveTimeoutNs } };
    if (snap.policy.adaptive.on) {
        j["timeout_policy"]["adaptive_retransmission"] = snap.policy.adaptive.text();
    }
    j["records_scanned"] = r.recordsScanned;
    j["collectives_matched"] = r.collectives.size();
    j["seconds"] = r.seconds;
    auto endpoint = [](const LinkEndpoint& e) {
        return ordered_json { { "node", e.node }, { "guid", formatGuid(e.guid) }, { "port", e.port } };
    };
    auto link = [&](const LinkVerdict& v) {
        ordered_json ev = ordered_json::array();
        for (const auto& e : v.evidence) {
            ev.push_back({ { "t_ns", e.timeNs }, { "what", e.what }, { "weight", e.weight } });
        }
        ordered_json l = { { "endpoints", { endpoint(v.a), endpoint(v.b) } }, { "confidence", v.confidence },
            { "score", v.score }, { "rerouted_around", v.reroutedAround }, { "evidence", ev } };
        l["down_ns"] = v.downNs == kNoTime ? ordered_json(nullptr) : ordered_json(v.downNs);
        l["up_ns"] = v.upNs == kNoTime ? ordered_json(nullptr) : ordered_json(v.upNs);
        l["retrained"] = v.retrained;
        l["symbol_burst"] = v.symbolBurst;
        l["recovery"] = v.recovery ? ordered_json(std::string(toString(*v.recovery))) : ordered_json(nullptr);
        l["reroute_ns"] = v.rerouteNs == kNoTime ? ordered_json(nullptr) : ordered_json(v.rerouteNs);
        l["recovery_text"] = v.recoveryText;
        return l;
    };
    ordered_json incidents = ordered_json::array();
    for (const auto& inc : r.incidents) {
        ordered_json i;
        i["number"] = inc.number;
        i["kind"] = std::string(toString(inc.kind));
        i["start_ns"] = inc.startNs;
        i["end_ns"] = inc.endNs;
        i["duration_ns"] = inc.endNs - inc.startNs;
        i["ranks_affected"] = inc.ranksAffected;
        i["held_ranks"] = inc.heldRanks;
        const auto& cov = inc.coverage;
        i["coverage"] = { { "group_ranks", cov.groupRanks }, { "ranks_with_records", cov.recorded },
            { "ranks_seen", cov.seen }, { "extrapolated", cov.extrapolated },
            { "absent_ranks_logs", cov.absentLogs.empty() ? ordered_json(nullptr) : ordered_json(cov.absentLogs) },
            { "text", cov.recorded > 0 ? ordered_json(coverageText(cov)) : ordered_json(nullptr) } };
        i["silent_ranks"] = inc.silentRanks;
        i["collective"] = { { "pg", snap.str(snap.groups[inc.group].name) }, { "seq", inc.seq },
            { "op", std::string(toString(inc.op)) }, { "bytes", inc.bytes }, { "baseline_ns", inc.baselineNs } };
        i["summary"] = inc.summary;
        i["culprit_link"] = inc.culprit ? link(*inc.culprit) : ordered_json(nullptr);
        ordered_json others = ordered_json::array();
        for (const auto& o : inc.otherLinks) {
            others.push_back(link(o));
        }
        i["other_links"] = others;
        i["suspect_ranks"] = inc.suspectRanks;
        ordered_json said = ordered_json::array();
        for (const auto& e : inc.hostEvidence) {
            said.push_back({ { "t_ns", e.timeNs == kNoTime ? ordered_json(nullptr) : ordered_json(e.timeNs) },
                { "what", e.what } });
        }
        i["host_evidence"] = said;
        i["killed_rank"] = inc.killedRank ? ordered_json(*inc.killedRank) : ordered_json(nullptr);
        i["ras_rank"] = inc.rasRank ? ordered_json(*inc.rasRank) : ordered_json(nullptr);
        i["launcher_rank"] = inc.launcherRank ? ordered_json(*inc.launcherRank) : ordered_json(nullptr);
        i["missing_ranks"] = inc.missingRanks;
        i["first_failed_ranks"] = inc.firstFailedRanks;
        i["timed_out_ranks"] = inc.timedOutRanks;
        i["gpu_seconds_lost"] = inc.gpuSecondsLost;
        i["job_crashed"] = inc.jobCrashed;
        i["job_died_ns"] = inc.jobDiedNs == kNoTime ? ordered_json(nullptr) : ordered_json(inc.jobDiedNs);
        const auto& p = inc.policy;
        i["outage_ns"] = p.outageNs == kNoTime ? ordered_json(nullptr) : ordered_json(p.outageNs);
        i["outage_source"] = p.outageSource;
        i["recovery"] = p.recovery ? ordered_json(std::string(toString(*p.recovery))) : ordered_json(nullptr);
        i["path_down_ns"] = p.pathDownNs == kNoTime ? ordered_json(nullptr) : ordered_json(p.pathDownNs);
        i["retry_budget_ns"] = p.retryBudgetNs;
        i["under_budget"] = p.underBudget;
        i["cost"] = { { "stall_gpu_seconds", p.stallGpuSeconds }, { "crash_gpu_seconds", p.crashGpuSeconds },
            { "total_gpu_seconds", p.totalGpuSeconds }, { "per_day_if_hourly_gpu_hours", p.costPerDayIfHourlyGpuHours },
            { "recurrence", p.recurrence.empty() ? ordered_json(nullptr) : ordered_json(p.recurrence) },
            { "flaps_per_day", p.flapsPerDay }, { "per_day_gpu_hours", p.costPerDayGpuHours } };
        ordered_json whatIf = ordered_json::array();
        for (const auto& row : p.whatIf) {
            whatIf.push_back({ { "adaptive_retransmission", row.adaptive },
                { "nccl_ib_timeout", row.adaptive ? ordered_json(nullptr) : ordered_json(row.ncclIbTimeout) },
                { "retry_budget_ns", row.retryBudgetNs }, { "outage_ns", row.outageNs },
                { "outcome", row.crash ? "crash" : "stall" }, { "stall_ns", row.stallNs },
                { "gpu_seconds", row.gpuSeconds } });
        }
        i["what_if"] = whatIf;
        incidents.push_back(std::move(i));
    }
    j["incidents"] = std::move(incidents);
    ordered_json degraded = ordered_json::array();
    for (const auto& d : r.degradedLinks) {
        degraded.push_back({ { "endpoints", { endpoint(d.a), endpoint(d.b) } }, { "tier", d.tier }, { "gbps", d.gbps },
            { "usual_gbps", d.usualGbps }, { "rate", d.rate }, { "usual", d.usual }, { "peers", d.peers },
            { "ends_disagree", d.endsDisagree }, { "why", d.why }, { "job_crosses", d.jobCrosses },
            { "impact", d.impact } });
    }
    j["degraded_links"] = std::move(degraded);
    j["logs"] = r.logStory ? logStoryJson(*r.logStory) : ordered_json(nullptr);
    const auto& w = r.whyPassed;
    j["why_passed"] = w.applicable ? ordered_json { { "outage_ns", w.outageNs }, { "flap_period_ns", w.flapPeriodNs },
        { "health_check_ns", w.checkNs }, { "health_check_every_ns", w.checkEveryNs },
        { "chance_per_check", w.chancePerCheck }, { "chance_per_day", w.chancePerDay },
        { "dip_1min_percent", w.dip1MinPercent }, { "dip_5min_percent", w.dip5MinPercent },
        { "dip_raw_percent", w.dipRawPercent } }
                                   : ordered_json(nullptr);
    return jsonText(j, 1) + "\n";
}

} // namespace stallscope
