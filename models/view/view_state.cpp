// SPDX-License-Identifier: MIT
#include "view/view_state.h"

#include <QTimer>

#include <algorithm>

namespace stallscope {

ViewState::ViewState(QObject* parent)
    : QObject(parent)
{
}

void ViewState::setSpan(TimeRange span)
{
    m_span = span.isEmpty() ? TimeRange { span.start, span.start + kMinWindowNs } : span;
    m_back.clear();
    m_forward.clear();
    m_window = m_span;
    emit historyChanged();
    emit timeWindowChanged(m_window);
}

TimeRange ViewState::clamp(TimeRange w) const
{
    w = w.normalized();
    TimeNs width = std::clamp<TimeNs>(w.delta(), kMinWindowNs, m_span.delta());
    TimeNs start = std::clamp<TimeNs>(w.start, m_span.start, m_span.end - width);
    return { start, start + width };
}

void ViewState::setWindow(TimeRange window, bool remember)
{
    const auto w = clamp(window);
    if (w == m_window) {
        return;
    }
    if (remember) {
        this->remember(false);
    }
    m_window = w;
    emit timeWindowChanged(m_window);
}

void ViewState::zoomAround(TimeNs center, double factor)
{
    const double left = double(center - m_window.start) * factor;
    const double width = double(m_window.delta()) * factor;
    const TimeNs start = center - static_cast<TimeNs>(left);
    setWindow({ start, start + static_cast<TimeNs>(width) }, false);
}

void ViewState::pan(TimeNs delta)
{
    setWindow({ m_window.start + delta, m_window.end + delta }, false);
}

void ViewState::resetZoom()
{
    setWindow(m_span, true);
}

ViewState::Visit ViewState::here() const
{
    return { m_window, m_cursor, m_ranks, m_incident, m_links };
}

// A user action is one turn of the event loop: selecting an incident zooms to it and plots its link in the same
// turn, and Alt+Left undoes all of that at once. So a selection opens a step that later changes of the same turn
// join; a zoom alone is a step of its own, so zooms made one after another stay one step each.
void ViewState::remember(bool selection)
{
    if (m_stepOpen) {
        return;
    }
    m_back.push_back(here());
    m_forward.clear();
    if (selection) {
        m_stepOpen = true;
        QTimer::singleShot(0, this, [this] { m_stepOpen = false; });
    }
    emit historyChanged();
}

void ViewState::go(std::vector<Visit>& from, std::vector<Visit>& to)
{
    if (from.empty()) {
        return;
    }
    to.push_back(here());
    const Visit v = std::move(from.back());
    from.pop_back();
    m_stepOpen = false;
    const bool selectionMoved = v.ranks != m_ranks || v.incident != m_incident || v.links != m_links;
    m_window = clamp(v.window);
    m_ranks = v.ranks;
    m_incident = v.incident;
    m_links = v.links;
    emit historyChanged();
    emit timeWindowChanged(m_window);
    if (selectionMoved) {
        emit selectionChanged(); // not incidentSelected: that zooms, and the window is the step's
    }
    setCursor(v.cursor);
}

void ViewState::back()
{
    go(m_back, m_forward);
}

void ViewState::forward()
{
    go(m_forward, m_back);
}

void ViewState::setCursor(TimeNs t)
{
    if (t != m_cursor) {
        m_cursor = t;
        emit cursorChanged(t);
    }
}

void ViewState::setHover(TimeNs t)
{
    if (t != m_hover) {
        m_hover = t;
        emit hoverChanged(t);
    }
}

void ViewState::selectRank(std::optional<std::uint32_t> rank)
{
    selectRanks(rank ? std::vector<std::uint32_t> { *rank } : std::vector<std::uint32_t> {});
}

void ViewState::selectRanks(std::vector<std::uint32_t> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    if (ranks != m_ranks) {
        remember(true);
        m_ranks = std::move(ranks);
        emit selectionChanged();
    }
}

void ViewState::selectIncident(int number)
{
    if (number != m_incident) {
        remember(true);
    }
    m_incident = number;
    emit incidentSelected(number);
    emit selectionChanged();
}

void ViewState::selectLink(LinkId link)
{
    if (std::find(m_links.begin(), m_links.end(), link) == m_links.end()) {
        remember(true);
        m_links.push_back(link);
        emit selectionChanged();
    }
}

void ViewState::deselectLink(LinkId link)
{
    const auto it = std::find(m_links.begin(), m_links.end(), link);
    if (it != m_links.end()) {
        remember(true);
        m_links.erase(it);
        emit selectionChanged();
    }
}

void ViewState::clearLinks()
{
    if (!m_links.empty()) {
        remember(true);
        m_links.clear();
        emit selectionChanged();
    }
}

void ViewState::setAnnotations(std::vector<Annotation> annotations)
{
    m_annotations = std::move(annotations);
    m_notesModified = false;
    emit annotationsChanged();
}

void ViewState::addAnnotation(Annotation annotation)
{
    m_annotations.push_back(std::move(annotation));
    m_notesModified = true;
    emit annotationsChanged();
}

void ViewState::removeAnnotation(std::size_t index)
{
    if (index < m_annotations.size()) {
        m_annotations.erase(m_annotations.begin() + static_cast<std::ptrdiff_t>(index));
        m_notesModified = true;
        emit annotationsChanged();
    }
}

void ViewState::markNotesSaved()
{
    m_notesModified = false;
}

ViewState::Saved ViewState::save() const
{
    return { m_span, m_window, m_cursor, m_back, m_forward, m_ranks, m_incident, m_links, m_annotations,
        m_notesModified };
}

void ViewState::restore(const Saved& s)
{
    m_span = s.span;
    m_window = s.window;
    m_cursor = s.cursor;
    m_hover = kNoTime;
    m_back = s.back;
    m_forward = s.forward;
    m_stepOpen = false;
    m_ranks = s.ranks;
    m_incident = s.incident;
    m_links = s.links;
    m_annotations = s.annotations;
    m_notesModified = s.notesModified;
    emitAll();
}

void ViewState::resetForJob(TimeRange span)
{
    Saved fresh;
    fresh.span = span.isEmpty() ? TimeRange { span.start, span.start + kMinWindowNs } : span;
    fresh.window = fresh.span;
    restore(fresh);
}

// Every view repaints from the whole state (incidentSelected is not emitted: it zooms, and the window is set).
void ViewState::emitAll()
{
    emit historyChanged();
    emit timeWindowChanged(m_window);
    emit cursorChanged(m_cursor);
    emit hoverChanged(m_hover);
    emit selectionChanged();
    emit annotationsChanged();
}

} // namespace stallscope
