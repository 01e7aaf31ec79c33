// SPDX-License-Identifier: MIT
// Grouping in the topology widget: pods of three-tier fabrics (found from the switch graph, named as the fabric
// names them), bundles of healthy switch links per pair of switch groups, and the rows' and pods' captions.
// GUI thread.
#include "topology/topology_internal.h"
#include "topology/topology_widget.h"

#include "view/view_state.h"

#include <QPainter>

#include <algorithm>
#include <map>

namespace stallscope {

using topology::healthColor;
using topology::severity;

namespace {

int findRoot(std::vector<int>& parent, int i)
{
    while (parent[std::size_t(i)] != i) {
        parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
        i = parent[std::size_t(i)];
    }
    return i;
}

} // namespace

void TopologyWidget::findPods()
{
    const auto& topo = m_snap->topology;
    const auto n = topo.nodes().size();
    std::vector<int> parent(n);
    for (std::size_t i = 0; i < n; ++i) {
        parent[i] = int(i);
    }
    const auto tier = [&](NodeId id) {
        const auto& node = topo.node(id);
        return node.kind == NodeKind::Switch ? int(node.tier) : 0;
    };
    std::size_t switchLinks = 0;
    for (const auto& link : topo.links()) {
        const int ta = tier(link.a.node), tb = tier(link.b.node);
        switchLinks += ta > 0 && tb > 0;
        if (std::min(ta, tb) == 1 && std::max(ta, tb) == 2) { // leaf–spine: the same pod
            parent[std::size_t(findRoot(parent, int(index(link.a.node))))] = findRoot(parent, int(index(link.b.node)));
        }
    }
    m_podOf.assign(n, -1);
    std::map<int, int> podOfRoot;
    for (const auto leaf : m_leaves) {
        const int root = findRoot(parent, int(index(leaf)));
        m_podOf[index(leaf)] = podOfRoot.try_emplace(root, int(podOfRoot.size())).first->second;
    }
    for (const auto spine : m_spines) {
        const auto it = podOfRoot.find(findRoot(parent, int(index(spine))));
        m_podOf[index(spine)] = it == podOfRoot.end() ? -1 : it->second;
    }
    m_podCount = int(podOfRoot.size());
    // Pods side by side: spines and leaves ordered by pod, keeping their order within it.
    const auto byPod = [&](NodeId a, NodeId b) { return m_podOf[index(a)] < m_podOf[index(b)]; };
    std::stable_sort(m_spines.begin(), m_spines.end(), byPod);
    std::stable_sort(m_leaves.begin(), m_leaves.end(), byPod);
    m_aggregate = m_bundling && switchLinks > 256;
}

std::int64_t TopologyWidget::groupOf(NodeId id) const
{
    const auto& node = m_snap->topology.node(id);
    const int pod = m_podOf[index(id)];
    if (node.tier >= 3 || pod < 0) {
        return 1'000'000 + std::int64_t(index(id));
    }
    return (node.tier == 2 ? 2'000'000 : 3'000'000) + pod;
}

void TopologyWidget::addToBundle(std::map<std::pair<std::int64_t, std::int64_t>, Bundle>& bundles,
    const FabricLink& link, LinkHealth health, const Layout& l) const
{
    auto a = link.a.node, b = link.b.node;
    if (groupOf(b) < groupOf(a)) {
        std::swap(a, b);
    }
    auto& bundle = bundles[{ groupOf(a), groupOf(b) }];
    ++bundle.count;
    bundle.sumA += l.nodePos[index(a)];
    bundle.sumB += l.nodePos[index(b)];
    if (bundle.count == 1 || severity(health) > severity(bundle.worst)) {
        bundle.worst = health;
    }
}

// One line per pair of groups, from the centre of one to the centre of the other, as wide as the log of its
// link count and coloured by its worst link; the count written on it when few bundles leave room.
void TopologyWidget::drawBundles(
    QPainter& p, const std::map<std::pair<std::int64_t, std::int64_t>, Bundle>& bundles, const QPalette& pal) const
{
    for (const auto& [key, b] : bundles) {
        QColor c = healthColor(b.worst, pal);
        c.setAlpha(150);
        p.setPen(QPen(c, std::clamp(1.0 + std::log2(double(b.count)) * 0.8, 1.0, 6.0), Qt::SolidLine, Qt::RoundCap));
        p.drawLine(b.sumA / b.count, b.sumB / b.count);
    }
    if (bundles.size() > 24) {
        return;
    }
    p.setPen(pal.color(QPalette::Text));
    for (const auto& [key, b] : bundles) {
        const QPointF mid = (b.sumA + b.sumB) / (2.0 * b.count);
        p.drawText(QRectF(mid.x() - 20, mid.y() - 7, 40, 14), Qt::AlignCenter, QStringLiteral("×%1").arg(b.count));
    }
}

// A pod as its fabric names it: what its leaves' names share beyond what every leaf's name shares ("leaf-p5"
// for leaf-p5-r0 … leaf-p5-r7), else "pod N" counted from 1.
QString TopologyWidget::podName(int pod) const
{
    const auto common = [](std::string a, const std::string& b) {
        std::size_t k = 0;
        while (k < a.size() && k < b.size() && a[k] == b[k]) {
            ++k;
        }
        a.resize(k);
        return a;
    };
    std::optional<std::string> inPod, all;
    for (const auto leaf : m_leaves) {
        const std::string name(m_snap->str(m_snap->topology.node(leaf).description));
        all = all ? common(*all, name) : name;
        if (m_podOf[index(leaf)] == pod) {
            inPod = inPod ? common(*inPod, name) : name;
        }
    }
    const auto trimmed = [](std::string s) { // back to a whole token: "leaf-p5-r" → "leaf-p5"
        const auto cut = s.find_last_of("-_ ");
        s.resize(cut == std::string::npos ? 0 : cut);
        while (!s.empty() && (s.back() == '-' || s.back() == '_' || s.back() == ' ')) {
            s.pop_back();
        }
        return s;
    };
    if (!inPod || !all || trimmed(*inPod).size() <= trimmed(*all).size()) {
        return tr("pod %1").arg(pod + 1);
    }
    return QString::fromStdString(trimmed(*inPod));
}

// Each row's count at its left ("8 cores", "64 spines in 8 pods") and the pods named under the leaves.
void TopologyWidget::drawCaptions(QPainter& p, const Layout& l, QSizeF size) const
{
    p.setPen(palette().color(QPalette::Text));
    QColor plate = palette().color(QPalette::Base);
    plate.setAlpha(200);
    // On a plate, as the labels under a row: the links to the row's first switches pass behind the caption.
    const auto onPlate = [&](const QRectF& rect, int align, const QString& text) {
        const QRectF ink = p.fontMetrics().boundingRect(rect.toAlignedRect(), align, text);
        p.fillRect(ink.adjusted(-2, 0, 2, 0), plate);
        p.drawText(rect, align, text);
    };
    const auto caption = [&](const std::vector<NodeId>& row, const QString& text) {
        if (!row.empty()) {
            const double y = l.nodePos[index(row.front())].y();
            onPlate(QRectF(4, y - 24, size.width() - 8, 13), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
    };
    const QString pods = m_podCount > 1 ? tr(" in %1 pods").arg(m_podCount) : QString();
    caption(m_cores, tr("%1 core switches").arg(m_cores.size()));
    caption(m_spines, tr("%1 spines%2").arg(m_spines.size()).arg(pods));
    caption(m_leaves, tr("%1 leaves%2").arg(m_leaves.size()).arg(pods));
    for (const auto& pod : podCaptionLabels(l, size, p.fontMetrics())) {
        onPlate(pod.rect, Qt::AlignCenter, pod.text);
    }
}

std::size_t TopologyWidget::podSize(const std::vector<NodeId>& row) const
{
    if (m_podCount <= 1 || row.empty()) {
        return 0;
    }
    std::map<int, std::size_t> perPod;
    for (const auto id : row) {
        ++perPod[m_podOf[index(id)]];
    }
    const auto first = perPod.begin()->second;
    const bool alike = perPod.size() == std::size_t(m_podCount)
        && std::all_of(perPod.begin(), perPod.end(), [&](const auto& kv) { return kv.second == first; });
    return alike ? first : 0;
}

std::vector<SwitchLabel> TopologyWidget::rowLabels(
    const Layout& l, const std::vector<NodeId>& row, const QFontMetrics& fm) const
{
    if (row.empty()) {
        return {};
    }
    QStringList names;
    std::vector<double> centres;
    for (const auto id : row) {
        names << QString::fromStdString(m_snap->str(m_snap->topology.node(id).description));
        centres.push_back(l.nodePos[index(id)].x());
    }
    const double y = l.nodePos[index(row.front())].y();
    return switchRowLabels(names, centres, y, switchBoxWidth(l, row.size()), fm, podSize(row));
}

// Under the leaves; one line lower when the leaves' own numbers take that line (narrow boxes).
std::vector<SwitchLabel> TopologyWidget::podCaptionLabels(const Layout& l, QSizeF size, const QFontMetrics& fm) const
{
    if (m_podCount <= 1 || m_leaves.empty()) {
        return {};
    }
    const auto leafLabels = rowLabels(l, m_leaves, fm);
    const double leafY = l.nodePos[index(m_leaves.front())].y();
    const double y = leafY + 10 + (!leafLabels.empty() && !leafLabels.front().inside ? fm.height() + 1 : 0);
    QStringList names;
    std::vector<std::pair<double, double>> spans(std::size_t(m_podCount), { size.width(), 0.0 });
    for (int pod = 0; pod < m_podCount; ++pod) {
        names << podName(pod);
    }
    for (const auto leaf : m_leaves) {
        auto& [left, right] = spans[std::size_t(m_podOf[index(leaf)])];
        left = std::min(left, l.nodePos[index(leaf)].x());
        right = std::max(right, l.nodePos[index(leaf)].x());
    }
    return podCaptions(names, spans, y, size.width(), fm);
}

std::vector<SwitchLabel> TopologyWidget::podCaptionsOnScreen() const
{
    return m_snap ? podCaptionLabels(screenLayout(), size(), QFontMetrics(smallFont())) : std::vector<SwitchLabel> {};
}

std::vector<SwitchLabel> TopologyWidget::switchLabelsOnScreen(int tier) const
{
    if (!m_snap) {
        return {};
    }
    const auto& row = tier >= 3 ? m_cores : tier == 2 ? m_spines : m_leaves;
    return rowLabels(screenLayout(), row, QFontMetrics(smallFont()));
}

} // namespace stallscope
