// SPDX-License-Identifier: MIT
#pragma once

// One load at a time through open/load_job.h's pipeline, off the GUI thread: starts it, shows the progress
// dialog (stage, share done, time left; Cancel), and hands each stage and the result back as signals on the GUI
// thread. Stages of an older load are dropped. The worker holds its own references, never this object.

#include "open/load_job.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>

#include <memory>

class QProgressDialog;
class QTimer;
class QWidget;

namespace stallscope {

class LoadController : public QObject
{
    Q_OBJECT
public:
    explicit LoadController(QWidget* window); // the progress dialog's parent
    ~LoadController() override; // cancels the load in flight and waits for it

    bool isRunning() const;
    // Starts loading what `load` reads, called `name` in the dialog; quiet: no dialog (a live refresh). The caller
    // checks isRunning first.
    void start(const QString& name, Loader load, bool quiet);
    void cancel(); // what the progress dialog's Cancel does

signals:
    void stageReady(std::shared_ptr<OpenedJob> partial); // the snapshot first, then heatmap levels
    void finished(std::shared_ptr<OpenedJob> opened); // opened, or `error` says why not ("cancelled")

private:
    void showProgress();
    void onFinished();

    QWidget* m_window;
    QFutureWatcher<std::shared_ptr<OpenedJob>>* m_watcher;
    std::shared_ptr<SharedProgress> m_progress;
    quint64 m_generation = 0; // stage results of an older load are dropped
    QProgressDialog* m_dialog = nullptr;
    QTimer* m_timer;
    QString m_stage;
    QElapsedTimer m_stageTimer;
};

} // namespace stallscope
