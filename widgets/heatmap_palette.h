// SPDX-License-Identifier: MIT
#pragma once

// Colours of the rank×time heatmap, from the Okabe–Ito colour-blind-safe set: sky blue for time inside a
// collective, vermillion for a job-wide stall (it must stand out at a glance), pale vermillion for ranks held by
// another group's stall, reddish purple for failed or dead ranks, on the palette's own background for computing. Light
// and dark variants follow the app palette.

#include "view/heatmap_model.h"

#include <QColor>
#include <QPalette>

namespace stallscope {

struct HeatmapPalette
{
    QColor background; // no data
    QColor computing; // outside any collective
    QColor inside; // inside a collective
    QColor stalled;
    QColor held; // a pale stall colour: waiting for another group's stall
    QColor failed;
    QColor text;
    QColor grid;
    QColor cursor;

    static HeatmapPalette fromPalette(const QPalette& p);
    QRgb color(const HeatCell& c) const;
    // "Time in collectives": a perceptually uniform sequential ramp (viridis) over the inside share.
    static QRgb rampColor(std::uint8_t share);
};

} // namespace stallscope
