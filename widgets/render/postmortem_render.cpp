// SPDX-License-Identifier: MIT
#include "render/postmortem_render.h"
#include "time_ticks.h"

#include "analysis/incident_frame.h"
#include "core/time_format.h"
#include "heatmap/heatmap_widget.h"
#include "heatmap/link_heatmap_widget.h"
#include "panels/counter_plot_widget.h"
#include "theme.h"
#include "topology/topology_widget.h"
#include "view/link_state.h"
#include "view/view_state.h"

#include <QFileInfo>
#include <QImage>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace stallscope {

namespace {

constexpr int kTitleHeight = 44;
constexpr int kCaptionLines = 7;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// `window`: the one drawn (the view state's, kept inside the job's span), not the one asked for.
QString titleText(const RenderInputs& in, TimeRange window, const Incident* inc)
{
    const auto& snap = *in.snapshot;
    QString t = q(snap.job.name) + QStringLiteral(" — %1 ranks").arg(q(formatCount(snap.job.worldSize)));
    if (inc && snap.job.untimed()) {
        t += QStringLiteral(" — incident #%1: %2, time unknown").arg(inc->number).arg(q(incidentLabel(*inc)));
    } else if (inc) {
        t += QStringLiteral(" — incident #%1: %2, %3 UTC, %4 stall")
                 .arg(inc->number)
                 .arg(q(incidentLabel(*inc)))
                 .arg(q(formatUtc(inc->startNs).substr(0, 23)))
                 .arg(q(formatDuration(inc->endNs - inc->startNs)));
    } else {
        t += QStringLiteral(" — %1").arg(snap.job.untimed() ? QStringLiteral("time unknown")
                                                            : q(utcRange(window.start, window.end)));
    }
    return t;
}

QStringList captionLines(const RenderInputs& in, const Incident* inc)
{
    QStringList lines;
    if (!inc) {
        lines << QStringLiteral("%1 incident(s) in the bundle").arg(in.analysis ? in.analysis->incidents.size() : 0);
        return lines;
    }
    lines << q(inc->summary);
    if (inc->culprit) {
        const auto& c = *inc->culprit;
        lines << QStringLiteral("culprit: %1 (%2) port %3  <->  %4 (%5) port %6, %7 confidence")
                     .arg(q(c.a.node), q(formatGuid(c.a.guid)))
                     .arg(c.a.port)
                     .arg(q(c.b.node), q(formatGuid(c.b.guid)))
                     .arg(c.b.port)
                     .arg(q(c.confidence));
        int shown = 0;
        for (const auto& e : c.evidence) {
            if (e.weight >= 4 && shown < 3) {
                lines << QStringLiteral("  %1  %2").arg(q(formatUtc(e.timeNs).substr(11, 12)), q(e.what));
                ++shown;
            }
        }
    }
    const auto& p = inc->policy;
    QString policy;
    if (p.outageNs != kNoTime) {
        // The full recovery sentence is in `analyze`; the caption keeps what decided the cost.
        QString rerouted;
        if (p.recovery == Recovery::AdaptiveRouting) {
            rerouted = QStringLiteral(", rerouted at once by adaptive routing");
        } else if (p.recovery == Recovery::SubnetManager && p.rerouteNs != kNoTime) {
            rerouted = QStringLiteral(", rerouted by the subnet manager after %1").arg(q(formatDuration(p.rerouteNs)));
        }
        policy = QStringLiteral("outage %1%2 vs retry budget %3: %4. ")
                     .arg(q(formatDuration(p.outageNs)), rerouted, q(formatDuration(p.retryBudgetNs)),
                         p.underBudget ? QStringLiteral("under budget, the collective stretched")
                                       : QStringLiteral("over budget, the job crashed"));
    }
    lines << policy
            + QStringLiteral("Cost %1 GPU-h; %2.")
                  .arg(p.totalGpuSeconds / 3600, 0, 'f', 2)
                  .arg(q(costPerDayText(p)));
    return lines;
}

// A heatmap view (paintInto(QPainter&, QSize, qreal)) sized to and painted into `area`, clipped.
template <typename View> void paintView(QPainter& p, View& w, const QRect& area)
{
    w.resize(area.size());
    p.save();
    p.translate(area.topLeft());
    p.setClipRect(QRect(QPoint(0, 0), area.size()));
    w.paintInto(p, area.size(), 1.0);
    p.restore();
}

// The selected links' counter plots, painted into `area`.
void paintCounters(QPainter& p, ViewState& state, const RenderInputs& in, const QPalette& pal, const QRect& area)
{
    CounterPlotWidget w(&state);
    w.setPalette(pal);
    w.setSnapshot(in.snapshot);
    w.setStalls(in.analysis ? stallWindows(*in.analysis) : std::vector<TimeRange> {});
    p.save();
    p.translate(area.topLeft());
    w.paintInto(p, area.size());
    p.restore();
}

// The topology with the state's selection, painted into `area`.
void paintTopology(QPainter& p, ViewState& state, const RenderInputs& in, const QPalette& pal, const QRect& area)
{
    TopologyWidget w(&state);
    w.setPalette(pal);
    // The image shows the links at one moment inside its window: only the error samples around it are read (every
    // sample of 1 M error series at 131,072 ranks, for the whole job, took 0.4 s).
    TimeRange shown = state.window();
    if (const TimeNs c = state.cursor(); c != kNoTime) {
        shown = { std::min(shown.start, c), std::max(shown.end, c + 1) };
    }
    NullProgress quiet;
    w.setData(in.snapshot, in.analysis, std::make_shared<const LinkStates>(in.snapshot, quiet, shown));
    w.resize(area.size());
    p.save();
    p.translate(area.topLeft());
    p.setClipRect(QRect(QPoint(0, 0), w.size()));
    w.paintInto(p, QSizeF(w.size()));
    p.restore();
}

void drawTitleAndCaption(
    QPainter& p, const QPalette& pal, QSize size, const QString& title, const QStringList& lines, int captionH)
{
    QFont titleFont = p.font();
    titleFont.setPixelSize(18);
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(12, 0, size.width() - 24, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft, title);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    mono.setPixelSize(13);
    p.setFont(mono);
    int y = size.height() - captionH + 6;
    for (const auto& line : lines) {
        p.drawText(QRect(12, y, size.width() - 24, 18), Qt::AlignLeft | Qt::AlignVCenter,
            p.fontMetrics().elidedText(line, Qt::ElideRight, size.width() - 24));
        y += 18;
    }
    QFont body = p.font();
    body.setFamily(QString());
    body.setPixelSize(13);
    p.setFont(body);
}

// The fabric review as one image: link heatmap, the top flappers' counters, topology, caption.
void renderFabric(QPainter& p, const RenderInputs& in, const RenderRequest& req)
{
    const QPalette pal = themePalette(req.dark);
    const QSize size = req.size;
    p.fillRect(QRect(QPoint(0, 0), size), pal.color(QPalette::Window));
    const auto& snap = *in.snapshot;
    std::shared_ptr<const FabricReview> review = in.fabricReview;
    if (!review) {
        review = std::make_shared<FabricReview>(reviewFabric(snap));
    }
    std::shared_ptr<const LinkHeatmapModel> links = in.linkHeatmap;
    if (!links) {
        NullProgress none;
        links = LinkHeatmapModel::build(in.snapshot, none);
    }
    ViewState state;
    state.setSpan(snap.job.span);
    state.setWindow(req.window.isEmpty() ? snap.job.span : req.window);
    state.setAnnotations(req.annotations);
    constexpr std::size_t kTop = 3; // the counter plots' own limit
    for (std::size_t i = 0; i < review->flapping.size() && i < kTop; ++i) {
        if (review->flapping[i].link) {
            state.selectLink(*review->flapping[i].link);
        }
    }
    const QString title = QStringLiteral("%1 — fabric review, %2, %3 links: %4 went down, %5 only erred")
                              .arg(q(snap.job.name))
                              .arg(q(formatSpanLength(snap.job.span.delta())))
                              .arg(q(formatCount(review->linksTotal)))
                              .arg(review->flapping.size())
                              .arg(review->erroring.size());
    QStringList lines;
    for (std::size_t i = 0; i < review->flapping.size() && i < 5; ++i) {
        const auto& l = review->flapping[i];
        const QString when = l.recurrence ? q(describeRecurrence(*l.recurrence))
            : l.flaps.size() == 1 ? QStringLiteral("once, %1 UTC").arg(q(formatUtc(l.flaps[0].timeNs()).substr(0, 16)))
                                  : QStringLiteral("%1 flaps, irregular").arg(l.flaps.size());
        lines << QStringLiteral("%1. %2 <-> %3 (%4): %5; ≈ %6 GPU-h/day for a %7-GPU job")
                     .arg(i + 1)
                     .arg(q(l.a), q(l.b), q(l.tier), when)
                     .arg(l.gpuHoursPerDay, 0, 'f', 1)
                     .arg(review->options.jobRanks);
    }
    if (lines.isEmpty()) {
        lines << QStringLiteral("No link went down.");
    }
    for (std::size_t i = 0; i < review->erroring.size() && lines.size() < kCaptionLines; ++i) {
        const auto& l = review->erroring[i];
        lines << QStringLiteral("erring, never down: %1 <-> %2: %3 retrains in %4 bursts, %5 symbol errors")
                     .arg(q(l.a), q(l.b))
                     .arg(l.retrains)
                     .arg(l.errorBursts)
                     .arg(l.symbolErrors);
    }
    const int captionH = kCaptionLines * 18 + 10;
    drawTitleAndCaption(p, pal, size, title, lines, captionH);
    const QRect content(0, kTitleHeight, size.width(), size.height() - kTitleHeight - captionH);
    const int rightW = req.topology ? std::max(280, content.width() * 3 / 10) : 0;
    const QRect left(content.left(), content.top(), content.width() - rightW, content.height());
    const bool plots = req.counters && !state.selectedLinks().empty();
    const int heatH = plots ? left.height() * 45 / 100 : left.height();
    if (!review->flapping.empty()) {
        // The cursor inside the costliest flapper's latest flap: the topology shows it down there.
        const auto& f = review->flapping[0].flaps.back();
        state.setCursor(f.downForNs != kNoTime ? f.earliestNs + f.downForNs / 2 : f.timeNs());
    }
    {
        LinkHeatmapWidget w(&state);
        w.setPalette(pal);
        w.setModel(links);
        w.setRowOrder(req.linkRowOrder);
        paintView(p, w, QRect(left.topLeft(), QSize(left.width(), heatH)));
    }
    if (plots) {
        paintCounters(p, state, in, pal, QRect(left.left(), left.top() + heatH, left.width(), left.height() - heatH));
    }
    if (req.topology) {
        if (!review->flapping.empty() && review->flapping[0].link) {
            state.clearLinks();
            state.selectLink(*review->flapping[0].link); // the topology marks the costliest flapper
        }
        paintTopology(p, state, in, pal, QRect(content.right() - rightW + 1, content.top(), rightW, content.height()));
    }
}

} // namespace

void renderComposite(QPainter& p, const RenderInputs& in, const RenderRequest& req)
{
    if (req.fabric) {
        renderFabric(p, in, req);
        return;
    }
    const QPalette pal = themePalette(req.dark);
    const QSize size = req.size;
    p.fillRect(QRect(QPoint(0, 0), size), pal.color(QPalette::Window));
    const Incident* inc = nullptr;
    if (req.incident > 0 && in.analysis && req.incident <= int(in.analysis->incidents.size())) {
        inc = &in.analysis->incidents[std::size_t(req.incident - 1)];
    }
    ViewState state;
    state.setSpan(in.snapshot->job.span);
    state.setWindow(inc && req.window.isEmpty() ? frameIncident(*inc).window : req.window);
    state.setAnnotations(req.annotations);
    if (inc) {
        const auto frame = frameIncident(*inc);
        state.selectIncident(inc->number);
        if (frame.link) {
            state.selectLink(*frame.link);
        }
        state.setCursor(frame.cursorNs);
    }
    // Title.
    QFont titleFont = p.font();
    titleFont.setPixelSize(18);
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(
        QRect(12, 0, size.width() - 24, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
        titleText(in, state.window(), inc));
    QFont body = p.font();
    body.setPixelSize(13);
    body.setBold(false);
    p.setFont(body);
    // Areas.
    const int captionH = kCaptionLines * 18 + 10;
    const QRect content(0, kTitleHeight, size.width(), size.height() - kTitleHeight - captionH);
    const int rightW = req.topology ? std::max(280, content.width() * 3 / 10) : 0;
    const QRect left(content.left(), content.top(), content.width() - rightW, content.height());
    const bool plots = req.counters && inc && inc->culprit;
    const int heatH = req.heatmap ? (plots ? left.height() * 62 / 100 : left.height()) : 0;
    if (req.heatmap) {
        HeatmapWidget w(&state);
        w.setPalette(pal);
        w.setModel(in.heatmap, in.analysis);
        w.setRecordedOnly(req.recordedOnly.value_or(false));
        if (!req.recordedOnly && w.fewRowsRecorded()) {
            w.setRecordedOnly(true);
        }
        w.setRowOrder(req.rowOrder);
        w.setMetric(req.metric);
        paintView(p, w, QRect(left.topLeft(), QSize(left.width(), heatH)));
    }
    if (plots) {
        paintCounters(p, state, in, pal, QRect(left.left(), left.top() + heatH, left.width(), left.height() - heatH));
    }
    if (req.topology) {
        paintTopology(p, state, in, pal, QRect(content.right() - rightW + 1, content.top(), rightW, content.height()));
    }
    // Caption.
    p.setPen(pal.color(QPalette::WindowText));
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    mono.setPixelSize(13);
    p.setFont(mono);
    int y = size.height() - captionH + 6;
    for (const auto& line : captionLines(in, inc)) {
        p.drawText(QRect(12, y, size.width() - 24, 18), Qt::AlignLeft | Qt::AlignVCenter,
            p.fontMetrics().elidedText(line, Qt::ElideRight, size.width() - 24));
        y += 18;
    }
}

std::string renderToFile(const std::string& path, const RenderInputs& in, const RenderRequest& req)
{
    const QString file = QString::fromStdString(path);
    const QString ext = QFileInfo(file).suffix().toLower();
    if (ext == QStringLiteral("png")) {
        QImage img(req.size, QImage::Format_RGB32);
        {
            QPainter p(&img);
            renderComposite(p, in, req);
        }
        const QString tmp = file + QStringLiteral(".tmp");
        if (!img.save(tmp, "PNG") || (!QFile::remove(file) && QFile::exists(file)) || !QFile::rename(tmp, file)) {
            QFile::remove(tmp);
            return path + ": cannot write the PNG";
        }
        return {};
    }
    if (ext == QStringLiteral("svg")) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(req.size);
        svg.setViewBox(QRect(QPoint(0, 0), req.size));
        svg.setTitle(QStringLiteral("Stallscope render"));
        QPainter p;
        if (!p.begin(&svg)) {
            return path + ": cannot write the SVG";
        }
        renderComposite(p, in, req);
        p.end();
        return {};
    }
    if (ext == QStringLiteral("pdf")) {
        QPdfWriter pdf(file);
        pdf.setPageSize(QPageSize(QSizeF(req.size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        pdf.setTitle(QStringLiteral("Stallscope render"));
        pdf.setCreator(QStringLiteral("Stallscope"));
        QPainter p;
        if (!p.begin(&pdf)) {
            return path + ": cannot write the PDF";
        }
        renderComposite(p, in, req);
        p.end();
        return {};
    }
    return path + ": unknown image type (expected .png, .svg or .pdf)";
}

} // namespace stallscope
