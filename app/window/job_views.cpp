// SPDX-License-Identifier: MIT
#include "window/job_views.h"
#include "panels/hosts_panel.h"

#include "core/job_snapshot.h"
#include "panels/link_list_panel.h"
#include "render/session_look.h"

#include <QLineEdit>


namespace stallscope {

namespace {

LinkRefByPorts linkRef(const JobSnapshot& s, LinkId id)
{
    const auto& l = s.topology.link(id);
    return { s.topology.node(l.a.node).guid, l.a.port, s.topology.node(l.b.node).guid, l.b.port };
}

} // namespace

JobViewState captureJobViews(const JobViews& v)
{
    JobViewState s;
    s.view = v.state->save();
    s.rowOrder = v.heatmap->rowOrder();
    s.metric = v.heatmap->metric();
    s.linkOrder = v.linkHeatmap->rowOrder();
    s.recordedOnly = v.heatmap->recordedOnly();
    s.fabricFind = v.fabricFind->text();
    s.linkFilter = v.links->filterText();
    s.hostFilter = v.hosts->filterText();
    return s;
}

void applyJobViews(const JobViews& v, const JobViewState& s)
{
    v.state->restore(s.view);
    v.heatmap->setRecordedOnly(s.recordedOnly);
    v.heatmap->setRowOrder(s.rowOrder);
    v.heatmap->setMetric(s.metric);
    v.linkHeatmap->setRowOrder(s.linkOrder);
    v.fabricFind->setText(s.fabricFind);
    v.links->setFilterText(s.linkFilter);
    v.hosts->setFilterText(s.hostFilter);
}

void resetJobViews(const JobViews& v, TimeRange span)
{
    JobViewState s;
    s.view.span = s.view.window = span;
    applyJobViews(v, s);
    v.state->resetForJob(span); // the span's rules (an empty span is widened) live in the ViewState
}

void toSession(const JobViewState& s, const JobSnapshot& snap, ReviewSession& out)
{
    out.window = s.view.window;
    out.cursorNs = s.view.cursor;
    // A session keeps the history's windows; its steps' selections are the window's own business. Steps that
    // only changed the selection leave the window as it was: kept, they would come back as Alt+Left presses
    // that change nothing, so a window equal to its neighbour, or (at the end of either stack, next to the
    // present) to the view's own, is dropped.
    const auto windows = [present = s.view.window](const std::vector<ViewState::Visit>& visits) {
        std::vector<TimeRange> out;
        for (const auto& v : visits) {
            if (out.empty() || v.window != out.back()) {
                out.push_back(v.window);
            }
        }
        while (!out.empty() && out.back() == present) {
            out.pop_back();
        }
        return out;
    };
    out.back = windows(s.view.back);
    out.forward = windows(s.view.forward);
    writeSessionLook({ s.rowOrder, s.metric, s.linkOrder, s.recordedOnly }, out);
    out.selectedIncident = s.view.incident;
    out.selectedRanks = s.view.ranks;
    out.plottedLinks.clear();
    for (const auto l : s.view.links) {
        out.plottedLinks.push_back(linkRef(snap, l));
    }
    out.fabricFind = s.fabricFind.toStdString();
    out.linkFilter = s.linkFilter.toStdString();
    out.annotations = s.view.annotations;
}

JobViewState fromSession(const ReviewSession& s, const JobSnapshot& snap)
{
    JobViewState out;
    out.view.span = snap.job.span;
    out.view.window = s.window.isEmpty() ? snap.job.span : s.window;
    out.view.cursor = s.cursorNs;
    out.view.incident = s.selectedIncident;
    for (const auto r : s.selectedRanks) {
        if (r < snap.job.worldSize) {
            out.view.ranks.push_back(r);
        }
    }
    for (const auto& ref : s.plottedLinks) {
        for (std::uint32_t i = 0; i < snap.topology.links().size(); ++i) {
            if (linkRef(snap, static_cast<LinkId>(i)) == ref) {
                out.view.links.push_back(static_cast<LinkId>(i));
            }
        }
    }
    out.view.annotations = s.annotations;
    // The saved windows come back as steps that keep the selection the session was saved with.
    const auto visits = [&out](const std::vector<TimeRange>& windows) {
        std::vector<ViewState::Visit> visits;
        for (const auto& w : windows) {
            visits.push_back({ w, out.view.cursor, out.view.ranks, out.view.incident, out.view.links });
        }
        return visits;
    };
    out.view.back = visits(s.back);
    out.view.forward = visits(s.forward);
    const auto look = sessionLook(s);
    out.rowOrder = look.rowOrder;
    out.metric = look.metric;
    out.linkOrder = look.linkOrder;
    out.recordedOnly = look.recordedOnly;
    out.fabricFind = QString::fromStdString(s.fabricFind);
    out.linkFilter = QString::fromStdString(s.linkFilter);
    return out;
}

} // namespace stallscope
