// SPDX-License-Identifier: MIT
#include "window/load_controller.h"
#include "worker_pool.h"

#include <QApplication>
#include <QPointer>
#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

LoadController::LoadController(QWidget* window)
    : QObject(window)
    , m_window(window)
    , m_watcher(new QFutureWatcher<std::shared_ptr<OpenedJob>>(this))
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &LoadController::showProgress);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &LoadController::onFinished);
}

LoadController::~LoadController()
{
    cancel();
    m_watcher->waitForFinished();
}

bool LoadController::isRunning() const
{
    return m_watcher->isRunning();
}

void LoadController::cancel()
{
    if (m_progress) {
        m_progress->cancel();
    }
}

void LoadController::start(const QString& name, Loader load, bool quiet)
{
    m_progress = std::make_shared<SharedProgress>();
    if (!quiet) {
        m_dialog = new QProgressDialog(tr("Opening %1").arg(name), tr("Cancel"), 0, 1000, m_window);
        m_dialog->setWindowModality(Qt::NonModal); // the window stays usable as stages arrive
        m_dialog->setMinimumDuration(300);
        m_dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_dialog, &QProgressDialog::canceled, this, [p = m_progress] { p->cancel(); });
        m_timer->start();
    }
    const std::string n = name.toStdString();
    auto progress = m_progress; // the job keeps its own reference: never a raw `this`
    const quint64 generation = ++m_generation;
    QPointer<LoadController> self(this);
    StageCallback stage = [self, generation](const OpenedJob& partial) {
        auto copy = std::make_shared<OpenedJob>(partial);
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, copy] {
                if (self && self->m_generation == generation) {
                    emit self->stageReady(copy);
                }
            },
            Qt::QueuedConnection);
    };
    m_watcher->setFuture(QtConcurrent::run(workerPool(), [n, load, progress, stage] {
        return std::make_shared<OpenedJob>(stallscope::openWith(n, load, *progress, stage));
    }));
}

// Stage, share of the stage done, and time left for the stage at its current rate.
void LoadController::showProgress()
{
    if (!m_dialog || !m_progress) {
        return;
    }
    const double f = m_progress->fraction();
    const auto stage = QString::fromStdString(m_progress->stage());
    if (stage != m_stage) {
        m_stage = stage;
        m_stageTimer.start();
    }
    QString label = stage;
    const double elapsed = m_stageTimer.elapsed() / 1000.0;
    if (f > 0.05 && f < 1.0 && elapsed > 0.5) {
        label += tr(" — about %1 s left").arg(int(elapsed * (1.0 - f) / f + 0.5));
    }
    m_dialog->setLabelText(label);
    m_dialog->setValue(int(f * 1000));
}

void LoadController::onFinished()
{
    m_timer->stop();
    if (m_dialog) {
        m_dialog->close();
        m_dialog = nullptr;
    }
    emit finished(m_watcher->result());
}

} // namespace stallscope
