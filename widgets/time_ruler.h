// SPDX-License-Identifier: MIT
#pragma once

// One ruler for every time view: the rank heatmap, the link heatmap and the counter plots put the time axis
// between the same left gutter and right margin, so one instant is at one x in all of them (they are stacked in
// one splitter at the same width), and a vertical line reads across them. Each view draws the pinned cursor and
// the hover time with drawTimeMarks. GUI thread only.

#include "view/time_axis_mapping.h"

#include <QColor>
#include <QRect>

class QPainter;

namespace stallscope {

class ViewState;

constexpr int kTimeGutterPx = 200; // names left of the axis: ranks and hosts, links, counter tracks
constexpr int kTimeRightPx = 24; // right of the axis: room for the counter plots' scroll bar

// The time axis' columns inside a view `width` px wide.
inline int timeAxisLeft()
{
    return kTimeGutterPx;
}
inline int timeAxisWidth(int width)
{
    return width - kTimeGutterPx - kTimeRightPx > 1 ? width - kTimeGutterPx - kTimeRightPx : 1;
}

// The pinned cursor as a solid line and the hover time as a dotted one, each only where it falls inside `plot`.
void drawTimeMarks(QPainter& p, const QRect& plot, const TimeAxisMapping& map, const ViewState& state, QColor cursor);

} // namespace stallscope
