// SPDX-License-Identifier: MIT
#pragma once

// Plot-ready points from raw cumulative counters: rates per second between consecutive samples, decimated
// per pixel column keeping the minimum and maximum (a two-second dip or spike survives any zoom).
// Keys are seconds since the job's clock origin. Pure functions of the snapshot.

#include "core/job_snapshot.h"

#include <array>
#include <optional>
#include <vector>

namespace stallscope {

struct PlotPoints
{
    std::vector<double> keys; // s since job start, sorted
    std::vector<double> values;
};

// Increase per second of `s` (× `scale`, e.g. 4 for port_xmit_data words → bytes), across resets and
// saturation, over samples overlapping `window`, at most ~2 points per column.
PlotPoints counterRate(const CounterSeries& s, TimeRange window, int columns, double scale, TimeNs origin);

// Keeps the lowest and highest value of each pixel column of `window`, emitted in time order (flush() after
// the last add). Shared by the samples' and the pyramid's plots.
class ColumnDecimator
{
public:
    ColumnDecimator(PlotPoints& out, TimeRange window, int columns, TimeNs origin);
    void add(TimeNs t, double value);
    void flush();

private:
    static constexpr long long kNone = -1'000'000'000'000LL;
    PlotPoints& m_out;
    TimeNs m_start;
    double m_colNs;
    TimeNs m_origin;
    long long m_col = kNone;
    double m_lo = 0, m_hi = 0, m_tLo = 0, m_tHi = 0;
};

// The samples [first, last] of `s` whose rate (from the sample before) falls in `window`; first ≥ 1.
std::pair<std::size_t, std::size_t> sampleRange(const CounterSeries& s, TimeRange window);
// Sample k's increase per second from sample k − 1 (NaN when their times do not increase).
double sampleRate(const CounterSeries& s, std::size_t k);

// The series of one link end and counter, if present.
const CounterSeries* findSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port, CounterKind kind);
// Every kind's series of one port (the first of each kind, as findSeries finds it; null where absent), in one pass
// over the series: 2.1 M of them at 131,072 ranks, where a pass per kind and end cost a counter plot 0.2 s.
using PortSeriesSet = std::array<const CounterSeries*, kCounterKindCount>;
PortSeriesSet portSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port);

// Down intervals of a link from its events (either end), clipped to the job span; an unmatched down lasts
// to the span's end.
std::vector<TimeRange> linkDownIntervals(const JobSnapshot& snap, LinkId link);

} // namespace stallscope
