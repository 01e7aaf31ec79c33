// SPDX-License-Identifier: MIT
#pragma once

// Shows a job in the window's views as its load's stages arrive (the snapshot, then the heatmaps, then the
// analysis), and puts the previous job back, with what its views showed, when a load fails or is cancelled after
// its first stage was shown. It owns the job on screen, the one kept for that restore, whether the analysis is
// hidden (training) and the heatmap's lateness computed off the GUI thread. It reaches the views only through
// Views and tells the window what to do (title, status, the View menu's checks) by signals. GUI thread only.

#include "open/load_job.h"
#include "window/empty_states.h"
#include "window/job_views.h"

#include <QFutureWatcher>
#include <QObject>

#include <memory>
#include <optional>

class QDockWidget;
class QLineEdit;
class QListWidget;
class QStackedWidget;

namespace stallscope {

class CounterPlotWidget;
class FlapsPanel;
class HeatmapModel;
class HostsPanel;
class IncidentsPanel;
class LinkListPanel;
class SummaryView;
class TopologyWidget;
struct AnalysisResult;
struct JobSnapshot;

class JobPresenter : public QObject
{
    Q_OBJECT
public:
    // What the presenter changes: the window's views, the one ViewState, the central pages and the docks that
    // hide or come forward with the analysis.
    struct Views
    {
        ViewState* state;
        HeatmapWidget* heatmap;
        LinkHeatmapWidget* linkHeatmap;
        FlapsPanel* flaps;
        CounterPlotWidget* counters;
        TopologyWidget* topology;
        LinkListPanel* linkList;
        HostsPanel* hosts;
        IncidentsPanel* incidents;
        SummaryView* summary;
        QListWidget* warnings;
        QLineEdit* fabricFind;
        QStackedWidget* central; // page 0: the welcome page (nothing open); page 1: the views
        QDockWidget* incidentsDock;
        QDockWidget* flapsDock;
        QDockWidget* summaryDock;
    };

    JobPresenter(const Views& views, QObject* parent);
    ~JobPresenter() override; // waits for the lateness in flight

    OpenedJob* opened() const { return m_opened.get(); } // the open job: snapshot, analysis, heatmap
    const std::shared_ptr<const JobSnapshot>& shown() const { return m_shown; } // on screen from stage 1 on
    std::shared_ptr<const AnalysisResult> shownAnalysis() const; // none while hidden
    bool analysisHidden() const { return m_analysisHidden; }
    bool reloading() const { return m_reloading; } // the load in flight is a live refresh
    bool showingViews() const; // false: the welcome page
    JobViews jobViews() const;

    // A load starts. quiet: a live refresh (keep selection and window); else the open job and what its views
    // show, with its session's path, are kept to put back if the load fails.
    void beginLoad(bool quiet, const QString& sessionPath);
    void showStage(std::shared_ptr<OpenedJob> partial); // the snapshot first, then heatmap levels
    // The load succeeded: the analysis joins what stage 1 showed. selectFirstFlap: fabric data alone with no
    // session's views pending selects the costliest flapper.
    void showOpened(std::shared_ptr<OpenedJob> opened, bool selectFirstFlap);
    // The load failed or was cancelled. keepShown (live following retries at the next refresh): the views stay;
    // else whatever stage 1 showed of it goes, and the previous job comes back or nothing is open.
    void showFailed(bool keepShown);
    void clear(); // nothing open; emits cleared()
    void showEmptyStates(EmptyState state, const QString& what = {});
    void showIdleStates(); // nothing is being opened: "no job", or in training "analysis hidden"
    void setAnalysisHidden(bool hidden);
    void setLinkHeatmapShown(bool on); // with a job: the link heatmap stacked under the rank heatmap
    void ensureLateness(); // the heatmap's lateness metric, computed off the GUI thread once per job

signals:
    void statusMessage(const QString& text);
    void titleChanged(); // the job shown or its name changed
    void menusChanged(); // the View menu's checks should follow the views
    void stageShown(); // a load's first stage is on screen
    void cleared(); // nothing is open any more
    void restored(const QString& sessionPath); // the previous job is back, from this session (or none)

private:
    // `statesToCome`: the first stage of a load, the link states not built yet (they come with stage 2).
    void showSnapshot(const OpenedJob& opened, bool statesToCome = false);
    void showJobDeath(const OpenedJob& opened);
    void showHosts(const std::shared_ptr<const JobSnapshot>& snap);
    void showViews(bool on);
    void applyAnalysis();
    void applyHeatmapVisibility();
    void restorePreviousJob();

    Views m_views;
    std::shared_ptr<OpenedJob> m_opened;
    std::shared_ptr<const JobSnapshot> m_shown;
    // The job that was open when a load began, with what its views showed: put back if the load fails.
    struct PreviousJob
    {
        std::shared_ptr<OpenedJob> opened;
        JobViewState views;
        QString sessionPath;
    };
    std::optional<PreviousJob> m_previous;
    bool m_reloading = false;
    bool m_analysisHidden = false;
    bool m_showLinkHeatmap = true;
    QFutureWatcher<std::shared_ptr<const HeatmapModel>> m_latenessJob;
};

} // namespace stallscope
