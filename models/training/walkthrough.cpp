// SPDX-License-Identifier: MIT
#include "training/walkthrough.h"

#include "analysis/incident_frame.h"
#include "core/time_format.h"

#include <algorithm>

namespace stallscope::training {

namespace {

std::string clock(TimeNs t)
{
    const auto s = formatUtc(t); // "2026-11-01 00:04:00.358 UTC"
    return s.size() > 23 ? s.substr(11, 12) : s;
}

// The first evidence line of each kind, in time order: what a person would point at.
std::vector<const EvidenceLine*> keyEvidence(const LinkVerdict& v)
{
    std::vector<const EvidenceLine*> out;
    for (const char* kind : { "link DOWN", "link_downed", "port_xmit_wait", "link_error_recovery", "link up" }) {
        for (const auto& e : v.evidence) {
            if (e.what.find(kind) != std::string::npos) {
                out.push_back(&e);
                break;
            }
        }
    }
    std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->timeNs < b->timeNs; });
    return out;
}

void incidentSteps(const JobSnapshot& snap, const Incident& inc, std::vector<WalkStep>& steps)
{
    const auto first = steps.size();
    const auto window = frameIncident(inc).window;
    WalkStep band { window, inc.startNs, {}, inc.suspectRanks, {} };
    band.text = "At " + clock(inc.startNs) + " " + std::to_string(inc.ranksAffected) + " ranks stopped in "
        + std::string(toString(inc.op)) + " seq " + std::to_string(inc.seq) + " for "
        + formatDuration(inc.endNs - inc.startNs) + " (it usually takes " + formatDuration(inc.baselineNs)
        + "): the band across the heatmap.";
    steps.push_back(band);
    if (inc.culprit) {
        const auto& c = *inc.culprit;
        for (const auto* e : keyEvidence(c)) {
            steps.push_back({ window, e->timeNs, { c.link }, {}, clock(e->timeNs) + ": " + e->what + "." });
        }
        if (!c.recoveryText.empty()) {
            steps.push_back({ window, inc.startNs, { c.link }, {}, c.recoveryText + "." });
        }
    } else if (!inc.missingRanks.empty()) {
        steps.push_back({ window, inc.startNs, {}, inc.missingRanks,
            "Rank " + std::to_string(inc.missingRanks.front()) + " never entered seq " + std::to_string(inc.seq)
                + ": every other rank waited for it. No port went down at that time." });
    } else if (inc.kind == IncidentKind::Straggler) {
        steps.push_back({ window, inc.startNs, {}, inc.suspectRanks,
            "Rank " + (inc.suspectRanks.empty() ? std::string("?") : std::to_string(inc.suspectRanks.front()))
                + " arrives last at collective after collective, by " + formatDuration(inc.stragglerLeadNs)
                + " (median): a straggler, not the fabric." });
    } else {
        steps.push_back({ window, inc.startNs, {}, {},
            "No counter, subnet-manager event or port event covers the band: nothing here names a link." });
    }
    for (const auto& h : inc.hostEvidence) {
        if (h.timeNs != kNoTime && steps.size() < kMaxWalkSteps - 1) {
            steps.push_back({ window, h.timeNs, {}, inc.suspectRanks, clock(h.timeNs) + ": " + h.what + "." });
            break; // one line of the hosts' story is enough for the walk-through
        }
    }
    std::string verdict = inc.policy.underBudget ? "Under the retry budget: the collective stretched, nothing errored."
                                                 : "Over the retry budget: the job crashed.";
    if (inc.kind != IncidentKind::LinkFlap) {
        verdict = inc.jobCrashed ? "The job died when the watchdog's timeout ran out." : "The job kept running.";
    }
    steps.push_back(
        { window, inc.startNs, inc.culprit ? std::vector<LinkId> { inc.culprit->link } : std::vector<LinkId> {}, {},
            verdict + " Cost: " + formatFixed(inc.policy.totalGpuSeconds, 0) + " GPU-s." });
    for (auto i = first; i < steps.size(); ++i) {
        steps[i].incident = inc.number;
    }
    (void)snap;
}

} // namespace

std::vector<WalkStep> walkthrough(const JobSnapshot& snap, const AnalysisResult& analysis)
{
    std::vector<WalkStep> steps;
    for (const auto& inc : analysis.incidents) {
        if (steps.size() >= kMaxWalkSteps) {
            break;
        }
        incidentSteps(snap, inc, steps);
    }
    for (const auto& d : analysis.degradedLinks) {
        steps.push_back({ {}, kNoTime, { d.link }, {},
            d.a.node + " port " + std::to_string(d.a.port) + " <-> " + d.b.node + " port " + std::to_string(d.b.port)
                + " trained at " + d.rate + ": " + d.why + (d.impact.empty() ? "." : "; " + d.impact + ".") });
    }
    if (steps.size() > kMaxWalkSteps) {
        steps.resize(kMaxWalkSteps);
    }
    return steps;
}

} // namespace stallscope::training
