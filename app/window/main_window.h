// SPDX-License-Identifier: MIT
#pragma once

// The main window: composes the heatmaps, the panels and docks, owns the one ViewState and wires the menus. The
// work is in controllers it composes: loading (LoadController), showing the job as its load's stages arrive and
// putting the previous one back on failure (JobPresenter), sessions and notes (SessionController), moving through
// the job (NavigationController), the View menu, live following, export, training and the Help windows. GUI thread
// only.

#include <QMainWindow>

#include "open/load_job.h"
#include "source/prometheus_source.h"
#include "window/docks.h"

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QStackedWidget;

namespace stallscope {

class CounterPlotWidget;
class DemoController;
class JobAlerts;
class JobPresenter;
class FlapsPanel;
class LinkHeatmapWidget;
class HeatmapWidget;
class IncidentsPanel;
class HostsPanel;
class LinkListPanel;
class LiveController;
class LoadController;
class NavigationController;
class OutputController;
class RecentFiles;
class SessionController;
class SummaryView;
class TopologyWidget;
class TrainingController;
class TrainingPanel;
class ViewMenu;
class ViewState;
class WelcomePanel;
struct AnalysisResult;
struct JobSnapshot;
class HeatmapModel;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    // Opens a bundle, a raw folder or a review session (.stallscope). Asks first when the open job has unsaved
    // notes; the job stays open (and its notes with it) if the new one fails to open or is cancelled.
    void openJob(const QString& path);
    // File › Save session (saveAs: always ask where); false when nothing was saved.
    bool saveSession(bool saveAs = false);
    void closeJob(); // File › Close: asks before unsaved notes are lost
    QString sessionPath() const;
    void settleViews(); // rasters made off the GUI thread are in place: before a screenshot
    void openPrometheus(const PrometheusQuery& query); // a Prometheus-compatible server's InfiniBand series
    // A job's raw folder with its counters from the server (the job's span and hosts unless the query says).
    void openFolderWithPrometheus(const QString& path, const PrometheusQuery& query);
    void followLive(); // turn Live on (the data must come from a server)
    void selectIncident(int number); // zooms every view to it
    ViewState* viewState() const { return m_state; }
    const OpenedJob* opened() const;
    // Training: while hidden, no view shows the analysis (incidents, culprit marks, flaps, degraded links).
    void setAnalysisHidden(bool hidden);
    bool analysisHidden() const;
    TrainingController* training() const { return m_training; }
    TrainingPanel* trainingPanel() const { return m_trainingPanel; }
    IncidentsPanel* incidentsPanel() const { return m_incidents; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    FlapsPanel* flapsPanel() const { return m_flaps; }
    LinkHeatmapWidget* linkHeatmap() const { return m_linkHeatmap; }
    TopologyWidget* topology() const { return m_topology; }
    CounterPlotWidget* counters() const { return m_counters; }
    LinkListPanel* linkList() const { return m_linkList; }
    HostsPanel* hostsPanel() const { return m_hosts; }
    QLineEdit* fabricFind() const { return m_docks.fabricFind; }
    void cancelLoading(); // what the progress dialog's Cancel does
    // Edit › Go to: selects the ranks a rank number or host name names (view/rank_search.h); false when none.
    bool goTo(const QString& query);
    // The Exercise dock under the Fabric view, so the trainee sees the topology and the answer together.
    void showExerciseDock();
    void openDemo(); // the demo scenario: simulated once into the cache folder, then opened
    bool showingViews() const; // false: the welcome page (nothing open)

signals:
    void loadFinished(bool ok);
    void stageShown(); // a load's first stage is on screen (the job's data, before its heatmap and analysis)

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createControllers();
    void createDocks();
    void createPresenter();
    void createMenus();
    void startLoading(const QString& name, Loader load, bool quiet = false);
    void askOpen(); // File › Open: a bundle, a folder or a session
    void askPrometheus();
    void onLoaded(std::shared_ptr<OpenedJob> opened); // opened, failed or cancelled
    void syncViewMenus(); // the View menu's checks follow the views (a job or session sets them too)
    void updateTitle();
    void updateStatus();
    void showStatus(const QString& text); // the status bar, until the next message

    ViewState* m_state;
    HeatmapWidget* m_heatmap;
    LinkHeatmapWidget* m_linkHeatmap;
    FlapsPanel* m_flaps;
    CounterPlotWidget* m_counters;
    TopologyWidget* m_topology;
    LinkListPanel* m_linkList;
    HostsPanel* m_hosts;
    IncidentsPanel* m_incidents;
    TrainingPanel* m_trainingPanel;
    WelcomePanel* m_welcome;
    SummaryView* m_summary;
    QListWidget* m_warnings;
    QLabel* m_cursorLabel;
    Docks m_docks {};
    QStackedWidget* m_central = nullptr;

    LoadController* m_loader = nullptr;
    JobPresenter* m_presenter = nullptr; // the job on screen, the previous one kept for a failed load
    SessionController* m_session = nullptr; // File › Save session, notes, a session's pending views
    NavigationController* m_navigation = nullptr; // next/previous incident and flap, Go to, zoom at the cursor
    ViewMenu* m_viewMenu = nullptr;
    LiveController* m_live = nullptr; // the server the data came from, re-queried while Live is on
    TrainingController* m_training = nullptr;
    OutputController* m_output = nullptr; // File › Export view, Save report; Edit › Copy image
    RecentFiles* m_recent = nullptr; // File › Open Recent and the welcome page's list
    DemoController* m_demo = nullptr; // the welcome page's demo, simulated once
    JobAlerts* m_alerts = nullptr; // the status bar's alert: new flaps (live), files cut short on disk
};

} // namespace stallscope
