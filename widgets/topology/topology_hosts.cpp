// SPDX-License-Identifier: MIT
// The topology's host row. Hosts are grouped into blocks of consecutive hosts cabled to the same leaves (a
// rail-optimised pod: every host on all of its pod's rail leaves; a plain fat tree: the hosts under one leaf).
// When hosts are too narrow to tell apart (2,048 hosts on a few hundred pixels), each block is drawn as one box
// with its count and range, and the hosts that matter (the culprit's, the selected ones) as marks inside it; a
// double-click zooms the fabric until the block's hosts are boxes of their own with their names. GUI thread, or
// any thread painting an image.
#include "plain_text.h"
#include "topology/topology_internal.h"
#include "topology/topology_widget.h"

#include "analysis/analysis.h"
#include "view/view_state.h"

#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace stallscope {

using topology::healthColor;

namespace {

constexpr double kCompactPx = 5.0; // narrower host boxes cannot be told apart or clicked: draw blocks

} // namespace

// Blocks of hosts cabled to the same leaves, and each leaf's span of hosts (where its fan of host links goes).
void TopologyWidget::findHostBlocks()
{
    const auto& topo = m_snap->topology;
    std::vector<std::vector<std::uint32_t>> leavesOf(m_hosts.size());
    m_hostsOfSwitch.assign(topo.nodes().size(), { -1, -1 });
    for (const auto& link : topo.links()) {
        const bool aHca = topo.node(link.a.node).kind == NodeKind::Hca;
        const auto hca = aHca ? link.a.node : link.b.node;
        const auto sw = aHca ? link.b.node : link.a.node;
        if (topo.node(hca).kind != NodeKind::Hca || topo.node(sw).kind != NodeKind::Switch) {
            continue;
        }
        const int host = m_hostOfNode[index(hca)];
        leavesOf[std::size_t(host)].push_back(index(sw));
        auto& span = m_hostsOfSwitch[index(sw)];
        span = { span.first < 0 ? host : std::min(span.first, host), std::max(span.second, host) };
    }
    m_hostBlocks.clear();
    for (std::size_t h = 0; h < m_hosts.size(); ++h) {
        auto& leaves = leavesOf[h];
        std::sort(leaves.begin(), leaves.end());
        leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
        if (m_hostBlocks.empty() || leaves != leavesOf[std::size_t(m_hostBlocks.back().first)]) {
            m_hostBlocks.emplace_back(int(h), int(h));
        } else {
            m_hostBlocks.back().second = int(h);
        }
    }
}

bool TopologyWidget::hostsCompact(const Layout& l) const
{
    return !l.hostBox.empty() && l.hostBox.front().width() < kCompactPx;
}

QRectF TopologyWidget::hostBlockRect(const Layout& l, std::size_t block) const
{
    const auto [first, last] = m_hostBlocks[block];
    const QRectF a = l.hostBox[std::size_t(first)], b = l.hostBox[std::size_t(last)];
    return QRectF(a.left(), a.top(), std::max(1.0, b.right() - a.left() - 1), a.height());
}

// Host names (hosts apart) or each block's count and range (compact), never overlapping, inside the view.
std::vector<SwitchLabel> TopologyWidget::hostRowLabels(const Layout& l, const QFontMetrics& fm, double viewW) const
{
    std::vector<SwitchLabel> out;
    if (m_hosts.empty()) {
        return out;
    }
    const auto name = [&](int host) { return QString::fromStdString(m_snap->str(m_hosts[std::size_t(host)])); };
    if (hostsCompact(l)) {
        for (std::size_t b = 0; b < m_hostBlocks.size(); ++b) {
            const QRectF r = hostBlockRect(l, b).intersected(QRectF(0, l.hostTop - 1, viewW, 20));
            const auto [first, last] = m_hostBlocks[b];
            const QString count = QString::number(last - first + 1);
            const QString hosts = last == first ? tr("1 host") : tr("%1 hosts").arg(count);
            for (const auto& text : { tr("%1: %2 … %3").arg(hosts, name(first), name(last)), hosts, count }) {
                if (r.width() >= fm.horizontalAdvance(text) + 6) {
                    out.push_back({ r, text, true });
                    break;
                }
            }
        }
        return out;
    }
    double widest = 0;
    for (std::size_t h = 0; h < m_hosts.size(); ++h) {
        widest = std::max(widest, double(fm.horizontalAdvance(name(int(h)))));
    }
    const double pitch = l.hostBox.size() > 1 ? l.hostBox[1].left() - l.hostBox[0].left() : viewW;
    const auto every = std::max<std::size_t>(1, std::size_t(std::ceil((widest + 6) / std::max(pitch, 0.5))));
    for (std::size_t h = 0; h < m_hosts.size(); h += every) {
        const QRectF r(l.hostBox[h].left(), l.hostTop + 20, widest + 4, fm.height());
        if (r.left() >= 0 && r.right() <= viewW) {
            out.push_back({ r, name(int(h)), false });
        }
    }
    return out;
}

// Host links bundled: one faint fan per leaf, to the span of hosts cabled to it.
void TopologyWidget::drawHostFans(QPainter& p, const Layout& l) const
{
    QColor fan = healthColor(LinkHealth::Normal, palette());
    fan.setAlpha(35);
    p.setPen(Qt::NoPen);
    p.setBrush(fan);
    for (const auto leaf : m_leaves) {
        const auto [first, last] = m_hostsOfSwitch[index(leaf)];
        if (first < 0) {
            continue;
        }
        const QPointF a = l.nodePos[index(leaf)];
        const double left = l.hostBox[std::size_t(first)].left(), right = l.hostBox[std::size_t(last)].right();
        p.drawPolygon(
            QPolygonF({ a + QPointF(-3, 0), a + QPointF(3, 0), QPointF(right, l.hostTop), QPointF(left, l.hostTop) }));
    }
}

// Hosts apart: one box each (the selected ranks' hosts in yellow). Compact: one box per block, and inside it a
// mark for each selected host and for the culprit's host.
void TopologyWidget::drawHosts(QPainter& p, const Layout& l, std::optional<LinkId> marked) const
{
    const QPalette pal = palette();
    std::vector<int> selected;
    for (const auto r : m_state->selectedRanks()) {
        if (r < m_snap->ranks.size() && m_snap->ranks[r].hcaNode
            && m_hostOfNode[index(*m_snap->ranks[r].hcaNode)] >= 0) {
            selected.push_back(m_hostOfNode[index(*m_snap->ranks[r].hcaNode)]);
        }
    }
    std::sort(selected.begin(), selected.end());
    selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    const QColor yellow(0xf0, 0xe4, 0x42);
    p.setPen(Qt::NoPen);
    if (!hostsCompact(l)) {
        for (std::size_t i = 0; i < m_hosts.size(); ++i) {
            p.setBrush(
                std::binary_search(selected.begin(), selected.end(), int(i)) ? yellow : pal.color(QPalette::Mid));
            p.drawRect(l.hostBox[i]);
            if (i < m_flagged.size() && m_flagged[i]) { // a corner, so the selection's yellow still shows
                const QRectF b = l.hostBox[i];
                const double s = std::min({ 9.0, b.width(), b.height() });
                p.setBrush(healthColor(LinkHealth::Erroring, pal));
                p.drawPolygon(QPolygonF({ b.topRight(), b.topRight() - QPointF(s, 0), b.topRight() + QPointF(0, s) }));
            }
        }
        if (marked) { // the culprit's host outlined, as its switch is
            const auto& link = m_snap->topology.link(*marked);
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(healthColor(LinkHealth::Down, pal), 2.5));
            for (const auto end : { link.a.node, link.b.node }) {
                if (const int h = m_hostOfNode[index(end)]; h >= 0) {
                    p.drawRect(l.hostBox[std::size_t(h)].adjusted(-2, -2, 2, 2));
                }
            }
            p.setPen(Qt::NoPen);
        }
        return;
    }
    for (std::size_t b = 0; b < m_hostBlocks.size(); ++b) {
        p.setPen(pal.color(QPalette::Text));
        p.setBrush(pal.color(QPalette::Button));
        p.drawRect(hostBlockRect(l, b));
    }
    const auto mark = [&](int host, const QColor& c, double w) {
        const QRectF box = l.hostBox[std::size_t(host)];
        p.fillRect(QRectF(box.center().x() - w / 2, box.top() + 1, w, box.height() - 1), c);
    };
    for (std::size_t h = 0; h < m_flagged.size(); ++h) {
        if (m_flagged[h]) {
            mark(int(h), healthColor(LinkHealth::Erroring, pal), 2.0);
        }
    }
    for (const int h : selected) {
        mark(h, yellow, 2.0);
    }
    if (marked) {
        const auto& link = m_snap->topology.link(*marked);
        for (const auto end : { link.a.node, link.b.node }) {
            if (const int h = m_hostOfNode[index(end)]; h >= 0) {
                mark(h, healthColor(LinkHealth::Down, pal), 3.0);
            }
        }
    }
}

void TopologyWidget::drawHostLabels(QPainter& p, const Layout& l, QSizeF size) const
{
    const auto labels = hostRowLabels(l, p.fontMetrics(), size.width());
    QColor plate = palette().color(QPalette::Button);
    plate.setAlpha(210);
    p.setPen(palette().color(QPalette::Text));
    for (const auto& label : labels) {
        if (label.inside) { // over the block's marks: the count stays legible
            const double w = p.fontMetrics().horizontalAdvance(label.text) + 6;
            p.fillRect(
                QRectF(label.rect.center().x() - w / 2, label.rect.top() + 2, w, label.rect.height() - 3), plate);
        }
        p.drawText(label.rect, label.inside ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignVCenter, label.text);
    }
}

void TopologyWidget::setFlaggedHosts(const std::vector<std::string>& hosts)
{
    m_flagged.assign(m_hosts.size(), false);
    if (m_snap) {
        const std::set<std::string> names(hosts.begin(), hosts.end());
        for (std::size_t i = 0; i < m_hosts.size(); ++i) {
            m_flagged[i] = names.count(m_snap->str(m_hosts[i])) > 0;
        }
    }
    update();
}

int TopologyWidget::flaggedHostCount() const
{
    return int(std::count(m_flagged.begin(), m_flagged.end(), true));
}

int TopologyWidget::hostBlockAt(QPointF pos) const
{
    if (!m_snap) {
        return -1;
    }
    const auto l = screenLayout();
    if (!hostsCompact(l)) {
        return -1;
    }
    for (std::size_t b = 0; b < m_hostBlocks.size(); ++b) {
        if (hostBlockRect(l, b).adjusted(0, -2, 0, 2).contains(pos)) {
            return int(b);
        }
    }
    return -1;
}

// Zooms so the block fills the view (its hosts become boxes of their own when 64× allows) and pans to it.
void TopologyWidget::expandHostBlock(int block)
{
    if (!m_snap || block < 0 || std::size_t(block) >= m_hostBlocks.size()) {
        return;
    }
    const auto base = layout(size());
    const QRectF r = hostBlockRect(base, std::size_t(block));
    const double w = std::max(1, width());
    m_zoom = std::clamp((w - 32) / std::max(1.0, r.width()), m_zoom, 64.0);
    m_panX = std::clamp(r.left() * m_zoom - 16, 0.0, w * (m_zoom - 1.0));
    update();
}

bool TopologyWidget::hostsCompact() const
{
    return m_snap && hostsCompact(screenLayout());
}

std::vector<SwitchLabel> TopologyWidget::hostLabelsOnScreen() const
{
    if (!m_snap) {
        return {};
    }
    return hostRowLabels(screenLayout(), QFontMetrics(smallFont()), width()); // as paintView draws them
}

QString TopologyWidget::hostBlockTip(int block) const
{
    const auto [first, last] = m_hostBlocks[std::size_t(block)];
    std::size_t ranks = 0;
    for (int h = first; h <= last; ++h) {
        ranks += m_ranksOfHost[std::size_t(h)].size();
    }
    return tr("<b>%1 hosts</b> %2 … %3 (%4 ranks), cabled to the same leaves<br>click: select their ranks; "
              "double-click: zoom in until each host is a box")
        .arg(last - first + 1)
        .arg(htmlText(std::string(m_snap->str(m_hosts[std::size_t(first)]))),
            htmlText(std::string(m_snap->str(m_hosts[std::size_t(last)]))))
        .arg(ranks);
}

std::vector<std::uint32_t> TopologyWidget::ranksOfBlock(int block) const
{
    std::vector<std::uint32_t> out;
    const auto [first, last] = m_hostBlocks[std::size_t(block)];
    for (int h = first; h <= last; ++h) {
        const auto& r = m_ranksOfHost[std::size_t(h)];
        out.insert(out.end(), r.begin(), r.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace stallscope
