// SPDX-License-Identifier: MIT
#pragma once

// The orange alert in the status bar and what raises it: links that went down since the last live refresh, and
// mapped files of the open job cut short on disk (checked every 2 s; each named once, also in the Warnings
// panel). GUI thread only.

#include <QObject>
#include <QStringList>

class QLabel;
class QListWidget;
class QStatusBar;
class QWidget;

namespace stallscope {

class LiveController;
struct FabricReview;

class JobAlerts : public QObject
{
    Q_OBJECT
public:
    // `window`: alerted (the task bar) on new flaps; `warnings`: the Warnings panel.
    JobAlerts(QWidget* window, QStatusBar* statusBar, QListWidget* warnings, LiveController* live);

    void noteNewFlaps(const FabricReview& review); // links down since the last load (live)
    void hide(); // the job is closed

private:
    void noteFilesCutShort();

    QWidget* m_window;
    QStatusBar* m_statusBar;
    QListWidget* m_warnings;
    LiveController* m_live;
    QLabel* m_label;
    QStringList m_cutShortShown; // files already named in the Warnings panel
};

} // namespace stallscope
