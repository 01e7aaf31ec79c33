// SPDX-License-Identifier: MIT
// Cross-rank matching: one CollectiveMatch per (group, seq), built in two sequential passes over the
// columns (seq range per group, then aggregation). O(records), no per-record allocation.
#include "analysis/internal.h"

#include <algorithm>
#include <limits>

namespace stallscope::analysis {

namespace {

struct GroupRange
{
    std::uint32_t minSeq = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t maxSeq = 0;
    std::size_t offset = 0; // into the flat match table
    bool used() const { return minSeq <= maxSeq; }
};

void addRecord(CollectiveMatch& m, const RankCollectives& c, std::size_t i, std::uint32_t rank)
{
    const TimeNs arrival = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
    ++m.entered;
    if (m.firstSeenArrivalNs == kNoTime) {
        m.firstSeenArrivalNs = arrival;
    }
    m.arrivalOffsetSumNs += arrival - m.firstSeenArrivalNs; // offsets stay small: no overflow at 1e6 ranks
    if (m.firstArrivalNs == kNoTime || arrival < m.firstArrivalNs) {
        m.firstArrivalNs = arrival;
        m.firstArriver = rank;
    }
    if (m.lastArrivalNs == kNoTime || arrival > m.lastArrivalNs) {
        m.secondLastArrivalNs = m.lastArrivalNs;
        m.lastArrivalNs = arrival;
        m.lastArriver = rank;
    } else if (m.secondLastArrivalNs == kNoTime || arrival > m.secondLastArrivalNs) {
        m.secondLastArrivalNs = arrival;
    }
    const TimeNs end = c.endNs[i];
    switch (c.stateAt(i)) {
    case CollectiveState::Completed:
        if (end == kNoTime) {
            break;
        }
        ++m.completed;
        m.firstEndNs = m.firstEndNs == kNoTime ? end : std::min(m.firstEndNs, end);
        m.lastEndNs = m.lastEndNs == kNoTime ? end : std::max(m.lastEndNs, end);
        if (m.minInsideNs == kNoTime || end - arrival < m.minInsideNs) {
            m.minInsideNs = end - arrival;
            m.minInsideArrivalNs = arrival;
        }
        break;
    case CollectiveState::Failed:
        ++m.failed;
        if (end != kNoTime && (m.firstFailureNs == kNoTime || end < m.firstFailureNs)) {
            m.firstFailureNs = end;
            m.firstFailedRank = rank;
        }
        [[fallthrough]];
    case CollectiveState::TimedOut:
        m.timedOut += c.stateAt(i) == CollectiveState::TimedOut;
        if (end != kNoTime) {
            m.lastGiveUpNs = m.lastGiveUpNs == kNoTime ? end : std::max(m.lastGiveUpNs, end);
        }
        break;
    default:
        break;
    }
}

} // namespace

std::vector<CollectiveMatch> matchCollectives(const JobSnapshot& snap, Progress& progress)
{
    std::vector<GroupRange> ranges(snap.groups.size());
    for (const auto& c : snap.collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            auto& g = ranges[snap.shapes[c.shape[i]].group];
            g.minSeq = std::min(g.minSeq, c.seq[i]);
            g.maxSeq = std::max(g.maxSeq, c.seq[i]);
        }
    }
    std::size_t total = 0;
    for (auto& g : ranges) {
        g.offset = total;
        total += g.used() ? std::size_t(g.maxSeq - g.minSeq) + 1 : 0;
    }
    std::vector<CollectiveMatch> table(total);
    for (std::uint32_t r = 0; r < snap.collectives.size(); ++r) {
        if (r % 64 == 0) {
            progress.report("Matching collectives across ranks", r, snap.collectives.size());
        }
        const auto& c = snap.collectives[r];
        for (std::size_t i = 0; i < c.size(); ++i) {
            const auto shape = c.shape[i];
            const auto group = snap.shapes[shape].group;
            auto& m = table[ranges[group].offset + (c.seq[i] - ranges[group].minSeq)];
            m.group = group;
            m.seq = c.seq[i];
            m.shape = shape;
            addRecord(m, c, i, r);
        }
    }
    std::erase_if(table, [](const CollectiveMatch& m) { return m.entered == 0; });
    for (auto& m : table) {
        m.meanArrivalNs = m.firstSeenArrivalNs + m.arrivalOffsetSumNs / static_cast<std::int64_t>(m.entered);
    }
    return table;
}

} // namespace stallscope::analysis

namespace stallscope {

std::vector<TimeNs> rankLateness(const JobSnapshot& snap, const CollectiveMatch& m)
{
    std::vector<TimeNs> arrival(snap.collectives.size(), kNoTime);
    std::vector<TimeNs> present;
    const TimeNs from = m.firstArrivalNs - snap.policy.collectiveTimeoutNs;
    for (const auto r : snap.groups[m.group].ranks) {
        const auto& c = snap.collectives[r];
        // Records are sorted by enqueue time and a rank enqueues before it arrives: start the search at
        // the earliest plausible enqueue and stop past the last arrival.
        auto i = static_cast<std::size_t>(
            std::lower_bound(c.enqueueNs.begin(), c.enqueueNs.end(), from) - c.enqueueNs.begin());
        for (; i < c.size() && c.enqueueNs[i] <= m.lastArrivalNs; ++i) {
            if (c.seq[i] == m.seq && snap.shapes[c.shape[i]].group == m.group) {
                arrival[r] = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
                present.push_back(arrival[r]);
                break;
            }
        }
    }
    if (present.empty()) {
        return arrival;
    }
    auto mid = present.begin() + static_cast<std::ptrdiff_t>(present.size() / 2);
    std::nth_element(present.begin(), mid, present.end());
    for (auto& a : arrival) {
        if (a != kNoTime) {
            a -= *mid;
        }
    }
    return arrival;
}

} // namespace stallscope
