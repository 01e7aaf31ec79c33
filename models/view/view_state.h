// SPDX-License-Identifier: MIT
#pragma once

// The one view state every view subscribes to: time window, cursor, zoom history and selection. No view
// keeps its own zoom. Lives on the GUI thread; Qt Core only, so the core library stays widget-free.

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

    // Sets the window (clamped to the span, at least kMinWindowNs wide) and records the previous one in
    // the zoom history when `remember` is true.
    void setWindow(TimeRange window, bool remember = true);
    void zoomIn(TimeRange window) { setWindow(window, true); }
    void zoomAround(TimeNs center, double factor); // factor < 1 zooms in
    void pan(TimeNs delta); // does not touch history
    void resetZoom();
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }
    void back();
    void forward();

    void setCursor(TimeNs t);

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
    void clearLinks();

    const std::vector<Annotation>& annotations() const { return m_annotations; }
    void setAnnotations(std::vector<Annotation> annotations);
    void addAnnotation(Annotation annotation);

    static constexpr TimeNs kMinWindowNs = 1000; // 1 µs

signals:
    void timeWindowChanged(stallscope::TimeRange window);
    void cursorChanged(stallscope::TimeNs t);
    void selectionChanged();
    void incidentSelected(int number);
    void historyChanged();
    void annotationsChanged();

private:
    TimeRange clamp(TimeRange w) const;

    TimeRange m_span { 0, 1 };
    TimeRange m_window { 0, 1 };
    TimeNs m_cursor = kNoTime;
    std::vector<TimeRange> m_back, m_forward;
    std::vector<std::uint32_t> m_ranks;
    int m_incident = 0;
    std::vector<LinkId> m_links;
    std::vector<Annotation> m_annotations;
};

} // namespace stallscope
