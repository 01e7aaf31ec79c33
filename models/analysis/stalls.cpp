// SPDX-License-Identifier: MIT
// Job-wide stalls, hangs and stragglers from the matched collectives (trace evidence only).
#include "analysis/internal.h"
#include "core/stats.h"

#include <algorithm>
#include <map>

namespace stallscope::analysis {

namespace {

// Robust running baseline of what a collective of one shape takes (its data phase).
class Baseline
{
public:
    explicit Baseline(std::size_t window)
        : m_window(window)
    {
    }
    void push(TimeNs v)
    {
        if (m_recent.size() < m_window) {
            m_recent.push_back(v);
        } else {
            m_recent[m_next] = v;
        }
        m_next = (m_next + 1) % m_window;
    }
    bool warm() const { return m_recent.size() >= 8; }
    TimeNs value() const { return median(m_recent); }

private:
    std::size_t m_window;
    std::size_t m_next = 0;
    std::vector<TimeNs> m_recent;
};

// Per group, its ranks with any collective record. A rank killed outright writes no dump, so among ranks that
// nearly all have records one without is a suspect; when few have records (one node's dumps, rank 0's trace) the
// others are simply unknown.
struct GroupCoverage
{
    std::uint32_t ranks = 0;
    std::uint32_t recorded = 0;
    std::uint32_t onlyRank = kNoRank; // the one rank with records, when there is one
    bool partial = false; // too few records for a quorum of the group: stalls are found from the ranks present
};

std::vector<GroupCoverage> groupCoverage(const JobSnapshot& snap, double quorum)
{
    std::vector<GroupCoverage> out(snap.groups.size());
    for (std::size_t g = 0; g < snap.groups.size(); ++g) {
        auto& c = out[g];
        for (const auto r : snap.groups[g].ranks) {
            ++c.ranks;
            if (r < snap.collectives.size() && snap.collectives[r].size() > 0) {
                c.onlyRank = c.recorded == 0 ? r : kNoRank;
                ++c.recorded;
            }
        }
        c.partial = double(c.recorded) < quorum * double(c.ranks);
    }
    return out;
}

// Ranks of `group` with no record for `seq` (they never entered it). Scans each rank backwards from the
// end, because hangs sit at the end of the data. `recordedOnly`: skip ranks with no record at all (unknown).
std::vector<std::uint32_t> missingRanks(const JobSnapshot& snap, const CollectiveMatch& m, bool recordedOnly)
{
    std::vector<std::uint32_t> out;
    for (const auto r : snap.groups[m.group].ranks) {
        const auto& c = snap.collectives[r];
        if (recordedOnly && c.size() == 0) {
            continue;
        }
        bool found = false;
        for (std::size_t i = c.size(); i-- > 0;) {
            if (snap.shapes[c.shape[i]].group == m.group && c.seq[i] <= m.seq) {
                found = c.seq[i] == m.seq;
                break;
            }
        }
        if (!found) {
            out.push_back(r);
        }
    }
    return out;
}

// Ranks whose record for the collective failed, earliest first (their end time is when they gave up).
std::vector<std::uint32_t> failedRanks(const JobSnapshot& snap, const CollectiveMatch& m)
{
    std::vector<std::pair<TimeNs, std::uint32_t>> failed;
    for (const auto r : snap.groups[m.group].ranks) {
        const auto& c = snap.collectives[r];
        for (std::size_t i = c.size(); i-- > 0;) {
            if (snap.shapes[c.shape[i]].group == m.group && c.seq[i] == m.seq) {
                if (c.stateAt(i) == CollectiveState::Failed) {
                    failed.emplace_back(c.endNs[i], r);
                }
                break;
            }
        }
    }
    std::sort(failed.begin(), failed.end());
    std::vector<std::uint32_t> out;
    for (const auto& [t, r] : failed) {
        out.push_back(r);
    }
    return out;
}

Incident makeIncident(const JobSnapshot& snap, const CollectiveMatch& m, TimeNs baseline, const GroupCoverage& cov)
{
    Incident inc;
    const auto& shape = snap.shapes[m.shape];
    inc.group = m.group;
    inc.seq = m.seq;
    inc.op = shape.op;
    inc.bytes = shape.bytes;
    inc.baselineNs = baseline;
    inc.coverage.groupRanks = cov.ranks;
    inc.coverage.recorded = cov.recorded;
    inc.coverage.seen = m.entered;
    inc.coverage.onlyRank = cov.onlyRank;
    inc.coverage.extrapolated = cov.partial;
    // A collective blocks every rank of its group: the ranks without records were inside it too.
    inc.ranksAffected = cov.partial ? cov.ranks : m.entered;
    return inc;
}

// A stall inside a group smaller than the job holds the job's other ranks too: they wait for the group's
// ranks in their next collective together (a pod's shard group stalls; the other pods sit in the next global
// all-reduce). A rank outside the group is held when one of its records of another group spans at least half of
// the stall; it counts among the ranks affected, for the time that record overlaps the stall.
void addHeldRanks(const JobSnapshot& snap, Incident& inc)
{
    const auto world = snap.collectives.size();
    const auto& members = snap.groups[inc.group].ranks;
    const TimeNs window = inc.endNs - inc.startNs;
    if (members.size() >= world || window <= 0) {
        return;
    }
    std::vector<bool> inGroup(world, false);
    for (const auto r : members) {
        inGroup[r] = true;
    }
    constexpr std::size_t kLookBack = 8; // records enqueued before the stall's end that may still overlap it
    for (std::uint32_t r = 0; r < world; ++r) {
        const auto& c = snap.collectives[r];
        if (inGroup[r] || c.size() == 0) {
            continue;
        }
        const auto last = std::upper_bound(c.enqueueNs.begin(), c.enqueueNs.end(), inc.endNs) - c.enqueueNs.begin();
        TimeNs held = 0;
        for (std::size_t i = std::size_t(last); i-- > 0 && std::size_t(last) - i <= kLookBack;) {
            if (c.startNs[i] == kNoTime || snap.shapes[c.shape[i]].group == inc.group) {
                continue;
            }
            const TimeNs end = c.endNs[i] == kNoTime ? inc.endNs : c.endNs[i];
            held = std::max(held, std::min(end, inc.endNs) - std::max(c.startNs[i], inc.startNs));
        }
        if (held * 2 >= window) {
            ++inc.ranksAffected;
            ++inc.heldRanks;
            inc.gpuSecondsLost += double(held) / 1e9;
        }
    }
}

// While a group hangs nothing else progresses: ranks of other groups queue behind it (a pod's shard group hangs;
// the other pods wait in the next global collective, and the collectives they had enqueued after it never run).
// Those later "hangs" and "stalls" of other groups inside the first hang's window are its consequences, not
// incidents of their own; their ranks are counted as held by it (addHeldRanks). `incidents` sorted by start.
void dropDownstreamOfHangs(std::vector<Incident>& incidents)
{
    std::vector<Incident> kept;
    for (auto& inc : incidents) {
        const bool downstream = std::any_of(kept.begin(), kept.end(), [&](const Incident& h) {
            return h.kind == IncidentKind::Hang && h.group != inc.group && inc.startNs >= h.startNs
                && inc.startNs <= h.endNs;
        });
        if (!downstream) {
            kept.push_back(std::move(inc));
        }
    }
    incidents = std::move(kept);
}

} // namespace

std::vector<Incident> findStalls(
    const JobSnapshot& snap, const std::vector<CollectiveMatch>& matches, const AnalysisOptions& options)
{
    std::vector<Incident> out;
    std::map<std::uint16_t, Baseline> baselines;
    std::map<std::uint16_t, std::vector<TimeNs>> all;
    for (const auto& m : matches) {
        if (m.completed > 0) {
            all[m.shape].push_back(m.minInsideNs);
        }
    }
    std::map<std::uint16_t, TimeNs> globalBaseline;
    for (auto& [shape, v] : all) {
        globalBaseline[shape] = median(v);
    }
    std::vector<bool> groupHung(snap.groups.size(), false);
    const auto coverage = groupCoverage(snap, options.quorum);
    for (const auto& m : matches) {
        const auto& cov = coverage[m.group];
        // With thin coverage the quorum is of the ranks that have records: every present rank inside it.
        const auto present = cov.partial ? cov.recorded : cov.ranks;
        auto& base = baselines.try_emplace(m.shape, options.baselineWindow).first->second;
        const TimeNs baseline = base.warm() ? base.value() : globalBaseline[m.shape];
        const bool quorum = double(m.entered) >= options.quorum * double(present);
        const auto longer = [&](TimeNs d) {
            return double(d) > options.stallFactor * double(baseline) && d - baseline > options.minStallNs;
        };
        if (m.completed > 0) {
            if (quorum && longer(m.minInsideNs)) {
                Incident inc = makeIncident(snap, m, baseline, cov);
                inc.kind = IncidentKind::Unknown;
                inc.startNs = m.minInsideArrivalNs; // the last arriver's arrival: progress stops from here
                inc.endNs = m.minInsideArrivalNs + m.minInsideNs;
                inc.gpuSecondsLost = double(inc.ranksAffected) * double(m.minInsideNs - baseline) / 1e9;
                out.push_back(std::move(inc));
            } else {
                base.push(m.minInsideNs);
            }
            continue;
        }
        // Nothing completed: the first such collective of a group is a hang; later ones queue behind it.
        if (groupHung[m.group] || !quorum) {
            continue;
        }
        const bool gaveUp = m.lastGiveUpNs != kNoTime;
        if (!gaveUp && !longer(snap.job.span.end - m.lastArrivalNs)) {
            continue; // simply still running when the data ends
        }
        groupHung[m.group] = true;
        Incident inc = makeIncident(snap, m, baseline, cov);
        inc.kind = IncidentKind::Hang;
        inc.startNs = m.lastArrivalNs;
        inc.endNs = gaveUp ? m.lastGiveUpNs : snap.job.span.end;
        inc.jobCrashed = gaveUp;
        inc.jobDiedNs = gaveUp ? m.lastGiveUpNs : kNoTime;
        inc.missingRanks = missingRanks(snap, m, cov.partial);
        inc.firstFailedRanks = failedRanks(snap, m);
        inc.timedOutRanks = m.timedOut;
        // Every rank stuck inside it; missing ranks are listed apart. With thin coverage: the group, less the
        // ranks known to have stayed out.
        inc.ranksAffected = cov.partial ? cov.ranks - std::uint32_t(inc.missingRanks.size()) : m.entered;
        inc.gpuSecondsLost = double(inc.ranksAffected) * double(inc.endNs - inc.startNs) / 1e9;
        out.push_back(std::move(inc));
    }
    // One outage can stretch back-to-back collectives: merge stalls that touch.
    std::sort(out.begin(), out.end(), [](const Incident& a, const Incident& b) { return a.startNs < b.startNs; });
    std::vector<Incident> merged;
    for (auto& inc : out) {
        if (!merged.empty() && merged.back().kind == IncidentKind::Unknown && inc.kind == IncidentKind::Unknown
            && inc.startNs <= merged.back().endNs + 100 * kNsPerMs) {
            merged.back().endNs = std::max(merged.back().endNs, inc.endNs);
            merged.back().gpuSecondsLost += inc.gpuSecondsLost;
            continue;
        }
        merged.push_back(std::move(inc));
    }
    dropDownstreamOfHangs(merged);
    for (auto& inc : merged) {
        addHeldRanks(snap, inc);
    }
    return merged;
}

std::vector<Incident> findStragglers(const JobSnapshot& snap, const std::vector<CollectiveMatch>& matches)
{
    // In chunks of consecutive collectives of a group: a rank that arrives last in at least half of them,
    // with a median lead over the second-last arriver well above clock skew and jitter, is a straggler.
    constexpr std::size_t kChunk = 64;
    constexpr TimeNs kMinLead = 20 * kNsPerMs;
    std::vector<Incident> out;
    std::size_t i = 0;
    while (i < matches.size()) {
        std::size_t j = i;
        while (j < matches.size() && j - i < kChunk && matches[j].group == matches[i].group) {
            ++j;
        }
        std::map<std::uint32_t, std::vector<TimeNs>> leads;
        for (std::size_t k = i; k < j; ++k) {
            const auto& m = matches[k];
            if (m.secondLastArrivalNs != kNoTime) {
                leads[m.lastArriver].push_back(m.lastArrivalNs - m.secondLastArrivalNs);
            }
        }
        for (auto& [rank, v] : leads) {
            if (j - i < kChunk / 2 || v.size() * 2 < j - i || median(v) < kMinLead) {
                continue;
            }
            double lost = 0;
            for (auto lead : v) {
                lost += double(lead) * double(matches[i].entered - 1) / 1e9;
            }
            if (!out.empty() && out.back().suspectRanks.front() == rank && out.back().group == matches[i].group
                && out.back().endNs >= matches[i].firstArrivalNs - 60 * kNsPerSec) {
                out.back().endNs = std::max(out.back().endNs, matches[j - 1].lastEndNs);
                out.back().gpuSecondsLost += lost;
                continue;
            }
            Incident inc = makeIncident(snap, matches[i], 0, GroupCoverage {});
            inc.coverage = {};
            inc.stragglerLeadNs = median(v);
            inc.kind = IncidentKind::Straggler;
            inc.startNs = matches[i].firstArrivalNs;
            inc.endNs = matches[j - 1].lastEndNs != kNoTime ? matches[j - 1].lastEndNs : matches[j - 1].lastArrivalNs;
            inc.suspectRanks = { rank };
            inc.ranksAffected = static_cast<std::uint32_t>(snap.groups[matches[i].group].ranks.size());
            inc.gpuSecondsLost = lost;
            out.push_back(std::move(inc));
        }
        i = j;
    }
    return out;
}

} // namespace stallscope::analysis
