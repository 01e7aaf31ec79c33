// SPDX-License-Identifier: MIT
// Cross-rank matching: one CollectiveMatch per (group, seq), built in two passes over the columns (seq range per
// group, then aggregation), each split over the cores by rank. O(records), no per-record allocation.
#include "analysis/internal.h"

#include "core/parallel.h"

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

// Widens `ranges` to one rank's sequence numbers per group. A rank's records come in runs of one group (a job
// enqueues on one process group at a time), so each run's range is kept in registers and stored once: a store per
// record into the same range is a chain through memory that costs several cycles a record.
void seqRangesOf(const RankCollectives& c, const std::vector<std::uint16_t>& groupOf, std::vector<GroupRange>& ranges)
{
    const auto n = c.size();
    for (std::size_t i = 0; i < n;) {
        const auto group = groupOf[c.shape[i]];
        std::uint32_t lo = c.seq[i];
        std::uint32_t hi = lo;
        for (++i; i < n && groupOf[c.shape[i]] == group; ++i) {
            lo = std::min(lo, c.seq[i]);
            hi = std::max(hi, c.seq[i]);
        }
        auto& g = ranges[group];
        g.minSeq = std::min(g.minSeq, lo);
        g.maxSeq = std::max(g.maxSeq, hi);
    }
}

// `b` (from ranks after all of `a`'s) added into `a`: the same match as adding b's records after a's one by one.
void mergeInto(CollectiveMatch& a, const CollectiveMatch& b)
{
    if (b.entered == 0) {
        return;
    }
    if (a.entered == 0) {
        a = b;
        return;
    }
    a.shape = b.shape; // the last record's, as one pass leaves it
    a.arrivalOffsetSumNs += b.arrivalOffsetSumNs + TimeNs(b.entered) * (b.firstSeenArrivalNs - a.firstSeenArrivalNs);
    a.entered += b.entered;
    a.completed += b.completed;
    a.failed += b.failed;
    a.timedOut += b.timedOut;
    if (b.firstArrivalNs < a.firstArrivalNs) { // ties keep the lower rank, as one pass does
        a.firstArrivalNs = b.firstArrivalNs;
        a.firstArriver = b.firstArriver;
    }
    // The second latest of both (duplicates counted; kNoTime, the smallest time, where a side has one arrival); a tie
    // for the latest keeps the lower rank.
    const TimeNs second
        = std::max({ a.secondLastArrivalNs, std::min(a.lastArrivalNs, b.lastArrivalNs), b.secondLastArrivalNs });
    if (b.lastArrivalNs > a.lastArrivalNs) {
        a.lastArrivalNs = b.lastArrivalNs;
        a.lastArriver = b.lastArriver;
    }
    a.secondLastArrivalNs = second;
    const auto earliest = [](TimeNs x, TimeNs y) { return x == kNoTime ? y : y == kNoTime ? x : std::min(x, y); };
    const auto latest = [](TimeNs x, TimeNs y) { return x == kNoTime ? y : y == kNoTime ? x : std::max(x, y); };
    a.firstEndNs = earliest(a.firstEndNs, b.firstEndNs);
    a.lastEndNs = latest(a.lastEndNs, b.lastEndNs);
    if (b.minInsideNs != kNoTime && (a.minInsideNs == kNoTime || b.minInsideNs < a.minInsideNs)) {
        a.minInsideNs = b.minInsideNs;
        a.minInsideArrivalNs = b.minInsideArrivalNs;
    }
    if (b.firstFailureNs != kNoTime && (a.firstFailureNs == kNoTime || b.firstFailureNs < a.firstFailureNs)) {
        a.firstFailureNs = b.firstFailureNs;
        a.firstFailedRank = b.firstFailedRank;
    }
    a.lastGiveUpNs = latest(a.lastGiveUpNs, b.lastGiveUpNs);
}

} // namespace

// Ranks are split into contiguous slices, one per core; each slice fills its own table and the tables are merged
// in rank order, which gives exactly the one-pass result (mergeInto). Progress: the caller's slice only, over both
// passes (the first, which reads two of the columns, as the first kFirstPassShare of the stage).
std::vector<CollectiveMatch> matchCollectives(const JobSnapshot& snap, Progress& progress, unsigned partsWanted)
{
    const auto ranks = snap.collectives.size();
    const unsigned parts = partsWanted > 0 ? partsWanted : ranks < 256 ? 1u : parallelPartCount();
    constexpr std::uint64_t kFirstPassShare = 6; // 1/6 of the stage: its share of the time at 131,072 ranks
    const auto report = [&](unsigned pass, std::size_t r, unsigned n) {
        const std::uint64_t total = std::uint64_t(ranks) * kFirstPassShare;
        const std::uint64_t done = pass == 0 ? r * n : ranks + r * n * (kFirstPassShare - 1);
        progress.report("Matching collectives across ranks", std::min(done, total), total);
    };
    std::vector<std::uint16_t> groupOf(snap.shapes.size()); // a shape's group, packed for the per-record lookup
    for (std::size_t s = 0; s < snap.shapes.size(); ++s) {
        groupOf[s] = snap.shapes[s].group;
    }
    std::vector<std::vector<GroupRange>> partRanges(parts, std::vector<GroupRange>(snap.groups.size()));
    parallelParts(
        [&](unsigned part, unsigned n) {
            const auto [from, to] = partSlice(ranks, part, n);
            auto& ranges = partRanges[part];
            for (auto r = from; r < to; ++r) {
                if (part == 0 && r % 64 == 0) {
                    report(0, r, n);
                }
                seqRangesOf(snap.collectives[r], groupOf, ranges);
            }
        },
        parts);
    auto ranges = partRanges[0];
    std::size_t total = 0;
    for (std::size_t g = 0; g < ranges.size(); ++g) {
        for (unsigned p = 1; p < parts; ++p) {
            ranges[g].minSeq = std::min(ranges[g].minSeq, partRanges[p][g].minSeq);
            ranges[g].maxSeq = std::max(ranges[g].maxSeq, partRanges[p][g].maxSeq);
        }
        ranges[g].offset = total;
        total += ranges[g].used() ? std::size_t(ranges[g].maxSeq - ranges[g].minSeq) + 1 : 0;
    }
    // A record's slot in the table is slotBase[its shape] + its seq (wrapping arithmetic: the base may be "negative").
    std::vector<std::size_t> slotBase(snap.shapes.size());
    for (std::size_t s = 0; s < snap.shapes.size(); ++s) {
        const auto& g = ranges[groupOf[s]];
        slotBase[s] = g.offset - g.minSeq;
    }
    std::vector<std::vector<CollectiveMatch>> tables(parts);
    parallelParts(
        [&](unsigned part, unsigned n) {
            const auto [from, to] = partSlice(ranks, part, n);
            auto& table = tables[part];
            table.resize(total);
            for (auto r = from; r < to; ++r) {
                if (part == 0 && r % 64 == 0) {
                    report(1, r, n);
                }
                const auto& c = snap.collectives[r];
                for (std::size_t i = 0; i < c.size(); ++i) {
                    const auto shape = c.shape[i];
                    auto& m = table[slotBase[shape] + c.seq[i]];
                    m.group = groupOf[shape];
                    m.seq = c.seq[i];
                    m.shape = shape;
                    addRecord(m, c, i, static_cast<std::uint32_t>(r));
                }
            }
        },
        parts);
    auto& table = tables[0];
    for (unsigned p = 1; p < parts; ++p) {
        for (std::size_t k = 0; k < total; ++k) {
            mergeInto(table[k], tables[p][k]);
        }
    }
    std::erase_if(table, [](const CollectiveMatch& m) { return m.entered == 0; });
    for (auto& m : table) {
        m.meanArrivalNs = m.firstSeenArrivalNs + m.arrivalOffsetSumNs / static_cast<std::int64_t>(m.entered);
    }
    return std::move(table);
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
