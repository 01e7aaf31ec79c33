// SPDX-License-Identifier: MIT
// Over 600 lines: besides composing the views, docks and menus, the window shows a job as its load's stages arrive
// and puts the previous job back when a load fails (onStage, onLoaded, showSnapshot, applyAnalysis,
// restorePreviousJob, clearJob). Those share the open job and the snapshot on screen with every view, so they stay
// together here rather than behind a class that would need every view too.
#include "window/main_window.h"
#include "plain_text.h"

#include "core/issue_groups.h"
#include "core/snapshot_summary.h"
#include "core/time_format.h"
#include "panels/counter_plot_widget.h"
#include "panels/flaps_panel.h"
#include "heatmap/heatmap_widget.h"
#include "panels/hosts_panel.h"
#include "import/folder/raw_folder.h"
#include "panels/incidents_panel.h"
#include "heatmap/link_heatmap_widget.h"
#include "panels/link_list_panel.h"
#include "open/open_input.h"
#include "open/refusal.h"
#include "panels/summary_view.h"
#include "topology/topology_widget.h"
#include "view/view_state.h"
#include "window/demo_controller.h"
#include "window/docks.h"
#include "window/help_dialogs.h"
#include "window/job_alerts.h"
#include "window/live_controller.h"
#include "window/load_controller.h"
#include "window/navigation_controller.h"
#include "window/open_dialog.h"
#include "window/output_controller.h"
#include "window/prometheus_dialog.h"
#include "window/recent_files.h"
#include "window/session_controller.h"
#include "window/training_controller.h"
#include "window/training_panel.h"
#include "window/view_menu.h"
#include "window/welcome_panel.h"

#include <chrono>

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_state(new ViewState(this))
    , m_heatmap(new HeatmapWidget(m_state, this))
    , m_linkHeatmap(new LinkHeatmapWidget(m_state, this))
    , m_flaps(new FlapsPanel(m_state, this))
    , m_counters(new CounterPlotWidget(m_state, this))
    , m_topology(new TopologyWidget(m_state, this))
    , m_linkList(new LinkListPanel(m_state, this))
    , m_hosts(new HostsPanel(m_state, this))
    , m_incidents(new IncidentsPanel(m_state, this))
    , m_trainingPanel(new TrainingPanel(m_state, this))
    , m_welcome(new WelcomePanel(this))
    , m_summary(new SummaryView(this))
    , m_warnings(new QListWidget(this))
    , m_cursorLabel(plainLabel(this))
{
    setWindowTitle(tr("Stallscope"));
    setWindowIcon(QIcon(QStringLiteral(":/stallscope/stallscope.svg")));
    m_heatmap->setFilterHint(true); // the legend may point at View › Row order
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_heatmap);
    split->addWidget(m_linkHeatmap); // the fabric's links on the same time axis
    split->addWidget(m_counters);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 4);
    m_central = new QStackedWidget(this);
    m_central->addWidget(m_welcome); // page 0: nothing open
    m_central->addWidget(split); // page 1: the views
    setCentralWidget(m_central);
    setAcceptDrops(true);
    createControllers();
    createDocks();
    createMenus();
    showEmptyStates(EmptyState::NoJob);
    statusBar()->addPermanentWidget(m_cursorLabel);
    m_alerts = new JobAlerts(this, statusBar(), m_warnings, m_live);
    statusBar()->showMessage(tr("Ready — File › Open (Ctrl+O) a bundle or a folder of raw files, or drop one here"));
    connect(&m_latenessJob, &QFutureWatcherBase::finished, this, [this] {
        auto model = m_latenessJob.result();
        if (m_opened && model && &model->snapshot() == m_opened->snapshot.get()) { // still the same job
            m_opened->heatmap = model;
            m_heatmap->setModel(model, shownAnalysis());
            statusBar()->showMessage(tr("Lateness ready"));
        }
    });
    connect(m_state, &ViewState::cursorChanged, this, &MainWindow::updateStatus);
    connect(m_state, &ViewState::annotationsChanged, this, &MainWindow::updateTitle);
    connect(m_heatmap, &HeatmapWidget::exportRequested, m_output, &OutputController::exportView);
    connect(m_linkHeatmap, &LinkHeatmapWidget::exportRequested, m_output, &OutputController::exportView);
    connect(m_counters, &CounterPlotWidget::exportRequested, m_output, &OutputController::exportView);
    connect(m_topology, &TopologyWidget::exportRequested, m_output, &OutputController::exportView);
    connect(m_heatmap, &HeatmapWidget::hoveredRankChanged, this, &MainWindow::updateStatus);
    connect(m_welcome, &WelcomePanel::openFolderRequested, this, &MainWindow::askOpen);
    connect(m_welcome, &WelcomePanel::openPrometheusRequested, this, &MainWindow::askPrometheus);
    connect(m_welcome, &WelcomePanel::openDemoRequested, this, &MainWindow::openDemo);
    connect(m_demo, &DemoController::openRequested, this, &MainWindow::openJob);
    connect(m_demo, &DemoController::statusMessage, this, &MainWindow::showStatus);
    connect(m_welcome, &WelcomePanel::startExerciseRequested, m_training, &TrainingController::chooseAndStart);
    connect(m_welcome, &WelcomePanel::openRecentRequested, this, &MainWindow::openJob);
    QSettings settings;
    // A first start uses most of the screen; later ones come back where the user left the window.
    const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1400, 900);
    resize(std::max(1000, screen.width() * 9 / 10), std::max(700, screen.height() * 9 / 10));
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_recent->rebuild();
}

MainWindow::~MainWindow()
{
    delete m_demo; // waits for the simulation
    m_latenessJob.waitForFinished();
    delete m_loader; // cancels the load in flight and waits for it
}

// The controllers, each told what it may read of the window; they answer by signals.
void MainWindow::createControllers()
{
    m_loader = new LoadController(this);
    m_demo = new DemoController(this);
    connect(m_loader, &LoadController::stageReady, this, &MainWindow::onStage);
    connect(m_loader, &LoadController::finished, this, &MainWindow::onLoaded);
    m_training = new TrainingController(this, m_state, m_trainingPanel, [this] { return m_opened.get(); });
    connect(this, &MainWindow::loadFinished, m_training, &TrainingController::jobOpened);
    connect(m_training, &TrainingController::openRequested, this, [this](const QString& dir) {
        m_live->setSource(std::nullopt);
        startLoading(dir, loaderFor({ dir.toStdString(), std::nullopt }));
    });
    connect(m_training, &TrainingController::analysisHiddenRequested, this, &MainWindow::setAnalysisHidden);
    connect(m_training, &TrainingController::dockRequested, this, &MainWindow::showExerciseDock);
    connect(m_training, &TrainingController::statusMessage, this, &MainWindow::showStatus);
    m_output = new OutputController(this, m_state, m_heatmap, m_linkHeatmap,
        { [this] { return m_opened.get(); }, [this] { return shownAnalysis(); }, [this] { return m_analysisHidden; } });
    m_navigation = new NavigationController(m_state, m_heatmap, m_flaps,
        { [this] { return m_shown; }, [this] { return shownAnalysis(); }, [this] { return m_analysisHidden; } }, this);
    connect(m_navigation, &NavigationController::statusMessage, this, &MainWindow::showStatus);
}

void MainWindow::createDocks()
{
    m_docks = Docks::create(
        this, { m_incidents, m_flaps, m_summary, m_warnings, m_topology, m_linkList, m_hosts, m_trainingPanel });
}

void MainWindow::createMenus()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open bundle, folder or session…"), QKeySequence::Open, this, &MainWindow::askOpen);
    file->addAction(tr("Open from &Prometheus…"), this, &MainWindow::askPrometheus);
    m_live = new LiveController(file->addAction(tr("&Live: follow the server")), this);
    connect(m_live, &LiveController::statusMessage, this, &MainWindow::showStatus);
    connect(m_live, &LiveController::refreshRequested, this, [this](const PrometheusQuery& q) {
        if (m_loader->isRunning()) {
            return; // the previous refresh is still running: skip this tick
        }
        startLoading(QString::fromStdString(q.url), loaderFor({ {}, q }), true);
    });
    m_recent = new RecentFiles(file->addMenu(tr("Open &Recent")), m_welcome, this);
    connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::openJob);
    m_session = new SessionController(
        this, m_state, m_output, m_recent, { [this] { return m_opened.get(); }, [this] { return jobViews(); } });
    connect(m_session, &SessionController::statusMessage, this, &MainWindow::showStatus);
    connect(m_session, &SessionController::saved, this, &MainWindow::updateTitle);
    file->addSeparator();
    file->addAction(tr("&Save session"), QKeySequence::Save, this, [this] { saveSession(false); });
    file->addAction(
        tr("Save session &as…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] { saveSession(true); });
    file->addAction(tr("&Close"), QKeySequence::Close, this, &MainWindow::closeJob);
    file->addSeparator();
    file->addAction(tr("&Export view as PNG / SVG / PDF…"), QKeySequence(Qt::CTRL | Qt::Key_E), m_output,
        &OutputController::exportView);
    file->addAction(tr("Save &report…"), m_output, &OutputController::saveReport);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Copy image"), QKeySequence::Copy, m_output, &OutputController::copyImage);
    edit->addAction(
        tr("Add &note at cursor…"), QKeySequence(Qt::CTRL | Qt::Key_M), m_session, &SessionController::addNote);
    edit->addAction(
        tr("&Go to rank or host…"), QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] { m_navigation->askGoTo(this); });
    m_viewMenu = new ViewMenu(this, m_state, m_heatmap, m_linkHeatmap, m_navigation);
    connect(m_viewMenu, &ViewMenu::latenessRequested, this, &MainWindow::ensureLateness);
    connect(m_viewMenu, &ViewMenu::linkHeatmapToggled, this, [this](bool on) {
        m_showLinkHeatmap = on;
        applyHeatmapVisibility();
    });
    connect(m_viewMenu, &ViewMenu::statusMessage, statusBar(), &QStatusBar::showMessage);

    auto* training = menuBar()->addMenu(tr("&Training"));
    training->addAction(tr("&Start exercise…"), m_training, &TrainingController::chooseAndStart);
    training->addAction(tr("&Open exercise folder…"), m_training, &TrainingController::openFolderDialog);
    training->addSeparator();
    training->addAction(tr("&Hint"), QKeySequence(Qt::CTRL | Qt::Key_H), m_training, &TrainingController::hint);
    training->addAction(
        tr("&Check answer"), QKeySequence(Qt::CTRL | Qt::Key_Return), m_training, &TrainingController::check);

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(
        tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_Question), this, [this] { HelpDialogs::showShortcuts(this); });
    help->addAction(
        tr("&Documentation"), QKeySequence::HelpContents, this, [this] { HelpDialogs::showDocumentation(this); });
    help->addAction(tr("&About Stallscope"), this, [this] { HelpDialogs::showAbout(this); });
}

void MainWindow::openJob(const QString& path)
{
    if (!m_session->confirmLeavingJob()) {
        return;
    }
    if (path.endsWith(QStringLiteral(".stallscope"))) {
        if (const auto job = m_session->open(path)) {
            openJob(*job);
        } else {
            emit loadFinished(false);
        }
        return;
    }
    if (QFileInfo::exists(path + QStringLiteral("/exercise.json"))) {
        m_training->openFolder(path); // a handed-out exercise opens as one: its analysis hidden until Check
        return;
    }
    if (m_training->active()) {
        m_training->stop(); // the user opened something else: the exercise is over, unchecked
    }
    m_live->setSource(std::nullopt);
    startLoading(path, loaderFor({ path.toStdString(), std::nullopt }));
}

void MainWindow::askOpen()
{
    if (const auto path = chooseOpenPath(this); !path.isEmpty()) {
        openJob(path);
    }
}

void MainWindow::cancelLoading()
{
    m_loader->cancel();
}

void MainWindow::settleViews()
{
    m_heatmap->waitForRaster();
}

void MainWindow::openPrometheus(const PrometheusQuery& query)
{
    if (!m_session->confirmLeavingJob()) {
        return;
    }
    auto q = query;
    applyPrometheusEnvironment(q); // credentials from the environment only: never stored
    m_live->setSource(q);
    startLoading(QString::fromStdString(q.url), loaderFor({ {}, q }));
}

void MainWindow::openFolderWithPrometheus(const QString& path, const PrometheusQuery& query)
{
    if (!m_session->confirmLeavingJob()) {
        return;
    }
    auto q = query;
    applyPrometheusEnvironment(q); // credentials from the environment only: never stored
    m_live->setSource(std::nullopt); // a job's folder is not followed: its traces do not grow from the server
    startLoading(path, loaderFor({ path.toStdString(), q }));
}

void MainWindow::startLoading(const QString& name, Loader load, bool quiet)
{
    if (m_loader->isRunning()) {
        statusBar()->showMessage(tr("Still opening another bundle"));
        return;
    }
    m_reloading = quiet;
    if (!quiet) { // another job: what this one shows comes back if that one fails to open
        m_previous = PreviousJob { m_opened, captureJobViews(jobViews()), m_session->path() };
    }
    m_loader->start(name, std::move(load), quiet);
    if (!quiet) {
        statusBar()->showMessage(tr("Opening %1").arg(name));
        // Seen only by views with nothing to show (no job open yet): what is being opened, not "open a bundle".
        showEmptyStates(EmptyState::Loading, name);
    }
}

void MainWindow::followLive()
{
    if (!m_live->isOn()) {
        m_live->setOn(true);
    }
}

// File › Open from Prometheus…: server, time range (the open job's span by default), label matchers.
void MainWindow::askPrometheus()
{
    const TimeNs now
        = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    const TimeRange range = m_shown ? m_shown->job.span : TimeRange { now - 24 * 3600 * kNsPerSec, now };
    const bool offerJob = m_opened && m_shown && m_shown->job.worldSize > 0 && isRawFolder(m_opened->path);
    const auto choice = askPrometheusQuery(this, range, offerJob);
    if (!choice) {
        return;
    }
    if (choice->forOpenJob) {
        openFolderWithPrometheus(QString::fromStdString(m_opened->path), choice->query);
        return;
    }
    openPrometheus(choice->query);
}

void MainWindow::showSnapshot(const OpenedJob& opened)
{
    showViews(true);
    const auto links = m_state->selectedLinks();
    const TimeRange oldSpan = m_state->span(), oldWindow = m_state->window();
    m_state->setSpan(opened.snapshot->job.span);
    m_state->clearLinks();
    if (m_reloading) {
        // A live refresh: the same links stay plotted; a window at the right edge follows the new data.
        for (const auto l : links) {
            if (index(l) < opened.snapshot->topology.links().size()) {
                m_state->selectLink(l);
            }
        }
        const TimeNs grow = opened.snapshot->job.span.end - oldSpan.end;
        if (oldWindow.end >= oldSpan.end - oldWindow.delta() / 100 && grow > 0) {
            m_state->setWindow({ oldWindow.start, oldWindow.end + grow }, false);
        } else {
            m_state->setWindow(oldWindow, false);
        }
    }
    const auto analysis = m_analysisHidden ? nullptr : opened.analysis; // stage 1 has none yet anyway
    m_counters->setStalls(analysis ? stallWindows(*analysis) : std::vector<TimeRange> {});
    m_counters->setSnapshot(opened.snapshot);
    m_topology->setData(opened.snapshot, analysis);
    showHosts(opened.snapshot);
    m_linkList->setSnapshot(opened.snapshot, analysis, m_analysisHidden ? nullptr : opened.fabricReview);
    m_summary->setSummary(summarize(opened.path, opened.loaded));
    m_warnings->clear();
    for (const auto& g : groupIssues(opened.warnings)) {
        auto* item = new QListWidgetItem(QString::fromStdString(g.format()), m_warnings);
        item->setToolTip(plainTip(QString::fromStdString(g.first.format())));
    }
    m_shown = opened.snapshot;
    updateTitle();
    applyHeatmapVisibility();
}

// Fabric data alone: the link heatmap is the main view. With a job: the rank heatmap, and the link heatmap
// stacked under it on the same time axis unless turned off.
void MainWindow::applyHeatmapVisibility()
{
    const auto& snap = m_shown;
    const bool fabricOnly = snap && snap->job.worldSize == 0;
    const bool hasLinks = snap && (!snap->topology.links().empty() || !snap->counterPorts.empty());
    m_heatmap->setVisible(!fabricOnly);
    m_linkHeatmap->setVisible(fabricOnly || (m_showLinkHeatmap && hasLinks));
}

void MainWindow::onStage(std::shared_ptr<OpenedJob> partial)
{
    if (!partial->heatmap) {
        if (!m_reloading) {
            // Another job: nothing of the previous one stays (its notes, selection, find text, incidents), and
            // nothing acts on it (a note, an export) while this one loads; m_previous keeps it for a failure.
            m_opened.reset();
            resetJobViews(jobViews(), partial->snapshot->job.span);
            syncViewMenus();
            showEmptyStates(EmptyState::Loading, QString::fromStdString(partial->path));
            m_incidents->setAnalysis(nullptr, nullptr);
            m_flaps->setReview(nullptr, nullptr);
        }
        showSnapshot(*partial); // stage 1: metadata, topology, counters
        m_heatmap->setModel(nullptr, nullptr);
        m_linkHeatmap->setModel(nullptr);
        statusBar()->showMessage(
            tr("Loaded %1; building the heatmap and analysing…").arg(QString::fromStdString(partial->path)));
        emit stageShown();
        return;
    }
    // Stage 2, once or twice: the main view's levels, then the other view's; stalls not yet marked.
    if (m_heatmap->model() != partial->heatmap.get()) {
        m_heatmap->setModel(partial->heatmap, nullptr);
    }
    if (partial->linkHeatmap) {
        m_linkHeatmap->setModel(partial->linkHeatmap);
    }
    statusBar()->showMessage(tr("Heatmap ready; analysing…"));
}

void MainWindow::onLoaded(std::shared_ptr<OpenedJob> opened)
{
    // Opened, failed or cancelled: nothing is being opened any more, whatever the views show now.
    showEmptyStates(m_analysisHidden ? EmptyState::AnalysisHidden : EmptyState::NoJob);
    if (!opened->error.empty() && (m_reloading || m_live->isOn())) {
        // Following: a refresh that failed (or a server with no series yet) is retried at the next tick.
        statusBar()->showMessage(tr("Live: %1 — retrying every refresh").arg(QString::fromStdString(opened->error)));
        m_reloading = false;
        return; // keep what is shown
    }
    if (!opened->error.empty()) {
        const auto msg = QString::fromStdString(opened->error);
        // One line that fits: the box below holds the whole refusal (a long one was cut at the window's edge).
        statusBar()->showMessage(refusalStatus(msg, statusBar()->fontMetrics(), width() - 24)); // spans the window
        m_session->dropPending();
        const auto previousSnapshot = m_previous && m_previous->opened ? m_previous->opened->snapshot : nullptr;
        if (m_shown != previousSnapshot) { // stage 1 had shown part of it: leave no half state behind
            m_previous && m_previous->opened ? restorePreviousJob() : clearJob();
        }
        m_previous.reset();
        if (opened->error != "cancelled" && isVisible()) {
            warnPlain(this, refusalTitle(opened->path), msg);
        }
        emit loadFinished(false);
        return;
    }
    // Stage 1 (queued before this) already showed the snapshot: add what the analysis knows.
    m_opened = opened;
    m_previous.reset();
    if (m_live->query() && opened->fabricReview) {
        m_alerts->noteNewFlaps(*opened->fabricReview);
    }
    const bool refresh = m_reloading;
    m_reloading = false;
    if (!refresh) {
        m_session->setPath({}); // a job opened on its own has no session yet; a pending one sets it below
    }
    m_linkHeatmap->setModel(opened->linkHeatmap);
    if (!refresh) {
        showJobDeath(*opened);
    }
    applyAnalysis();
    applyHeatmapVisibility();
    if (opened->snapshot->job.worldSize == 0) {
        m_docks.flaps->raise(); // no job: the flaps are the story
        if (!refresh && !m_session->hasPending() && !opened->fabricReview->flapping.empty()) {
            m_flaps->selectRow(0); // the costliest flapper's counters, cursor on its latest flap
        }
        statusBar()->showMessage(tr("Opened %1: fabric data, %2 link(s) went down")
                                     .arg(QString::fromStdString(opened->path))
                                     .arg(opened->fabricReview->flapping.size()));
    } else if (m_analysisHidden) {
        statusBar()->showMessage(tr("Opened %1").arg(QString::fromStdString(opened->path)));
    } else {
        statusBar()->showMessage(tr("Opened %1: %2 incident(s)")
                                     .arg(QString::fromStdString(opened->path))
                                     .arg(opened->analysis->incidents.size()));
    }
    // A server is reopened through File › Open from Prometheus; an exercise's temporary folder does not outlive it.
    if (opened->path.rfind("http", 0) != 0 && !m_training->active()) {
        m_recent->add(QString::fromStdString(opened->path));
    }
    if (m_session->applyPending()) {
        syncViewMenus();
    }
    updateTitle();
    emit loadFinished(true);
}

// A crash's "job died" moment can lie past the data's end (the collective timeout runs on after the last record):
// the views' span reaches it, so the death is on the time axis rather than off its edge.
void MainWindow::showJobDeath(const OpenedJob& opened)
{
    if (!opened.analysis || m_analysisHidden) { // in training the death is part of the answer
        return;
    }
    TimeNs died = kNoTime;
    for (const auto& inc : opened.analysis->incidents) {
        if (inc.jobCrashed && inc.jobDiedNs != kNoTime && (died == kNoTime || inc.jobDiedNs > died)) {
            died = inc.jobDiedNs;
        }
    }
    const auto span = m_state->span();
    if (died != kNoTime && died >= span.end) {
        const TimeNs margin = std::max<TimeNs>((died - span.start) / 50, kNsPerSec);
        m_state->setSpan({ span.start, died + margin });
    }
}

std::shared_ptr<const AnalysisResult> MainWindow::shownAnalysis() const
{
    return m_analysisHidden || !m_opened ? nullptr : m_opened->analysis;
}

void MainWindow::setAnalysisHidden(bool hidden)
{
    m_analysisHidden = hidden;
    showEmptyStates(hidden ? EmptyState::AnalysisHidden : EmptyState::NoJob);
    m_docks.incidents->setVisible(!hidden);
    m_docks.flaps->setVisible(!hidden);
    (hidden ? m_docks.summary : m_docks.incidents)->raise();
    applyAnalysis();
}

bool MainWindow::showingViews() const
{
    return m_central->currentIndex() == 1;
}

void MainWindow::showViews(bool on)
{
    m_central->setCurrentIndex(on ? 1 : 0);
}

void MainWindow::showExerciseDock()
{
    m_docks.showExercise(this);
}

void MainWindow::applyAnalysis()
{
    if (!m_opened || !m_opened->snapshot) {
        return;
    }
    const auto analysis = shownAnalysis();
    m_topology->setData(m_opened->snapshot, analysis);
    showHosts(m_opened->snapshot);
    m_heatmap->setModel(m_opened->heatmap, analysis);
    m_counters->setStalls(analysis ? stallWindows(*analysis) : std::vector<TimeRange> {});
    m_linkList->setSnapshot(m_opened->snapshot, analysis, m_analysisHidden ? nullptr : m_opened->fabricReview);
    m_incidents->setAnalysis(m_opened->snapshot, analysis);
    m_flaps->setReview(m_opened->snapshot, m_analysisHidden ? nullptr : m_opened->fabricReview);
    m_linkHeatmap->setCulpritMarksHidden(m_analysisHidden);
    syncViewMenus(); // "Only ranks with records" applies to this job or not
}

// The hosts' inventory and findings, and their marks in the fabric view (after its setData, which clears them).
// An exercise hides the findings: they would name the culprit's host.
void MainWindow::showHosts(const std::shared_ptr<const JobSnapshot>& snap)
{
    m_hosts->setSnapshot(snap, m_analysisHidden);
    m_topology->setFlaggedHosts(m_hosts->flaggedHosts());
}

void MainWindow::ensureLateness()
{
    if (!m_opened || m_opened->heatmap->hasLateness() || m_latenessJob.isRunning()) {
        return;
    }
    statusBar()->showMessage(tr("Computing lateness…"));
    auto opened = m_opened; // the job holds its own references: never a raw `this`
    m_latenessJob.setFuture(QtConcurrent::run([opened] { return opened->heatmap->withLateness(*opened->analysis); }));
}

void MainWindow::openDemo()
{
    m_demo->open();
}

void MainWindow::selectIncident(int number)
{
    m_state->selectIncident(number);
}

bool MainWindow::goTo(const QString& query)
{
    return m_navigation->goTo(query);
}

bool MainWindow::saveSession(bool saveAs)
{
    return m_session->save(saveAs);
}

QString MainWindow::sessionPath() const
{
    return m_session->path();
}

void MainWindow::closeJob()
{
    if (m_session->confirmLeavingJob()) {
        clearJob();
    }
}

void MainWindow::showEmptyStates(EmptyState state, const QString& what)
{
    stallscope::showEmptyStates({ m_heatmap, m_linkHeatmap, m_incidents, m_flaps, m_topology }, state, what);
}

void MainWindow::clearJob()
{
    showEmptyStates(EmptyState::NoJob);
    m_opened.reset();
    m_session->setPath({});
    resetJobViews(jobViews(), { 0, 1 });
    syncViewMenus();
    m_shown.reset();
    m_live->setSource(std::nullopt);
    m_alerts->hide();
    m_heatmap->setModel(nullptr, nullptr);
    m_linkHeatmap->setModel(nullptr);
    m_flaps->setReview(nullptr, nullptr);
    m_counters->setSnapshot(nullptr);
    m_topology->setData(nullptr, nullptr);
    m_linkList->setSnapshot(nullptr);
    m_hosts->setSnapshot(nullptr);
    m_incidents->setAnalysis(nullptr, nullptr);
    m_summary->setMessage(tr("No bundle open."));
    showViews(false);
    m_warnings->clear();
    m_shown.reset();
    updateTitle();
}

void MainWindow::updateStatus()
{
    if (!m_opened || m_state->cursor() == kNoTime) {
        m_cursorLabel->clear();
        return;
    }
    const TimeNs t = m_state->cursor();
    m_cursorLabel->setText(QStringLiteral("%1  (%2)")
                               .arg(QString::fromStdString(formatUtc(t)),
                                   QString::fromStdString(formatSince(t, m_opened->snapshot->job.clockOriginNs))));
}

void MainWindow::showStatus(const QString& text)
{
    statusBar()->showMessage(text);
}

JobViews MainWindow::jobViews() const
{
    return { m_state, m_heatmap, m_linkHeatmap, m_linkList, m_docks.fabricFind, m_hosts };
}

void MainWindow::restorePreviousJob()
{
    const auto previous = std::move(*m_previous);
    m_previous.reset();
    m_opened = previous.opened;
    showSnapshot(*m_opened);
    m_heatmap->setModel(m_opened->heatmap, shownAnalysis());
    m_linkHeatmap->setModel(m_opened->linkHeatmap);
    applyAnalysis();
    applyHeatmapVisibility();
    applyJobViews(jobViews(), previous.views);
    syncViewMenus();
    m_session->setPath(previous.sessionPath);
    updateTitle();
}

void MainWindow::syncViewMenus()
{
    if (m_viewMenu) {
        m_viewMenu->sync();
    }
}

// "job — session.stallscope — Stallscope", with Qt's modified mark while notes are unsaved.
void MainWindow::updateTitle()
{
    if (!m_shown) {
        setWindowTitle(tr("Stallscope"));
        setWindowModified(false);
        return;
    }
    QString title = QString::fromStdString(m_shown->job.name);
    if (const auto session = m_session->path(); !session.isEmpty()) {
        title += QStringLiteral(" — ") + QFileInfo(session).fileName();
    }
    setWindowTitle(tr("%1[*] — Stallscope").arg(title));
    setWindowModified(m_opened && m_state->notesModified());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_session->confirmLeavingJob()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openJob(urls.first().toLocalFile());
    }
}

} // namespace stallscope
