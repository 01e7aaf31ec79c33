// SPDX-License-Identifier: MIT
#pragma once

// The main window: composes the heatmap, the incidents panel and docks, owns the one ViewState, wires the
// menus, and opens jobs (bundles, raw folders, servers) off the GUI thread with a progress dialog.

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QMainWindow>

#include "window/empty_states.h"
#include "window/job_views.h"
#include "open/load_job.h"
#include "source/prometheus_source.h"

#include <map>
#include <memory>
#include <optional>

class QAction;
class QActionGroup;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressDialog;
class QStackedWidget;
class QTimer;

namespace stallscope {

class CounterPlotWidget;
class FlapsPanel;
class LinkHeatmapWidget;
class HeatmapWidget;
class IncidentsPanel;
class HostsPanel;
class LinkListPanel;
class LiveController;
class OutputController;
class RecentFiles;
class SharedProgress;
class SummaryView;
class TopologyWidget;
class TrainingController;
class TrainingPanel;
class ViewState;
class WelcomePanel;
struct AnalysisResult;
struct OpenedJob;
struct JobSnapshot;
struct ReviewSession;
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
    QString sessionPath() const { return m_sessionPath; }
    void settleViews(); // rasters made off the GUI thread are in place: before a screenshot
    void openPrometheus(const PrometheusQuery& query); // a Prometheus-compatible server's InfiniBand series
    // A job's raw folder with its counters from the server (the job's span and hosts unless the query says).
    void openFolderWithPrometheus(const QString& path, const PrometheusQuery& query);
    void followLive(); // turn Live on (the data must come from a server)
    void selectIncident(int number); // zooms every view to it
    ViewState* viewState() const { return m_state; }
    const OpenedJob* opened() const { return m_opened.get(); }
    // Training: while hidden, no view shows the analysis (incidents, culprit marks, flaps, degraded links).
    void setAnalysisHidden(bool hidden);
    bool analysisHidden() const { return m_analysisHidden; }
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
    QLineEdit* fabricFind() const { return m_fabricFind; }
    void cancelLoading(); // what the progress dialog's Cancel does
    // Edit › Go to: selects the ranks a rank number or host name names (view/rank_search.h); false when none.
    bool goTo(const QString& query);
    void showExerciseDock();
    void openDemo(); // the demo scenario: simulated once into the cache folder, then opened
    bool showingViews() const; // false: the welcome page (nothing open) // under the Fabric view, so the trainee sees
                               // the topology and the answer together

signals:
    void loadFinished(bool ok);
    void stageShown(); // a load's first stage is on screen (the job's data, before its heatmap and analysis)

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    void startLoading(const QString& name, Loader load, bool quiet = false);
    void noteNewFlaps(const OpenedJob& opened);
    void noteFilesCutShort(); // GUI thread, every 2 s: a mapped file of the open bundle shrank on disk
    void askPrometheus();
    void createDocks();
    void onLoaded();
    void onStage(std::shared_ptr<OpenedJob> partial); // GUI thread
    void showSnapshot(const OpenedJob& opened);
    void showJobDeath(const OpenedJob& opened);
    void clearJob(); // no question asked
    // True when the open job's notes are saved, or the user chose to save or discard them; false: stay.
    bool confirmLeavingJob();
    JobViews jobViews() const;
    void showEmptyStates(EmptyState state, const QString& what = {});
    void restorePreviousJob(); // a load that failed or was cancelled after its first stage was shown
    void syncViewMenus(); // the View menu's checks follow the views (a job or session sets them too)
    void updateTitle();
    void stepIncident(int delta); // next (+1) or previous (-1) incident, wrapping
    void stepFlap(int delta); // next (+1) or previous (-1) flap from the pinned cursor
    void zoomAtCursor(double factor); // around the pinned cursor when it is in view, else the window's centre
    void showDocumentation();
    void showShortcuts();
    void updateStatus();
    void openSession(const QString& path);
    void addNote();
    void applyPendingSession();
    void ensureLateness();
    void applyAnalysis();
    void showHosts(const std::shared_ptr<const JobSnapshot>& snap);
    void showViews(bool on); // the analysis (or none, in training) to every view that shows it
    std::shared_ptr<const AnalysisResult> shownAnalysis() const;

    ViewState* m_state;
    HeatmapWidget* m_heatmap;
    LinkHeatmapWidget* m_linkHeatmap;
    FlapsPanel* m_flaps;
    std::shared_ptr<const JobSnapshot> m_shown; // the snapshot the views show (from stage 1 on)
    LiveController* m_live = nullptr; // the server the data came from, re-queried while Live is on
    QLabel* m_alertLabel = nullptr;
    QTimer* m_cutShortTimer = nullptr;
    QStringList m_cutShortShown; // files already named in the Warnings panel
    bool m_reloading = false; // the load in flight is a live refresh: keep selection and window, no dialog
    bool m_showLinkHeatmap = true; // with a job: the link heatmap stacked under the rank heatmap
    void applyHeatmapVisibility();
    CounterPlotWidget* m_counters;
    TopologyWidget* m_topology;
    LinkListPanel* m_linkList;
    HostsPanel* m_hosts;
    IncidentsPanel* m_incidents;
    TrainingPanel* m_trainingPanel;
    WelcomePanel* m_welcome;
    QStackedWidget* m_central = nullptr;
    QFutureWatcher<std::string> m_demoJob; // "" or why the demo could not be written
    TrainingController* m_training = nullptr;
    OutputController* m_output = nullptr; // File › Export view, Save report; Edit › Copy image
    bool m_analysisHidden = false;
    SummaryView* m_summary;
    QListWidget* m_warnings;
    QLabel* m_cursorLabel;
    RecentFiles* m_recent = nullptr; // File › Open Recent and the welcome page's list
    QFutureWatcher<std::shared_ptr<OpenedJob>>* m_watcher;
    std::shared_ptr<SharedProgress> m_progress;
    quint64 m_loadGeneration = 0; // stage results of an older load are dropped
    QProgressDialog* m_progressDialog = nullptr;
    QTimer* m_progressTimer;
    QString m_progressStage;
    QElapsedTimer m_stageTimer;
    int m_hoveredRank = -1;
    std::unique_ptr<ReviewSession> m_pendingSession; // applied once its bundle has loaded
    QString m_sessionPath; // the open job's session file, if it was saved or opened as one
    QString m_pendingSessionPath;
    // The job that was open when a load began, with what its views showed: put back if the load fails.
    struct PreviousJob
    {
        std::shared_ptr<OpenedJob> opened;
        JobViewState views;
        QString sessionPath;
    };
    std::optional<PreviousJob> m_previous;
    QLineEdit* m_fabricFind = nullptr;
    QActionGroup* m_rowOrderGroup = nullptr;
    QAction* m_recordedOnlyAction = nullptr; // View › Row order › Only ranks with records
    QActionGroup* m_metricGroup = nullptr;
    QActionGroup* m_linkOrderGroup = nullptr;
    std::shared_ptr<OpenedJob> m_opened;
    QFutureWatcher<std::shared_ptr<const HeatmapModel>>
        m_latenessJob; // the current bundle: immutable snapshot, analysis, heatmap
};

} // namespace stallscope
