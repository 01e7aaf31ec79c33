// SPDX-License-Identifier: MIT
#pragma once

// Shared by the topology widget's files (topology_widget.cpp: data, layout, input; topology_paint.cpp: drawing;
// topology_groups.cpp: pods, bundles, captions). GUI thread only.

#include "theme.h"
#include "view/link_state.h"

#include <QColor>
#include <QPalette>

namespace stallscope::topology {

inline QColor healthColor(LinkHealth h, const QPalette& pal)
{
    const bool dark = isDarkPalette(pal);
    switch (h) {
    case LinkHealth::Down:
        return QColor(0xd5, 0x5e, 0x00); // vermillion, as the heatmap's stall
    case LinkHealth::Erroring:
        return QColor(0xe6, 0x9f, 0x00); // orange
    case LinkHealth::Congested:
        return QColor(0xcc, 0x79, 0xa7); // reddish purple
    case LinkHealth::Idle:
        return dark ? QColor(0x60, 0x63, 0x6a) : QColor(0xc0, 0xc3, 0xc8);
    case LinkHealth::Normal:
        return dark ? QColor(0x3d, 0x8e, 0xc9) : QColor(0x00, 0x72, 0xb2); // blue
    }
    return Qt::gray;
}

// Idle below normal: a bundle is as bad as its worst link, and carrying traffic beats idling.
inline int severity(LinkHealth h)
{
    switch (h) {
    case LinkHealth::Idle:
        return 0;
    case LinkHealth::Normal:
        return 1;
    case LinkHealth::Congested:
        return 2;
    case LinkHealth::Erroring:
        return 3;
    case LinkHealth::Down:
        return 4;
    }
    return 0;
}

} // namespace stallscope::topology
