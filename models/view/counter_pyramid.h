// SPDX-License-Identifier: MIT
#pragma once

// A counter's rate as a pyramid of min/max per bucket of samples (16, 64, 256 … samples per bucket), so a
// plot of a long span reads one to four buckets per pixel column instead of every sample: a week of 1 s samples
// (604,800 per series) on 1,600 columns is ~2,400 buckets, not 604,800 samples (issue #13); only a window of
// fewer than 16 samples per column reads the samples. The rate of sample i
// is the increase from sample i − 1 to i per second (across resets and saturation, as counterRate); a bucket
// keeps the lowest and highest, so a one-sample spike or dip survives every level. Built from the series'
// samples in O(samples) (≈ 1 ms per 600 k), once per series, the first time a plot needs it; immutable after.
// The levels take ≈ 2/3 byte per sample (8 bytes per 16 samples, plus a quarter as much per coarser level):
// less than the samples' own values.

#include "core/counters.h"
#include "view/counter_plot_data.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace stallscope {

class CounterPyramid
{
public:
    static constexpr std::size_t kBase = 16; // samples per bucket at level 0
    static constexpr std::size_t kFactor = 4; // buckets of one level per bucket of the next

    explicit CounterPyramid(const CounterSeries& s);

    struct Bucket
    {
        float lo = 0, hi = 0; // rate per second (unscaled), lowest and highest of the bucket's samples
    };
    std::size_t levels() const { return m_levels.size(); }
    std::size_t samplesPerBucket(std::size_t level) const;
    const std::vector<Bucket>& level(std::size_t l) const { return m_levels[l]; }
    std::uint64_t memoryBytes() const;

private:
    std::vector<std::vector<Bucket>> m_levels;
};

// counterRate reading the pyramid where a column holds at least one of its buckets (else the samples, as
// counterRate does): the same lowest and highest rate per column (within one column), ~2–4 points per column.
PlotPoints counterRate(
    const CounterSeries& s, const CounterPyramid& pyramid, TimeRange window, int columns, double scale, TimeNs origin);

// The pyramids of the series a view has plotted, built on first use. Owned by one view (not thread-safe);
// forget() when the snapshot changes (keys are the snapshot's series).
class CounterPyramidCache
{
public:
    const CounterPyramid& of(const CounterSeries& s);
    void forget() { m_pyramids.clear(); }
    std::size_t size() const { return m_pyramids.size(); }

private:
    std::map<const CounterSeries*, std::unique_ptr<CounterPyramid>> m_pyramids;
};

} // namespace stallscope
