// SPDX-License-Identifier: MIT
// The rank×time heatmap widget (heatmap_widget.h). Over 600 lines as one file: one widget whose raster jobs,
// painting, overlays, legend and input all work on the same plot rectangle, time mapping and raster cache.
#include "heatmap/heatmap_widget.h"

#include "plain_text.h"
#include "time_navigation.h"
#include "time_ruler.h"
#include "time_ticks.h"
#include "view_menu.h"
#include "worker_pool.h"

#include "core/time_format.h"
#include "view/view_state.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent>

#include <cmath>

namespace stallscope {

namespace {

constexpr int kAxisHeight = 34; // time labels and incident markers above the rows
constexpr int kLegendHeight = 22;

} // namespace

HeatmapWidget::HeatmapWidget(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_palette(HeatmapPalette::fromPalette(palette()))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 200);
    connect(m_state, &ViewState::timeWindowChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::cursorChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::hoverChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::annotationsChanged, this, qOverload<>(&QWidget::update));
}

void HeatmapWidget::setModel(std::shared_ptr<const HeatmapModel> model, std::shared_ptr<const AnalysisResult> analysis)
{
    m_model = std::move(model);
    m_analysis = std::move(analysis);
    rebuildRows();
    m_firstStuck.clear();
    if (const auto f = m_model ? m_model->firstStuck() : std::nullopt) {
        m_firstStuck = QString::fromStdString(HeatmapModel::explain(*f));
    }
    m_key = {};
    m_raster = QImage(); // no placeholder from another bundle
    setVisibleRows(0, 0);
}

void HeatmapWidget::setRowOrder(RowOrder order)
{
    m_order = order;
    rebuildRows();
    setVisibleRows(m_rowFirst, m_rowCount);
}

void HeatmapWidget::setRecordedOnly(bool on)
{
    m_recordedOnly = on;
    rebuildRows();
    setVisibleRows(0, 0); // another set of rows: the row zoom of the old one means nothing here
}

void HeatmapWidget::rebuildRows()
{
    m_rows = m_model ? m_model->rowOrder(m_order) : std::vector<std::uint32_t> {};
    m_rowsFiltered = false;
    m_recordedRows = m_rows.size();
    if (!m_model || !m_model->hasUnrecordedRanks()) {
        return;
    }
    std::vector<std::uint32_t> recorded;
    std::copy_if(m_rows.begin(), m_rows.end(), std::back_inserter(recorded),
        [&](std::uint32_t r) { return m_model->recorded(r); });
    m_recordedRows = recorded.size();
    if (m_recordedOnly && !recorded.empty()) { // a job told by its logs alone has no such row: keep them all
        m_rowsFiltered = recorded.size() < m_rows.size();
        m_rows = std::move(recorded);
    }
}

void HeatmapWidget::setMetric(HeatmapMetric metric)
{
    m_metric = metric;
    update();
}

void HeatmapWidget::setVisibleRows(std::size_t first, std::size_t count)
{
    const std::size_t n = m_rows.size();
    count = count == 0 || count >= n ? n : std::max<std::size_t>(count, 4);
    first = std::min(first, n - std::min(n, count));
    m_rowFirst = count == n ? 0 : first;
    m_rowCount = count == n ? 0 : count;
    m_shown.assign(m_rows.begin() + std::ptrdiff_t(m_rowFirst), m_rows.begin() + std::ptrdiff_t(m_rowFirst + count));
    update();
}

void HeatmapWidget::revealRank(std::uint32_t rank)
{
    const auto it = std::find(m_rows.begin(), m_rows.end(), rank);
    if (it == m_rows.end() || m_rowCount == 0) { // not shown, or every row is in view (folded)
        return;
    }
    const auto at = static_cast<std::size_t>(it - m_rows.begin());
    if (at < m_rowFirst || at >= m_rowFirst + m_rowCount) {
        setVisibleRows(at > m_rowCount / 2 ? at - m_rowCount / 2 : 0, m_rowCount);
    }
}

QRect HeatmapWidget::plotRect() const
{
    return QRect(timeAxisLeft(), kAxisHeight, timeAxisWidth(width()), std::max(1, height() - kAxisHeight - kLegendHeight));
}

TimeAxisMapping HeatmapWidget::mapping() const
{
    return TimeAxisMapping { m_state->window(), plotRect().width() };
}

std::optional<std::uint32_t> HeatmapWidget::rankAt(QPoint pos) const
{
    const QRect r = plotRect();
    if (!m_model || !r.contains(pos) || m_shown.empty()) {
        return std::nullopt;
    }
    const auto row = static_cast<std::size_t>(double(pos.y() - r.top()) / double(r.height()) * double(m_shown.size()));
    return m_shown[std::min(row, m_shown.size() - 1)];
}

QString HeatmapWidget::tooltipAt(QPoint pos) const
{
    const auto rank = rankAt(pos);
    if (!rank) {
        return {};
    }
    const auto& snap = m_model->snapshot();
    const auto map = mapping();
    const int x = pos.x() - plotRect().left();
    const TimeNs t = map.t(x + 0.5);
    const auto& ri = snap.ranks[*rank];
    QString text = QStringLiteral("<b>rank %1</b> — %2, GPU %3, %4<br>%5<br>%6 since job start")
                       .arg(*rank)
                       .arg(htmlText(std::string(snap.str(ri.host))))
                       .arg(ri.localGpu)
                       .arg(htmlText(std::string(snap.str(ri.hca))))
                       .arg(QString::fromStdString(formatUtc(t)))
                       .arg(QString::fromStdString(formatSince(t, snap.job.clockOriginNs)));
    // The collective this rank is in at t (or, between collectives, the last one it enqueued).
    const auto& c = snap.collectives[*rank];
    if (const auto at = recordAt(c, t)) {
        const auto j = at->index;
        const auto& shape = snap.shapes[c.shape[j]];
        const bool queued = !at->running && c.endNs[j] == kNoTime && (c.startNs[j] == kNoTime || c.startNs[j] > t);
        text += QStringLiteral("<br>%1 %2 seq %3 of group %4 (%5), %6")
                    .arg(at->running ? QStringLiteral("in") : queued ? QStringLiteral("queued") : QStringLiteral("after"))
                    .arg(QString::fromStdString(std::string(toString(shape.op))))
                    .arg(c.seq[j])
                    .arg(htmlText(std::string(snap.str(snap.groups[shape.group].name))))
                    .arg(QString::fromStdString(formatBytes(double(shape.bytes))))
                    .arg(QString::fromStdString(std::string(toString(c.stateAt(j)))));
        if (c.startNs[j] != kNoTime && c.endNs[j] != kNoTime) {
            text += QStringLiteral(", took %1").arg(QString::fromStdString(formatDuration(c.endNs[j] - c.startNs[j])));
        }
    }
    const auto cell = m_model->cellAt(map, *rank, x);
    if (cell.stalled > 0) {
        text += m_model->hasGroupStalls() ? QStringLiteral("<br><b>stalled</b> (in the group that hung)")
                                          : QStringLiteral("<br><b>stalled</b> (job-wide stall)");
    }
    if (cell.held > 0) {
        text += QStringLiteral("<br><b>held</b>: waiting in its own group's collective for another group that hung");
    }
    if (cell.failed > 0) {
        text += QStringLiteral("<br><b>failed or timed out</b>");
    }
    if (m_model->knownFromLogOnly(*rank)) {
        text += QStringLiteral("<br><b>no collective record</b>: known from its log only (no dump or trace of it in "
                               "the folder), so what it did here is unknown");
    } else if (const TimeNs after = m_model->unknownAfter(*rank); after != kNoTime && t > after && cell.unrecorded) {
        text += QStringLiteral("<br><b>past its records</b>: its dump or trace ends at %1 and its log goes on, so "
                               "what it did here is unknown")
                    .arg(QString::fromStdString(formatUtc(after)));
    } else if (!m_model->recorded(*rank)) {
        text += QStringLiteral("<br><b>no collective record</b> and no line of its own log, so what it did here is "
                               "unknown");
    }
    return text;
}

HeatmapWidget::Key HeatmapWidget::rasterKey(QSize plotPx, qreal dpr) const
{
    Key key;
    key.model = m_model.get();
    key.window = m_state->window();
    key.size = plotPx;
    key.dpr = dpr;
    key.order = m_order;
    key.rowFirst = m_rowFirst;
    key.rowCount = m_rowCount;
    key.rowsFiltered = m_rowsFiltered;
    key.metric = m_metric;
    key.stalled = m_palette.stalled.rgb();
    key.computing = m_palette.computing.rgb();
    return key;
}

namespace {

// The raster of `key`: cells from the model, coloured. Any thread: it reads only its arguments and the
// immutable model.
QImage makeRaster(const HeatmapWidget::Key& key, const HeatmapModel& model, const std::vector<std::uint32_t>& shown,
    const HeatmapPalette& palette, bool coarse = false)
{
    QImage raster(key.size, QImage::Format_RGB32);
    std::vector<HeatCell> cells;
    model.rasterize(TimeAxisMapping { key.window, key.size.width() }, key.size.height(), shown, cells, coarse);
    const int hatch = std::max(2, int(std::lround(HeatmapPalette::kHatchPx * key.dpr))); // device pixels
    // The ramps say nothing of a rank with no record either: its cells are unknown there too, not 0 %.
    auto ramp = [&](const HeatCell& c, std::uint8_t v, int x, int y) {
        return !c.present  ? palette.background.rgb()
            : c.unrecorded ? palette.unknownAt(x, y, hatch)
                           : HeatmapPalette::rampColor(v);
    };
    for (int y = 0; y < key.size.height(); ++y) {
        auto* line = reinterpret_cast<QRgb*>(raster.scanLine(y));
        const auto* src = cells.data() + std::size_t(y) * std::size_t(key.size.width());
        if (key.metric == HeatmapMetric::State) {
            for (int x = 0; x < key.size.width(); ++x) {
                line[x] = palette.colorAt(src[x], x, y, hatch);
            }
        } else if (key.metric == HeatmapMetric::TimeInCollectives) {
            for (int x = 0; x < key.size.width(); ++x) {
                line[x] = ramp(src[x], src[x].inside, x, y);
            }
        } else {
            for (int x = 0; x < key.size.width(); ++x) {
                line[x] = ramp(src[x], src[x].late, x, y);
            }
        }
    }
    raster.setDevicePixelRatio(key.dpr);
    return raster;
}

} // namespace

void HeatmapWidget::ensureRaster(QSize plotPx, qreal dpr, bool async)
{
    const Key key = rasterKey(plotPx, dpr);
    if (key == m_key && !m_raster.isNull() && !(async && m_rasterCoarse)) {
        return;
    }
    if (!m_model) {
        m_key = key;
        m_raster = QImage(plotPx, QImage::Format_RGB32);
        m_raster.fill(m_palette.background);
        return;
    }
    if (!async) {
        m_raster = makeRaster(key, *m_model, m_shown, m_palette);
        m_key = key;
        m_rasterCoarse = false;
        return;
    }
    if (!m_jobKey) {
        startRasterJob(key); // else the running job's result brings a paint, which asks for the newest window
    }
}

void HeatmapWidget::startRasterJob(const Key& key)
{
    if (!m_job) {
        m_job = new QFutureWatcher<RasterJob>(this);
        connect(m_job, &QFutureWatcher<RasterJob>::finished, this, [this] {
            m_jobKey.reset();
            auto done = m_job->result();
            if (done.key.model == m_model.get()) { // not a raster of a model replaced meanwhile
                m_raster = std::move(done.image);
                m_key = done.key;
                m_rasterCoarse = done.coarse;
            }
            update(); // shows it, and starts the next job if the window moved on
        });
    }
    m_jobKey = key;
    // A window whose fine raster reads many ranks' records gets a coarse frame from the levels first (a second or
    // so at 131,072 ranks, against several), then the fine one: the placeholder is never a blank for long.
    const bool coarse = !(key == m_key && m_rasterCoarse) && m_shown.size() >= m_coarseFirstRanks
        && m_model->levels() > 0 && m_model->needsRecords(TimeAxisMapping { key.window, key.size.width() });
    m_job->setFuture(
        QtConcurrent::run(workerPool(), [key, model = m_model, shown = m_shown, palette = m_palette, coarse] {
            return RasterJob { key, makeRaster(key, *model, shown, palette, coarse), coarse };
        }));
}

bool HeatmapWidget::rasterPending() const
{
    return m_jobKey.has_value();
}

void HeatmapWidget::waitForRaster()
{
    for (int round = 0;
         round < 8 && (m_jobKey || m_rasterCoarse || (m_model && !(rasterKey(m_key.size, m_key.dpr) == m_key)));
         ++round) {
        if (m_job && m_jobKey) {
            m_job->waitForFinished();
            QCoreApplication::sendPostedEvents(m_job); // the finished() signal: the raster becomes the shown one
            QCoreApplication::processEvents();
        }
        (void)grab(); // a paint asks for the newest window's raster (also when the widget is not exposed)
    }
}

void HeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintView(p, size(), devicePixelRatioF(), m_async);
}

QImage HeatmapWidget::renderImage(QSize size, qreal dpr)
{
    const QSize old = this->size();
    resize(size);
    QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(m_palette.background);
    {
        QPainter p(&img);
        paintInto(p, size, dpr);
    }
    resize(old);
    return img;
}

void HeatmapWidget::paintInto(QPainter& p, QSize size, qreal dpr)
{
    paintView(p, size, dpr, false); // images and exports: the raster of this very window
}

void HeatmapWidget::paintView(QPainter& p, QSize size, qreal dpr, bool async)
{
    p.fillRect(QRect(QPoint(0, 0), size), m_palette.background);
    const QRect plot = plotRect();
    if (!m_model) {
        p.setPen(m_palette.text);
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const QSize plotPx(
        std::max(1, int(std::lround(plot.width() * dpr))), std::max(1, int(std::lround(plot.height() * dpr))));
    ensureRaster(plotPx, dpr, async);
    const auto map = mapping();
    if (m_key == rasterKey(plotPx, dpr)) {
        p.drawImage(plot.topLeft(), m_raster);
    } else if (!m_raster.isNull() && m_key.window.delta() > 0) {
        // The placeholder: the last raster where its window falls in this one (zoomed or panned), clipped.
        const double pxPerNs = double(plot.width()) / double(std::max<TimeNs>(1, map.visible.delta()));
        const QRectF target(plot.left() + double(m_key.window.start - map.visible.start) * pxPerNs, plot.top(),
            double(m_key.window.delta()) * pxPerNs, plot.height());
        p.save();
        p.setClipRect(plot);
        p.drawImage(target, m_raster);
        p.restore();
    } else {
        p.setPen(m_palette.text);
        p.drawText(plot, Qt::AlignCenter, tr("Drawing %1 ranks…").arg(m_rows.size()));
    }
    drawAxis(p, plot, map);
    drawOverlays(p, plot, map);
    drawLegend(p, QRect(plot.left(), plot.bottom() + 4, plot.width(), kLegendHeight - 4));
}

// More ranks than pixel rows: each row folds several (stalls and failures as their worst, time inside averaged);
// the title says how many, so a thin stripe is read as the group it is.
void HeatmapWidget::setEmptyText(const QString& text)
{
    m_emptyText = text;
    update();
}

QString HeatmapWidget::firstStuckNote() const
{
    return m_firstStuck;
}

QString HeatmapWidget::foldNote(int plotHeightPx) const
{
    const auto rows = m_shown.size();
    if (plotHeightPx <= 0 || rows <= std::size_t(plotHeightPx)) {
        return {};
    }
    const auto perRow = (rows + std::size_t(plotHeightPx) - 1) / std::size_t(plotHeightPx);
    return tr(", %1 ranks per pixel row (worst shown)").arg(perRow);
}

void HeatmapWidget::drawAxis(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const
{
    const auto& snap = m_model->snapshot();
    p.setPen(m_palette.text);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    const TimeNs step = tickStep(map.nsPerPx(), 110);
    std::vector<QRectF> tags; // where drawOverlays puts the incidents' numbers (same font)
    if (m_analysis) {
        for (const auto& inc : m_analysis->incidents) {
            const double x0 = plot.left() + map.x(inc.startNs);
            const double x1 = std::max(x0 + 3, plot.left() + map.x(inc.endNs));
            tags.push_back(incidentTagRect(p.fontMetrics(), plot, x0, x1, QStringLiteral("#%1").arg(inc.number)));
        }
    }
    TimeNs t = firstTick(map.visible.start, step);
    for (; !snap.job.untimed() && t <= map.visible.end; t += step) { // no ticks on a clock the files never gave
        const double x = plot.left() + map.x(t);
        if (x < plot.left() || x > plot.right()) {
            continue;
        }
        p.setPen(m_palette.grid);
        p.drawLine(QPointF(x, plot.top() - 5), QPointF(x, plot.top()));
        const QString label = tickLabel(t, step);
        const double lw = p.fontMetrics().horizontalAdvance(label);
        if (std::any_of(tags.begin(), tags.end(),
                [&](const QRectF& r) { return r.intersects(QRectF(x - lw / 2 - 2, 14, lw + 4, 16)); })) {
            continue; // an incident's number is there
        }
        p.setPen(m_palette.text);
        p.drawText(QRectF(x - 60, 14, 120, 16), Qt::AlignHCenter | Qt::AlignBottom, label);
    }
    // First-stuck order says what its top row means, at the end: the window's range must not be cut off for it.
    const QString stuck = m_order == RowOrder::FirstStuck && !m_firstStuck.isEmpty()
        ? tr(" · first stuck: %1").arg(m_firstStuck)
        : QString();
    const QString when = snap.job.untimed()
        ? tr("time unknown (the files carry no times)")
        : tr("%1 (window %2, from %3 since job start)")
              .arg(QString::fromStdString(utcRange(map.visible.start, map.visible.end)))
              .arg(QString::fromStdString(formatDuration(map.visible.delta())))
              .arg(QString::fromStdString(formatSince(map.visible.start, snap.job.clockOriginNs)));
    const QString ranks = m_rowsFiltered
        ? tr("%1 of %2 ranks (those with records)")
              .arg(QString::fromStdString(formatCount(m_rows.size())), QString::fromStdString(formatCount(snap.job.worldSize)))
        : tr("%1 ranks").arg(QString::fromStdString(formatCount(snap.job.worldSize)));
    const QString title = tr("%1 — %2, rows by %3%4 — %5")
            .arg(QString::fromStdString(snap.job.name))
            .arg(ranks)
            .arg(m_order == RowOrder::Rank      ? tr("rank")
                    : m_order == RowOrder::Host ? tr("host")
                    : m_order == RowOrder::Rail ? tr("rail / leaf")
                                                : tr("first stuck"))
            .arg(foldNote(plot.height()))
            .arg(when);
    p.drawText(QRect(6, 1, plot.right(), 14), Qt::AlignLeft | Qt::AlignTop,
        p.fontMetrics().elidedText(title + stuck, Qt::ElideRight, plot.right()));
    // Rank labels in the gutter, each with its host (the ruler's gutter has room for both): the rank in the text
    // colour, the host quieter before it.
    const int rows = static_cast<int>(m_shown.size());
    const QColor quiet = palette().color(QPalette::Disabled, QPalette::Text);
    for (const auto& [i, rank] : rankLabels()) {
        const double y = plot.top() + (i + 0.5) * plot.height() / double(rows);
        const QString number = QString::number(rank);
        const int numberW = p.fontMetrics().horizontalAdvance(number);
        p.setPen(m_palette.text);
        p.drawText(QRectF(0, y - 7, kTimeGutterPx - 8, 14), Qt::AlignRight | Qt::AlignVCenter, number);
        if (rank < snap.ranks.size()) {
            const int room = kTimeGutterPx - 8 - numberW - 8;
            p.setPen(quiet);
            p.drawText(QRectF(0, y - 7, room, 14), Qt::AlignRight | Qt::AlignVCenter,
                p.fontMetrics().elidedText(QString::fromStdString(std::string(snap.str(snap.ranks[rank].host))),
                    Qt::ElideLeft, room));
        }
    }
}

std::vector<std::pair<int, std::uint32_t>> HeatmapWidget::rankLabels() const
{
    std::vector<std::pair<int, std::uint32_t>> out;
    const int rows = static_cast<int>(m_shown.size());
    const int height = plotRect().height();
    if (rows == 0 || height <= 0) {
        return out;
    }
    const double pxPerRow = double(height) / rows;
    const auto minRows = static_cast<std::uint32_t>(std::ceil(40.0 / pxPerRow)); // rows between two labels
    std::uint32_t step = 1;
    for (std::uint32_t decade = 1; step < minRows; decade *= 10) {
        for (const std::uint32_t m : { 1u, 2u, 5u }) {
            if (step < minRows) {
                step = m * decade;
            }
        }
    }
    double lastY = -1e9;
    for (int i = 0; i < rows; ++i) {
        const auto rank = m_shown[std::size_t(i)];
        // Round rank numbers where rows are every rank in order; with rows left out, evenly spaced rows.
        const bool wanted = m_order == RowOrder::Rank && !m_rowsFiltered ? rank % step == 0 : i % int(step) == 0;
        const double y = (i + 0.5) * pxPerRow;
        if (wanted && y - lastY >= 14) { // never two labels on top of each other
            out.emplace_back(i, rank);
            lastY = y;
        }
    }
    return out;
}

// An incident's number above its bracket, centred; time labels that would run under it are left out.
QRectF HeatmapWidget::incidentTagRect(
    const QFontMetrics& fm, const QRect& plot, double x0, double x1, const QString& tag)
{
    const double w = fm.horizontalAdvance(tag) + 6;
    return QRectF((x0 + x1) / 2 - w / 2, plot.top() - 19, w, 13);
}

void HeatmapWidget::drawOverlays(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const
{
    p.save();
    p.setClipRect(plot.adjusted(0, -kAxisHeight, 0, 0));
    // Incident markers: a bracket above the rows, numbered as in the incident list.
    if (m_analysis) {
        for (const auto& inc : m_analysis->incidents) {
            const double x0 = plot.left() + map.x(inc.startNs);
            const double x1 = std::max(x0 + 3, plot.left() + map.x(inc.endNs));
            if (x1 < plot.left() || x0 > plot.right()) {
                continue;
            }
            const bool selected = inc.number == m_state->selectedIncident();
            p.fillRect(QRectF(x0, plot.top() - 5, x1 - x0, 4), m_palette.stalled);
            const QString tag = QStringLiteral("#%1").arg(inc.number);
            const QRectF tagRect = incidentTagRect(p.fontMetrics(), plot, x0, x1, tag);
            p.fillRect(tagRect, m_palette.background);
            p.setPen(selected ? m_palette.cursor : m_palette.stalled);
            p.drawText(tagRect, Qt::AlignCenter, tag);
            if (selected) {
                p.setPen(QPen(m_palette.cursor, 1, Qt::DashLine));
                p.drawRect(QRectF(x0 - 1, plot.top(), x1 - x0 + 2, plot.height() - 1));
            }
        }
    }
    drawCrashMarks(p, plot, map);
    // Annotations: a band for a time range, a dashed line for a point, the note's text on top.
    for (const auto& a : m_state->annotations()) {
        const double x0 = plot.left() + map.x(a.startNs);
        const double x1 = plot.left() + map.x(std::max(a.endNs, a.startNs));
        if (x1 < plot.left() || x0 > plot.right()) {
            continue;
        }
        QColor note = m_palette.cursor;
        if (x1 - x0 >= 2) {
            note.setAlpha(40);
            p.fillRect(QRectF(x0, plot.top(), x1 - x0, plot.height()), note);
            note.setAlpha(255);
        }
        p.setPen(QPen(note, 1, Qt::DashLine));
        p.drawLine(QPointF(x0, plot.top()), QPointF(x0, plot.bottom()));
        const QString text = shortLabel(a.text);
        const QRectF box(x0 + 3, plot.top() + 2, p.fontMetrics().horizontalAdvance(text) + 8, 16);
        p.fillRect(box, m_palette.background);
        p.setPen(m_palette.text);
        p.drawText(box, Qt::AlignCenter, text);
        if (a.rank && !m_shown.empty()) {
            const auto it = std::find(m_shown.begin(), m_shown.end(), *a.rank);
            if (it != m_shown.end()) {
                const double y
                    = plot.top() + (double(it - m_shown.begin()) + 0.5) * plot.height() / double(m_shown.size());
                p.setBrush(m_palette.cursor);
                p.drawEllipse(QPointF(x0, y), 3, 3);
            }
        }
    }
    drawSelectedRanks(p, plot);
    drawTimeMarks(p, plot, map, *m_state, m_palette.cursor);
    m_nav.paintSelection(p, plot, m_palette.cursor); // Shift-drag selection
    p.restore();
}

// A crash: the moment the job died as a line in the failed colour ("job died", or an arrow at the right edge when
// it is past the window), and the ranks that failed first marked in the gutter, since they point at the culprit
// while the many timeouts after them do not.
void HeatmapWidget::drawCrashMarks(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const
{
    if (!m_analysis || m_shown.empty()) {
        return;
    }
    p.save();
    const double h = plot.height() / double(m_shown.size());
    for (const auto& inc : m_analysis->incidents) {
        if (!inc.jobCrashed || inc.jobDiedNs == kNoTime) {
            continue;
        }
        const double x = plot.left() + map.x(inc.jobDiedNs);
        p.setClipping(false);
        p.setPen(QPen(m_palette.failed, 2));
        const QString label = tr("job died");
        const int lw = p.fontMetrics().horizontalAdvance(label) + 8;
        if (x >= plot.left() && x <= plot.right()) {
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            const QRectF box(std::min(x + 3, double(plot.right() - lw)), plot.bottom() - 18, lw, 16);
            p.fillRect(box, m_palette.background);
            p.drawText(box, Qt::AlignCenter, label);
        } else if (x > plot.right() && map.x(inc.startNs) <= plot.width()) {
            const QString later = tr("job died %1 later →")
                                      .arg(QString::fromStdString(formatDuration(inc.jobDiedNs - map.visible.end)));
            const int w = p.fontMetrics().horizontalAdvance(later) + 8;
            const QRectF box(plot.right() - w, plot.bottom() - 18, w, 16);
            p.fillRect(box, m_palette.background);
            p.drawText(box, Qt::AlignCenter, later);
        }
        p.setBrush(m_palette.failed);
        p.setPen(Qt::NoPen);
        for (const auto r : inc.firstFailedRanks) {
            const auto it = std::find(m_shown.begin(), m_shown.end(), r);
            if (it == m_shown.end()) {
                continue;
            }
            const double y = plot.top() + (double(it - m_shown.begin()) + 0.5) * h;
            const QPointF tri[] = { { plot.left() - 13.0, y - 5 }, { plot.left() - 6.0, y }, { plot.left() - 13.0, y + 5 } };
            p.drawPolygon(tri, 3);
        }
    }
    p.restore();
}

// Selected ranks: a bar in the gutter beside each selected row, and an outline around each run of adjacent
// selected rows while there are few runs. A selection that the row order scatters (a pod's 2,048 ranks in first-stuck
// order at 16,384 ranks) makes thousands of runs, whose outlines would cover every row: then only the bars.
void HeatmapWidget::drawSelectedRanks(QPainter& p, const QRect& plot) const
{
    const auto& sel = m_state->selectedRanks();
    if (sel.empty() || m_shown.empty()) {
        return;
    }
    constexpr std::size_t kMaxOutlinedRuns = 16;
    const double h = plot.height() / double(m_shown.size());
    std::vector<std::pair<std::size_t, std::size_t>> runs; // [first, last) rows
    for (std::size_t i = 0; i < m_shown.size();) {
        if (!std::binary_search(sel.begin(), sel.end(), m_shown[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < m_shown.size() && std::binary_search(sel.begin(), sel.end(), m_shown[j])) {
            ++j;
        }
        runs.emplace_back(i, j);
        i = j;
    }
    p.save();
    p.setClipping(false);
    for (const auto& [i, j] : runs) {
        p.fillRect(QRectF(plot.left() - 5, plot.top() + double(i) * h, 4, std::max(double(j - i) * h, 1.0)),
            m_palette.cursor);
    }
    p.restore();
    if (runs.size() > kMaxOutlinedRuns) {
        return;
    }
    p.setPen(QPen(m_palette.cursor, 1));
    p.setBrush(Qt::NoBrush);
    for (const auto& [i, j] : runs) {
        p.drawRect(QRectF(plot.left(), plot.top() + double(i) * h, plot.width() - 1, std::max(double(j - i) * h, 2.0)));
    }
}

namespace {

// A legend swatch of the unknown state, hatched as the raster hatches it.
QImage unknownSwatch(const HeatmapPalette& palette, int px)
{
    QImage swatch(px, px, QImage::Format_RGB32);
    for (int y = 0; y < px; ++y) {
        for (int x = 0; x < px; ++x) {
            swatch.setPixel(x, y, palette.unknownAt(x, y, HeatmapPalette::kHatchPx));
        }
    }
    return swatch;
}

} // namespace

// One legend entry at x: its swatch (hatched for the unknown state), its label; returns where the next one starts.
int HeatmapWidget::drawLegendItem(QPainter& p, int x, int top, const QColor& color, const QString& label) const
{
    if (color == m_palette.unknown) {
        p.drawImage(QPoint(x, top + 3), unknownSwatch(m_palette, 12));
    } else {
        p.fillRect(QRect(x, top + 3, 12, 12), color);
    }
    p.setPen(m_palette.grid);
    p.drawRect(QRect(x, top + 3, 12, 12));
    p.setPen(m_palette.text);
    const int w = p.fontMetrics().horizontalAdvance(label);
    p.drawText(QRect(x + 16, top, w + 4, 18), Qt::AlignVCenter, label);
    return x + 16 + w + 18;
}

void HeatmapWidget::drawLegend(QPainter& p, const QRect& area) const
{
    // Only a job with ranks known from their logs alone has unknown rows; its legend says what they are.
    const bool unknown = m_model && m_model->hasUnrecordedRanks();
    // A few recorded rows among many unknown ones fold into a few pixels: say where the filter that shows them is.
    const bool few = m_filterHint && unknown && !m_rowsFiltered && fewRowsRecorded();
    const QString unknownLabel = few
        ? tr("unknown (no record; %1 ranks have one: View › Row order › Only ranks with records)")
              .arg(QString::fromStdString(formatCount(m_recordedRows)))
        : tr("unknown (no collective record)");
    if (m_metric != HeatmapMetric::State) {
        p.setPen(m_palette.text);
        const bool late = m_metric == HeatmapMetric::Lateness;
        const QString left = late
            ? (m_model && m_model->hasLateness() ? tr("arrival after the collective's mean arrival: 0")
                                                 : tr("computing lateness… 0"))
            : tr("share of each cell's time inside collectives: 0 %");
        const int w = p.fontMetrics().horizontalAdvance(left);
        p.drawText(QRect(area.left(), area.top(), w + 4, 18), Qt::AlignVCenter, left);
        for (int i = 0; i < 160; ++i) {
            p.fillRect(QRect(area.left() + w + 8 + i, area.top() + 3, 1, 12),
                HeatmapPalette::rampColor(std::uint8_t(i * 255 / 159)));
        }
        const QString right = late ? tr("≥ 1 s (log scale)") : tr("100 %");
        p.drawText(QRect(area.left() + w + 172, area.top(), 160, 18), Qt::AlignVCenter, right);
        if (unknown) {
            drawLegendItem(p, area.left() + w + 172 + p.fontMetrics().horizontalAdvance(right) + 18, area.top(),
                m_palette.unknown, unknownLabel);
        }
        return;
    }
    const bool groups = m_model && m_model->hasGroupStalls();
    std::vector<std::pair<QColor, QString>> items = {
        { m_palette.computing, tr("computing") },
        { m_palette.inside, tr("inside a collective") },
        { m_palette.stalled, groups ? tr("stalled (the group that hung)") : tr("stalled (job-wide)") },
    };
    if (groups) {
        items.emplace_back(m_palette.held, tr("held (waiting in another group for it)"));
    }
    items.emplace_back(m_palette.failed, tr("failed / timed out"));
    if (unknown) {
        items.emplace_back(m_palette.unknown, unknownLabel);
    }
    int x = area.left();
    for (const auto& [color, label] : items) {
        x = drawLegendItem(p, x, area.top(), color, label);
    }
}

void HeatmapWidget::wheelEvent(QWheelEvent* event)
{
    if (!m_model) {
        return;
    }
    if (event->modifiers() & Qt::ControlModifier) {
        // Vertical zoom around the row under the pointer: rows separate again when there is room.
        const double steps = event->angleDelta().y() / 120.0;
        const QRect r = plotRect();
        const double frac = std::clamp((event->position().y() - r.top()) / double(r.height()), 0.0, 1.0);
        const std::size_t shown = m_shown.size();
        const auto count = static_cast<std::size_t>(std::max(4.0, double(shown) * std::pow(0.8, steps)));
        const double anchor = double(m_rowFirst) + frac * double(shown);
        setVisibleRows(static_cast<std::size_t>(std::max(0.0, anchor - frac * double(count))), count);
        event->accept();
        return;
    }
    m_nav.wheel(event, plotRect());
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event)
{
    m_nav.press(event);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    const auto rank = rankAt(event->pos());
    const int hovered = rank ? static_cast<int>(*rank) : -1;
    if (hovered != m_hovered) {
        m_hovered = hovered;
        emit hoveredRankChanged(hovered);
    }
    if (m_model && m_nav.move(event, plotRect())) {
        update();
    }
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_nav.release(event, plotRect())) {
        m_state->selectRank(rankAt(event->pos()));
    }
    update();
}

void HeatmapWidget::keyPressEvent(QKeyEvent* event)
{
    if (!m_nav.key(event)) {
        QWidget::keyPressEvent(event);
    }
}

void HeatmapWidget::leaveEvent(QEvent*)
{
    m_nav.leave();
    update();
}

void HeatmapWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        m_palette = HeatmapPalette::fromPalette(palette());
        m_key = {};
        update();
    }
    QWidget::changeEvent(event);
}

bool HeatmapWidget::event(QEvent* event)
{
    return showToolTip(this, event, [this](QPoint pos) { return tooltipAt(pos); }) || QWidget::event(event);
}

void HeatmapWidget::contextMenuEvent(QContextMenuEvent* event)
{
    execViewMenu(this, event, [this] { emit exportRequested(); });
}

} // namespace stallscope
