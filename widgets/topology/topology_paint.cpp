// SPDX-License-Identifier: MIT
// The topology widget's drawing, bottom layer to top: host fans, links (bundled, one by one, the culprit with a
// halo), degraded links, switches and hosts, search matches, the culprit's label, host names, captions, an
// expanded host, the legend. GUI thread (paintEvent) or any thread painting an image (exports, render).
#include "topology/topology_internal.h"
#include "topology/topology_widget.h"

#include "analysis/analysis.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <map>

namespace stallscope {

using topology::healthColor;
using topology::severity;

void TopologyWidget::paintView(QPainter& p, QSizeF size, double zoom, double pan)
{
    const QPalette pal = palette();
    p.fillRect(QRectF(QPointF(0, 0), size), pal.color(QPalette::Base));
    if (!m_snap || m_snap->topology.nodes().empty()) {
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(QPointF(0, 0), size).adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap,
            m_snap ? tr("No fabric topology in this bundle.") : m_emptyText);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    const auto l = layout(size, zoom, pan);
    const TimeNs t = now();
    const auto marked = markedLink();
    drawHostFans(p, l);
    const auto culpritAt = drawLinks(p, l, t, marked);
    drawDegraded(p, l);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setFont(smallFont());
    drawNodes(p, l, marked);
    drawMatches(p, l);
    if (culpritAt) {
        drawCulpritLabel(p, *culpritAt, *marked, size);
    }
    drawHostLabels(p, l, size);
    drawCaptions(p, l, size);
    drawExpandedHost(p, l, t, marked, size);
    drawLegend(p, size, t);
}

// Healthy switch links bundled in large fabrics, then every link that is not normal one by one, then the marked
// link last with a halo (at 16,384 ranks the others would bury it). Returns the marked link's middle.
std::optional<QPointF> TopologyWidget::drawLinks(
    QPainter& p, const Layout& l, TimeNs t, std::optional<LinkId> marked) const
{
    const QPalette pal = palette();
    const auto& topo = m_snap->topology;
    const auto isHostLink = [&](const FabricLink& link) {
        return topo.node(link.a.node).kind == NodeKind::Hca || topo.node(link.b.node).kind == NodeKind::Hca;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, Bundle> bundles;
    std::vector<std::pair<LinkId, LinkHealth>> individual;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto id = static_cast<LinkId>(i);
        const auto& link = topo.links()[i];
        const bool hostLink = isHostLink(link);
        const auto health = healthAt(id, t);
        if (marked && *marked == id) {
            continue;
        }
        if (hostLink && (health == LinkHealth::Normal || health == LinkHealth::Idle)) {
            continue; // a stalled job idles every host link: the fan says enough
        }
        if (m_aggregate && !hostLink && severity(health) <= severity(LinkHealth::Normal)) {
            addToBundle(bundles, link, health, l);
            continue;
        }
        individual.emplace_back(id, health);
    }
    drawBundles(p, bundles, pal);
    for (const auto& [id, health] : individual) {
        const auto& link = topo.link(id);
        p.setPen(QPen(healthColor(health, pal), isHostLink(link) ? 1.5 : 2.0));
        p.drawLine(l.nodePos[index(link.a.node)], l.nodePos[index(link.b.node)]);
    }
    if (!marked) {
        return std::nullopt;
    }
    const auto& link = topo.link(*marked);
    const QPointF a = l.nodePos[index(link.a.node)], b = l.nodePos[index(link.b.node)];
    p.setPen(QPen(pal.color(QPalette::Base), 8.0)); // a halo: it reads over any bundle of lines
    p.drawLine(a, b);
    p.setPen(QPen(healthColor(healthAt(*marked, t), pal), 4.0));
    p.drawLine(a, b);
    p.setPen(QPen(pal.color(QPalette::Text), 1.0, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    const QPointF mid = (a + b) / 2;
    p.drawEllipse(mid, 9, 9);
    return mid;
}

// Links trained below their tier's rate: dashed, in the text colour, whatever their state (a persistent
// slowdown, not an event in time).
void TopologyWidget::drawDegraded(QPainter& p, const Layout& l) const
{
    if (!m_analysis) {
        return;
    }
    const auto& topo = m_snap->topology;
    p.setPen(QPen(palette().color(QPalette::Text), 2.5, Qt::DashLine));
    for (const auto& d : m_analysis->degradedLinks) {
        const auto& link = topo.link(d.link);
        p.drawLine(l.nodePos[index(link.a.node)], l.nodePos[index(link.b.node)]);
    }
}

double TopologyWidget::switchBoxWidth(const Layout& l, std::size_t count) const
{
    return std::clamp((l.canvasW - 32) / double(std::max<std::size_t>(1, count)) - 4, 8.0, 60.0);
}

// Switches (named as far as their boxes allow), hosts (the selected ranks' in yellow), and the culprit's switches
// outlined in the stall colour: findable even where 64 boxes have no room for names.
void TopologyWidget::drawNodes(QPainter& p, const Layout& l, std::optional<LinkId> marked) const
{
    const QPalette pal = palette();
    const auto& topo = m_snap->topology;
    const QColor text = pal.color(QPalette::Text);
    QColor plate = pal.color(QPalette::Base);
    plate.setAlpha(200);
    for (const auto* row : { &m_cores, &m_spines, &m_leaves }) {
        if (row->empty()) {
            continue;
        }
        const double boxW = switchBoxWidth(l, row->size());
        for (const auto id : *row) {
            const QPointF c = l.nodePos[index(id)];
            p.setPen(text);
            p.setBrush(pal.color(QPalette::Button));
            p.drawRect(QRectF(c.x() - boxW / 2, c.y() - 9, boxW, 18));
        }
        for (const auto& label : rowLabels(l, *row, p.fontMetrics())) {
            if (!label.inside) {
                p.fillRect(label.rect, plate); // over the links below the row
            }
            p.setPen(text);
            p.drawText(label.rect, Qt::AlignCenter, label.text);
        }
    }
    drawHosts(p, l, marked);
    if (!marked) {
        return;
    }
    const auto& link = topo.link(*marked);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(healthColor(LinkHealth::Down, pal), 2.5));
    for (const auto end : { link.a.node, link.b.node }) {
        if (topo.node(end).kind == NodeKind::Switch) {
            const QPointF c = l.nodePos[index(end)];
            const std::size_t count = std::find(m_cores.begin(), m_cores.end(), end) != m_cores.end() ? m_cores.size()
                : std::find(m_spines.begin(), m_spines.end(), end) != m_spines.end()                  ? m_spines.size()
                                                                                                      : m_leaves.size();
            const double w = switchBoxWidth(l, count);
            p.drawRect(QRectF(c.x() - w / 2 - 2, c.y() - 11, w + 4, 22));
        }
    }
}

// "culprit: A ↔ B" on a plate, right of the mark, or left of it when it would leave the view.
void TopologyWidget::drawCulpritLabel(QPainter& p, QPointF at, LinkId marked, QSizeF size) const
{
    const auto& topo = m_snap->topology;
    const auto& link = topo.link(marked);
    const QString text = tr("culprit: %1 ↔ %2")
                             .arg(QString::fromStdString(m_snap->str(topo.node(link.a.node).description)),
                                 QString::fromStdString(m_snap->str(topo.node(link.b.node).description)));
    const double w = p.fontMetrics().horizontalAdvance(text) + 8;
    const double x = at.x() + 12 + w <= size.width() - 4 ? at.x() + 12 : std::max(4.0, at.x() - 12 - w);
    const QRectF plate(x, at.y() - 9, w, 18);
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(220);
    p.fillRect(plate, back);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(plate, Qt::AlignCenter, text);
}

// An expanded host: its HCAs one by one under the host row, each linked to its leaf, coloured by state.
void TopologyWidget::drawExpandedHost(
    QPainter& p, const Layout& l, TimeNs t, std::optional<LinkId> marked, QSizeF size) const
{
    if (m_expandedHost < 0 || std::size_t(m_expandedHost) >= m_ranksOfHost.size()) {
        return;
    }
    const QPalette pal = palette();
    const auto& topo = m_snap->topology;
    const auto& ranks = m_ranksOfHost[std::size_t(m_expandedHost)];
    p.setRenderHint(QPainter::Antialiasing, true);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const QRectF box = hcaBox(l, i, ranks.size());
        const auto& ri = m_snap->ranks[ranks[i]];
        if (ri.hcaNode) {
            if (auto link = topo.linkAt({ *ri.hcaNode, ri.hcaPort })) {
                const auto& lk = topo.link(*link);
                const auto leaf = topo.node(lk.a.node).kind == NodeKind::Switch ? lk.a.node : lk.b.node;
                p.setPen(QPen(healthColor(healthAt(*link, t), pal), marked && *marked == *link ? 3.0 : 1.5));
                p.drawLine(QPointF(box.center().x(), box.top()), l.nodePos[index(leaf)]);
            }
        }
        const bool sel = std::binary_search(m_state->selectedRanks().begin(), m_state->selectedRanks().end(), ranks[i]);
        p.setPen(pal.color(QPalette::Text));
        p.setBrush(sel ? QColor(0xf0, 0xe4, 0x42) : pal.color(QPalette::Button));
        p.drawRect(box);
        p.drawText(box, Qt::AlignCenter, QString::fromStdString(m_snap->str(ri.hca)));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.drawText(QRectF(8, l.hostTop + 80, size.width() - 16, 14), Qt::AlignLeft,
        tr("%1 expanded (double-click to collapse)")
            .arg(QString::fromStdString(m_snap->str(m_hosts[std::size_t(m_expandedHost)]))));
}

// The legend's entries left to right, wrapped onto as many lines as the width needs (a dock's width cut
// "erroring down degraded" off), the last line at the bottom. Each entry's rect holds its swatch and label.
std::vector<TopologyWidget::LegendEntry> TopologyWidget::legendLayout(QSizeF size, const QFontMetrics& fm) const
{
    std::vector<LegendEntry> entries;
    for (const auto h :
        { LinkHealth::Normal, LinkHealth::Idle, LinkHealth::Congested, LinkHealth::Erroring, LinkHealth::Down }) {
        entries.push_back({ QString::fromStdString(std::string(toString(h))), h, {} });
    }
    if (m_analysis && !m_analysis->degradedLinks.empty()) {
        entries.push_back({ tr("degraded (%1)").arg(m_analysis->degradedLinks.size()), std::nullopt, {} });
    }
    int line = 0;
    double x = 8;
    for (auto& e : entries) {
        const double w = 18 + fm.horizontalAdvance(e.label);
        if (x > 8 && x + w > size.width() - 8) {
            ++line;
            x = 8;
        }
        e.rect = QRectF(x, line * kLegendLinePx, w, 14);
        x += w + 8;
    }
    const double lastTop = size.height() - 20;
    for (auto& e : entries) {
        e.rect.translate(0, lastTop - line * kLegendLinePx);
    }
    return entries;
}

int TopologyWidget::legendLines(QSizeF size) const
{
    const auto entries = legendLayout(size, QFontMetrics(smallFont()));
    return entries.empty() ? 0 : 1 + int((entries.back().rect.top() - entries.front().rect.top()) / kLegendLinePx);
}

std::vector<QRectF> TopologyWidget::legendRects() const
{
    std::vector<QRectF> rects;
    for (const auto& e : legendLayout(size(), QFontMetrics(smallFont()))) {
        rects.push_back(e.rect);
    }
    return rects;
}

// The link colours' legend (and the degraded links' dash), and the time the colours are for.
void TopologyWidget::drawLegend(QPainter& p, QSizeF size, TimeNs t) const
{
    const QPalette pal = palette();
    const auto entries = legendLayout(size, p.fontMetrics());
    for (const auto& e : entries) {
        const QRectF r = e.rect;
        if (e.health) {
            p.fillRect(QRectF(r.left(), r.top() + 5, 14, 4), healthColor(*e.health, pal));
        } else {
            p.setPen(QPen(pal.color(QPalette::Text), 2, Qt::DashLine));
            p.drawLine(QPointF(r.left(), r.top() + 7), QPointF(r.left() + 14, r.top() + 7));
            p.setPen(pal.color(QPalette::Text));
        }
        p.drawText(QRectF(r.left() + 18, r.top(), r.width() - 18, 14), Qt::AlignLeft | Qt::AlignVCenter, e.label);
    }
    const double top = entries.empty() ? size.height() - 20 : entries.front().rect.top();
    p.drawText(QRectF(8, top - 18, size.width() - 16, 14), Qt::AlignLeft | Qt::AlignVCenter,
        tr("links at %1").arg(QString::fromStdString(formatSince(t, m_snap->job.clockOriginNs))));
}

// Search matches: a thick outline in the selection colour around each switch box or host box.
void TopologyWidget::drawMatches(QPainter& p, const Layout& l) const
{
    if (m_matches.empty()) {
        return;
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0xf0, 0xe4, 0x42), 3.0));
    for (const auto id : m_matches) {
        const QPointF c = l.nodePos[index(id)];
        if (const int host = m_hostOfNode[index(id)]; host >= 0) {
            p.drawRect(l.hostBox[std::size_t(host)].adjusted(-2, -2, 2, 2));
        } else {
            p.drawRect(QRectF(c.x() - 14, c.y() - 12, 28, 24));
        }
    }
}

// A switch's group for bundling: each core alone, a pod's spines, a pod's leaves.

} // namespace stallscope
