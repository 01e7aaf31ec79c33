// SPDX-License-Identifier: MIT
#pragma once

// The main window: composes views and docks, wires File actions, loads bundles off the GUI thread.

#include <QFutureWatcher>
#include <QMainWindow>

namespace stallscope {

class SummaryView;
struct LoadOutcome; // the loader's result, defined in main_window.cpp
struct JobSnapshot;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    void openBundle(const QString& path);

signals:
    void loadFinished(bool ok);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void onLoaded();

    SummaryView* m_summary;
    QFutureWatcher<std::shared_ptr<LoadOutcome>>* m_watcher;
    QString m_loadingPath;
    std::shared_ptr<const JobSnapshot> m_snapshot; // the one immutable snapshot every view observes
};

} // namespace stallscope
