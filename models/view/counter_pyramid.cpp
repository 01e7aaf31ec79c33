// SPDX-License-Identifier: MIT
#include "view/counter_pyramid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stallscope {

namespace {

constexpr float kEmptyLo = std::numeric_limits<float>::infinity(); // a bucket with no rate: lo > hi

bool empty(const CounterPyramid::Bucket& b)
{
    return b.lo > b.hi;
}

} // namespace

CounterPyramid::CounterPyramid(const CounterSeries& s)
{
    const std::size_t n = s.size();
    if (n < 2) {
        return;
    }
    // Level 0: bucket b holds the rates of samples [b × 16, (b + 1) × 16) (sample 0 has none).
    std::vector<Bucket> level((n + kBase - 1) / kBase, Bucket { kEmptyLo, -kEmptyLo });
    for (std::size_t k = 1; k < n; ++k) {
        const double rate = sampleRate(s, k);
        if (std::isnan(rate)) {
            continue;
        }
        auto& b = level[k / kBase];
        b.lo = std::min(b.lo, float(rate));
        b.hi = std::max(b.hi, float(rate));
    }
    m_levels.push_back(std::move(level));
    // Coarser levels until a handful of buckets spans the series.
    while (m_levels.back().size() > 16) {
        const auto& fine = m_levels.back();
        std::vector<Bucket> coarse((fine.size() + kFactor - 1) / kFactor, Bucket { kEmptyLo, -kEmptyLo });
        for (std::size_t i = 0; i < fine.size(); ++i) {
            auto& b = coarse[i / kFactor];
            b.lo = std::min(b.lo, fine[i].lo);
            b.hi = std::max(b.hi, fine[i].hi);
        }
        m_levels.push_back(std::move(coarse));
    }
}

std::size_t CounterPyramid::samplesPerBucket(std::size_t level) const
{
    std::size_t b = kBase;
    for (std::size_t l = 0; l < level; ++l) {
        b *= kFactor;
    }
    return b;
}

std::uint64_t CounterPyramid::memoryBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& l : m_levels) {
        bytes += l.capacity() * sizeof(Bucket);
    }
    return bytes;
}

PlotPoints counterRate(
    const CounterSeries& s, const CounterPyramid& pyramid, TimeRange window, int columns, double scale, TimeNs origin)
{
    if (s.size() < 2 || columns <= 0) {
        return {};
    }
    const auto [k0, k1] = sampleRange(s, window);
    if (k1 < k0) {
        return counterRate(s, window, columns, scale, origin);
    }
    const double perColumn = double(k1 - k0 + 1) / double(columns);
    // The coarsest level whose buckets are no wider than a column: a bucket's extremes, drawn at its two ends,
    // land in its own column or the next.
    std::size_t level = pyramid.levels();
    while (level > 0 && double(pyramid.samplesPerBucket(level - 1)) > perColumn) {
        --level;
    }
    if (level == 0) {
        return counterRate(s, window, columns, scale, origin); // few samples per column: read them
    }
    --level;
    const std::size_t per = pyramid.samplesPerBucket(level);
    const auto& buckets = pyramid.level(level);
    PlotPoints out;
    ColumnDecimator columnsOf(out, window, columns, origin);
    // Buckets overlapping [k0, k1] whole: an edge bucket reaches at most a column past the window.
    for (std::size_t b = k0 / per; b <= k1 / per && b < buckets.size(); ++b) {
        const auto& bucket = buckets[b];
        if (empty(bucket)) {
            continue;
        }
        const TimeNs first = s.timesNs[std::max<std::size_t>(b * per, 1)];
        const TimeNs last = s.timesNs[std::min((b + 1) * per, s.size()) - 1];
        columnsOf.add(first, double(bucket.lo) * scale);
        columnsOf.add(last, double(bucket.hi) * scale);
    }
    columnsOf.flush();
    return out;
}

const CounterPyramid& CounterPyramidCache::of(const CounterSeries& s)
{
    auto& slot = m_pyramids[&s];
    if (!slot) {
        slot = std::make_unique<CounterPyramid>(s);
    }
    return *slot;
}

} // namespace stallscope
