// SPDX-License-Identifier: MIT
#include "window/demo_controller.h"
#include "plain_text.h"
#include "worker_pool.h"

#include "open/load_job.h"
#include "sim/simulator.h"

#include <QApplication>
#include <QFileInfo>
#include <QWidget>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

DemoController::DemoController(QWidget* window)
    : QObject(window)
    , m_window(window)
{
    connect(&m_job, &QFutureWatcherBase::finished, this, [this] {
        QApplication::restoreOverrideCursor();
        const auto err = m_job.result();
        if (!err.empty()) {
            warnPlain(m_window, tr("Could not write the demo scenario"), QString::fromStdString(err));
            return;
        }
        emit openRequested(folder());
    });
}

DemoController::~DemoController()
{
    m_job.waitForFinished();
}

QString DemoController::folder()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/hourly-flap");
}

void DemoController::open()
{
    if (m_job.isRunning()) {
        return;
    }
    const QString dir = folder();
    if (QFileInfo::exists(dir + QStringLiteral("/manifest.json"))) {
        emit openRequested(dir);
        return;
    }
    emit statusMessage(tr("Simulating the demo scenario once (1,024 ranks, 70 min) into %1…").arg(dir));
    QApplication::setOverrideCursor(Qt::BusyCursor);
    m_job.setFuture(QtConcurrent::run(workerPool(), [path = dir.toStdString()]() -> std::string {
        auto config = presetConfig("hourly-flap");
        NullProgress progress;
        auto sim = simulate(*config, progress);
        if (!sim) {
            return sim.error();
        }
        return writeSimulatedBundle(*config, sim.value(), path).error; // a levels warning: they are built on open
    }));
}

} // namespace stallscope
