// SPDX-License-Identifier: MIT
#include "topology_widget.h"
#include "view_menu.h"

#include "analysis/analysis.h"
#include "core/time_format.h"
#include "heatmap_palette.h"
#include "view/view_state.h"

#include <QContextMenuEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace stallscope {

namespace {

QColor healthColor(LinkHealth h, const QPalette& pal)
{
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    switch (h) {
    case LinkHealth::Down:
        return QColor(0xd5, 0x5e, 0x00); // vermillion, as the heatmap's stall
    case LinkHealth::Erroring:
        return QColor(0xe6, 0x9f, 0x00); // orange
    case LinkHealth::Congested:
        return QColor(0xcc, 0x79, 0xa7); // reddish purple
    case LinkHealth::Idle:
        return dark ? QColor(0x60, 0x63, 0x6a) : QColor(0xc0, 0xc3, 0xc8);
    case LinkHealth::Normal:
        return dark ? QColor(0x3d, 0x8e, 0xc9) : QColor(0x00, 0x72, 0xb2); // blue
    }
    return Qt::gray;
}

// Idle below normal: a bundle is as bad as its worst link, and carrying traffic beats idling.
int severity(LinkHealth h)
{
    switch (h) {
    case LinkHealth::Idle:
        return 0;
    case LinkHealth::Normal:
        return 1;
    case LinkHealth::Congested:
        return 2;
    case LinkHealth::Erroring:
        return 3;
    case LinkHealth::Down:
        return 4;
    }
    return 0;
}

int findRoot(std::vector<int>& parent, int i)
{
    while (parent[std::size_t(i)] != i) {
        parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
        i = parent[std::size_t(i)];
    }
    return i;
}

double distanceToSegment(QPointF p, QPointF a, QPointF b)
{
    const QPointF d = b - a;
    const double len2 = d.x() * d.x() + d.y() * d.y();
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
    const QPointF q = a + t * d;
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

} // namespace

// Names say more than boxes hold at 16+ spines: "spine-p2-02" elided to "p…" named nothing.
QString fitSwitchName(const QString& name, const QFontMetrics& fm, int width)
{
    QString tail = name;
    while (fm.horizontalAdvance(tail) > width) {
        const auto dash = tail.indexOf(QLatin1Char('-')), under = tail.indexOf(QLatin1Char('_'));
        const auto cut = dash < 0 ? under : under < 0 ? dash : std::min(dash, under);
        if (cut <= 0 || cut + 1 >= tail.size()) {
            return fm.elidedText(tail, Qt::ElideRight, width);
        }
        tail = tail.mid(cut + 1);
    }
    return tail;
}

TopologyWidget::TopologyWidget(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    setMouseTracking(true);
    setMinimumSize(260, 180);
    connect(m_state, &ViewState::cursorChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::timeWindowChanged, this, qOverload<>(&QWidget::update));
}

void TopologyWidget::setData(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis)
{
    m_snap = std::move(snap);
    m_analysis = std::move(analysis);
    m_cores.clear();
    m_spines.clear();
    m_leaves.clear();
    m_hosts.clear();
    m_hostOfNode.clear();
    m_ranksOfHost.clear();
    m_states.reset();
    m_expandedHost = -1;
    m_zoom = 1.0; // another fabric: the whole of it
    m_panX = 0;
    m_matches.clear(); // node ids of the previous snapshot
    if (m_snap) {
        const auto& topo = m_snap->topology;
        std::map<std::uint32_t, int> hostIndex;
        m_hostOfNode.assign(topo.nodes().size(), -1);
        for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
            const auto& n = topo.nodes()[i];
            if (n.kind == NodeKind::Switch) {
                (n.tier >= 3 ? m_cores : n.tier == 2 ? m_spines : m_leaves).push_back(static_cast<NodeId>(i));
                continue;
            }
            auto [it, fresh] = hostIndex.try_emplace(index(n.host), static_cast<int>(m_hosts.size()));
            if (fresh) {
                m_hosts.push_back(n.host);
            }
            m_hostOfNode[i] = it->second;
        }
        m_ranksOfHost.resize(m_hosts.size());
        for (std::uint32_t r = 0; r < m_snap->ranks.size(); ++r) {
            if (auto node = m_snap->ranks[r].hcaNode; node && m_hostOfNode[index(*node)] >= 0) {
                m_ranksOfHost[std::size_t(m_hostOfNode[index(*node)])].push_back(r);
            }
        }
        findPods();
        m_states = std::make_unique<LinkStates>(m_snap);
        if (!m_search.isEmpty()) {
            setSearch(m_search);
        }
    }
    update();
}

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
    m_podHosts.assign(std::size_t(m_podCount), { -1, -1 });
    for (const auto& link : topo.links()) {
        const bool aHca = topo.node(link.a.node).kind == NodeKind::Hca;
        const auto hca = aHca ? link.a.node : link.b.node;
        const auto sw = aHca ? link.b.node : link.a.node;
        if (topo.node(hca).kind != NodeKind::Hca || topo.node(sw).kind != NodeKind::Switch || m_podOf[index(sw)] < 0) {
            continue;
        }
        const int host = m_hostOfNode[index(hca)];
        auto& span = m_podHosts[std::size_t(m_podOf[index(sw)])];
        span = { span.first < 0 ? host : std::min(span.first, host), std::max(span.second, host) };
    }
    m_aggregate = m_bundling && switchLinks > 256;
}

void TopologyWidget::setBundling(bool on)
{
    m_bundling = on;
    if (m_snap) {
        setData(m_snap, m_analysis);
    }
}

std::optional<LinkId> TopologyWidget::markedLink() const
{
    const int n = m_state->selectedIncident();
    if (!m_analysis || n < 1 || n > int(m_analysis->incidents.size())) {
        return std::nullopt;
    }
    const auto& inc = m_analysis->incidents[std::size_t(n - 1)];
    return inc.culprit ? std::optional<LinkId>(inc.culprit->link) : std::nullopt;
}

TimeNs TopologyWidget::now() const
{
    if (m_state->cursor() != kNoTime) {
        return m_state->cursor();
    }
    return m_state->window().start + m_state->window().delta() / 2;
}

TopologyWidget::Layout TopologyWidget::layout(QSizeF size, double zoom, double pan) const
{
    Layout l;
    const auto& topo = m_snap->topology;
    l.nodePos.assign(topo.nodes().size(), QPointF());
    l.canvasW = size.width() * zoom; // the fabric is laid out on the view's width, then stretched by the zoom
    l.pan = pan;
    l.zoom = zoom;
    const double w = size.width(), h = size.height();
    const double margin = 16;
    auto spread = [&](const std::vector<NodeId>& nodes, double y) {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            l.nodePos[index(nodes[i])] = QPointF(margin + (w - 2 * margin) * (i + 0.5) / double(nodes.size()), y);
        }
    };
    if (m_cores.empty()) {
        spread(m_spines, 30);
        spread(m_leaves, h * 0.42);
    } else {
        spread(m_cores, 30);
        spread(m_spines, h * 0.24);
        spread(m_leaves, h * 0.46);
    }
    // Room for the HCA row when a host is expanded; below the hosts, their labels (~34 px) and the two legend
    // lines (~44 px) must fit however short the view is, so a short dock moves the hosts up, not over the legend.
    const double below = 34 + 44 + (m_expandedHost >= 0 ? 80 : 0);
    const double leafY = m_cores.empty() ? h * 0.42 : h * 0.46;
    l.hostTop = std::max(leafY + 24, std::min(h * (m_expandedHost >= 0 ? 0.62 : 0.78), h - below));
    const double hostW = (w - 2 * margin) / double(std::max<std::size_t>(1, m_hosts.size()));
    for (std::size_t i = 0; i < m_hosts.size(); ++i) {
        l.hostBox.emplace_back(margin + i * hostW, l.hostTop, hostW, 18);
    }
    for (auto& box : l.hostBox) { // linear in x: the canvas point under the pointer stays under it when zooming
        box = QRectF(
            l.x(box.left()), box.top(), std::max(1.0, box.width() * zoom - (hostW * zoom > 4 ? 1 : 0)), box.height());
    }
    for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
        if (m_hostOfNode[i] >= 0) {
            const auto& box = l.hostBox[std::size_t(m_hostOfNode[i])];
            l.nodePos[i] = QPointF(box.center().x(), box.top());
        } else {
            l.nodePos[i].rx() = l.x(l.nodePos[i].x());
        }
    }
    return l;
}

TopologyWidget::Layout TopologyWidget::screenLayout() const
{
    return layout(size(), m_zoom, m_panX);
}

void TopologyWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintView(p, size(), m_zoom, m_panX);
}

QImage TopologyWidget::renderImage(QSize size)
{
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&img);
    paintInto(p, size);
    return img;
}

void TopologyWidget::paintInto(QPainter& p, QSizeF size)
{
    paintView(p, size, 1.0, 0.0); // images and exports: the whole fabric
}

void TopologyWidget::paintView(QPainter& p, QSizeF size, double zoom, double pan)
{
    const QPalette pal = palette();
    p.fillRect(QRectF(QPointF(0, 0), size), pal.color(QPalette::Base));
    if (!m_snap || m_snap->topology.nodes().empty()) {
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter, tr("No fabric topology in this bundle."));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    const auto l = layout(size, zoom, pan);
    const auto& topo = m_snap->topology;
    const TimeNs t = now();
    const auto marked = markedLink();
    std::vector<std::uint32_t> selectedHosts;
    for (const auto r : m_state->selectedRanks()) {
        if (r < m_snap->ranks.size() && m_snap->ranks[r].hcaNode) {
            selectedHosts.push_back(std::uint32_t(m_hostOfNode[index(*m_snap->ranks[r].hcaNode)]));
        }
    }
    // Host links bundled: one faint fan per leaf; then every link that is not normal, or is marked.
    QColor fan = healthColor(LinkHealth::Normal, pal);
    fan.setAlpha(35);
    p.setPen(Qt::NoPen);
    p.setBrush(fan);
    for (const auto leaf : m_leaves) {
        const QPointF a = l.nodePos[index(leaf)];
        double left = l.x(16), right = l.x(size.width() - 16); // to the hosts below its pod, or all of them
        if (const int pod = m_podOf[index(leaf)];
            m_podCount > 1 && pod >= 0 && m_podHosts[std::size_t(pod)].first >= 0) {
            left = l.hostBox[std::size_t(m_podHosts[std::size_t(pod)].first)].left();
            right = l.hostBox[std::size_t(m_podHosts[std::size_t(pod)].second)].right();
        }
        QPolygonF poly({ a + QPointF(-3, 0), a + QPointF(3, 0), QPointF(right, l.hostTop), QPointF(left, l.hostTop) });
        p.drawPolygon(poly);
    }
    std::optional<QPointF> culpritAt; // the marked link's middle; its label is drawn last, on top
    QString culpritText;
    std::map<std::pair<std::int64_t, std::int64_t>, Bundle> bundles;
    std::vector<std::pair<LinkId, LinkHealth>> individual;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto id = static_cast<LinkId>(i);
        const auto& link = topo.links()[i];
        const bool hostLink
            = topo.node(link.a.node).kind == NodeKind::Hca || topo.node(link.b.node).kind == NodeKind::Hca;
        const auto health = m_states->stateAt(id, t);
        const bool isMarked = marked && *marked == id;
        if (hostLink && health == LinkHealth::Normal && !isMarked) {
            continue;
        }
        if (hostLink && health == LinkHealth::Idle && !isMarked) {
            continue; // a stalled job idles every host link: the fan says enough
        }
        if (isMarked) {
            continue; // drawn last, over the thousands of others (at 16,384 ranks they would bury it)
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
        const bool hostLink
            = topo.node(link.a.node).kind == NodeKind::Hca || topo.node(link.b.node).kind == NodeKind::Hca;
        p.setPen(QPen(healthColor(health, pal), hostLink ? 1.5 : 2.0));
        p.drawLine(l.nodePos[index(link.a.node)], l.nodePos[index(link.b.node)]);
    }
    if (marked) {
        const auto& link = topo.link(*marked);
        const QPointF a = l.nodePos[index(link.a.node)], b = l.nodePos[index(link.b.node)];
        p.setPen(QPen(pal.color(QPalette::Base), 8.0)); // a halo: it reads over any bundle of lines
        p.drawLine(a, b);
        p.setPen(QPen(healthColor(m_states->stateAt(*marked, t), pal), 4.0));
        p.drawLine(a, b);
        p.setPen(QPen(pal.color(QPalette::Text), 1.0, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        const QPointF mid = (a + b) / 2;
        p.drawEllipse(mid, 9, 9);
        culpritAt = mid;
        culpritText = tr("culprit: %1 ↔ %2")
                          .arg(QString::fromStdString(m_snap->str(topo.node(link.a.node).description)),
                              QString::fromStdString(m_snap->str(topo.node(link.b.node).description)));
    }
    // Links trained below their tier's rate: dashed, in the text colour, whatever their state (a persistent
    // slowdown, not an event in time).
    if (m_analysis) {
        p.setPen(QPen(pal.color(QPalette::Text), 2.5, Qt::DashLine));
        for (const auto& d : m_analysis->degradedLinks) {
            const auto& link = topo.link(d.link);
            p.drawLine(l.nodePos[index(link.a.node)], l.nodePos[index(link.b.node)]);
        }
    }
    // Switches and hosts.
    p.setRenderHint(QPainter::Antialiasing, false);
    const QColor text = pal.color(QPalette::Text);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    p.setFont(small);
    auto drawSwitch = [&](NodeId id, double boxW) {
        const QPointF c = l.nodePos[index(id)];
        const QRectF box(c.x() - boxW / 2, c.y() - 9, boxW, 18);
        p.setPen(text);
        p.setBrush(pal.color(QPalette::Button));
        p.drawRect(box);
        const QString name = QString::fromStdString(m_snap->str(topo.node(id).description));
        p.drawText(box, Qt::AlignCenter, fitSwitchName(name, p.fontMetrics(), int(boxW) - 2));
    };
    const auto boxWidth = [&](std::size_t count) {
        return std::clamp((l.canvasW - 32) / double(std::max<std::size_t>(1, count)) - 4, 8.0, 60.0);
    };
    for (const auto id : m_cores) {
        drawSwitch(id, boxWidth(m_cores.size()));
    }
    for (const auto id : m_spines) {
        drawSwitch(id, boxWidth(m_spines.size()));
    }
    for (const auto id : m_leaves) {
        drawSwitch(id, boxWidth(m_leaves.size()));
    }
    for (std::size_t i = 0; i < m_hosts.size(); ++i) {
        const bool sel = std::find(selectedHosts.begin(), selectedHosts.end(), i) != selectedHosts.end();
        p.setPen(Qt::NoPen);
        p.setBrush(sel ? QColor(0xf0, 0xe4, 0x42) : pal.color(QPalette::Mid));
        p.drawRect(l.hostBox[i]);
    }
    if (marked) {
        // The culprit's switches outlined in the stall colour: findable even where 64 boxes have no room for names.
        const auto& link = topo.link(*marked);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(healthColor(LinkHealth::Down, pal), 2.5));
        for (const auto end : { link.a.node, link.b.node }) {
            if (topo.node(end).kind == NodeKind::Switch) {
                const QPointF c = l.nodePos[index(end)];
                const std::size_t count = std::find(m_cores.begin(), m_cores.end(), end) != m_cores.end()
                    ? m_cores.size()
                    : std::find(m_spines.begin(), m_spines.end(), end) != m_spines.end() ? m_spines.size()
                                                                                         : m_leaves.size();
                const double w = boxWidth(count);
                p.drawRect(QRectF(c.x() - w / 2 - 2, c.y() - 11, w + 4, 22));
            }
        }
    }
    drawMatches(p, l);
    if (culpritAt) {
        // On a plate, right of the mark, or left of it when it would leave the view.
        const double w = p.fontMetrics().horizontalAdvance(culpritText) + 8;
        const double x = culpritAt->x() + 12 + w <= size.width() - 4 ? culpritAt->x() + 12
                                                                     : std::max(4.0, culpritAt->x() - 12 - w);
        const QRectF plate(x, culpritAt->y() - 9, w, 18);
        QColor back = pal.color(QPalette::Base);
        back.setAlpha(220);
        p.fillRect(plate, back);
        p.setPen(text);
        p.drawText(plate, Qt::AlignCenter, culpritText);
    }
    p.setPen(text);
    const auto labelW = double(p.fontMetrics().horizontalAdvance(QStringLiteral("gpu-a000 ")));
    const std::size_t every = std::max<std::size_t>(
        1, std::size_t(std::ceil(labelW * double(m_hosts.size()) / std::max(1.0, l.canvasW - 32))));
    for (std::size_t i = 0; i < m_hosts.size(); i += every) {
        p.drawText(QRectF(l.hostBox[i].left(), l.hostTop + 20, 90, 14), Qt::AlignLeft,
            QString::fromStdString(m_snap->str(m_hosts[i])));
    }
    drawCaptions(p, l, size);
    // An expanded host: its HCAs one by one under the host row, each linked to its leaf, coloured by state.
    if (m_expandedHost >= 0 && std::size_t(m_expandedHost) < m_ranksOfHost.size()) {
        const auto& ranks = m_ranksOfHost[std::size_t(m_expandedHost)];
        p.setRenderHint(QPainter::Antialiasing, true);
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            const QRectF box = hcaBox(l, i, ranks.size());
            const auto& ri = m_snap->ranks[ranks[i]];
            if (ri.hcaNode) {
                if (auto link = topo.linkAt({ *ri.hcaNode, ri.hcaPort })) {
                    const auto& lk = topo.link(*link);
                    const auto leaf = topo.node(lk.a.node).kind == NodeKind::Switch ? lk.a.node : lk.b.node;
                    p.setPen(
                        QPen(healthColor(m_states->stateAt(*link, t), pal), marked && *marked == *link ? 3.0 : 1.5));
                    p.drawLine(QPointF(box.center().x(), box.top()), l.nodePos[index(leaf)]);
                }
            }
            const bool sel
                = std::binary_search(m_state->selectedRanks().begin(), m_state->selectedRanks().end(), ranks[i]);
            p.setPen(text);
            p.setBrush(sel ? QColor(0xf0, 0xe4, 0x42) : pal.color(QPalette::Button));
            p.drawRect(box);
            p.drawText(box, Qt::AlignCenter, QString::fromStdString(m_snap->str(ri.hca)));
        }
        p.setRenderHint(QPainter::Antialiasing, false);
        p.drawText(QRectF(8, l.hostTop + 80, size.width() - 16, 14), Qt::AlignLeft,
            tr("%1 expanded (double-click to collapse)")
                .arg(QString::fromStdString(m_snap->str(m_hosts[std::size_t(m_expandedHost)]))));
    }
    // Legend and time.
    double x = 8;
    const double y = size.height() - 18;
    for (const auto h :
        { LinkHealth::Normal, LinkHealth::Idle, LinkHealth::Congested, LinkHealth::Erroring, LinkHealth::Down }) {
        p.fillRect(QRectF(x, y + 3, 14, 4), healthColor(h, pal));
        const QString label = QString::fromStdString(std::string(toString(h)));
        p.drawText(QRectF(x + 18, y - 2, 80, 14), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += 26 + p.fontMetrics().horizontalAdvance(label);
    }
    if (m_analysis && !m_analysis->degradedLinks.empty()) {
        p.setPen(QPen(pal.color(QPalette::Text), 2, Qt::DashLine));
        p.drawLine(QPointF(x, y + 5), QPointF(x + 14, y + 5));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(x + 18, y - 2, 200, 14), Qt::AlignLeft | Qt::AlignVCenter,
            tr("degraded (%1)").arg(m_analysis->degradedLinks.size()));
    }
    p.drawText(QRectF(8, y - 20, size.width() - 16, 14), Qt::AlignLeft | Qt::AlignVCenter,
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
    const auto caption = [&](const std::vector<NodeId>& row, const QString& text) {
        if (!row.empty()) {
            const double y = l.nodePos[index(row.front())].y();
            p.drawText(QRectF(4, y - 24, size.width() - 8, 13), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
    };
    const QString pods = m_podCount > 1 ? tr(" in %1 pods").arg(m_podCount) : QString();
    caption(m_cores, tr("%1 core switches").arg(m_cores.size()));
    caption(m_spines, tr("%1 spines%2").arg(m_spines.size()).arg(pods));
    caption(m_leaves, tr("%1 leaves%2").arg(m_leaves.size()).arg(pods));
    if (m_podCount <= 1 || m_leaves.empty()) {
        return;
    }
    const double y = l.nodePos[index(m_leaves.front())].y() + 10;
    for (int pod = 0; pod < m_podCount; ++pod) {
        double left = size.width(), right = 0;
        for (const auto leaf : m_leaves) {
            if (m_podOf[index(leaf)] == pod) {
                left = std::min(left, l.nodePos[index(leaf)].x());
                right = std::max(right, l.nodePos[index(leaf)].x());
            }
        }
        const QString name = podName(pod);
        if (right >= left && right - left + 16 >= p.fontMetrics().horizontalAdvance(name)) {
            p.drawText(QRectF(left - 8, y, right - left + 16, 13), Qt::AlignCenter, name);
        }
    }
}

std::optional<LinkId> TopologyWidget::linkAt(QPointF pos) const
{
    if (!m_snap) {
        return std::nullopt;
    }
    const auto l = screenLayout();
    const auto& topo = m_snap->topology;
    std::optional<LinkId> best;
    double bestD = 5.0;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& link = topo.links()[i];
        const double d = distanceToSegment(pos, l.nodePos[index(link.a.node)], l.nodePos[index(link.b.node)]);
        const bool hostLink = topo.node(link.a.node).kind == NodeKind::Hca;
        if (!hostLink && d < bestD) {
            bestD = d;
            best = static_cast<LinkId>(i);
        }
    }
    return best;
}

int TopologyWidget::hostAt(QPointF pos) const
{
    if (!m_snap) {
        return -1;
    }
    const auto l = screenLayout();
    for (std::size_t i = 0; i < l.hostBox.size(); ++i) {
        if (l.hostBox[i].adjusted(0, -2, 0, 2).contains(pos)) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

QRectF TopologyWidget::hcaBox(const Layout& l, std::size_t i, std::size_t count) const
{
    const double w = std::min(70.0, (width() - 32.0) / double(std::max<std::size_t>(1, count)) - 4);
    const double total = double(count) * (w + 4);
    const double left = std::max(16.0, (width() - total) / 2);
    return QRectF(left + double(i) * (w + 4), l.hostTop + 56, w, 18);
}

int TopologyWidget::hcaAt(QPointF pos) const
{
    if (!m_snap || m_expandedHost < 0) {
        return -1;
    }
    const auto l = screenLayout();
    const auto& ranks = m_ranksOfHost[std::size_t(m_expandedHost)];
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (hcaBox(l, i, ranks.size()).contains(pos)) {
            return static_cast<int>(ranks[i]);
        }
    }
    return -1;
}

void TopologyWidget::setExpandedHost(int host)
{
    m_expandedHost = host;
    update();
}

void TopologyWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    const int h = hostAt(event->position());
    if (h < 0 && !linkAt(event->position()) && m_zoom > 1.0) {
        setZoom(1.0, 0.0); // on empty space: the whole fabric again
        return;
    }
    setExpandedHost(h >= 0 && h != m_expandedHost ? h : -1);
}

void TopologyWidget::setZoom(double zoom, double anchorX)
{
    // The canvas point under anchorX stays under it.
    const double w = std::max(1, width());
    const double frac = (anchorX + m_panX) / (w * m_zoom);
    m_zoom = std::clamp(zoom, 1.0, 64.0);
    m_panX = std::clamp(frac * w * m_zoom - anchorX, 0.0, w * (m_zoom - 1.0));
    update();
}

void TopologyWidget::wheelEvent(QWheelEvent* event)
{
    const double notches = event->angleDelta().y() / 120.0;
    if (notches != 0) {
        setZoom(m_zoom * std::pow(1.25, notches), event->position().x());
    }
    event->accept();
}

void TopologyWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton) || !m_dragFrom) {
        return;
    }
    const double dx = event->position().x() - m_dragFrom->x();
    if (std::abs(dx) > 4 || m_dragging) {
        m_dragging = true;
        m_panX = std::clamp(m_dragPan - dx, 0.0, std::max(1, width()) * (m_zoom - 1.0));
        update();
    }
}

void TopologyWidget::mouseReleaseEvent(QMouseEvent*)
{
    m_dragFrom.reset();
    m_dragging = false;
}

// Switches and hosts whose names hold `text` (case-insensitive) are outlined; the view pans to the first.
int TopologyWidget::setSearch(const QString& text)
{
    m_search = text.trimmed();
    m_matches.clear();
    if (m_snap && !m_search.isEmpty()) {
        const auto& topo = m_snap->topology;
        for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
            const auto& n = topo.nodes()[i];
            const auto name = QString::fromStdString(m_snap->str(n.kind == NodeKind::Switch ? n.description : n.host));
            if (name.contains(m_search, Qt::CaseInsensitive)
                && (n.kind == NodeKind::Switch || std::none_of(m_matches.begin(), m_matches.end(), [&](NodeId m) {
                       return m_hostOfNode[index(m)] == m_hostOfNode[i];
                   }))) {
                m_matches.push_back(static_cast<NodeId>(i));
            }
        }
    }
    if (!m_matches.empty()) {
        const double x = screenLayout().nodePos[index(m_matches.front())].x();
        if (x < 0 || x > width()) {
            m_panX = std::clamp(m_panX + x - width() / 2.0, 0.0, std::max(1, width()) * (m_zoom - 1.0));
        }
    }
    update();
    return int(m_matches.size());
}

std::optional<QPointF> TopologyWidget::nodeOnScreen(NodeId node) const
{
    if (!m_snap || index(node) >= m_snap->topology.nodes().size()) {
        return std::nullopt;
    }
    return screenLayout().nodePos[index(node)];
}

void TopologyWidget::mousePressEvent(QMouseEvent* event)
{
    m_dragFrom = event->position(); // a drag that follows pans the zoomed fabric
    m_dragPan = m_panX;
    if (const int r = hcaAt(event->position()); r >= 0) {
        m_state->selectRank(static_cast<std::uint32_t>(r)); // one HCA: its rank, and its link's counters
        const auto& ri = m_snap->ranks[std::size_t(r)];
        if (ri.hcaNode) {
            if (auto link = m_snap->topology.linkAt({ *ri.hcaNode, ri.hcaPort })) {
                m_state->selectLink(*link);
            }
        }
        return;
    }
    if (const int h = hostAt(event->position()); h >= 0 && !m_ranksOfHost[std::size_t(h)].empty()) {
        m_state->selectRanks(m_ranksOfHost[std::size_t(h)]); // the host's ranks light up in the heatmap
        return;
    }
    if (auto link = linkAt(event->position())) {
        m_state->selectLink(*link);
    }
}

bool TopologyWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_snap) {
        auto* help = static_cast<QHelpEvent*>(event);
        QString text;
        if (const int h = hostAt(help->pos()); h >= 0) {
            const auto& ranks = m_ranksOfHost[std::size_t(h)];
            text = tr("<b>%1</b>: %2 HCAs, ranks %3–%4")
                       .arg(QString::fromStdString(m_snap->str(m_hosts[std::size_t(h)])))
                       .arg(ranks.size())
                       .arg(ranks.empty() ? 0 : ranks.front())
                       .arg(ranks.empty() ? 0 : ranks.back());
        } else if (auto link = linkAt(help->pos())) {
            const auto& l = m_snap->topology.link(*link);
            text = tr("%1 p%2 ↔ %3 p%4: %5")
                       .arg(QString::fromStdString(m_snap->str(m_snap->topology.node(l.a.node).description)))
                       .arg(l.a.port)
                       .arg(QString::fromStdString(m_snap->str(m_snap->topology.node(l.b.node).description)))
                       .arg(l.b.port)
                       .arg(QString::fromStdString(std::string(toString(m_states->stateAt(*link, now())))));
        }
        text.isEmpty() ? QToolTip::hideText() : QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TopologyWidget::contextMenuEvent(QContextMenuEvent* event)
{
    execViewMenu(this, event, [this] { emit exportRequested(); });
}

} // namespace stallscope
