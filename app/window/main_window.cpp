// SPDX-License-Identifier: MIT
#include "window/main_window.h"
#include "plain_text.h"

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
#include "window/job_presenter.h"
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
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>

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
    createPresenter();
    createMenus();
    m_presenter->showEmptyStates(EmptyState::NoJob);
    statusBar()->addPermanentWidget(m_cursorLabel);
    m_alerts = new JobAlerts(this, statusBar(), m_warnings, m_live);
    statusBar()->showMessage(tr("Ready — File › Open (Ctrl+O) a bundle or a folder of raw files, or drop one here"));
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
    delete m_loader; // cancels the load in flight and waits for it
}

// The controllers, each told what it may read of the window; they answer by signals.
void MainWindow::createControllers()
{
    m_loader = new LoadController(this);
    m_demo = new DemoController(this);
    m_training = new TrainingController(this, m_state, m_trainingPanel, [this] { return m_presenter->opened(); });
    connect(this, &MainWindow::loadFinished, m_training, &TrainingController::jobOpened);
    connect(m_training, &TrainingController::openRequested, this, [this](const QString& dir) {
        m_live->setSource(std::nullopt);
        startLoading(dir, loaderFor({ dir.toStdString(), std::nullopt }));
    });
    connect(m_training, &TrainingController::analysisHiddenRequested, this, &MainWindow::setAnalysisHidden);
    connect(m_training, &TrainingController::dockRequested, this, &MainWindow::showExerciseDock);
    connect(m_training, &TrainingController::statusMessage, this, &MainWindow::showStatus);
    m_output = new OutputController(this, m_state, m_heatmap, m_linkHeatmap,
        { [this] { return m_presenter->opened(); }, [this] { return m_presenter->shownAnalysis(); },
            [this] { return m_presenter->analysisHidden(); } });
    m_navigation = new NavigationController(m_state, m_heatmap, m_flaps,
        { [this] { return m_presenter->shown(); }, [this] { return m_presenter->shownAnalysis(); },
            [this] { return m_presenter->analysisHidden(); } },
        this);
    connect(m_navigation, &NavigationController::statusMessage, this, &MainWindow::showStatus);
}

void MainWindow::createDocks()
{
    m_docks = Docks::create(
        this, { m_incidents, m_flaps, m_summary, m_warnings, m_topology, m_linkList, m_hosts, m_trainingPanel });
}

// Shows the job as its load's stages arrive; the window answers its signals with the title, status and menus.
void MainWindow::createPresenter()
{
    m_presenter = new JobPresenter(
        { m_state, m_heatmap, m_linkHeatmap, m_flaps, m_counters, m_topology, m_linkList, m_hosts, m_incidents,
            m_summary, m_warnings, m_docks.fabricFind, m_central, m_docks.incidents, m_docks.flaps, m_docks.summary },
        this);
    connect(m_loader, &LoadController::stageReady, m_presenter, &JobPresenter::showStage);
    connect(m_loader, &LoadController::finished, this, &MainWindow::onLoaded);
    connect(m_presenter, &JobPresenter::statusMessage, this, &MainWindow::showStatus);
    connect(m_presenter, &JobPresenter::titleChanged, this, &MainWindow::updateTitle);
    connect(m_presenter, &JobPresenter::menusChanged, this, &MainWindow::syncViewMenus);
    connect(m_presenter, &JobPresenter::stageShown, this, &MainWindow::stageShown);
    connect(m_presenter, &JobPresenter::restored, this, [this](const QString& sessionPath) {
        m_session->setPath(sessionPath);
        updateTitle();
    });
    connect(m_presenter, &JobPresenter::cleared, this, [this] {
        m_session->setPath({});
        m_live->setSource(std::nullopt);
        m_alerts->hide();
        updateTitle();
    });
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
    m_session = new SessionController(this, m_state, m_output, m_recent,
        { [this] { return m_presenter->opened(); }, [this] { return m_presenter->jobViews(); } });
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
    connect(m_viewMenu, &ViewMenu::latenessRequested, m_presenter, &JobPresenter::ensureLateness);
    connect(m_viewMenu, &ViewMenu::linkHeatmapToggled, m_presenter, &JobPresenter::setLinkHeatmapShown);
    connect(m_viewMenu, &ViewMenu::statusMessage, statusBar(), &QStatusBar::showMessage);

    auto* training = menuBar()->addMenu(tr("&Training"));
    training->addAction(tr("&Start exercise…"), m_training, &TrainingController::chooseAndStart);
    training->addAction(tr("&Open exercise folder…"), m_training, &TrainingController::openFolderDialog);
    training->addSeparator();
    auto* hint
        = training->addAction(tr("&Hint"), QKeySequence(Qt::CTRL | Qt::Key_H), m_training, &TrainingController::hint);
    auto* check = training->addAction(
        tr("&Check answer"), QKeySequence(Qt::CTRL | Qt::Key_Return), m_training, &TrainingController::check);
    for (auto* action : { hint, check }) { // only while an exercise waits for its answer
        action->setEnabled(m_training->answerable());
        connect(m_training, &TrainingController::answerableChanged, action, &QAction::setEnabled);
    }

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
    m_presenter->beginLoad(quiet, m_session->path());
    m_loader->start(name, std::move(load), quiet);
    if (!quiet) {
        statusBar()->showMessage(tr("Opening %1").arg(name));
        // Seen only by views with nothing to show (no job open yet): what is being opened, not "open a bundle".
        m_presenter->showEmptyStates(EmptyState::Loading, name);
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
    const auto& shown = m_presenter->shown();
    const TimeRange range = shown ? shown->job.span : TimeRange { now - 24 * 3600 * kNsPerSec, now };
    const auto* opened = m_presenter->opened();
    const bool offerJob = opened && shown && shown->job.worldSize > 0 && isRawFolder(opened->path);
    const auto choice = askPrometheusQuery(this, range, offerJob);
    if (!choice) {
        return;
    }
    if (choice->forOpenJob) {
        openFolderWithPrometheus(QString::fromStdString(opened->path), choice->query);
        return;
    }
    openPrometheus(choice->query);
}

void MainWindow::onLoaded(std::shared_ptr<OpenedJob> opened)
{
    // Opened, failed or cancelled: nothing is being opened any more, whatever the views show now.
    m_presenter->showIdleStates();
    if (!opened->error.empty() && (m_presenter->reloading() || m_live->isOn())) {
        // Following: a refresh that failed (or a server with no series yet) is retried at the next tick.
        showStatus(tr("Live: %1 — retrying every refresh").arg(QString::fromStdString(opened->error)));
        m_presenter->showFailed(true); // keep what is shown
        return;
    }
    if (!opened->error.empty()) {
        const auto msg = QString::fromStdString(opened->error);
        const bool cancelled = opened->error == "cancelled";
        // One line that fits: the box below holds the whole refusal (a long one was cut at the window's edge).
        statusBar()->showMessage(cancelled ? tr("Opening cancelled")
                                           : refusalStatus(msg, statusBar()->fontMetrics(), width() - 24));
        m_session->dropPending();
        m_presenter->showFailed(false);
        if (!cancelled && isVisible()) {
            warnPlain(this, refusalTitle(opened->path), msg);
        }
        emit loadFinished(false);
        return;
    }
    if (m_live->query() && opened->fabricReview) {
        m_alerts->noteNewFlaps(*opened->fabricReview);
    }
    if (!m_presenter->reloading()) {
        m_session->setPath({}); // a job opened on its own has no session yet; a pending one sets it below
    }
    m_presenter->showOpened(opened, !m_session->hasPending());
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

void MainWindow::setAnalysisHidden(bool hidden)
{
    m_presenter->setAnalysisHidden(hidden);
}

bool MainWindow::analysisHidden() const
{
    return m_presenter->analysisHidden();
}

const OpenedJob* MainWindow::opened() const
{
    return m_presenter->opened();
}

bool MainWindow::showingViews() const
{
    return m_presenter->showingViews();
}

void MainWindow::showExerciseDock()
{
    m_docks.showExercise(this);
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
        m_presenter->clear();
        m_training->stop(); // closing an exercise's job leaves the exercise, unchecked
    }
}

void MainWindow::updateStatus()
{
    const auto* opened = m_presenter->opened();
    if (!opened || m_state->cursor() == kNoTime) {
        m_cursorLabel->clear();
        return;
    }
    const TimeNs t = m_state->cursor();
    m_cursorLabel->setText(QStringLiteral("%1  (%2)")
                               .arg(QString::fromStdString(formatUtc(t)),
                                   QString::fromStdString(formatSince(t, opened->snapshot->job.clockOriginNs))));
}

void MainWindow::showStatus(const QString& text)
{
    statusBar()->showMessage(text);
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
    const auto& shown = m_presenter->shown();
    if (!shown) {
        setWindowTitle(tr("Stallscope"));
        setWindowModified(false);
        return;
    }
    QString title = QString::fromStdString(shown->job.name);
    // The session names the job it belongs to: another job's first stages, on screen while it loads, show their
    // name alone (a live refresh is the same job).
    const auto* opened = m_presenter->opened();
    const bool sessionsJob = m_presenter->reloading() || (opened && opened->snapshot == shown);
    if (const auto session = m_session->path(); !session.isEmpty() && sessionsJob) {
        title += QStringLiteral(" — ") + QFileInfo(session).fileName();
    }
    setWindowTitle(tr("%1[*] — Stallscope").arg(title));
    setWindowModified(m_presenter->opened() && m_state->notesModified());
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
