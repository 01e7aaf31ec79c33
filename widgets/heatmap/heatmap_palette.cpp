// SPDX-License-Identifier: MIT
#include "heatmap/heatmap_palette.h"

#include "theme.h"

#include <algorithm>

namespace stallscope {

namespace {
QRgb mix(QColor a, QColor b, int weight255)
{
    const int w = std::clamp(weight255, 0, 255);
    return qRgb((a.red() * (255 - w) + b.red() * w) / 255, (a.green() * (255 - w) + b.green() * w) / 255,
        (a.blue() * (255 - w) + b.blue() * w) / 255);
}
} // namespace

HeatmapPalette HeatmapPalette::fromPalette(const QPalette& p)
{
    const bool dark = isDarkPalette(p);
    HeatmapPalette h;
    h.background = p.color(QPalette::Window);
    // Computing is the plot's own ground, set apart from the window's (no data) by lightness: white on the light
    // window grey, a lifted grey on the dark one.
    h.computing = dark ? QColor(0x30, 0x33, 0x3a) : QColor(0xff, 0xff, 0xff);
    h.inside = dark ? QColor(0x3d, 0x8e, 0xc9) : QColor(0x56, 0xb4, 0xe9); // Okabe–Ito sky blue
    h.stalled = QColor(0xd5, 0x5e, 0x00); // Okabe–Ito vermillion
    h.held = QColor::fromRgb(mix(h.computing, h.stalled, 95)); // related to the stall, clearly not it
    h.failed = dark ? QColor(0xe0, 0x8a, 0xc0) : QColor(0x8e, 0x2f, 0x6e); // reddish purple
    // Neutral, 11-12 L* (CIELAB lightness) from computing and 12-19 from the background; the hatch 9 L* further.
    h.unknown = dark ? QColor(0x4d, 0x4f, 0x56) : QColor(0xcf, 0xd0, 0xd4);
    h.unknownHatch = dark ? QColor(0x61, 0x64, 0x6b) : QColor(0xb6, 0xb8, 0xbe);
    h.text = p.color(QPalette::WindowText);
    h.grid = dark ? QColor(0x55, 0x58, 0x60) : QColor(0xb8, 0xbb, 0xc2);
    h.cursor = dark ? QColor(0xf0, 0xe4, 0x42) : QColor(0x00, 0x00, 0x00);
    return h;
}

QRgb HeatmapPalette::color(const HeatCell& c) const
{
    if (c.present == 0) {
        return background.rgb();
    }
    if (c.failed > 0) {
        return mix(computing, failed, 128 + c.failed / 2);
    }
    if (c.stalled > 0) {
        // Any stall in the cell shows clearly; a fuller cell is more saturated.
        return mix(computing, stalled, 150 + (c.stalled * 105) / 255);
    }
    if (c.held > 0) {
        return mix(computing, held, 160 + (c.held * 95) / 255);
    }
    if (c.unrecorded > 0) {
        return unknown.rgb();
    }
    return mix(computing, inside, c.inside);
}

QRgb HeatmapPalette::colorAt(const HeatCell& c, int x, int y, int hatchPx) const
{
    return isUnknown(c) ? unknownAt(x, y, hatchPx) : color(c);
}

QRgb HeatmapPalette::unknownAt(int x, int y, int hatchPx) const
{
    return (x + y) % std::max(1, hatchPx) == 0 ? unknownHatch.rgb() : unknown.rgb();
}

QRgb HeatmapPalette::rampColor(std::uint8_t share)
{
    // Viridis at 9 stops, linearly interpolated (perceptually uniform, colour-blind safe, prints in grey).
    static const QColor stops[] = { QColor(0x44, 0x01, 0x54), QColor(0x47, 0x2d, 0x7b), QColor(0x3b, 0x52, 0x8b),
        QColor(0x2c, 0x72, 0x8e), QColor(0x21, 0x91, 0x8c), QColor(0x28, 0xae, 0x80), QColor(0x5e, 0xc9, 0x62),
        QColor(0xad, 0xdc, 0x30), QColor(0xfd, 0xe7, 0x25) };
    const double x = share / 255.0 * 8.0;
    const int i = std::min(7, int(x));
    return mix(stops[i], stops[i + 1], int((x - i) * 255));
}

} // namespace stallscope
