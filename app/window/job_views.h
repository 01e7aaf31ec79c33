// SPDX-License-Identifier: MIT
#pragma once

// What the window shows of one job beyond its data: the ViewState's part (window, cursor, zoom history,
// selection, notes) and the views' own choices (row orders, colouring, the fabric's find text, the links'
// filter, the hosts' filter). It belongs to the job: captured when another load starts and put back when that load fails or is
// cancelled, reset when a new job opens, written to and read from review sessions. GUI thread only.

#include "heatmap/heatmap_widget.h"
#include "heatmap/link_heatmap_widget.h"
#include "view/review_session.h"
#include "view/view_state.h"

#include <QString>

class QLineEdit;

namespace stallscope {

class HostsPanel;
class LinkListPanel;
struct JobSnapshot;

struct JobViews
{
    ViewState* state;
    HeatmapWidget* heatmap;
    LinkHeatmapWidget* linkHeatmap;
    LinkListPanel* links;
    QLineEdit* fabricFind;
    HostsPanel* hosts;
};

struct JobViewState
{
    ViewState::Saved view;
    RowOrder rowOrder = RowOrder::Rank;
    HeatmapMetric metric = HeatmapMetric::State;
    LinkRowOrder linkOrder = LinkRowOrder::Tier;
    bool recordedOnly = false; // rank rows: only those with collective records
    QString fabricFind;
    QString linkFilter;
    QString hostFilter; // kept while the job is open, not in review sessions
};

JobViewState captureJobViews(const JobViews& views);
void applyJobViews(const JobViews& views, const JobViewState& s);
// A job just opened: nothing of the previous one, its whole span in view.
void resetJobViews(const JobViews& views, TimeRange span);

// Sessions name links by their ends' GUIDs and ports, so a session outlives the bundle's link numbering.
void toSession(const JobViewState& s, const JobSnapshot& snap, ReviewSession& out);
// The session's state for `snap`: links it names that `snap` lacks are left out, as are ranks past its world.
JobViewState fromSession(const ReviewSession& s, const JobSnapshot& snap);

} // namespace stallscope
