// SPDX-License-Identifier: MIT
// Scoring (docs/training.md "Scoring"): verdict 30, culprit 40, cost 20 and period 10 where the exercise asks for
// them, minus 5 per hint. Each part says in a sentence or two why the answer is right or wrong, in the terms of
// the evidence the views show, so a wrong answer teaches something.
#include "training/scoring.h"
#include "core/json_text.h"

#include "core/time_format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace stallscope::training {

double Score::points() const
{
    double p = 0;
    for (const auto& s : parts) {
        p += s.got;
    }
    return std::max(0.0, p);
}

double Score::maxPoints() const
{
    double m = 0;
    for (const auto& s : parts) {
        m += s.max;
    }
    return m;
}

int Score::percent() const
{
    const double m = maxPoints();
    return m <= 0 ? 0 : static_cast<int>(std::lround(100.0 * points() / m));
}

namespace {

std::string num(double v, int digits = 0)
{
    return formatFixed(v, digits);
}

// The link of a link fault, as the simulator placed it (outages, degraded and noisy lists).
std::optional<LinkId> faultLink(const SimResult& t, std::uint32_t fault)
{
    for (const auto& o : t.outages) {
        if (o.fault == fault) {
            return o.link;
        }
    }
    for (const auto& list : { &t.degradedLinks, &t.noisyLinks }) {
        for (const auto& [f, link] : *list) {
            if (f == fault) {
                return link;
            }
        }
    }
    return std::nullopt;
}

bool contains(const std::vector<std::uint32_t>& v, std::uint32_t x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

// Per occurrence: a stretched flap costs its stall on every rank it stopped; a crash adds the documented crash
// cost (docs/analysis-format.md "cost"): the work since the last checkpoint and the restart, on every GPU.
std::optional<double> costPerOccurrence(const Exercise& e, const SimConfig& c, const SimResult& t)
{
    if (e.verdict != Verdict::Stretched && e.verdict != Verdict::Crashed) {
        return std::nullopt;
    }
    double sum = 0;
    int n = 0;
    for (const auto& s : t.stalls) {
        if (!contains(e.culpritFaults, s.fault)) {
            continue;
        }
        double cost = double(s.endNs - s.startNs) / 1e9 * s.ranksAffected;
        if (s.crashed) {
            const TimeNs interval = std::max<TimeNs>(c.policy.checkpointIntervalNs, 1);
            const TimeNs sinceCheckpoint = (s.endNs - c.startNs) % interval;
            cost += double(sinceCheckpoint + c.policy.restartTimeNs) / 1e9 * c.worldSize();
        }
        sum += cost;
        ++n;
    }
    return n == 0 ? std::nullopt : std::optional<double>(sum / n);
}

std::vector<std::string> factsOf(const Exercise& e, const SimConfig& c, const SimResult& t)
{
    std::vector<std::string> facts;
    const auto& snap = *t.snapshot;
    for (std::uint32_t i = 0; i < c.faults.size(); ++i) {
        const auto& f = c.faults[i];
        std::string s = (contains(e.culpritFaults, i) ? "Culprit: " : "Not the culprit: ") + describeFault(f);
        if (const auto link = faultLink(t, i)) {
            s += " — " + linkName(snap, *link);
        }
        facts.push_back(s + ".");
    }
    for (const auto& s : t.stalls) {
        facts.push_back("Stall at " + formatUtc(s.startNs) + ": " + std::to_string(s.ranksAffected) + " ranks for "
            + formatDuration(s.endNs - s.startNs) + " in " + std::string(toString(s.op)) + " seq "
            + std::to_string(s.seq) + (s.crashed ? ", and the job died." : ", then it completed."));
    }
    if (t.slowdown > 1.0) {
        facts.push_back(
            "Every collective's data phase took " + num(t.slowdown, 1) + "× as long as on a healthy fabric.");
    }
    return facts;
}

} // namespace

Reference referenceFor(const Exercise& e, const SimConfig& c, const SimResult& t)
{
    Reference r;
    r.verdict = e.verdict;
    r.provable = e.culpritProvable;
    for (const auto i : e.culpritFaults) {
        const auto& f = c.faults.at(i);
        if (isLinkFault(f.kind)) {
            if (const auto link = faultLink(t, i)) {
                r.links.push_back(*link);
            }
        } else {
            r.ranks.push_back(f.rank);
        }
    }
    r.costGpuSeconds = costPerOccurrence(e, c, t);
    if (e.askPeriod) {
        r.periodSeconds = double(c.faults.at(e.culpritFaults.front()).everyNs) / 1e9;
    }
    for (const auto& s : t.stalls) {
        if (contains(e.culpritFaults, s.fault)) {
            r.firstStallNs = std::min(r.firstStallNs == kNoTime ? s.startNs : r.firstStallNs, s.startNs);
        }
    }
    r.facts = factsOf(e, c, t);
    return r;
}

namespace {

struct Scorer
{
    const Exercise& e;
    const SimConfig& c;
    const SimResult& t;
    const Reference& ref;
    const TraineeAnswer& a;
    const JobSnapshot& snap = *t.snapshot;

    std::string culpritNames() const
    {
        std::string s;
        for (const auto l : ref.links) {
            s += (s.empty() ? "" : " and ") + linkName(snap, l);
        }
        for (const auto r : ref.ranks) {
            s += (s.empty() ? "rank " : " and rank ") + std::to_string(r);
        }
        return s;
    }

    const SimStall* firstCulpritStall() const
    {
        for (const auto& s : t.stalls) {
            if (contains(e.culpritFaults, s.fault)) {
                return &s;
            }
        }
        return nullptr;
    }

    const FaultSpec& culpritFault() const { return c.faults.at(e.culpritFaults.front()); }

    std::string budgetText() const
    {
        return formatDuration(c.policy.retryBudgetNs()) + " (NCCL_IB_TIMEOUT=" + std::to_string(c.policy.ncclIbTimeout)
            + ": " + formatDuration(c.policy.retryPeriodNs())
            + " per ACK timeout × NCCL_IB_RETRY_CNT=" + std::to_string(c.policy.ncclIbRetryCnt) + ")";
    }

    // Why the reference verdict holds, said to someone who chose `wrong`.
    std::string verdictWhy(Verdict wrong) const
    {
        const auto& f = culpritFault();
        switch (ref.verdict) {
        case Verdict::Stretched:
            if (wrong == Verdict::Crashed) {
                return "The outage lasted " + formatDuration(f.durationNs) + ", inside the retry budget of "
                    + budgetText() + ": NCCL retransmitted after an ACK timeout and the collective completed. No rank "
                    + "logged an error and the job kept running.";
            }
            return "A link went down (" + culpritNames() + ") and every rank stopped in the same collective at "
                + "once — a band across the whole heatmap. "
                + (wrong == Verdict::NoFabricFault
                        ? "A rank fault looks different: one rank missing or late, and no port going down."
                        : "A degraded link slows every step a little; this was one long pause.");
        case Verdict::Crashed:
            return "The link stayed down " + formatDuration(f.durationNs) + ", longer than the retry budget of "
                + budgetText() + ": the retries ran out, ranks logged transport errors (IBV_WC_RETRY_EXC_ERR, status "
                + "12) and the job died" + (t.crashNs ? " at " + formatUtc(*t.crashNs) : std::string()) + ".";
        case Verdict::NoFabricFault:
            return f.kind == FaultKind::DeadRank ? "No link went down, retrained or degraded in this job. Rank "
                    + std::to_string(f.rank) + " stopped entering collectives at " + formatUtc(c.startNs + f.atNs)
                    + " and every other rank waited for it in the next one until the watchdog's timeout."
                                                 : "No link is at fault. Rank " + std::to_string(f.rank) + " computes "
                    + num(f.slowFactor, 1) + "× slower from " + formatUtc(c.startNs + f.atNs)
                    + ": it arrives last at every collective and everyone else waits — a straggler, no stall band.";
        case Verdict::Slowed:
            return "There is no stall band: every collective's data phase takes " + num(t.slowdown, 1)
                + "× as long, all job long, " + "because " + culpritNames() + " trained at " + std::to_string(f.width)
                + "x" + f.speed + " where its peers run 4xNDR (ibnetdiscover and iblinkinfo print the width).";
        }
        return {};
    }

    ScorePart verdict() const
    {
        ScorePart p { "verdict", 0, kVerdictPoints, {} };
        if (!a.verdict) {
            p.why = "No verdict given. " + verdictWhy(Verdict::Stretched);
        } else if (*a.verdict == ref.verdict) {
            p.got = p.max;
            p.why = "Right: " + std::string(describe(ref.verdict)) + ".";
        } else {
            p.why = "You said " + std::string(toString(*a.verdict)) + "; it was " + std::string(toString(ref.verdict))
                + ". " + verdictWhy(*a.verdict);
        }
        return p;
    }

    // Why a link the trainee named is not the culprit.
    std::string innocentLinkWhy(LinkId link) const
    {
        const auto name = linkName(snap, link);
        for (std::uint32_t i = 0; i < c.faults.size(); ++i) {
            if (contains(e.culpritFaults, i) || faultLink(t, i) != link) {
                continue;
            }
            const auto& f = c.faults[i];
            if (f.kind == FaultKind::Noisy) {
                return name + " counts symbol errors all job long (" + num(f.symbolErrorsPerMin)
                    + " a minute) — a marginal cable whose errors the receiver corrects — but it never went down: "
                    + "link_downed stayed flat and its traffic did not pause during the band. Loud counters "
                    + "without an outage do not stall a job.";
            }
            return name + " had a fault of its own (" + describeFault(f) + "), but not the one that explains "
                + "this incident.";
        }
        const auto& l = snap.topology.link(link);
        for (const auto culprit : ref.links) {
            const auto& k = snap.topology.link(culprit);
            for (const auto& end : { l.a, l.b }) {
                if (end.node == k.a.node || end.node == k.b.node) {
                    return name + " shares " + std::string(snap.str(snap.topology.node(end.node).description))
                        + " with the culprit but stayed up: the down events and the link_downed step are on "
                        + linkName(snap, culprit) + ".";
                }
            }
        }
        if (ref.links.empty()) {
            return "No link is at fault here: " + name + " stayed up all job long, and its counters show only "
                + "normal traffic.";
        }
        return "Nothing happened on " + name + ": no down event, and its link_downed counter never moved.";
    }

    ScorePart culpritLinks() const
    {
        ScorePart p { "culprit", 0, kCulpritPoints, {} };
        std::set<LinkId> named;
        std::string notes;
        for (const auto& text : a.links) {
            auto link = resolveLinkName(snap, text);
            if (!link) {
                notes += " Could not place " + link.error() + ".";
                continue;
            }
            named.insert(link.value());
        }
        std::size_t found = 0;
        double penalty = 0;
        for (const auto l : named) {
            if (std::find(ref.links.begin(), ref.links.end(), l) != ref.links.end()) {
                ++found;
            } else {
                penalty += kInnocentPenalty;
                notes += " " + innocentLinkWhy(l);
            }
        }
        if (!ref.provable) {
            return unprovable(p, found, penalty, notes);
        }
        if (a.culpritUnprovable) {
            notes += " These files do prove it: the culprit's counters (link_downed, port_rcv_errors) and the "
                     "subnet manager's log place the outage on it at the band's start.";
        }
        // A rank whose own HCA link was the culprit is half an answer: the fabric team needs the port.
        for (const auto r : a.ranks) {
            for (const auto l : ref.links) {
                const auto& k = snap.topology.link(l);
                if (found < ref.links.size() && r < snap.ranks.size() && snap.ranks[r].hcaNode
                    && (k.a.node == *snap.ranks[r].hcaNode || k.b.node == *snap.ranks[r].hcaNode)) {
                    penalty -= p.max / 2 / double(ref.links.size());
                    notes += " Rank " + std::to_string(r) + " sits on the culprit link: name the link ("
                        + linkName(snap, l) + ") — the fabric team replaces a cable, not a rank.";
                }
            }
        }
        p.got = std::max(0.0, p.max * double(found) / double(std::max<std::size_t>(1, ref.links.size())) - penalty);
        p.why = found == ref.links.size() && penalty == 0 ? "Right: " + culpritNames() + "."
                                                          : "The culprit was " + culpritNames() + "; you found "
                + std::to_string(found) + " of " + std::to_string(ref.links.size()) + "." + notes;
        if (found == ref.links.size() && penalty != 0) {
            p.why = "You found " + culpritNames() + "." + notes;
        }
        return p;
    }

    ScorePart unprovable(ScorePart p, std::size_t found, double penalty, const std::string& notes) const
    {
        const std::string why = " Without counters, the subnet manager's log or port events in the rank logs, the "
                                "band shows when every rank stopped, not which link made it stop.";
        if (a.culpritUnprovable && penalty == 0) {
            p.got = p.max;
            p.why = "Right: nothing in these files can prove the culprit." + why
                + (found ? " (Your guess, " + culpritNames() + ", was right — collect counters to prove it.)" : "");
        } else if (found && penalty == 0) {
            p.got = p.max * 3 / 8;
            p.why = "Your link is the right one (" + culpritNames() + "), but nothing in these files proves it." + why;
        } else {
            p.why = "The culprit cannot be proven from these files (it was " + culpritNames() + ")." + why + notes;
        }
        return p;
    }

    // Why a rank the trainee named is not the one at fault.
    std::string innocentRankWhy(std::uint32_t r) const
    {
        const auto& f = culpritFault();
        return "Rank " + std::to_string(r) + " waited like every other rank"
            + (f.kind == FaultKind::DeadRank ? " (a rank that times out or reports first is a victim, not the cause)"
                                             : "")
            + "; the one "
            + (f.kind == FaultKind::DeadRank ? "that stopped entering collectives"
                                             : "that arrived "
                                               "last at every collective")
            + " is rank " + std::to_string(f.rank) + ".";
    }

    ScorePart culpritRanks() const
    {
        ScorePart p { "culprit", 0, kCulpritPoints, {} };
        std::size_t found = 0;
        double penalty = 0;
        std::string notes;
        for (const auto r : std::set<std::uint32_t>(a.ranks.begin(), a.ranks.end())) {
            if (contains(ref.ranks, r)) {
                ++found;
            } else {
                penalty += kInnocentPenalty;
                notes += " " + innocentRankWhy(r);
            }
        }
        for (const auto& text : a.links) {
            penalty += kInnocentPenalty;
            auto link = resolveLinkName(snap, text);
            notes += " " + (link ? innocentLinkWhy(link.value()) : "Could not place " + link.error() + ".");
        }
        p.got = std::max(0.0, p.max * double(found) / double(ref.ranks.size()) - penalty);
        p.why = found == ref.ranks.size() && penalty == 0 ? "Right: " + culpritNames() + "."
                                                          : "The culprit was " + culpritNames() + "." + notes;
        return p;
    }

    std::optional<ScorePart> cost() const
    {
        if (!ref.costGpuSeconds) {
            return std::nullopt;
        }
        ScorePart p { "cost", 0, kCostPoints, {} };
        const double want = *ref.costGpuSeconds;
        const auto* s = firstCulpritStall();
        std::string how = s
            ? std::to_string(s->ranksAffected) + " ranks × " + formatDuration(s->endNs - s->startNs) + " stalled"
            : std::string("the stall on every rank");
        if (s && s->crashed) {
            how += ", plus the work since the last checkpoint and the restart ("
                + formatDuration(c.policy.restartTimeNs) + ") on all " + std::to_string(c.worldSize()) + " GPUs";
        }
        const std::string truth = "One occurrence cost about " + num(want) + " GPU-s (" + how + ").";
        if (!a.costGpuSeconds) {
            p.why = "No estimate given. " + truth;
            return p;
        }
        const double ratio = want > 0 ? *a.costGpuSeconds / want : 0;
        if (ratio >= 2.0 / 3.0 && ratio <= 1.5) {
            p.got = p.max;
            p.why = "Close enough: you said " + num(*a.costGpuSeconds) + " GPU-s. " + truth;
        } else if (ratio >= 0.5 && ratio <= 2) {
            p.got = p.max / 2;
            p.why = "Within a factor of two: you said " + num(*a.costGpuSeconds) + " GPU-s. " + truth;
        } else {
            p.why = "You said " + num(*a.costGpuSeconds) + " GPU-s. " + truth;
        }
        return p;
    }

    std::optional<ScorePart> period() const
    {
        if (!ref.periodSeconds) {
            return std::nullopt;
        }
        ScorePart p { "period", 0, kPeriodPoints, {} };
        const std::string truth = "It recurs every " + formatDuration(TimeNs(*ref.periodSeconds * 1e9))
            + ": line up the link_downed steps (or the subnet manager's down events) of the culprit.";
        if (a.periodSeconds && std::abs(*a.periodSeconds / *ref.periodSeconds - 1) <= 0.05) {
            p.got = p.max;
            p.why = "Right. " + truth;
        } else {
            p.why = (a.periodSeconds ? "You said every " + formatDuration(TimeNs(*a.periodSeconds * 1e9)) + ". "
                                     : "No period given. ")
                + truth;
        }
        return p;
    }
};

} // namespace

Score scoreAnswer(
    const Exercise& e, const SimConfig& c, const SimResult& truth, const Reference& ref, const TraineeAnswer& answer)
{
    const Scorer s { e, c, truth, ref, answer };
    Score score;
    score.parts.push_back(s.verdict());
    score.parts.push_back(ref.ranks.empty() ? s.culpritLinks() : s.culpritRanks());
    for (auto part : { s.cost(), s.period() }) {
        if (part) {
            score.parts.push_back(*part);
        }
    }
    if (answer.hintsUsed > 0) {
        score.parts.push_back({ "hints", -double(answer.hintsUsed * kHintCost), 0,
            std::to_string(answer.hintsUsed) + " hint(s) taken, " + std::to_string(kHintCost) + " points each." });
    }
    return score;
}

std::string scoreToText(const Exercise& e, const Reference& ref, const Score& s)
{
    std::string out = "Exercise " + e.id + " — " + e.title + "\n";
    out += "Score " + num(s.points()) + " of " + num(s.maxPoints()) + " (" + std::to_string(s.percent()) + "%)\n\n";
    for (const auto& p : s.parts) {
        out += "  " + p.part + std::string(p.part.size() < 9 ? 9 - p.part.size() : 1, ' ') + num(p.got) + "/"
            + num(p.max) + "  " + p.why + "\n";
    }
    out += "\nWhat happened\n";
    for (const auto& f : ref.facts) {
        out += "  " + f + "\n";
    }
    out += "\nLesson\n  " + e.lesson + "\n";
    if (!e.analysisNote.empty()) {
        out += "  (" + e.analysisNote + ")\n";
    }
    return out;
}

std::string scoreToJson(const Exercise& e, const SimResult& truth, const Reference& ref, const Score& s)
{
    nlohmann::ordered_json j;
    j["exercise"] = e.id;
    j["points"] = s.points();
    j["max_points"] = s.maxPoints();
    j["percent"] = s.percent();
    auto parts = nlohmann::ordered_json::array();
    for (const auto& p : s.parts) {
        parts.push_back({ { "part", p.part }, { "points", p.got }, { "max", p.max }, { "why", p.why } });
    }
    j["parts"] = std::move(parts);
    nlohmann::ordered_json answer;
    answer["verdict"] = std::string(toString(ref.verdict));
    answer["links"] = nlohmann::ordered_json::array();
    for (const auto l : ref.links) {
        answer["links"].push_back(linkName(*truth.snapshot, l));
    }
    answer["ranks"] = ref.ranks;
    answer["provable"] = ref.provable;
    if (ref.costGpuSeconds) {
        answer["cost_gpu_seconds"] = *ref.costGpuSeconds;
    }
    if (ref.periodSeconds) {
        answer["period_seconds"] = *ref.periodSeconds;
    }
    j["answer"] = std::move(answer);
    j["facts"] = ref.facts;
    j["lesson"] = e.lesson;
    return jsonText(j, 1) + "\n";
}

} // namespace stallscope::training
