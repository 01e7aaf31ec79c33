// SPDX-License-Identifier: MIT
#include "window/navigation_controller.h"

#include "analysis/analysis.h"
#include "analysis/incident_frame.h"
#include "core/job_snapshot.h"
#include "panels/flaps_panel.h"
#include "heatmap/heatmap_widget.h"
#include "view/rank_search.h"
#include "view/view_state.h"

#include <QInputDialog>
#include <QLineEdit>

namespace stallscope {

NavigationController::NavigationController(
    ViewState* state, HeatmapWidget* heatmap, FlapsPanel* flaps, Sources sources, QObject* parent)
    : QObject(parent)
    , m_state(state)
    , m_heatmap(heatmap)
    , m_flaps(flaps)
    , m_sources(std::move(sources))
{
    connect(m_state, &ViewState::incidentSelected, this, &NavigationController::frameSelectedIncident);
}

void NavigationController::frameSelectedIncident(int n)
{
    const auto analysis = m_sources.shownAnalysis();
    if (analysis && n >= 1 && n <= int(analysis->incidents.size())) {
        const auto frame = frameIncident(analysis->incidents[std::size_t(n - 1)]);
        m_state->zoomIn(frame.window);
        if (frame.link) {
            m_state->clearLinks();
            m_state->selectLink(*frame.link); // its counters appear under the heatmap
        }
        m_state->setCursor(frame.cursorNs);
    }
}

void NavigationController::stepIncident(int delta)
{
    const auto analysis = m_sources.shownAnalysis();
    const int n = analysis ? int(analysis->incidents.size()) : 0;
    if (n == 0) {
        emit statusMessage(m_sources.analysisHidden() ? tr("Incidents are hidden until you check your answer")
                                                      : tr("No incidents in this job"));
        return;
    }
    const int current = m_state->selectedIncident();
    const int next = current == 0 ? (delta > 0 ? 1 : n) : ((current - 1 + delta) % n + n) % n + 1;
    m_state->selectIncident(next);
    emit statusMessage(tr("Incident %1 of %2").arg(next).arg(n));
}

void NavigationController::stepFlap(int delta)
{
    if (!m_flaps->stepFlap(delta)) {
        emit statusMessage(delta > 0 ? tr("No flap after the cursor") : tr("No flap before the cursor"));
    }
}

void NavigationController::zoomAtCursor(double factor)
{
    const auto w = m_state->window();
    const TimeNs c = m_state->cursor();
    m_state->zoomAround(c != kNoTime && w.contains(c) ? c : w.start + w.delta() / 2, factor);
}

bool NavigationController::goTo(const QString& query)
{
    const auto shown = m_sources.shown();
    if (!shown || shown->job.worldSize == 0) {
        emit statusMessage(tr("Go to: no ranks in what is open"));
        return false;
    }
    const auto found = findRanks(*shown, query.toStdString());
    emit statusMessage(QString::fromStdString(found.what));
    if (found.ranks.empty()) {
        return false;
    }
    m_state->selectRanks(found.ranks);
    m_heatmap->revealRank(found.ranks.front());
    return true;
}

void NavigationController::askGoTo(QWidget* parent)
{
    bool ok = false;
    const auto text
        = QInputDialog::getText(parent, tr("Go to"), tr("Rank number or host name:"), QLineEdit::Normal, QString(), &ok);
    if (ok) {
        goTo(text);
    }
}

} // namespace stallscope
