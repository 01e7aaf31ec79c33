// SPDX-License-Identifier: MIT
#pragma once

// Plot-ready points from raw cumulative counters: rates per second between consecutive samples, decimated
// per pixel column keeping the minimum and maximum (a two-second dip or spike survives any zoom).
// Keys are seconds since the job's clock origin. Pure functions of the snapshot.

#include "core/job_snapshot.h"

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

// The series of one link end and counter, if present.
const CounterSeries* findSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port, CounterKind kind);

// Down intervals of a link from its events (either end), clipped to the job span; an unmatched down lasts
// to the span's end.
std::vector<TimeRange> linkDownIntervals(const JobSnapshot& snap, LinkId link);

} // namespace stallscope
