// SPDX-License-Identifier: MIT
#pragma once

// The context menu every view shares (heatmap, counter plots, topology): "Export…" asks the window for its
// export dialog (the composed postmortem image, through the view's exportRequested signal) and "Copy this view"
// puts the view as drawn on the clipboard. GUI thread only.

#include <functional>

class QContextMenuEvent;
class QWidget;

namespace stallscope {

void execViewMenu(QWidget* view, QContextMenuEvent* event, const std::function<void()>& requestExport);

} // namespace stallscope
