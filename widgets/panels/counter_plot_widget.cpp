// SPDX-License-Identifier: MIT
// The counter plots (counter_plot_widget.h): per plotted link, traffic, errors and congestion of both ends on the
// views' shared time ruler. Over 600 lines as one file: every part works on the QCustomPlot axis rects, graphs
// and items rebuild() makes, and this is the one file that includes QCustomPlot.
// qcustomplot_include.h must come first: it lifts QT_NO_FOREACH before any Qt header sees it.
#include "qcustomplot_include.h"
#include "view_menu.h"

#include "panels/counter_plot_widget.h"

#include "theme.h"
#include "time_navigation.h"
#include "time_ruler.h"
#include "time_ticks.h"

#include "core/job_snapshot.h"
#include "view/counter_plot_data.h"
#include "view/view_state.h"

#include <QContextMenuEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <tuple>
#include <algorithm>

#include <optional>

namespace stallscope {

namespace {

// A band over the whole height of `rect` for `range` (epoch ns; the x axis counts seconds from `origin`).
void addBand(QCustomPlot* plot, QCPAxisRect* rect, TimeRange range, double origin, const QPen& pen, const QBrush& brush)
{
    auto* band = new QCPItemRect(plot);
    band->setClipAxisRect(rect);
    for (auto* corner : { band->topLeft, band->bottomRight }) {
        corner->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        corner->setTypeY(QCPItemPosition::ptAxisRectRatio);
        corner->setAxisRect(rect);
    }
    band->topLeft->setCoords((double(range.start) - origin) / 1e9, 0);
    band->bottomRight->setCoords((double(range.end) - origin) / 1e9, 1);
    band->setPen(pen);
    band->setBrush(brush);
}

// Seconds since the job's first midnight as a UTC wall clock: a job that crosses midnight reads 00:05:00, not
// 24:05:00 (QCPAxisTickerTime's largest unit does not wrap).
// Keys are seconds since midnight UTC of the job's first day (`day0`); ticks and labels come from the heatmaps'
// shared time_ticks, so every view's axis reads the same ("00:05:00" within a day, "Mon 11-02" across days).
class WallClockTicker : public QCPAxisTicker
{
public:
    explicit WallClockTicker(TimeNs day0)
        : m_day0(day0)
    {
    }

protected:
    double getTickStep(const QCPRange& range) override
    {
        const double nsPerPx = range.size() * 1e9 / (double(std::max(tickCount(), 1)) * 110.0);
        m_step = tickStep(std::max(nsPerPx, 1e-3), 110);
        return double(m_step) / 1e9;
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override
    {
        return tickLabel(m_day0 + static_cast<TimeNs>(std::llround(tick * 1e9)), m_step);
    }

private:
    TimeNs m_day0;
    TimeNs m_step = kNsPerSec;
};

constexpr std::size_t kMaxLinks = 6; // older selections drop off; the strips scroll
constexpr int kTrackPx = 64; // each track at least this tall, however many links are plotted
constexpr int kGroupPx = 3 * (kTrackPx + 26) + 24 + 22; // a link's tracks with their margins, its title, tick labels

struct Track
{
    CounterKind kind;
    double scale; // raw unit → plotted unit
    const char* label;
    std::optional<CounterKind> second = std::nullopt; // drawn dashed in the same track
};

// Per link: traffic, errors, congestion. Both ends in each.
const Track kTracks[] = {
    { CounterKind::PortXmitData, 4.0 / 1e9, "sent GB/s" }, // each end's transmit: one line per direction
    { CounterKind::LinkDowned, 1.0, "errors/s", CounterKind::SymbolError }, // link_downed solid, symbol_error dashed
    { CounterKind::PortXmitWait, 1e-6, "queued M/s" }, // port_xmit_wait ticks: data waiting to go out
};

// Plot keys are seconds since midnight UTC of the job's first day: the time ticker then reads as UTC
// wall-clock time, like the heatmap's axis.
TimeNs dayStart(const JobSnapshot& s)
{
    const TimeNs day = 86400 * kNsPerSec;
    return s.job.span.start - ((s.job.span.start % day) + day) % day;
}

QString nodeName(const JobSnapshot& s, const PortRef& p)
{
    return QString::fromStdString(s.str(s.topology.node(p.node).description)) + QStringLiteral(" p")
        + QString::number(p.port);
}

} // namespace

CounterPlotWidget::CounterPlotWidget(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_plot(new QCustomPlot(this))
    , m_scroll(new QScrollArea(this))
    , m_hint(new QLabel(this))
    , m_nav(std::make_unique<TimeNavigation>(state))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_hint);
    layout->addWidget(m_scroll, 1);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setWidget(m_plot);
    m_hint->setText(tr("Select an incident or a link to plot its counters."));
    m_hint->setContentsMargins(6, 2, 6, 2);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    // The cursor, the hover line and its readout on a layer of their own: a mouse move replots only them.
    m_plot->addLayer(QStringLiteral("marks"), nullptr, QCustomPlot::limAbove);
    m_plot->layer(QStringLiteral("marks"))->setMode(QCPLayer::lmBuffered);
    connect(m_state, &ViewState::timeWindowChanged, this, &CounterPlotWidget::refresh);
    connect(m_state, &ViewState::selectionChanged, this, &CounterPlotWidget::rebuild);
    connect(m_state, &ViewState::annotationsChanged, this, [this] {
        m_links.clear(); // notes are items: rebuild them
        rebuild();
    });
    connect(m_state, &ViewState::cursorChanged, this, &CounterPlotWidget::updateMarks);
    connect(m_state, &ViewState::hoverChanged, this, &CounterPlotWidget::updateMarks);
    setMinimumHeight(160);
}

CounterPlotWidget::~CounterPlotWidget()
{
    // The plot outlives this object's members (a child, deleted by QWidget's destructor) and sends events while
    // it dies, after its axis rects are gone: nothing of it may reach eventFilter then.
    m_plot->removeEventFilter(this);
    m_marks.clear();
}

void CounterPlotWidget::setSnapshot(std::shared_ptr<const JobSnapshot> snap)
{
    m_snap = std::move(snap);
    m_pyramids.forget();
    rebuild();
}

void CounterPlotWidget::setStalls(std::vector<TimeRange> stalls)
{
    m_stalls = std::move(stalls);
    m_links.clear(); // rebuild the items even when the plotted links are the same
    rebuild();
}

void CounterPlotWidget::rebuild()
{
    std::vector<std::uint32_t> links;
    if (m_snap) {
        for (const auto l : m_state->selectedLinks()) {
            links.push_back(index(l));
        }
    }
    if (links.size() > kMaxLinks) {
        links.erase(links.begin(), links.end() - kMaxLinks);
    }
    if (links == m_links && m_plot->plotLayout()->elementCount() > 0 && !links.empty()) {
        refresh();
        return;
    }
    m_links = links;
    m_marks.clear(); // their axis rects die with the layout below; events meanwhile must not reach them
    m_plot->clearItems();
    m_plot->clearGraphs();
    m_graphSeries.clear();
    m_plot->plotLayout()->clear();
    m_hint->setVisible(m_links.empty());
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    // Okabe–Ito blue and orange; on a dark base the sky blue, since the deep blue edge under end B's line was faint.
    const QColor endA = isDarkPalette(pal) ? QColor(0x56, 0xb4, 0xe9) : QColor(0x00, 0x72, 0xb2), endB(0xe6, 0x9f, 0x00);
    int row = 0;
    auto ticker = QSharedPointer<WallClockTicker>::create(m_snap ? dayStart(*m_snap) : 0);
    for (const auto li : m_links) {
        const auto& link = m_snap->topology.link(static_cast<LinkId>(li));
        const auto seriesA = portSeries(*m_snap, m_snap->topology.node(link.a.node).guid, link.a.port);
        const auto seriesB = portSeries(*m_snap, m_snap->topology.node(link.b.node).guid, link.b.port);
        // The title is the legend: each end's name in the colour of its lines, and what the line styles mean.
        auto* title = new QCPLayoutGrid;
        m_plot->plotLayout()->addElement(row, 0, title);
        m_plot->plotLayout()->setRowStretchFactor(row++, 0.001); // its text height, whatever the plots get
        QFont titleFont = font();
        titleFont.setBold(true);
        QFont keyFont = font();
        keyFont.setPointSizeF(keyFont.pointSizeF() * 0.85);
        int col = 0;
        using Part = std::tuple<QString, QColor, QFont>;
        const Part parts[] = { { QStringLiteral("■ ") + nodeName(*m_snap, link.a), endA, titleFont },
            { QStringLiteral("↔"), text, titleFont },
            { QStringLiteral("■ ") + nodeName(*m_snap, link.b), endB, titleFont },
            { m_stalls.empty()
                    ? tr("errors: solid link_downed, dashed symbol_error; shaded: link down")
                    : tr("errors: solid link_downed, dashed symbol_error; shaded: link down; hatched: job stalled"),
                text, keyFont } };
        for (const auto& [label, colour, f] : parts) {
            auto* e = new QCPTextElement(m_plot, label);
            e->setTextColor(colour);
            e->setFont(f);
            title->addElement(0, col++, e);
        }
        auto* remove = new QCPTextElement(m_plot, QStringLiteral("✕"));
        remove->setTextColor(text);
        remove->setFont(titleFont);
        remove->setObjectName(QStringLiteral("removeLink%1").arg(li));
        remove->setProperty("link", li);
        // Queued: the rebuild this causes deletes the element that is still inside its own mouse handler.
        connect(
            remove, &QCPTextElement::clicked, this, [this, li] { m_state->deselectLink(static_cast<LinkId>(li)); },
            Qt::QueuedConnection);
        title->addElement(0, col++, remove);
        for (const auto& track : kTracks) {
            auto* rect = new QCPAxisRect(m_plot);
            rect->setSizeConstraintRect(QCPLayoutElement::scrInnerRect); // the plotted area itself, not its margins
            rect->setMinimumSize(QSize(100, kTrackPx));
            rect->setAutoMargins(QCP::msTop | QCP::msBottom); // left and right: the shared ruler's (applyMargins)
            m_plot->plotLayout()->addElement(row++, 0, rect);
            rect->setProperty("label", QString::fromLatin1(track.label)); // the readout's unit
            auto* x = rect->axis(QCPAxis::atBottom);
            auto* y = rect->axis(QCPAxis::atLeft);
            x->setTicker(ticker);
            x->setTickLabels(&track == &kTracks[std::size(kTracks) - 1]);
            // The track's name and unit in the ruler's gutter, level with its plot, as the heatmaps name their rows.
            auto* name = new QCPItemText(m_plot);
            name->setClipToAxisRect(false);
            name->position->setAxisRect(rect);
            name->position->setTypeX(QCPItemPosition::ptAbsolute);
            name->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            name->position->setCoords(6, 0.5);
            name->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            name->setText(QString::fromLatin1(track.label));
            name->setColor(text);
            name->setFont(keyFont);
            for (auto* axis : { x, y }) {
                axis->setBasePen(QPen(text));
                axis->setTickPen(QPen(text));
                axis->setSubTickPen(QPen(text));
                axis->setTickLabelColor(text);
                axis->setLabelColor(text);
            }
            y->setNumberFormat(QStringLiteral("gb"));
            y->ticker()->setTickCount(2); // small multiples: two labels per track stay readable
            for (int end = 0; end < 2; ++end) {
                const auto& series = end == 0 ? seriesA : seriesB;
                for (const auto kind : { std::optional<CounterKind>(track.kind), track.second }) {
                    if (!kind) {
                        continue;
                    }
                    auto* g = m_plot->addGraph(x, y);
                    m_graphSeries.push_back(series[static_cast<std::size_t>(*kind)]);
                    // End A is drawn first and wider: where both ends report the same rates (two switch ports
                    // sampled together, symmetric all-reduce traffic) it stays as an edge around end B's line
                    // instead of disappearing under it.
                    g->setPen(QPen(end == 0 ? endA : endB, end == 0 ? 3.0 : 1.2,
                        *kind == track.kind ? Qt::SolidLine : Qt::DashLine));
                    g->setName(end == 0 ? nodeName(*m_snap, link.a) : nodeName(*m_snap, link.b));
                    g->setProperty("scale", track.scale);
                    g->setLineStyle(QCPGraph::lsStepRight);
                }
            }
            const double origin = double(dayStart(*m_snap));
            for (const auto& down : linkDownIntervals(*m_snap, static_cast<LinkId>(li))) {
                addBand(m_plot, rect, down, origin, Qt::NoPen, QColor(0xd5, 0x5e, 0x00, 90)); // the link was down
            }
            QColor ink = text;
            ink.setAlpha(110);
            for (const auto& stall : m_stalls) { // dotted edges: when the job stopped and went on
                addBand(m_plot, rect, stall, origin, QPen(ink, 1, Qt::DotLine), QBrush(ink, Qt::BDiagPattern));
            }
        }
    }
    // Reviewer's notes: a dashed line at each note's time in every track — for the first kMaxNoteLines notes: each
    // line is a QCustomPlot item, and registering items is quadratic (a session of 100,000 notes held `render` for
    // minutes). A person's review has tens; the heatmap above still marks every note.
    constexpr std::size_t kMaxNoteLines = 256;
    const auto& notes = m_state->annotations();
    const auto drawn = std::min(notes.size(), kMaxNoteLines);
    for (auto* rect : m_plot->axisRects()) {
        for (std::size_t i = 0; i < drawn; ++i) {
            const auto& a = notes[i];
            auto* line = new QCPItemStraightLine(m_plot);
            line->setClipAxisRect(rect);
            for (auto* pos : { line->point1, line->point2 }) {
                pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
                pos->setAxisRect(rect);
                pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
            }
            const double x = (double(a.startNs) - double(dayStart(*m_snap))) / 1e9; // any time: no int64 overflow
            line->point1->setCoords(x, 0);
            line->point2->setCoords(x, 1);
            line->setPen(QPen(text, 1, Qt::DashLine));
        }
    }
    m_plot->setBackground(pal.color(QPalette::Base));
    m_plot->setMinimumHeight(int(m_links.size()) * kGroupPx);
    createMarks();
    applyMargins(width());
    refresh();
}

// The ruler's left gutter and right margin, less what the scroll bar beside the plot takes of the right one.
void CounterPlotWidget::applyMargins(int viewWidth)
{
    const int right = std::max(0, kTimeRightPx - (viewWidth - m_plot->width()));
    for (auto* rect : m_plot->axisRects()) {
        rect->setMargins(QMargins(kTimeGutterPx, rect->margins().top(), right, rect->margins().bottom()));
    }
}

// Per track: the pinned cursor, the hover line and, at the hover time, each line's value.
void CounterPlotWidget::createMarks()
{
    m_marks.clear();
    auto* layer = m_plot->layer(QStringLiteral("marks"));
    const QColor text = palette().color(QPalette::WindowText);
    for (auto* rect : m_plot->axisRects()) {
        Marks m;
        m.rect = rect;
        for (auto** line : { &m.cursor, &m.hover }) {
            *line = new QCPItemStraightLine(m_plot);
            (*line)->setLayer(layer);
            (*line)->setClipAxisRect(rect);
            for (auto* pos : { (*line)->point1, (*line)->point2 }) {
                pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
                pos->setAxisRect(rect);
                pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
            }
        }
        QColor hover = text;
        hover.setAlpha(150);
        m.cursor->setPen(QPen(isDarkPalette(palette()) ? QColor(0xf0, 0xe4, 0x42) : QColor(Qt::black), 1));
        m.hover->setPen(QPen(hover, 1, Qt::DotLine));
        m.readout = new QCPItemText(m_plot);
        m.readout->setLayer(layer);
        m.readout->setClipAxisRect(rect);
        m.readout->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        m.readout->position->setAxisRect(rect);
        m.readout->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m.readout->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m.readout->setColor(text);
        QColor plate = palette().color(QPalette::Base);
        plate.setAlpha(220);
        m.readout->setBrush(QBrush(plate));
        m.readout->setPadding(QMargins(3, 1, 3, 1));
        m_marks.push_back(m);
    }
    updateMarks();
}

void CounterPlotWidget::updateMarks()
{
    if (!m_snap || m_marks.empty()) {
        return;
    }
    const double origin = double(dayStart(*m_snap));
    const auto key = [&](TimeNs t) { return (double(t) - origin) / 1e9; };
    const TimeNs cursor = m_state->cursor(), hover = m_state->hover();
    for (auto& m : m_marks) {
        m.cursor->setVisible(cursor != kNoTime);
        m.hover->setVisible(hover != kNoTime);
        m.readout->setVisible(hover != kNoTime);
        if (cursor != kNoTime) {
            m.cursor->point1->setCoords(key(cursor), 0);
            m.cursor->point2->setCoords(key(cursor), 1);
        }
        if (hover == kNoTime) {
            continue;
        }
        m.hover->point1->setCoords(key(hover), 0);
        m.hover->point2->setCoords(key(hover), 1);
        m.readout->setText(readoutAt(m.rect, key(hover)));
        // Beside the line, on the side with room.
        const auto* x = m.rect->axis(QCPAxis::atBottom);
        const bool left = x->coordToPixel(key(hover)) > m.rect->left() + m.rect->width() * 0.6;
        m.readout->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        const double fourPx = 4.0 * x->range().size() / std::max(1, m.rect->width());
        m.readout->position->setCoords(key(hover) + (left ? -fourPx : fourPx), 0);
    }
    m_plot->layer(QStringLiteral("marks"))->replot();
}

// Each line of one track at plot key `key`: its end's name and the value of the step that covers the key.
QString CounterPlotWidget::readoutAt(QCPAxisRect* rect, double key) const
{
    QStringList parts;
    for (auto* g : rect->graphs()) {
        if (g->data()->isEmpty()) {
            continue;
        }
        // The last point at or before key: the step (lsStepRight) that covers it.
        const auto after = std::upper_bound(g->data()->constBegin(), g->data()->constEnd(), key,
            [](double k, const QCPGraphData& d) { return k < d.key; });
        if (after == g->data()->constBegin()) {
            continue;
        }
        const auto it = after - 1;
        const bool dashed = g->pen().style() != Qt::SolidLine;
        parts << QStringLiteral("%1%2: %3").arg(g->name(), dashed ? tr(" (dashed)") : QString(),
            QString::number(it->value, 'g', 3));
    }
    if (!parts.isEmpty()) {
        parts.prepend(rect->property("label").toString()); // "sent GB/s"
    }
    return parts.join(QLatin1Char('\n'));
}

bool CounterPlotWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_plot || m_marks.empty()) {
        if (watched == m_plot && event->type() == QEvent::Resize) {
            applyMargins(width());
        }
        return QWidget::eventFilter(watched, event);
    }
    // The ruler's columns, over the plot's whole height: every track shares them.
    const QRect r = m_marks.front().rect->rect();
    const QRect plot(r.left(), 0, r.width(), m_plot->height());
    switch (event->type()) {
    case QEvent::Resize:
        applyMargins(width());
        break;
    case QEvent::MouseMove:
        m_nav->move(static_cast<QMouseEvent*>(event), plot);
        break;
    case QEvent::MouseButtonPress:
        m_nav->press(static_cast<QMouseEvent*>(event));
        break;
    case QEvent::MouseButtonRelease:
        m_nav->release(static_cast<QMouseEvent*>(event), plot);
        break;
    case QEvent::Leave:
        m_nav->leave();
        break;
    case QEvent::Wheel:
        if (!(static_cast<QWheelEvent*>(event)->modifiers() & Qt::ShiftModifier)) { // Shift+wheel scrolls the strips
            m_nav->wheel(static_cast<QWheelEvent*>(event), plot);
            return true;
        }
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

QWidget* CounterPlotWidget::surface() const
{
    return m_plot;
}

double CounterPlotWidget::xOf(TimeNs t) const
{
    if (!m_snap || m_plot->axisRectCount() == 0) {
        return -1;
    }
    return m_plot->axisRect(0)->axis(QCPAxis::atBottom)->coordToPixel((double(t) - double(dayStart(*m_snap))) / 1e9);
}

std::vector<int> CounterPlotWidget::trackHeights() const
{
    std::vector<int> out;
    for (auto* rect : m_plot->axisRects()) {
        out.push_back(rect->height());
    }
    return out;
}

QPoint CounterPlotWidget::removeButtonCentre(LinkId link) const
{
    for (auto* e : m_plot->findChildren<QCPTextElement*>()) {
        if (e->property("link").isValid() && e->property("link").toUInt() == index(link)) {
            return e->outerRect().center();
        }
    }
    return { -1, -1 };
}

void CounterPlotWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    applyMargins(width());
}

void CounterPlotWidget::refresh()
{
    if (!m_snap || m_links.empty()) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const TimeRange w = m_state->window();
    const double origin = double(dayStart(*m_snap));
    const int columns = std::max(100, m_plot->width());
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        auto* g = m_plot->graph(i);
        const auto* s = std::size_t(i) < m_graphSeries.size() ? m_graphSeries[std::size_t(i)] : nullptr;
        if (!s) {
            g->data()->clear();
            continue;
        }
        const auto pts
            = counterRate(*s, m_pyramids.of(*s), w, columns, g->property("scale").toDouble(), dayStart(*m_snap));
        g->setData(QVector<double>(pts.keys.begin(), pts.keys.end()),
            QVector<double>(pts.values.begin(), pts.values.end()), true);
    }
    for (auto* rect : m_plot->axisRects()) {
        rect->axis(QCPAxis::atBottom)->setRange((double(w.start) - origin) / 1e9, (double(w.end) - origin) / 1e9);
        bool found = false;
        auto range = QCPRange(0, 1);
        for (auto* g : rect->graphs()) {
            bool ok = false;
            const auto r = g->getValueRange(ok);
            if (ok) {
                range = found ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
                found = true;
            }
        }
        // An all-zero (or empty) track reads 0..1 with plain labels: a range of a hair above zero made the
        // ticker label it "5·10⁻¹⁰".
        rect->axis(QCPAxis::atLeft)->setRange(0, range.upper > 0 ? range.upper * 1.1 : 1.0);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QStringList CounterPlotWidget::yTickLabels(int track) const
{
    const auto rects = m_plot->axisRects();
    if (track < 0 || track >= rects.size()) {
        return {};
    }
    const auto labels = rects[track]->axis(QCPAxis::atLeft)->tickVectorLabels(); // as of the last replot
    return QStringList(labels.begin(), labels.end());
}

QImage CounterPlotWidget::renderImage(QSize size)
{
    resize(size);
    refresh();
    return m_plot->toPixmap(size.width(), size.height() - (m_hint->isVisible() ? m_hint->height() : 0)).toImage();
}

// A still image has nothing to click: the links' remove buttons are left out of it.
void CounterPlotWidget::setRemoveButtonsVisible(bool on)
{
    for (auto* e : m_plot->findChildren<QCPTextElement*>()) {
        if (e->property("link").isValid()) {
            e->setTextColor(on ? palette().color(QPalette::WindowText) : Qt::transparent);
        }
    }
}

void CounterPlotWidget::paintInto(QPainter& p, QSize size)
{
    setRemoveButtonsVisible(false);
    resize(size);
    m_plot->resize(size);
    applyMargins(size.width());
    refresh();
    updateMarks();
    p.drawPixmap(0, 0, m_plot->toPixmap(size.width(), size.height()));
    setRemoveButtonsVisible(true);
}

void CounterPlotWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        auto links = m_links;
        m_links.clear(); // force a rebuild with the new colours
        rebuild();
    }
    QWidget::changeEvent(event);
}

void CounterPlotWidget::contextMenuEvent(QContextMenuEvent* event)
{
    execViewMenu(this, event, [this] { emit exportRequested(); });
}

} // namespace stallscope
