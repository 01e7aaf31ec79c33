// SPDX-License-Identifier: MIT
#pragma once

// Maps job time to horizontal pixels and back. Built once per paint and shared by the heatmap, the time
// axis and the plots, so all panes agree to the pixel. Pixels may be device pixels or logical ones; the
// caller decides and uses the same mapping for drawing and hit-testing.

#include "core/types.h"

#include <cmath>

namespace stallscope {

struct TimeAxisMapping
{
    TimeRange visible;
    int widthPx = 1;

    double nsPerPx() const { return double(visible.delta()) / double(widthPx > 0 ? widthPx : 1); }
    // Left edge of the pixel column containing t (may lie outside [0, widthPx)).
    double x(TimeNs t) const { return double(t - visible.start) / nsPerPx(); }
    // Time at the left edge of pixel column x (x may be fractional).
    TimeNs t(double x) const { return visible.start + static_cast<TimeNs>(std::llround(x * nsPerPx())); }
};

} // namespace stallscope
