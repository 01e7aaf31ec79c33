// SPDX-License-Identifier: MIT
#pragma once

// The fabric, tiers top to bottom: cores, spines, leaves, hosts (each host box stands for its HCAs), each row
// captioned with its count and, in three-tier fabrics, its pods. Links are coloured by their state at the
// ViewState cursor (down, erroring, congested, idle, normal); host links are bundled per leaf (a fan to its pod's
// hosts) and drawn one by one only when they are not normal or are marked; in large fabrics healthy switch links
// are bundled too, per pair of switch groups, with their count. The culprit link of
// the selected incident is marked. Clicking a host selects its first rank; clicking an uplink plots it.

#include "view/link_state.h"

#include <QFontMetrics>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <map>

#include <memory>
#include <optional>

namespace stallscope {

struct AnalysisResult;
class ViewState;

// A switch name that fits a box `width` pixels wide: whole; else without leading tokens the row and the pod
// captions already say ("spine-p2-02" → "p2-02" → "02"); else the last token elided.
QString fitSwitchName(const QString& name, const QFontMetrics& fm, int width);

// A switch's label: inside its box, or under the row when the boxes are too narrow for any name.
struct SwitchLabel
{
    QRectF rect;
    QString text;
    bool inside = true;
};
// Labels for one row of switch boxes (names, box centres in view x, the row's y, the boxes' width): inside each box
// (fitSwitchName) when every box has room for at least its last token; else that token ("64" of "spine-64") for
// every k-th box under the row, k the smallest step at which they do not overlap — like an axis's ticks, so a
// person can still count along 64 boxes. In a row of pods of `podSize` switches each (0: one pod, or pods of
// different sizes), k divides the pod's size or is a multiple of it, so every pod is numbered alike from its first
// switch ("01 03 | 01 03 |"), never "01 04 03 02" as a step across pods would read.
std::vector<SwitchLabel> switchRowLabels(const QStringList& names, const std::vector<double>& centres, double y,
    double boxW, const QFontMetrics& fm, std::size_t podSize = 0);

// Captions naming the pods under the leaf row, each centred under its pod's leaves (`spans`: the leftmost and
// rightmost leaf centre of each pod, in view x) and kept within [0, width]: the longest form in which every pod's
// caption stands apart — its name ("leaf-p5"), what tells the names apart ("p5"), or its number ("6") — and, when
// even the shortest collide, every k-th pod's, from the first.
std::vector<SwitchLabel> podCaptions(const QStringList& names, const std::vector<std::pair<double, double>>& spans,
    double y, double width, const QFontMetrics& fm);

class TopologyWidget : public QWidget
{
    Q_OBJECT
public:
    TopologyWidget(ViewState* state, QWidget* parent = nullptr);
    // `states`: the links' health over time, built off the GUI thread with the job (OpenedJob::linkStates); null
    // builds it here, once per snapshot (seconds at 33,792 links: a window passes it, renders and tests need not),
    // unless `statesToCome`: the loader is building them and setLinkStates brings them (links drawn normal till then).
    void setData(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis,
        std::shared_ptr<const LinkStates> states = nullptr, bool statesToCome = false);
    // The shown job's link states, when setData was told they were to come.
    void setLinkStates(std::shared_ptr<const LinkStates> states);
    std::optional<LinkId> markedLink() const; // the selected incident's culprit
    // Shown while no job is open (set by the window: app/window/empty_states.h); a job without a topology says so itself.
    void setEmptyText(const QString& text);
    QString emptyText() const { return m_emptyText; }
    const LinkStates* linkStates() const { return m_states.get(); }
    QImage renderImage(QSize size);
    void paintInto(QPainter& p, QSizeF size);
    QSize sizeHint() const override { return { 520, 360 }; }

signals:
    void exportRequested(); // "Export…" from the view's context menu

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override; // expands / collapses a host; on empty space unzooms
    void wheelEvent(QWheelEvent* event) override; // zooms the fabric horizontally around the pointer
    void mouseMoveEvent(QMouseEvent* event) override; // a drag pans the zoomed fabric
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Layout
    {
        std::vector<QPointF> nodePos; // per topology node (HCAs sit at their host's box), in view pixels
        std::vector<QRectF> hostBox; // per host (index into m_hosts)
        double hostTop = 0;
        double canvasW = 0; // the width the fabric is laid out on (the view's, times the zoom)
        double pan = 0; // the canvas x at the view's left edge
        double zoom = 1;
        double x(double unzoomed) const { return unzoomed * zoom - pan; } // view x of an x laid out at zoom 1
    };
    Layout layout(QSizeF size, double zoom = 1.0, double pan = 0.0) const;
    Layout screenLayout() const; // as on screen: zoomed and panned
    // Drawing (topology_paint.cpp), bottom layer to top.
    void paintView(QPainter& p, QSizeF size, double zoom, double pan);
    void drawHostFans(QPainter& p, const Layout& l) const;
    std::optional<QPointF> drawLinks(QPainter& p, const Layout& l, TimeNs t, std::optional<LinkId> marked) const;
    void drawDegraded(QPainter& p, const Layout& l) const;
    double switchBoxWidth(const Layout& l, std::size_t count) const;
    void drawNodes(QPainter& p, const Layout& l, std::optional<LinkId> marked) const;
    void drawCulpritLabel(QPainter& p, QPointF at, LinkId marked, QSizeF size) const;
    void drawHosts(QPainter& p, const Layout& l, std::optional<LinkId> marked) const;
    void drawHostLabels(QPainter& p, const Layout& l, QSizeF size) const;
    // The host row (topology_hosts.cpp).
    void findHostBlocks(); // m_hostBlocks, m_hostsOfSwitch
    bool hostsCompact(const Layout& l) const;
    QRectF hostBlockRect(const Layout& l, std::size_t block) const;
    std::vector<SwitchLabel> hostRowLabels(const Layout& l, const QFontMetrics& fm, double viewW) const;
    int hostBlockAt(QPointF pos) const;
    QString hostBlockTip(int block) const;
    std::vector<std::uint32_t> ranksOfBlock(int block) const;
    void drawExpandedHost(QPainter& p, const Layout& l, TimeNs t, std::optional<LinkId> marked, QSizeF size) const;
    void drawLegend(QPainter& p, QSizeF size, TimeNs t) const;
    struct LegendEntry
    {
        QString label;
        std::optional<LinkHealth> health; // nullopt: the degraded links' dash
        QRectF rect; // swatch and label
    };
    static constexpr double kLegendLinePx = 16;
    std::vector<LegendEntry> legendLayout(QSizeF size, const QFontMetrics& fm) const;
    void zoomToMatches();
    int legendLines(QSizeF size) const;
    QFont smallFont() const; // the labels' and legend's font
    void drawMatches(QPainter& p, const Layout& l) const;
    struct Bundle
    {
        std::size_t count = 0;
        LinkHealth worst = LinkHealth::Idle;
        QPointF sumA, sumB; // sums of the ends' positions: their means are the groups' centres
    };
    std::int64_t groupOf(NodeId id) const;
    void addToBundle(std::map<std::pair<std::int64_t, std::int64_t>, Bundle>& bundles, const FabricLink& link,
        LinkHealth health, const Layout& l) const;
    void drawBundles(
        QPainter& p, const std::map<std::pair<std::int64_t, std::int64_t>, Bundle>& bundles, const QPalette& pal) const;
    void drawCaptions(QPainter& p, const Layout& l, QSizeF size) const;
    std::size_t podSize(const std::vector<NodeId>& row) const; // switches in each pod of the row; 0 unless alike
    std::vector<SwitchLabel> rowLabels(const Layout& l, const std::vector<NodeId>& row, const QFontMetrics& fm) const;
    std::vector<SwitchLabel> podCaptionLabels(const Layout& l, QSizeF size, const QFontMetrics& fm) const;
    std::optional<LinkId> linkAt(QPointF pos) const;
    int hostAt(QPointF pos) const;
    int hcaAt(QPointF pos) const; // rank of the expanded host's HCA box under pos, or -1
    QRectF hcaBox(const Layout& l, std::size_t i, std::size_t count) const;

public:
    void setExpandedHost(int host); // -1 collapses
    // Bundling of healthy switch links in large fabrics (on by default; off draws every link).
    void setBundling(bool on);
    bool bundled() const { return m_aggregate; } // bundling is on and the fabric is large enough for it
    int podCount() const { return m_podCount; }
    // Horizontal zoom (1 = the whole fabric, up to 64) keeping the canvas point at view x `anchorX` in place.
    void setZoom(double zoom, double anchorX);
    double zoom() const { return m_zoom; }
    // Outlines the switches and hosts whose names hold `text` and zooms and pans to show them; returns how many.
    int setSearch(const QString& text);
    std::optional<QPointF> nodeOnScreen(NodeId node) const;
    QString podName(int pod) const;
    int expandedHost() const { return m_expandedHost; }
    // Hosts with node findings (the Hosts panel's), marked in the host row with a corner in the erroring colour;
    // names that are no host of this fabric are ignored. setData clears them.
    void setFlaggedHosts(const std::vector<std::string>& hosts);
    int flaggedHostCount() const;
    // Hosts too narrow to tell apart are drawn as blocks of hosts cabled to the same leaves.
    bool hostsCompact() const;
    int hostBlockCount() const { return int(m_hostBlocks.size()); }
    void expandHostBlock(int block); // zooms until the block's hosts are boxes of their own
    std::vector<SwitchLabel> hostLabelsOnScreen() const; // as painted: host names, or the blocks' counts
    // As painted at the widget's size: a switch row's labels (tier 1 leaves, 2 spines, 3 cores) and the pods'.
    std::vector<SwitchLabel> switchLabelsOnScreen(int tier) const;
    std::vector<SwitchLabel> podCaptionsOnScreen() const;
    std::vector<QRectF> legendRects() const; // the legend's entries as painted at the widget's size

private:
    TimeNs now() const;
    void findPods(); // m_podOf, m_podCount, m_aggregate; orders spines and leaves by pod

    ViewState* m_state;
    std::shared_ptr<const JobSnapshot> m_snap;
    QString m_emptyText;
    std::shared_ptr<const AnalysisResult> m_analysis;
    std::shared_ptr<const LinkStates> m_states; // for m_snap; null while the loader still builds them
    LinkHealth healthAt(LinkId link, TimeNs t) const; // normal while the states are to come
    std::vector<NodeId> m_cores, m_spines, m_leaves; // tiers 3+ (three-tier fabrics), 2, 1
    std::vector<StringId> m_hosts; // host names in order
    std::vector<int> m_hostOfNode; // topology node → host index (-1 for switches)
    std::vector<std::vector<std::uint32_t>> m_ranksOfHost;
    // Pods (scalable units): spines and leaves joined by leaf–spine links, numbered in leaf order; -1 elsewhere.
    std::vector<int> m_podOf; // per topology node
    int m_podCount = 0;
    std::vector<std::pair<int, int>> m_hostBlocks; // first and last host of each run cabled to the same leaves
    std::vector<std::pair<int, int>> m_hostsOfSwitch; // per topology node: first and last host cabled to it
    // Many switch links: healthy ones drawn as one bundle per pair of switch groups (a pod's spines, its leaves,
    // each core) with their count; links that are not healthy, and the culprit, one by one over them.
    bool m_aggregate = false;
    bool m_bundling = true;
    double m_zoom = 1.0;
    double m_panX = 0;
    std::optional<QPointF> m_dragFrom;
    double m_dragPan = 0;
    bool m_dragging = false;
    QString m_search;
    std::vector<NodeId> m_matches;
    int m_expandedHost = -1; // host whose HCAs are drawn one by one
    std::vector<bool> m_flagged; // per host (index into m_hosts); empty: none
};

} // namespace stallscope
