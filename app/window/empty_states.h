// SPDX-License-Identifier: MIT
#pragma once

// What the job's views say while they have nothing to show: no job open, a job being opened (built and
// analysed off the GUI thread), or, in training, an analysis hidden until Check. One home for these texts so
// no view tells a user to open a bundle while one is loading. GUI thread only.

#include <QString>

namespace stallscope {

class FlapsPanel;
class HeatmapWidget;
class IncidentsPanel;
class LinkHeatmapWidget;
class TopologyWidget;

enum class EmptyState { NoJob, Loading, AnalysisHidden };

struct EmptyViews
{
    HeatmapWidget* heatmap;
    LinkHeatmapWidget* linkHeatmap;
    IncidentsPanel* incidents;
    FlapsPanel* flaps;
    TopologyWidget* topology;
};

// `what`: the job being opened (Loading), e.g. its path.
void showEmptyStates(const EmptyViews& views, EmptyState state, const QString& what = {});

} // namespace stallscope
