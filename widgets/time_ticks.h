// SPDX-License-Identifier: MIT
#pragma once

// Time-axis ticks shared by the heatmaps (rank × time, link × time): a "nice" step for the zoom and a UTC
// wall-clock label that says the day when the window spans days (a week of fabric data reads "Mon 11-02").

#include "core/types.h"

#include <QString>

#include <string>

namespace stallscope {

// The smallest nice step (1-2-5 × 10^k ns, whole seconds, minutes, hours, days) at least `minPx` apart.
TimeNs tickStep(double nsPerPx, int minPx);
// "00:05:00", "00:05:00.250", "00:05:00.000250"; "Mon 11-02" at whole days when the step is hours or more,
// "06:00" otherwise at those steps.
QString tickLabel(TimeNs t, TimeNs step);
// The first tick at or before `visibleStart`. Ticks fall on round UTC values (whole minutes, hours, midnights),
// so a label is the exact wall-clock time of its tick: counting from a job start of 00:00:00.566 would put the
// tick labelled "00:04:00" at 00:04:00.566, half a second from where the counter plots put it.
TimeNs firstTick(TimeNs visibleStart, TimeNs step);

// "2026-11-01 00:04:58 .. 00:05:36 UTC", "2026-11-01 00:04:58.167 .. 00:05:02.566 UTC" for a window under
// kUtcRangeMsBelowNs: the end's date only when it differs from the start's (a week of fabric data, a window to
// the end of time: "2026-11-01 00:00:00 .. 23:47:16" read as one day). The one title range of every time view.
inline constexpr TimeNs kUtcRangeMsBelowNs = 10 * kNsPerSec;
std::string utcRange(TimeNs start, TimeNs end);

} // namespace stallscope
