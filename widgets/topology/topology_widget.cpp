// SPDX-License-Identifier: MIT
#include "topology/topology_widget.h"
#include "plain_text.h"
#include "view_menu.h"

#include "analysis/analysis.h"
#include "core/time_format.h"
#include "heatmap/heatmap_palette.h"
#include "topology/topology_internal.h"
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
#include <limits>
#include <map>

namespace stallscope {

using topology::healthColor;

namespace {

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

namespace {

// The smallest step ≥ `step` that divides `podSize` or is a multiple of it (unchanged without pods).
std::size_t podAligned(std::size_t step, std::size_t podSize)
{
    if (podSize <= 1) {
        return step;
    }
    if (step > podSize) {
        return (step + podSize - 1) / podSize * podSize;
    }
    while (podSize % step != 0) {
        ++step;
    }
    return step;
}

QString lastToken(const QString& name)
{
    const auto cut = std::max(name.lastIndexOf(QLatin1Char('-')), name.lastIndexOf(QLatin1Char('_')));
    return cut >= 0 && cut + 1 < name.size() ? name.mid(cut + 1) : name;
}

} // namespace

std::vector<SwitchLabel> switchRowLabels(const QStringList& names, const std::vector<double>& centres, double y,
    double boxW, const QFontMetrics& fm, std::size_t podSize)
{
    std::vector<SwitchLabel> out;
    bool roomy = true;
    double widest = 0;
    for (const auto& n : names) {
        const auto token = lastToken(n);
        roomy = roomy && fm.horizontalAdvance(token) <= boxW - 2;
        widest = std::max(widest, double(fm.horizontalAdvance(token)));
    }
    if (roomy) {
        for (qsizetype i = 0; i < names.size(); ++i) {
            out.push_back({ QRectF(centres[std::size_t(i)] - boxW / 2, y - 9, boxW, 18),
                fitSwitchName(names[i], fm, int(boxW) - 2), true });
        }
        return out;
    }
    const double pitch = centres.size() > 1 ? std::abs(centres[1] - centres[0]) : boxW + 4;
    const auto step
        = podAligned(std::max<std::size_t>(std::size_t(std::ceil((widest + 4) / std::max(pitch, 1.0))), 1), podSize);
    for (std::size_t i = 0; i < centres.size(); i += step) {
        const double w = widest + 4;
        out.push_back({ QRectF(centres[i] - w / 2, y + 10, w, fm.height()), lastToken(names[qsizetype(i)]), false });
    }
    return out;
}

std::vector<SwitchLabel> podCaptions(const QStringList& names, const std::vector<std::pair<double, double>>& spans,
    double y, double width, const QFontMetrics& fm)
{
    if (names.isEmpty() || spans.size() != std::size_t(names.size())) {
        return {};
    }
    // What every name shares, back to a token's start: "leaf-p" of "leaf-p0" … "leaf-p15" → "leaf-".
    auto shared = names.front();
    for (const auto& n : names) {
        qsizetype k = 0;
        while (k < shared.size() && k < n.size() && shared[k] == n[k]) {
            ++k;
        }
        shared.truncate(k);
    }
    while (!shared.isEmpty() && !QStringLiteral("-_ ").contains(shared.back())) {
        shared.chop(1);
    }
    std::vector<QStringList> forms { names, {}, {} };
    for (qsizetype i = 0; i < names.size(); ++i) {
        forms[1] << names[i].mid(shared.size());
        forms[2] << QString::number(i + 1);
    }
    // Every k-th pod's caption in one form: nullopt when two collide or one leaves the view.
    const auto placed = [&](const QStringList& form, std::size_t k) -> std::optional<std::vector<SwitchLabel>> {
        std::vector<SwitchLabel> out;
        for (std::size_t i = 0; i < spans.size(); i += k) {
            const double w = fm.horizontalAdvance(form[qsizetype(i)]) + 6;
            const double centre = (spans[i].first + spans[i].second) / 2;
            const QRectF r(std::clamp(centre - w / 2, 0.0, std::max(0.0, width - w)), y, w, fm.height());
            if (form[qsizetype(i)].isEmpty() || r.right() > width + 0.5
                || (!out.empty() && r.left() < out.back().rect.right())) {
                return std::nullopt;
            }
            out.push_back({ r, form[qsizetype(i)], false });
        }
        return out;
    };
    for (const auto& form : forms) {
        if (auto all = placed(form, 1)) {
            return *all;
        }
    }
    for (std::size_t k = 2; k < spans.size(); ++k) {
        if (auto some = placed(forms[2], k)) {
            return *some;
        }
    }
    return {};
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

void TopologyWidget::setEmptyText(const QString& text)
{
    m_emptyText = text;
    update();
}

void TopologyWidget::setData(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis,
    std::shared_ptr<const LinkStates> states, bool statesToCome)
{
    const bool sameJob = snap && snap == m_snap;
    m_snap = std::move(snap);
    m_analysis = std::move(analysis);
    m_cores.clear();
    m_spines.clear();
    m_leaves.clear();
    m_hosts.clear();
    m_hostOfNode.clear();
    m_ranksOfHost.clear();
    // The same job again (its next stage, the analysis shown or hidden) keeps its link states.
    if (states) {
        m_states = std::move(states);
    } else if (!sameJob) {
        m_states.reset();
    }
    // Another fabric: the whole of it. The same job's next stage keeps where the user zoomed, panned and expanded
    // (its hosts are found again in the same order, so an index still names the same host).
    if (!sameJob) {
        m_expandedHost = -1;
        m_flagged.clear();
        m_zoom = 1.0;
        m_panX = 0;
    }
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
        findHostBlocks();
        if (!m_states && !statesToCome) {
            m_states = std::make_shared<const LinkStates>(m_snap);
        }
        if (!m_search.isEmpty()) {
            setSearch(m_search);
        }
    }
    update();
}

void TopologyWidget::setLinkStates(std::shared_ptr<const LinkStates> states)
{
    m_states = std::move(states);
    update();
}

LinkHealth TopologyWidget::healthAt(LinkId link, TimeNs t) const
{
    return m_states ? m_states->stateAt(link, t) : LinkHealth::Normal;
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

QFont TopologyWidget::smallFont() const
{
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    return small;
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
    // Room for the HCA row when a host is expanded; below the hosts, their labels (~34 px), the time line and the
    // legend's lines must fit however short the view is, so a short dock moves the hosts up, not over the legend.
    const double below = 34 + 28 + kLegendLinePx * legendLines(size) + (m_expandedHost >= 0 ? 80 : 0);
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
    if (hostsCompact(l)) {
        return -1; // a block, not one of its hosts (hostBlockAt)
    }
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
    if (const int block = hostBlockAt(event->position()); block >= 0) {
        expandHostBlock(block);
        return;
    }
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
        zoomToMatches();
    }
    update();
    return int(m_matches.size());
}

// Zooms so the matches span the view (a lone match: until ~24 hosts fill it, so a host among thousands is a box
// of its own) and centres them; at 16,384 ranks a matched host was an outline on a sub-pixel sliver.
void TopologyWidget::zoomToMatches()
{
    const auto base = layout(size());
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const auto m : m_matches) {
        lo = std::min(lo, base.nodePos[index(m)].x());
        hi = std::max(hi, base.nodePos[index(m)].x());
    }
    const double w = std::max(1, width());
    const double hostW = base.hostBox.empty() ? w : base.hostBox.front().width();
    const double span = std::max(hi - lo, std::min(w / 2, 24 * hostW));
    m_zoom = std::clamp((w - 64) / span, 1.0, 64.0);
    m_panX = std::clamp((lo + hi) / 2 * m_zoom - w / 2, 0.0, w * (m_zoom - 1.0));
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
    if (const int block = hostBlockAt(event->position()); block >= 0) {
        m_state->selectRanks(ranksOfBlock(block)); // the block's ranks light up in the heatmap
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
        if (const int block = hostBlockAt(help->pos()); block >= 0) {
            text = hostBlockTip(block);
        } else if (const int h = hostAt(help->pos()); h >= 0) {
            const auto& ranks = m_ranksOfHost[std::size_t(h)];
            text = tr("<b>%1</b>: %2 HCAs, ranks %3–%4")
                       .arg(htmlText(std::string(m_snap->str(m_hosts[std::size_t(h)]))))
                       .arg(ranks.size())
                       .arg(ranks.empty() ? 0 : ranks.front())
                       .arg(ranks.empty() ? 0 : ranks.back());
            if (std::size_t(h) < m_flagged.size() && m_flagged[std::size_t(h)]) {
                text += tr("<br>node findings: see the Hosts panel");
            }
        } else if (auto link = linkAt(help->pos())) {
            const auto& l = m_snap->topology.link(*link);
            text = tr("%1 p%2 ↔ %3 p%4: %5")
                       .arg(htmlText(std::string(m_snap->str(m_snap->topology.node(l.a.node).description))))
                       .arg(l.a.port)
                       .arg(htmlText(std::string(m_snap->str(m_snap->topology.node(l.b.node).description))))
                       .arg(l.b.port)
                       .arg(m_states ? QString::fromStdString(std::string(toString(m_states->stateAt(*link, now()))))
                                     : tr("state still being read"));
        }
        text.isEmpty() ? QToolTip::hideText()
                       : QToolTip::showText(help->globalPos(), text, this); // rich: names escaped
        return true;
    }
    return QWidget::event(event);
}

void TopologyWidget::contextMenuEvent(QContextMenuEvent* event)
{
    execViewMenu(this, event, [this] { emit exportRequested(); });
}

} // namespace stallscope
