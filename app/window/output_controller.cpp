// SPDX-License-Identifier: MIT
#include "window/output_controller.h"
#include "plain_text.h"

#include "core/path_relation.h"
#include "heatmap/heatmap_widget.h"
#include "heatmap/link_heatmap_widget.h"
#include "open/load_job.h"
#include "render/postmortem_render.h"
#include "render/postmortem_report.h"
#include "view/view_state.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QImage>
#include <QMainWindow>
#include <QPainter>
#include <QStatusBar>

namespace stallscope {

namespace {
// What the window shows now, as a render request: current window, selected incident, palette, row orders, metric.
RenderRequest currentRequest(const ViewState& state, const HeatmapWidget& ranks, const LinkHeatmapWidget& links,
    const QPalette& palette, QSize size)
{
    RenderRequest req;
    req.rowOrder = ranks.rowOrder();
    req.metric = ranks.metric();
    req.recordedOnly = ranks.recordedOnly();
    req.linkRowOrder = links.rowOrder();
    req.incident = state.selectedIncident();
    req.window = state.window();
    req.size = size;
    req.dark = palette.color(QPalette::Window).lightness() < 128;
    return req;
}
} // namespace

OutputController::OutputController(
    QMainWindow* window, ViewState* state, const HeatmapWidget* ranks, const LinkHeatmapWidget* links, Sources sources)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_ranks(ranks)
    , m_links(links)
    , m_sources(std::move(sources))
{
}

bool OutputController::outsideOpened(const QString& out, const QString& what)
{
    const OpenedJob* opened = m_sources.opened();
    const auto r = opened ? pathRelation(opened->path, out.toStdString()) : PathRelation::Apart;
    if (r != PathRelation::Same && r != PathRelation::Inside) {
        return true;
    }
    warnPlain(m_window, tr("Choose another place"),
        tr("%1 is inside %2, which this window opened. Stallscope never writes into what it opened: the %3 would "
           "be read as input the next time the folder is opened. Choose a place outside it.")
            .arg(out, QString::fromStdString(opened->path), what));
    return false;
}

void OutputController::exportView()
{
    if (!m_sources.opened()) {
        return;
    }
    const auto path = QFileDialog::getSaveFileName(m_window, tr("Export view"), QStringLiteral("stallscope.png"),
        tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
    // Asked again after the dialog: a live refresh may have replaced the bundle while it was open.
    const OpenedJob* opened = m_sources.opened();
    if (path.isEmpty() || !outsideOpened(path, tr("image"))) {
        return;
    }
    const RenderInputs in { opened->snapshot, m_sources.shownAnalysis(), opened->heatmap, opened->linkHeatmap,
        m_sources.analysisHidden() ? nullptr : opened->fabricReview };
    auto req = currentRequest(*m_state, *m_ranks, *m_links, m_window->palette(), QSize(1600, 1000));
    req.fabric = opened->snapshot->job.worldSize == 0;
    req.annotations = m_state->annotations();
    const auto err = renderToFile(path.toStdString(), in, req);
    err.empty() ? m_window->statusBar()->showMessage(tr("Exported %1").arg(path))
                : (void)warnPlain(m_window, tr("Export failed"), QString::fromStdString(err));
}

void OutputController::copyImage()
{
    const OpenedJob* opened = m_sources.opened();
    if (!opened) {
        return;
    }
    QImage img(QSize(1600, 1000), QImage::Format_RGB32);
    {
        QPainter p(&img);
        auto req = currentRequest(*m_state, *m_ranks, *m_links, m_window->palette(), img.size());
        req.annotations = m_state->annotations();
        req.fabric = opened->snapshot->job.worldSize == 0;
        renderComposite(p,
            { opened->snapshot, m_sources.shownAnalysis(), opened->heatmap, opened->linkHeatmap,
                m_sources.analysisHidden() ? nullptr : opened->fabricReview },
            req);
    }
    QApplication::clipboard()->setImage(img);
    m_window->statusBar()->showMessage(tr("Image copied"));
}

void OutputController::saveReport()
{
    if (!m_sources.opened()) {
        return;
    }
    if (m_sources.analysisHidden()) {
        m_window->statusBar()->showMessage(tr("A report shows the analysis: Check your answer first"));
        return;
    }
    // A save dialog, not getExistingDirectory: that one refuses a folder that does not exist yet, and a report
    // usually goes into a new one (writeReport creates it).
    const auto dir = QFileDialog::getSaveFileName(m_window, tr("Save report as folder"), QStringLiteral("report"));
    const OpenedJob* opened = m_sources.opened(); // after the dialog, as in exportView
    if (dir.isEmpty() || !outsideOpened(dir, tr("report"))) {
        return;
    }
    ReportOptions options;
    options.annotations = m_state->annotations();
    const auto err = writeReport(dir.toStdString(),
        { opened->snapshot, opened->analysis, opened->heatmap, opened->linkHeatmap, opened->fabricReview }, options);
    err.empty() ? m_window->statusBar()->showMessage(tr("Report saved in %1").arg(dir))
                : (void)warnPlain(m_window, tr("Report failed"), QString::fromStdString(err));
}

} // namespace stallscope
