// SPDX-License-Identifier: MIT
#include "window/session_controller.h"
#include "plain_text.h"

#include "core/job_snapshot.h"
#include "core/time_format.h"
#include "open/load_job.h"
#include "view/review_session.h"
#include "view/view_state.h"
#include "window/output_controller.h"
#include "window/recent_files.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QMessageBox>

#include <filesystem>

namespace stallscope {

SessionController::SessionController(
    QMainWindow* window, ViewState* state, OutputController* output, RecentFiles* recent, Sources sources)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_output(output)
    , m_recent(recent)
    , m_sources(std::move(sources))
{
}

SessionController::~SessionController() = default;

std::optional<QString> SessionController::open(const QString& path)
{
    auto session = loadSession(path.toStdString());
    if (!session) {
        warnPlain(m_window, tr("Could not open the session"), QString::fromStdString(session.error().format()));
        return std::nullopt;
    }
    m_pending = std::make_unique<ReviewSession>(session.value());
    m_pendingPath = path;
    return QString::fromStdString(resolveBundlePath(path.toStdString(), session.value()));
}

void SessionController::dropPending()
{
    m_pending.reset();
}

bool SessionController::applyPending()
{
    const auto* opened = m_sources.opened();
    if (!m_pending || !opened) {
        return false;
    }
    const auto s = std::move(*m_pending);
    m_pending.reset();
    m_path = m_pendingPath;
    applyJobViews(m_sources.views(), fromSession(s, *opened->snapshot));
    if (!s.layout.empty()) {
        m_window->restoreState(QByteArray::fromBase64(QByteArray::fromStdString(s.layout)));
    }
    m_recent->add(m_path);
    emit statusMessage(tr("Session %1: %2 %3")
                           .arg(m_path)
                           .arg(s.annotations.size())
                           .arg(s.annotations.size() == 1 ? tr("note") : tr("notes")));
    return true;
}

bool SessionController::save(bool saveAs)
{
    const auto* opened = m_sources.opened();
    if (!opened) {
        return false;
    }
    QString path = m_path;
    if (saveAs || path.isEmpty()) {
        path = QFileDialog::getSaveFileName(m_window, tr("Save review session"),
            path.isEmpty() ? QStringLiteral("review.stallscope") : path, tr("Review sessions (*.stallscope)"));
        if (path.isEmpty()) {
            return false;
        }
        if (!path.endsWith(QStringLiteral(".stallscope"))) {
            path += QStringLiteral(".stallscope"); // what File › Open and a double-click recognise
        }
    }
    if (!m_output->outsideOpened(path, tr("session"))) {
        return false;
    }
    ReviewSession s;
    s.bundlePath = std::filesystem::absolute(opened->path).string();
    toSession(captureJobViews(m_sources.views()), *opened->snapshot, s);
    s.layout = m_window->saveState().toBase64().toStdString();
    if (const auto err = saveSession(path.toStdString(), s); !err.empty()) {
        warnPlain(m_window, tr("Could not save the session"), QString::fromStdString(err)); // the old file is intact
        return false;
    }
    m_path = path;
    m_state->markNotesSaved();
    m_recent->add(path);
    emit saved();
    emit statusMessage(tr("Session saved: %1").arg(path));
    return true;
}

bool SessionController::confirmLeavingJob()
{
    const auto* opened = m_sources.opened();
    if (!opened || !m_state->notesModified()) {
        return true;
    }
    const int notes = int(m_state->annotations().size());
    QMessageBox box(QMessageBox::Warning, tr("Unsaved notes"),
        (notes == 1 ? tr("1 note on %1 is not saved in a review session.")
                    : tr("%1 notes on %2 are not saved in a review session.").arg(notes))
            .arg(QString::fromStdString(opened->snapshot->job.name)),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, m_window);
    box.setObjectName(QStringLiteral("unsavedNotes"));
    box.setInformativeText(tr("Save them before leaving this job? Discarded notes cannot be brought back."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return save(false);
    case QMessageBox::Discard:
        m_state->markNotesSaved();
        return true;
    default:
        return false;
    }
}

void SessionController::addNote()
{
    if (!m_sources.opened() || m_state->cursor() == kNoTime) {
        return;
    }
    bool ok = false;
    const auto text = QInputDialog::getText(m_window, tr("Add note"),
        tr("Note at %1:").arg(QString::fromStdString(formatUtc(m_state->cursor()))), QLineEdit::Normal, QString(), &ok);
    if (!ok || text.trimmed().isEmpty()) {
        return;
    }
    Annotation a;
    a.startNs = a.endNs = m_state->cursor();
    if (m_state->selectedRanks().size() == 1) { // a host's ranks selected in the fabric name no one rank
        a.rank = m_state->selectedRank();
    }
    a.text = text.trimmed().toStdString();
    m_state->addAnnotation(std::move(a));
}

} // namespace stallscope
