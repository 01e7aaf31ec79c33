// SPDX-License-Identifier: MIT
#include "heatmap_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

namespace stallscope {

namespace {

constexpr std::size_t kMaxBaseBuckets = 16384; // level-0 buckets per rank
enum Channel { kInside = 0, kStalled = 1, kFailed = 2 };

// Adds [a, b) to channel `ch` of `acc` (3 floats per bucket, in units of whole buckets).
void addInterval(float* acc, std::size_t n, TimeNs origin, double bucketNs, TimeNs a, TimeNs b, int ch)
{
    const double end = double(n);
    double fa = double(a - origin) / bucketNs;
    double fb = double(b - origin) / bucketNs;
    fa = std::max(fa, 0.0);
    fb = std::min(fb, end);
    if (fb <= fa) {
        return;
    }
    const auto i0 = static_cast<std::size_t>(fa);
    const auto i1 = std::min(static_cast<std::size_t>(fb), n - 1);
    if (i0 == i1) {
        acc[3 * i0 + ch] += float(fb - fa);
        return;
    }
    acc[3 * i0 + ch] += float(double(i0 + 1) - fa);
    for (std::size_t i = i0 + 1; i < i1; ++i) {
        acc[3 * i + ch] += 1.0f;
    }
    acc[3 * i1 + ch] += float(fb - double(i1));
}

// Accumulates rank `c`'s records into n buckets of bucketNs from origin.
void accumulate(const RankCollectives& c, const std::vector<TimeRange>& stalls, TimeNs spanEnd, TimeNs origin,
    double bucketNs, std::size_t n, float* acc)
{
    const TimeNs windowEnd = origin + static_cast<TimeNs>(bucketNs * double(n));
    // First record enqueued at or after the window; then back up over records that may still be running
    // (a stalled or hung collective spans many buckets). NCCL runs one stream per group in order, so a
    // completed record that ended before the window means earlier ones did too.
    auto i = static_cast<std::size_t>(
        std::lower_bound(c.enqueueNs.begin(), c.enqueueNs.end(), origin) - c.enqueueNs.begin());
    while (i > 0) {
        const auto j = i - 1;
        if (c.stateAt(j) == CollectiveState::Completed && c.endNs[j] != kNoTime && c.endNs[j] <= origin) {
            break;
        }
        i = j;
    }
    for (; i < c.size() && c.enqueueNs[i] < windowEnd; ++i) {
        const auto st = c.stateAt(i);
        if (st == CollectiveState::Scheduled) {
            continue; // queued behind another collective, not inside one yet
        }
        const TimeNs a = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
        const TimeNs b = c.endNs[i] != kNoTime ? c.endNs[i] : spanEnd;
        if (b <= origin) {
            continue;
        }
        addInterval(acc, n, origin, bucketNs, a, b, kInside);
        auto s = std::lower_bound(
            stalls.begin(), stalls.end(), a, [](const TimeRange& r, TimeNs t) { return r.end <= t; });
        for (; s != stalls.end() && s->start < b; ++s) {
            addInterval(acc, n, origin, bucketNs, std::max(a, s->start), std::min(b, s->end), kStalled);
        }
        if ((st == CollectiveState::Failed || st == CollectiveState::TimedOut) && c.endNs[i] != kNoTime) {
            addInterval(acc, n, origin, bucketNs, c.endNs[i], spanEnd, kFailed);
        }
    }
}

std::uint8_t quantize(float share)
{
    return static_cast<std::uint8_t>(std::lround(std::clamp(share, 0.0f, 1.0f) * 255.0f));
}

HeatCell merge(const HeatCell& x, const HeatCell& y)
{
    return { static_cast<std::uint8_t>((x.inside + y.inside + 1) / 2), std::max(x.stalled, y.stalled),
        std::max(x.failed, y.failed), std::max(x.present, y.present) };
}

} // namespace

std::shared_ptr<const HeatmapModel> HeatmapModel::build(
    SnapshotPtr snap, std::vector<TimeRange> stalls, Progress& progress)
{
    auto m = std::make_shared<HeatmapModel>();
    m->m_snap = std::move(snap);
    std::sort(stalls.begin(), stalls.end(), [](auto& a, auto& b) { return a.start < b.start; });
    m->m_stalls = std::move(stalls);
    const auto& s = *m->m_snap;
    m->m_originNs = s.job.span.start;
    const TimeNs span = std::max<TimeNs>(s.job.span.delta(), 1);
    m->m_baseNs = 1;
    while (std::size_t(span / m->m_baseNs) > kMaxBaseBuckets) {
        m->m_baseNs *= 2;
    }
    const std::size_t n0 = static_cast<std::size_t>((span + m->m_baseNs - 1) / m->m_baseNs);
    const std::uint32_t ranks = static_cast<std::uint32_t>(s.collectives.size());
    m->m_bucketsAt.push_back(n0);
    m->m_levels.emplace_back(std::size_t(ranks) * n0);
    // Level 0 from the records, ranks split across the machine's cores.
    const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    auto work = [&](unsigned part) {
        std::vector<float> acc(3 * n0);
        for (std::uint32_t r = part; r < ranks; r += threads) {
            if (part == 0) {
                progress.report("Building heatmap levels", r, ranks);
            }
            std::fill(acc.begin(), acc.end(), 0.0f);
            accumulate(
                s.collectives[r], m->m_stalls, s.job.span.end, m->m_originNs, double(m->m_baseNs), n0, acc.data());
            auto* row = m->m_levels[0].data() + std::size_t(r) * n0;
            for (std::size_t i = 0; i < n0; ++i) {
                row[i] = { quantize(acc[3 * i]), quantize(acc[3 * i + 1]), quantize(acc[3 * i + 2]), 255 };
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned p = 1; p < threads; ++p) {
        pool.emplace_back(work, p);
    }
    work(0);
    for (auto& t : pool) {
        t.join();
    }
    // Coarser levels by pairs until a rank fits in a few hundred buckets.
    while (m->m_bucketsAt.back() > 256) {
        const auto prev = m->m_bucketsAt.back();
        const auto next = (prev + 1) / 2;
        std::vector<HeatCell> level(std::size_t(ranks) * next);
        const auto& src = m->m_levels.back();
        for (std::uint32_t r = 0; r < ranks; ++r) {
            for (std::size_t i = 0; i < next; ++i) {
                const auto& x = src[std::size_t(r) * prev + 2 * i];
                level[std::size_t(r) * next + i]
                    = 2 * i + 1 < prev ? merge(x, src[std::size_t(r) * prev + 2 * i + 1]) : x;
            }
        }
        m->m_bucketsAt.push_back(next);
        m->m_levels.push_back(std::move(level));
    }
    return m;
}

std::uint64_t HeatmapModel::memoryBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& l : m_levels) {
        bytes += l.capacity() * sizeof(HeatCell);
    }
    return bytes;
}

std::vector<std::uint32_t> HeatmapModel::rowOrder(RowOrder order) const
{
    const auto& s = *m_snap;
    std::vector<std::uint32_t> rows(s.collectives.size());
    std::iota(rows.begin(), rows.end(), 0u);
    auto key = [&](std::uint32_t r) -> std::tuple<std::uint64_t, std::uint64_t, std::uint32_t> {
        const auto& ri = s.ranks[r];
        switch (order) {
        case RowOrder::Host:
            return { index(ri.host), ri.localGpu, r };
        case RowOrder::Rail:
            return { ri.localGpu, index(ri.host), r };
        default:
            return { 0, 0, r };
        }
    };
    if (order == RowOrder::FirstStuck && !m_stalls.empty()) {
        // When each rank arrived in the first stall: ranks stuck earliest on top.
        const TimeNs at = m_stalls.front().start;
        std::vector<TimeNs> arrival(rows.size(), std::numeric_limits<TimeNs>::max());
        for (std::uint32_t r = 0; r < rows.size(); ++r) {
            const auto& c = s.collectives[r];
            auto i = std::upper_bound(c.enqueueNs.begin(), c.enqueueNs.end(), at) - c.enqueueNs.begin();
            if (i > 0) {
                const auto j = static_cast<std::size_t>(i - 1);
                arrival[r] = c.startNs[j] != kNoTime ? c.startNs[j] : c.enqueueNs[j];
            }
        }
        std::stable_sort(rows.begin(), rows.end(), [&](auto a, auto b) { return arrival[a] < arrival[b]; });
        return rows;
    }
    std::sort(rows.begin(), rows.end(), [&](auto a, auto b) { return key(a) < key(b); });
    return rows;
}

void HeatmapModel::rasterizeRank(
    const TimeAxisMapping& map, std::uint32_t rank, std::vector<float>& scratch, HeatCell* out) const
{
    const auto W = static_cast<std::size_t>(std::max(1, map.widthPx));
    const double nsPerPx = map.nsPerPx();
    const auto& s = *m_snap;
    if (nsPerPx < double(m_baseNs)) {
        // Finer than the pyramid: straight from the records in the window.
        scratch.assign(3 * W, 0.0f);
        accumulate(s.collectives[rank], m_stalls, s.job.span.end, map.visible.start, nsPerPx, W, scratch.data());
        for (std::size_t x = 0; x < W; ++x) {
            const TimeNs t = map.t(double(x));
            const bool present = t >= s.job.span.start && t < s.job.span.end;
            out[x] = { quantize(scratch[3 * x]), quantize(scratch[3 * x + 1]), quantize(scratch[3 * x + 2]),
                static_cast<std::uint8_t>(present ? 255 : 0) };
        }
        return;
    }
    std::size_t level = 0;
    while (level + 1 < m_levels.size() && double(m_baseNs << (level + 1)) <= nsPerPx) {
        ++level;
    }
    const TimeNs bucket = m_baseNs << level;
    const auto n = m_bucketsAt[level];
    const HeatCell* row = m_levels[level].data() + std::size_t(rank) * n;
    for (std::size_t x = 0; x < W; ++x) {
        const TimeNs t0 = map.t(double(x)) - m_originNs;
        const TimeNs t1 = map.t(double(x + 1)) - m_originNs;
        if (t1 <= 0 || t0 >= TimeNs(n) * bucket) {
            out[x] = {};
            continue;
        }
        const auto i0 = static_cast<std::size_t>(std::max<TimeNs>(t0, 0) / bucket);
        const auto i1 = std::min(n, static_cast<std::size_t>((t1 + bucket - 1) / bucket));
        unsigned inside = 0;
        HeatCell c {};
        for (std::size_t i = i0; i < i1; ++i) {
            inside += row[i].inside;
            c.stalled = std::max(c.stalled, row[i].stalled);
            c.failed = std::max(c.failed, row[i].failed);
            c.present = std::max(c.present, row[i].present);
        }
        c.inside = static_cast<std::uint8_t>(i1 > i0 ? inside / (i1 - i0) : 0);
        out[x] = c;
    }
}

void HeatmapModel::rasterize(
    const TimeAxisMapping& map, int heightPx, const std::vector<std::uint32_t>& order, std::vector<HeatCell>& out) const
{
    const auto W = static_cast<std::size_t>(std::max(1, map.widthPx));
    const auto H = static_cast<std::size_t>(std::max(1, heightPx));
    out.assign(W * H, HeatCell {});
    const std::size_t R = order.size();
    if (R == 0) {
        return;
    }
    std::vector<float> scratch;
    std::vector<HeatCell> rankRow(W);
    std::vector<unsigned> insideSum(W);
    for (std::size_t y = 0; y < H; ++y) {
        // Ranks [r0, r1) land on pixel row y.
        std::size_t r0 = y * R / H;
        std::size_t r1 = std::max(r0 + 1, (y + 1) * R / H);
        if (y > 0 && r0 == (y - 1) * R / H && R < H) {
            std::copy(out.begin() + static_cast<std::ptrdiff_t>((y - 1) * W),
                out.begin() + static_cast<std::ptrdiff_t>(y * W), out.begin() + static_cast<std::ptrdiff_t>(y * W));
            continue; // more pixel rows than ranks: repeat the rank's row
        }
        HeatCell* dst = out.data() + y * W;
        std::fill(insideSum.begin(), insideSum.end(), 0u);
        for (std::size_t r = r0; r < r1; ++r) {
            rasterizeRank(map, order[r], scratch, rankRow.data());
            for (std::size_t x = 0; x < W; ++x) {
                insideSum[x] += rankRow[x].inside;
                dst[x].stalled = std::max(dst[x].stalled, rankRow[x].stalled);
                dst[x].failed = std::max(dst[x].failed, rankRow[x].failed);
                dst[x].present = std::max(dst[x].present, rankRow[x].present);
            }
        }
        for (std::size_t x = 0; x < W; ++x) {
            dst[x].inside = static_cast<std::uint8_t>(insideSum[x] / (r1 - r0));
        }
    }
}

HeatCell HeatmapModel::cellAt(const TimeAxisMapping& map, std::uint32_t rank, int x) const
{
    std::vector<float> scratch;
    std::vector<HeatCell> row(static_cast<std::size_t>(std::max(1, map.widthPx)));
    rasterizeRank(map, rank, scratch, row.data());
    return x >= 0 && x < map.widthPx ? row[static_cast<std::size_t>(x)] : HeatCell {};
}

} // namespace stallscope
