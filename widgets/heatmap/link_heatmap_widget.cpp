// SPDX-License-Identifier: MIT
#include "heatmap/link_heatmap_widget.h"

#include "theme.h"
#include "time_navigation.h"
#include "time_ruler.h"
#include "time_ticks.h"
#include "view_menu.h"

#include "core/parallel.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace stallscope {

namespace {

constexpr int kAxisHeight = 34;
constexpr int kLegendHeight = 22;
constexpr double kTroubleRowPx = 4;

} // namespace

// Trouble must stand out over a week of healthy links: normal traffic is a quiet tint, idle quieter still;
// down, erroring and congested take the Okabe–Ito colours the topology view uses (vermillion, orange,
// reddish purple).
QColor LinkHeatmapWidget::cellColor(LinkCell cell, const QPalette& pal)
{
    const bool dark = isDarkPalette(pal);
    switch (cell) {
    case LinkCell::Down:
        return QColor(0xd5, 0x5e, 0x00);
    case LinkCell::Erroring:
        return QColor(0xe6, 0x9f, 0x00);
    case LinkCell::Congested:
        return QColor(0xcc, 0x79, 0xa7);
    case LinkCell::Normal:
        return dark ? QColor(0x2b, 0x3d, 0x50) : QColor(0xd4, 0xe3, 0xf0);
    case LinkCell::Idle:
        return dark ? QColor(0x24, 0x27, 0x2b) : QColor(0xec, 0xed, 0xef);
    case LinkCell::NoData:
        break;
    }
    return pal.color(QPalette::Base);
}

LinkHeatmapWidget::LinkHeatmapWidget(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 160);
    connect(m_state, &ViewState::timeWindowChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::cursorChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::hoverChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::selectionChanged, this, qOverload<>(&QWidget::update));
}

void LinkHeatmapWidget::setModel(std::shared_ptr<const LinkHeatmapModel> model)
{
    m_model = std::move(model);
    m_rows = m_model ? m_model->order(m_order) : std::vector<std::uint32_t> {};
    m_key = {};
    m_layoutHeight = -1;
    update();
}

void LinkHeatmapWidget::layoutRows(int plotHeight)
{
    if (plotHeight == m_layoutHeight && m_rowTop.size() == m_rows.size() + 1) {
        return;
    }
    m_layoutHeight = plotHeight;
    const std::size_t n = m_rows.size();
    std::vector<bool> trouble(n);
    std::size_t troubled = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = m_model->rows()[m_rows[i]];
        trouble[i] = r.downBuckets > 0 || r.errorBuckets > 0;
        troubled += trouble[i];
    }
    const double uniform = double(plotHeight) / double(std::max<std::size_t>(n, 1));
    double troubleH = uniform, quietH = uniform;
    if (uniform < kTroubleRowPx && troubled > 0 && double(troubled) * kTroubleRowPx < plotHeight * 0.5) {
        troubleH = kTroubleRowPx;
        quietH = (plotHeight - double(troubled) * troubleH) / double(std::max<std::size_t>(n - troubled, 1));
    }
    m_rowTop.assign(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        m_rowTop[i + 1] = m_rowTop[i] + (trouble[i] ? troubleH : quietH);
    }
}

std::size_t LinkHeatmapWidget::displayRowAt(double y) const
{
    const auto it = std::upper_bound(m_rowTop.begin(), m_rowTop.end(), y);
    const auto i = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - m_rowTop.begin() - 1));
    return std::min(i, m_rows.empty() ? 0 : m_rows.size() - 1);
}

void LinkHeatmapWidget::setRowOrder(LinkRowOrder order)
{
    m_order = order;
    setModel(m_model);
}

QRect LinkHeatmapWidget::plotRect() const
{
    return QRect(
        timeAxisLeft(), kAxisHeight, timeAxisWidth(width()), std::max(1, height() - kAxisHeight - kLegendHeight));
}

TimeAxisMapping LinkHeatmapWidget::mapping() const
{
    return TimeAxisMapping { m_state->window(), plotRect().width() };
}

std::optional<std::uint32_t> LinkHeatmapWidget::rowAt(QPoint pos) const
{
    const QRect r = plotRect();
    if (!m_model || m_rows.empty() || pos.y() < r.top() || pos.y() > r.bottom() || pos.x() > r.right()) {
        return std::nullopt;
    }
    const_cast<LinkHeatmapWidget*>(this)->layoutRows(r.height()); // cheap when the height is unchanged
    return m_rows[displayRowAt(pos.y() - r.top())];
}

QString LinkHeatmapWidget::tooltipAt(QPoint pos) const
{
    const auto row = rowAt(pos);
    if (!row || pos.x() < plotRect().left()) {
        return {};
    }
    const auto& r = m_model->rows()[*row];
    const auto map = mapping();
    const TimeNs t = map.t(pos.x() - plotRect().left() + 0.5);
    LinkCell cell = LinkCell::NoData;
    m_model->rasterizeRow(
        *row, { map.t(pos.x() - plotRect().left()), map.t(pos.x() - plotRect().left() + 1) }, 1, &cell);
    return QStringLiteral("<b>%1</b><br>%2<br>%3: <b>%4</b><br>%5 down and %6 erroring of %7 buckets (%8 each)")
        .arg(QString::fromStdString(r.name).toHtmlEscaped(), QString::fromStdString(r.group).toHtmlEscaped(),
            QString::fromStdString(formatUtc(t)), QString::fromStdString(std::string(toString(cell))))
        .arg(r.downBuckets)
        .arg(r.errorBuckets)
        .arg(QString::fromStdString(formatCount(std::uint64_t(
            std::max<TimeNs>(1, (m_model->snapshot().job.span.delta()) / std::max<TimeNs>(1, m_model->bucketNs()))))))
        .arg(QString::fromStdString(formatDuration(m_model->bucketNs())));
}

void LinkHeatmapWidget::ensureRaster(QSize plotPx)
{
    Key key { m_model.get(), m_state->window(), plotPx, m_order, cellColor(LinkCell::Normal, palette()).rgb() };
    if (key == m_key && !m_raster.isNull()) {
        return;
    }
    m_key = key;
    m_raster = QImage(plotPx, QImage::Format_RGB32);
    const QPalette pal = palette();
    QRgb colors[kLinkCellCount];
    for (int c = 0; c < kLinkCellCount; ++c) {
        colors[c] = cellColor(static_cast<LinkCell>(c), pal).rgb();
    }
    const int w = plotPx.width(), h = plotPx.height();
    layoutRows(h);
    const std::size_t n = m_rows.size();
    const auto plan = m_model->plan(m_state->window(), w);
    uchar* bits = m_raster.bits(); // detached here, once: the slices only write their own lines
    const auto bytesPerLine = std::size_t(m_raster.bytesPerLine());
    // Pixel rows are independent: split over the cores (132,096 links fold into a few hundred rows, each reading
    // its links' cells), each slice with its own copy of the last folded row.
    const auto work = [&](std::size_t yBegin, std::size_t yEnd) {
        std::vector<LinkCell> line(static_cast<std::size_t>(w)), tmp(static_cast<std::size_t>(w));
        std::size_t cachedFirst = SIZE_MAX, cachedLast = SIZE_MAX;
        for (auto y = int(yBegin); y < int(yEnd); ++y) {
            // Pixel row y shows the rows overlapping [y, y + 1): their worst cell per column.
            const std::size_t first = displayRowAt(y);
            std::size_t last = first;
            while (last + 1 < n && m_rowTop[last + 1] < y + 1) {
                ++last;
            }
            if (first != cachedFirst || last != cachedLast) {
                std::fill(line.begin(), line.end(), LinkCell::NoData);
                for (std::size_t r = first; r <= last; ++r) {
                    m_model->rasterizeRow(m_rows[r], plan, tmp.data());
                    for (int x = 0; x < w; ++x) {
                        line[std::size_t(x)] = std::max(line[std::size_t(x)], tmp[std::size_t(x)]);
                    }
                }
                cachedFirst = first;
                cachedLast = last;
            }
            auto* out = reinterpret_cast<QRgb*>(bits + std::size_t(y) * bytesPerLine);
            for (int x = 0; x < w; ++x) {
                out[x] = colors[static_cast<int>(line[std::size_t(x)])];
            }
        }
    };
    parallelParts(
        [&](unsigned part, unsigned parts) {
            const auto [from, to] = partSlice(std::size_t(h), part, parts);
            work(from, to);
        },
        n < 1024 ? 1u : parallelPartCount());
}

void LinkHeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintInto(p, size(), devicePixelRatioF());
}

QImage LinkHeatmapWidget::renderImage(QSize size, qreal dpr)
{
    const QSize old = this->size();
    resize(size);
    QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(palette().color(QPalette::Base));
    {
        QPainter p(&img);
        paintInto(p, size, dpr);
    }
    resize(old);
    return img;
}

void LinkHeatmapWidget::setEmptyText(const QString& text)
{
    m_emptyText = text;
    update();
}

void LinkHeatmapWidget::paintInto(QPainter& p, QSize size, qreal dpr)
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Base));
    const QRect plot = plotRect();
    if (!m_model || m_rows.empty()) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
            m_model ? tr("No fabric links or port counters in this data.") : m_emptyText);
        return;
    }
    // One raster pixel per device pixel horizontally; rows at logical resolution (they fold anyway).
    const QSize plotPx(std::max(1, int(std::lround(plot.width() * dpr))), std::max(1, plot.height()));
    ensureRaster(plotPx);
    p.drawImage(plot, m_raster);
    const auto map = mapping();
    drawAxis(p, plot, map);
    drawGutter(p, plot);
    drawOverlays(p, plot, map);
    drawLegend(p, QRect(plot.left(), plot.bottom() + 4, plot.width(), kLegendHeight - 4));
}

void LinkHeatmapWidget::drawAxis(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const
{
    const QColor text = palette().color(QPalette::Text);
    const QColor grid = palette().color(QPalette::Mid);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    const TimeNs step = tickStep(map.nsPerPx(), 110);
    for (TimeNs t = firstTick(map.visible.start, step); t <= map.visible.end; t += step) {
        const double x = plot.left() + map.x(t);
        if (x < plot.left() || x > plot.right()) {
            continue;
        }
        p.setPen(grid);
        p.drawLine(QPointF(x, plot.top() - 5), QPointF(x, plot.top()));
        p.setPen(text);
        p.drawText(QRectF(x - 60, 14, 120, 16), Qt::AlignHCenter | Qt::AlignBottom, tickLabel(t, step));
    }
    p.drawText(QRect(4, 0, width() - 8, 14), Qt::AlignLeft | Qt::AlignVCenter, headline());
}

void LinkHeatmapWidget::setCulpritMarksHidden(bool hidden)
{
    m_culpritMarksHidden = hidden;
    update();
}

QString LinkHeatmapWidget::headline() const
{
    if (!m_model) {
        return {};
    }
    const TimeRange w = m_state->window();
    return tr("%1 — %2 links by %3 — %4 (window %5; cells of %6 or more)")
        .arg(QString::fromStdString(m_model->snapshot().job.name))
        .arg(m_rows.size())
        .arg(m_order == LinkRowOrder::Tier ? tr("tier and switch") : tr("trouble first"))
        .arg(QString::fromStdString(utcRange(w.start, w.end)))
        .arg(QString::fromStdString(formatDuration(w.delta())))
        .arg(QString::fromStdString(formatDuration(m_model->bucketNs())));
}

// Group labels (tier: lower switch) where they fit, a rule between groups, and the names of links that
// went down (marked in vermillion) so the culprit reads without hovering.
void LinkHeatmapWidget::drawGutter(QPainter& p, const QRect& plot) const
{
    const auto& rows = m_model->rows();
    const auto top = [&](std::size_t i) { return plot.top() + m_rowTop[i]; };
    const auto mid = [&](std::size_t i) { return plot.top() + (m_rowTop[i] + m_rowTop[i + 1]) / 2; };
    const QColor text = palette().color(QPalette::Text);
    const QColor grid = palette().color(QPalette::Mid);
    const QColor down = cellColor(LinkCell::Down, palette());
    double lastLabel = -1e9;
    const auto fm = p.fontMetrics();
    // Links that went down first: their labels win over group labels.
    std::vector<std::size_t> flagged;
    for (std::size_t i = 0; i < m_rows.size() && !m_culpritMarksHidden; ++i) {
        if (rows[m_rows[i]].downBuckets > 0) {
            flagged.push_back(i);
        }
    }
    // Labels end clear of the gutter's marks (the down bar at 5 px, group rules at 8 px, selection bars).
    const double labelW = plot.left() - 14;
    std::vector<std::pair<double, double>> taken;
    for (const auto i : flagged) {
        const double y = mid(i);
        const double rh = std::max(m_rowTop[i + 1] - m_rowTop[i], 2.0);
        p.fillRect(QRectF(plot.left() - 5, y - rh / 2, 4, rh), down);
        if (!taken.empty() && y - taken.back().second < 7) {
            continue;
        }
        p.setPen(down);
        p.drawText(QRectF(2, y - 7, labelW, 14), Qt::AlignRight | Qt::AlignVCenter,
            fm.elidedText(QString::fromStdString(rows[m_rows[i]].name), Qt::ElideLeft, int(labelW)));
        taken.push_back({ y - 7, y + 7 });
    }
    const bool groupsContiguous = m_order == LinkRowOrder::Tier;
    for (std::size_t i = 0; i < m_rows.size() && groupsContiguous; ++i) {
        const auto& g = rows[m_rows[i]].group;
        if (i > 0 && rows[m_rows[i - 1]].group == g) {
            continue;
        }
        const double y = top(i);
        if (i > 0) {
            p.setPen(grid);
            p.drawLine(QPointF(plot.left() - 8, y), QPointF(plot.left() - 1, y));
        }
        const bool clash
            = std::any_of(taken.begin(), taken.end(), [&](auto& t) { return y + 14 > t.first && y < t.second; });
        if (y - lastLabel < 14 || clash) {
            continue;
        }
        p.setPen(text);
        p.drawText(QRectF(2, y, labelW, 14), Qt::AlignRight | Qt::AlignVCenter,
            fm.elidedText(QString::fromStdString(g), Qt::ElideLeft, int(labelW)));
        lastLabel = y;
    }
}

void LinkHeatmapWidget::drawOverlays(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const
{
    p.save();
    p.setClipRect(plot);
    const QColor cursor = isDarkPalette(palette()) ? QColor(0xf0, 0xe4, 0x42) : QColor(0x00, 0x00, 0x00);
    // Selected links: a bar in the gutter beside their rows (an outline would hide the row's own cells).
    const auto selected = m_state->selectedLinks();
    p.setClipping(false);
    for (std::size_t i = 0; i < m_rows.size() && !selected.empty(); ++i) {
        const auto& link = m_model->rows()[m_rows[i]].link;
        if (link && std::find(selected.begin(), selected.end(), *link) != selected.end()) {
            const double h = std::max(m_rowTop[i + 1] - m_rowTop[i], 3.0);
            p.fillRect(
                QRectF(plot.left() - 11, plot.top() + m_rowTop[i] - (h - (m_rowTop[i + 1] - m_rowTop[i])) / 2, 4, h),
                cursor);
        }
    }
    p.setClipRect(plot);
    drawTimeMarks(p, plot, map, *m_state, cursor);
    m_nav.paintSelection(p, plot, cursor);
    p.restore();
}

void LinkHeatmapWidget::drawLegend(QPainter& p, const QRect& area) const
{
    const std::pair<LinkCell, QString> items[]
        = { { LinkCell::Down, tr("down") }, { LinkCell::Erroring, tr("erroring (retrains, symbol / receive errors)") },
              { LinkCell::Congested, tr("congested (xmit_wait)") }, { LinkCell::Normal, tr("carrying traffic") },
              { LinkCell::Idle, tr("idle") } };
    int x = area.left();
    for (const auto& [cell, label] : items) {
        p.fillRect(QRect(x, area.top() + 3, 12, 12), cellColor(cell, palette()));
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(QRect(x, area.top() + 3, 12, 12));
        p.setPen(palette().color(QPalette::Text));
        const int w = p.fontMetrics().horizontalAdvance(label);
        p.drawText(QRect(x + 16, area.top(), w + 4, 18), Qt::AlignVCenter, label);
        x += 16 + w + 18;
    }
}

void LinkHeatmapWidget::wheelEvent(QWheelEvent* event)
{
    if (m_model) {
        m_nav.wheel(event, plotRect());
    }
}

void LinkHeatmapWidget::mousePressEvent(QMouseEvent* event)
{
    m_nav.press(event);
}

void LinkHeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_model && m_nav.move(event, plotRect())) {
        update();
    }
}

void LinkHeatmapWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_nav.release(event, plotRect())) {
        if (const auto row = rowAt(event->pos()); row && m_model->rows()[*row].link) {
            m_state->clearLinks();
            m_state->selectLink(*m_model->rows()[*row].link); // its counters plot below
        }
    }
    update();
}

void LinkHeatmapWidget::leaveEvent(QEvent*)
{
    m_nav.leave();
}

void LinkHeatmapWidget::keyPressEvent(QKeyEvent* event)
{
    if (!m_nav.key(event)) {
        QWidget::keyPressEvent(event);
    }
}

void LinkHeatmapWidget::contextMenuEvent(QContextMenuEvent* event)
{
    execViewMenu(this, event, [this] { emit exportRequested(); });
}

void LinkHeatmapWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        m_key = {};
        update();
    }
    QWidget::changeEvent(event);
}

bool LinkHeatmapWidget::event(QEvent* event)
{
    return showToolTip(this, event, [this](QPoint pos) { return tooltipAt(pos); }) || QWidget::event(event);
}

} // namespace stallscope
