// SPDX-License-Identifier: MIT
#pragma once

// Review sessions and the notes they keep (File › Save session, a .stallscope opened from anywhere, Edit › Add
// note): owns the open job's session path and a session waiting for its job to load, asks before unsaved notes
// are lost, and puts a session's views and dock layout back once its job is open. Reads the open job and its
// views through getters; the window opens the job a session names. GUI thread only.

#include "window/job_views.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QMainWindow;

namespace stallscope {

class OutputController;
class RecentFiles;
class ViewState;
struct OpenedJob;
struct ReviewSession;

class SessionController : public QObject
{
    Q_OBJECT
public:
    // What the window shows now; each getter is asked at the moment of an action, never kept.
    struct Sources
    {
        std::function<const OpenedJob*()> opened; // nullptr: nothing open
        std::function<JobViews()> views;
    };
    // `window`: the dialogs' parent and the dock layout a session saves and restores.
    SessionController(QMainWindow* window, ViewState* state, OutputController* output, RecentFiles* recent,
        Sources sources);
    ~SessionController() override;

    // Reads a .stallscope file and keeps it until its job has loaded (applyPending); the job's path to open, or
    // nullopt after telling the user why it could not be read.
    std::optional<QString> open(const QString& path);
    // Puts the pending session's views, layout and path on the job just opened; false when none was pending.
    bool applyPending();
    bool hasPending() const { return m_pending != nullptr; }
    void dropPending(); // its job failed to open
    // File › Save session (saveAs: always ask where); false when nothing was saved.
    bool save(bool saveAs);
    // True when the open job's notes are saved, or the user chose to save or discard them; false: stay.
    bool confirmLeavingJob();
    void addNote(); // Edit › Add note at cursor

    QString path() const { return m_path; } // the open job's session file, if it was saved or opened as one
    void setPath(const QString& path) { m_path = path; }

signals:
    void statusMessage(const QString& text);
    void saved(); // the session file and its path changed: the title names it

private:
    QMainWindow* m_window;
    ViewState* m_state;
    OutputController* m_output;
    RecentFiles* m_recent;
    Sources m_sources;
    QString m_path;
    std::unique_ptr<ReviewSession> m_pending; // applied once its job has loaded
    QString m_pendingPath;
};

} // namespace stallscope
