// SPDX-License-Identifier: MIT
#pragma once

// The one way to include QCustomPlot: its header uses `foreach` and implicit ASCII casts, which the
// project's Qt hygiene defines forbid. Only counter_plot_widget.cpp includes this.

#undef QT_NO_FOREACH
#undef QT_NO_CAST_FROM_ASCII
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>
