// SPDX-License-Identifier: MIT
#pragma once

// What the window shows with nothing open: the ways in (a folder, a Prometheus server, the demo scenario, a
// training exercise) and the recently opened bundles. It only says what the user chose; the main window acts.

#include <QWidget>

class QListWidget;

namespace stallscope {

class WelcomePanel : public QWidget
{
    Q_OBJECT
public:
    explicit WelcomePanel(QWidget* parent = nullptr);
    void setRecent(const QStringList& paths);

signals:
    void openFolderRequested();
    void openPrometheusRequested();
    void openDemoRequested();
    void startExerciseRequested();
    void openRecentRequested(const QString& path);

private:
    QListWidget* m_recent;
};

} // namespace stallscope
