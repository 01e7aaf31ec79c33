// SPDX-License-Identifier: MIT
#include "job_views.h"

#include "core/job_snapshot.h"
#include "link_list_panel.h"

#include <QLineEdit>

#include <array>

namespace stallscope {

namespace {

constexpr std::array<const char*, 4> kRowOrders = { "rank", "host", "rail", "first-stuck" };
constexpr std::array<const char*, 3> kMetrics = { "state", "time-in-collectives", "lateness" };
constexpr std::array<const char*, 2> kLinkOrders = { "tier", "trouble-first" };

template <typename E, std::size_t N>
E byName(const std::array<const char*, N>& names, const std::string& name, E fallback)
{
    for (std::size_t i = 0; i < N; ++i) {
        if (name == names[i]) {
            return static_cast<E>(i);
        }
    }
    return fallback;
}

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
    s.fabricFind = v.fabricFind->text();
    s.linkFilter = v.links->filterText();
    return s;
}

void applyJobViews(const JobViews& v, const JobViewState& s)
{
    v.state->restore(s.view);
    v.heatmap->setRowOrder(s.rowOrder);
    v.heatmap->setMetric(s.metric);
    v.linkHeatmap->setRowOrder(s.linkOrder);
    v.fabricFind->setText(s.fabricFind);
    v.links->setFilterText(s.linkFilter);
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
    out.back = s.view.back;
    out.forward = s.view.forward;
    out.rowOrder = kRowOrders[static_cast<std::size_t>(s.rowOrder)];
    out.metric = kMetrics[static_cast<std::size_t>(s.metric)];
    out.linkRowOrder = kLinkOrders[static_cast<std::size_t>(s.linkOrder)];
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
    out.view.back = s.back;
    out.view.forward = s.forward;
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
    out.rowOrder = byName(kRowOrders, s.rowOrder, RowOrder::Rank);
    out.metric = byName(kMetrics, s.metric, HeatmapMetric::State);
    out.linkOrder = byName(kLinkOrders, s.linkRowOrder, LinkRowOrder::Tier);
    out.fabricFind = QString::fromStdString(s.fabricFind);
    out.linkFilter = QString::fromStdString(s.linkFilter);
    return out;
}

} // namespace stallscope
