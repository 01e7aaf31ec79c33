// SPDX-License-Identifier: MIT
#pragma once

// Time-axis ticks shared by the heatmaps (rank × time, link × time): a "nice" step for the zoom and a UTC
// wall-clock label that says the day when the window spans days (a week of fabric data reads "Mon 11-02").

#include "core/types.h"

#include <QString>

namespace stallscope {

// The smallest nice step (1-2-5 × 10^k ns, whole seconds, minutes, hours, days) at least `minPx` apart.
TimeNs tickStep(double nsPerPx, int minPx);
// "00:05:00", "00:05:00.250", "00:05:00.000250"; "Mon 11-02" at whole days when the step is hours or more,
// "06:00" otherwise at those steps.
QString tickLabel(TimeNs t, TimeNs step);
// The first tick at or before `visibleStart`: steps of an hour or more fall on UTC hours and midnights,
// shorter ones count from `origin` (job start), so "+00:05:00" and "00:05:00" stay aligned.
TimeNs firstTick(TimeNs visibleStart, TimeNs step, TimeNs origin);

} // namespace stallscope
