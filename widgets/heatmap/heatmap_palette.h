// SPDX-License-Identifier: MIT
#pragma once

// Colours of the rank×time heatmap, from the Okabe–Ito colour-blind-safe set: sky blue for time inside a
// collective, vermillion for a job-wide stall (it must stand out at a glance), pale vermillion for ranks held by
// another group's stall, reddish purple for failed or dead ranks, on the palette's own background for computing. Light
// and dark variants follow the app palette. A rank with no collective record is a mid neutral (darker than computing
// in light, lighter in dark) with a faint diagonal hatch: it differs from every other state in lightness and texture,
// not hue, so it reads the same to every eye, and says "unknown" rather than "idle".

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
    QColor unknown; // present, but no collective record: known from its log at most
    QColor unknownHatch; // the hatch lines across unknown cells
    static constexpr int kHatchPx = 4; // their spacing along x + y, logical pixels
    QColor text;
    QColor grid;
    QColor cursor;

    static HeatmapPalette fromPalette(const QPalette& p);
    // Failed, stalled and held outrank unknown: a folded row shows its recorded ranks' alarms over it.
    QRgb color(const HeatCell& c) const;
    // color() at pixel (x, y) of a raster: unknown cells hatched with a line every `hatchPx` pixels along x + y.
    QRgb colorAt(const HeatCell& c, int x, int y, int hatchPx) const;
    QRgb unknownAt(int x, int y, int hatchPx) const;
    bool isUnknown(const HeatCell& c) const
    {
        return c.present != 0 && c.unrecorded != 0 && c.failed == 0 && c.stalled == 0 && c.held == 0;
    }
    // "Time in collectives": a perceptually uniform sequential ramp (viridis) over the inside share.
    static QRgb rampColor(std::uint8_t share);
};

} // namespace stallscope
