// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "summary_view.h"

#include "bundle_reader.h"
#include "snapshot_summary.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QIcon>
#include <QMenuBar>
#include <QMimeData>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

struct LoadOutcome
{
    Result<LoadedBundle> result;
};

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_summary(new SummaryView(this))
    , m_watcher(new QFutureWatcher<std::shared_ptr<LoadOutcome>>(this))
{
    setWindowTitle(tr("Stallscope"));
    setWindowIcon(QIcon(QStringLiteral(":/stallscope/stallscope.svg")));
    setCentralWidget(m_summary);
    setAcceptDrops(true);
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open bundle…"), this, [this] {
        const auto dir = QFileDialog::getExistingDirectory(this, tr("Open bundle folder"));
        if (!dir.isEmpty()) {
            openBundle(dir);
        }
    });
    open->setShortcut(QKeySequence::Open);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &MainWindow::onLoaded);
    statusBar()->showMessage(tr("Ready"));
    resize(1100, 700);
}

MainWindow::~MainWindow()
{
    m_watcher->waitForFinished();
}

void MainWindow::openBundle(const QString& path)
{
    if (m_watcher->isRunning()) {
        statusBar()->showMessage(tr("Still loading %1").arg(m_loadingPath));
        return;
    }
    m_loadingPath = path;
    m_summary->setMessage(tr("Loading %1 …").arg(path));
    statusBar()->showMessage(tr("Loading %1").arg(path));
    const std::string p = path.toStdString();
    m_watcher->setFuture(QtConcurrent::run([p] {
        return std::make_shared<LoadOutcome>(LoadOutcome { loadBundle(p) });
    })); // worker thread; result by value
}

void MainWindow::onLoaded()
{
    const auto outcome = m_watcher->result();
    auto& result = outcome->result;
    if (!result) {
        const auto msg = QString::fromStdString(result.error().format());
        m_summary->setMessage(tr("Could not open the bundle:\n%1").arg(msg));
        statusBar()->showMessage(msg);
        emit loadFinished(false);
        return;
    }
    m_snapshot = result->snapshot;
    m_summary->setSummary(summarize(m_loadingPath.toStdString(), result.value()));
    setWindowTitle(tr("%1 — Stallscope").arg(QString::fromStdString(m_snapshot->job.name)));
    statusBar()->showMessage(tr("Loaded %1 in %2 s").arg(m_loadingPath).arg(result->loadSeconds, 0, 'f', 2));
    emit loadFinished(true);
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
        openBundle(urls.first().toLocalFile());
    }
}

} // namespace stallscope
