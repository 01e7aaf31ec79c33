// SPDX-License-Identifier: MIT
#pragma once

// Moving through the open job: the next or previous incident and flap, Edit › Go to a rank or host, zooming
// around the pinned cursor, and framing a selected incident in every view (analysis/incident_frame.h). It moves
// the one ViewState and the views it is given, reads what the window shows through getters, and words what
// happened as statusMessage. GUI thread only.

#include <QObject>

#include <functional>
#include <memory>

class QWidget;

namespace stallscope {

class FlapsPanel;
class HeatmapWidget;
class ViewState;
struct AnalysisResult;
struct JobSnapshot;

class NavigationController : public QObject
{
    Q_OBJECT
public:
    // What the window shows now; each getter is asked at the moment of an action, never kept.
    struct Sources
    {
        std::function<std::shared_ptr<const JobSnapshot>()> shown; // nullptr: nothing shown
        std::function<std::shared_ptr<const AnalysisResult>()> shownAnalysis; // nullptr while training hides it
        std::function<bool()> analysisHidden;
    };
    NavigationController(ViewState* state, HeatmapWidget* heatmap, FlapsPanel* flaps, Sources sources, QObject* parent);

    void stepIncident(int delta); // next (+1) or previous (-1) incident, wrapping
    void stepFlap(int delta); // next (+1) or previous (-1) flap from the pinned cursor
    void zoomAtCursor(double factor); // around the pinned cursor when it is in view, else the window's centre
    // Edit › Go to: selects the ranks a rank number or host name names (view/rank_search.h); false when none.
    bool goTo(const QString& query);
    void askGoTo(QWidget* parent); // the Go to dialog, then goTo

signals:
    void statusMessage(const QString& text);

private:
    void frameSelectedIncident(int number); // zooms every view to it, its link's counters plotted

    ViewState* m_state;
    HeatmapWidget* m_heatmap;
    FlapsPanel* m_flaps;
    Sources m_sources;
};

} // namespace stallscope
