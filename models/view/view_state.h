// SPDX-License-Identifier: MIT
#pragma once

// The one view state every view subscribes to: time window, the pinned cursor and the hover time, the history of
// view changes (Alt+Left/Right), selection and the reviewer's notes. No view keeps its own zoom. All of it belongs to the open job: a new job
// starts from resetForJob, and save/restore carry it across a load that fails. Lives on the GUI thread; Qt Core
// only, so the core library stays widget-free.

#include "core/types.h"
#include "view/review_session.h"

#include <QObject>

#include <optional>
#include <vector>

namespace stallscope {

class ViewState : public QObject
{
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr);

    // The whole job span: zoom limits and "zoom to all".
    void setSpan(TimeRange span);
    TimeRange span() const { return m_span; }
    TimeRange window() const { return m_window; }
    TimeNs cursor() const { return m_cursor; }

    // Sets the window (clamped to the span, at least kMinWindowNs wide) and records the view before it in
    // the history when `remember` is true.
    void setWindow(TimeRange window, bool remember = true);
    void zoomIn(TimeRange window) { setWindow(window, true); }
    void zoomAround(TimeNs center, double factor); // factor < 1 zooms in
    void pan(TimeNs delta); // does not touch history
    void resetZoom();

    // One step of the history: what a view change replaces. Zooms, selecting ranks, an incident or links each
    // record the view before them; the changes one user action makes together (an incident selected, then
    // zoomed to and its link plotted) are one step. Pans and the hover are not steps; the cursor comes back
    // with the step it was pinned in.
    struct Visit
    {
        TimeRange window;
        TimeNs cursor = kNoTime;
        std::vector<std::uint32_t> ranks;
        int incident = 0;
        std::vector<LinkId> links;
    };
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }
    void back();
    void forward();

    // The pinned cursor: set by a click, an evidence link, an incident or a key; notes and exports use it.
    void setCursor(TimeNs t);
    // Where the pointer is over any time view (kNoTime when over none): every view draws it as a crosshair,
    // and the plots read their values there. Never moves the pinned cursor.
    TimeNs hover() const { return m_hover; }
    void setHover(TimeNs t);

    // The selected ranks (one rank from the heatmap, all ranks of a host from the topology), sorted.
    const std::vector<std::uint32_t>& selectedRanks() const { return m_ranks; }
    std::optional<std::uint32_t> selectedRank() const
    {
        return m_ranks.empty() ? std::nullopt : std::optional<std::uint32_t>(m_ranks.front());
    }
    void selectRank(std::optional<std::uint32_t> rank);
    void selectRanks(std::vector<std::uint32_t> ranks);
    int selectedIncident() const { return m_incident; } // 0 = none
    void selectIncident(int number);
    std::vector<LinkId> selectedLinks() const { return m_links; }
    void selectLink(LinkId link); // adds it (a counter plot appears for it)
    void deselectLink(LinkId link); // its counter plot goes
    void clearLinks();

    const std::vector<Annotation>& annotations() const { return m_annotations; }
    void setAnnotations(std::vector<Annotation> annotations);
    void addAnnotation(Annotation annotation);
    void removeAnnotation(std::size_t index);
    // True once a note was added or removed since the notes were last set (opened) or marked saved.
    bool notesModified() const { return m_notesModified; }
    void markNotesSaved();

    // Everything above that belongs to one job, for carrying it across a load that fails or is cancelled.
    struct Saved
    {
        TimeRange span, window;
        TimeNs cursor = kNoTime;
        std::vector<Visit> back, forward;
        std::vector<std::uint32_t> ranks;
        int incident = 0;
        std::vector<LinkId> links;
        std::vector<Annotation> annotations;
        bool notesModified = false;
    };
    Saved save() const;
    void restore(const Saved& saved);
    // A job was opened: its span, and nothing of the previous job (cursor, hover, history, selection, notes).
    void resetForJob(TimeRange span);

    static constexpr TimeNs kMinWindowNs = 1000; // 1 µs

signals:
    void timeWindowChanged(stallscope::TimeRange window);
    void cursorChanged(stallscope::TimeNs t);
    void selectionChanged();
    void incidentSelected(int number);
    void historyChanged();
    void annotationsChanged();
    void hoverChanged(stallscope::TimeNs t);

private:
    TimeRange clamp(TimeRange w) const;
    void emitAll();
    Visit here() const;
    void remember(bool selection); // records the view before a change, once per user action
    void go(std::vector<Visit>& from, std::vector<Visit>& to);

    TimeRange m_span { 0, 1 };
    TimeRange m_window { 0, 1 };
    TimeNs m_cursor = kNoTime;
    TimeNs m_hover = kNoTime;
    bool m_notesModified = false;
    std::vector<Visit> m_back, m_forward;
    bool m_stepOpen = false; // a step was recorded in this turn of the event loop: later changes join it
    std::vector<std::uint32_t> m_ranks;
    int m_incident = 0;
    std::vector<LinkId> m_links;
    std::vector<Annotation> m_annotations;
};

} // namespace stallscope
