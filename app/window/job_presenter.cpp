// SPDX-License-Identifier: MIT
#include "window/job_presenter.h"
#include "plain_text.h"
#include "worker_pool.h"

#include "core/issue_groups.h"
#include "core/snapshot_summary.h"
#include "panels/counter_plot_widget.h"
#include "panels/flaps_panel.h"
#include "heatmap/heatmap_widget.h"
#include "panels/hosts_panel.h"
#include "panels/incidents_panel.h"
#include "heatmap/link_heatmap_widget.h"
#include "panels/link_list_panel.h"
#include "panels/summary_view.h"
#include "topology/topology_widget.h"
#include "view/view_state.h"

#include <QDockWidget>
#include <QListWidget>
#include <QStackedWidget>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

JobPresenter::JobPresenter(const Views& views, QObject* parent)
    : QObject(parent)
    , m_views(views)
{
    connect(&m_latenessJob, &QFutureWatcherBase::finished, this, [this] {
        auto model = m_latenessJob.result();
        if (m_opened && model && &model->snapshot() == m_opened->snapshot.get()) { // still the same job
            m_opened->heatmap = model;
            m_views.heatmap->setModel(model, shownAnalysis());
            emit statusMessage(tr("Lateness ready"));
        }
    });
}

JobPresenter::~JobPresenter()
{
    m_latenessJob.waitForFinished();
}

std::shared_ptr<const AnalysisResult> JobPresenter::shownAnalysis() const
{
    return m_analysisHidden || !m_opened ? nullptr : m_opened->analysis;
}

bool JobPresenter::showingViews() const
{
    return m_views.central->currentIndex() == 1;
}

void JobPresenter::showViews(bool on)
{
    m_views.central->setCurrentIndex(on ? 1 : 0);
}

JobViews JobPresenter::jobViews() const
{
    return { m_views.state, m_views.heatmap, m_views.linkHeatmap, m_views.linkList, m_views.fabricFind, m_views.hosts };
}

void JobPresenter::showEmptyStates(EmptyState state, const QString& what)
{
    stallscope::showEmptyStates(
        { m_views.heatmap, m_views.linkHeatmap, m_views.incidents, m_views.flaps, m_views.topology }, state, what);
}

void JobPresenter::showIdleStates()
{
    showEmptyStates(m_analysisHidden ? EmptyState::AnalysisHidden : EmptyState::NoJob);
}

void JobPresenter::beginLoad(bool quiet, const QString& sessionPath)
{
    m_reloading = quiet;
    if (!quiet) { // another job: what this one shows comes back if that one fails to open
        m_previous = PreviousJob { m_opened, captureJobViews(jobViews()), sessionPath };
    }
}

void JobPresenter::showStage(std::shared_ptr<OpenedJob> partial)
{
    if (!partial->heatmap) {
        if (!m_reloading) {
            // Another job: nothing of the previous one stays (its notes, selection, find text, incidents), and
            // nothing acts on it (a note, an export) while this one loads; m_previous keeps it for a failure.
            m_opened.reset();
            resetJobViews(jobViews(), partial->snapshot->job.span);
            emit menusChanged();
            showEmptyStates(EmptyState::Loading, QString::fromStdString(partial->path));
            m_views.incidents->setAnalysis(nullptr, nullptr);
            m_views.flaps->setReview(nullptr, nullptr);
        }
        showSnapshot(*partial, true); // stage 1: metadata, topology, counters; a job's link states follow
        m_views.heatmap->setModel(nullptr, nullptr);
        m_views.linkHeatmap->setModel(nullptr);
        emit statusMessage(
            tr("Loaded %1; building the heatmap and analysing…").arg(QString::fromStdString(partial->path)));
        emit stageShown();
        return;
    }
    // Stage 2, two or three times: the main view's levels, a job's link states, the other view's levels; stalls not
    // yet marked.
    if (partial->linkStates && m_views.topology->linkStates() != partial->linkStates.get()) {
        m_views.topology->setLinkStates(partial->linkStates);
    }
    if (m_views.heatmap->model() != partial->heatmap.get()) {
        m_views.heatmap->setModel(partial->heatmap, nullptr);
    }
    if (partial->linkHeatmap) {
        m_views.linkHeatmap->setModel(partial->linkHeatmap);
    }
    emit statusMessage(tr("Heatmap ready; analysing…"));
}

void JobPresenter::showOpened(std::shared_ptr<OpenedJob> opened, bool selectFirstFlap)
{
    // Stage 1 (queued before this) already showed the snapshot: add what the analysis knows.
    m_opened = opened;
    m_previous.reset();
    const bool refresh = m_reloading;
    m_reloading = false;
    m_views.linkHeatmap->setModel(opened->linkHeatmap);
    if (!refresh) {
        showJobDeath(*opened);
    }
    applyAnalysis();
    applyHeatmapVisibility();
    if (opened->snapshot->job.worldSize == 0) {
        m_views.flapsDock->raise(); // no job: the flaps are the story
        if (!refresh && selectFirstFlap && !opened->fabricReview->flapping.empty()) {
            m_views.flaps->selectRow(0); // the costliest flapper's counters, cursor on its latest flap
        }
        emit statusMessage(tr("Opened %1: fabric data, %2 link(s) went down")
                               .arg(QString::fromStdString(opened->path))
                               .arg(opened->fabricReview->flapping.size()));
    } else if (m_analysisHidden) {
        emit statusMessage(tr("Opened %1").arg(QString::fromStdString(opened->path)));
    } else {
        emit statusMessage(tr("Opened %1: %2 incident(s)")
                               .arg(QString::fromStdString(opened->path))
                               .arg(opened->analysis->incidents.size()));
    }
}

void JobPresenter::showFailed(bool keepShown)
{
    m_reloading = false;
    if (keepShown) {
        return;
    }
    const auto previousSnapshot = m_previous && m_previous->opened ? m_previous->opened->snapshot : nullptr;
    if (m_shown != previousSnapshot) { // stage 1 had shown part of it: leave no half state behind
        m_previous && m_previous->opened ? restorePreviousJob() : clear();
    }
    m_previous.reset();
}

void JobPresenter::restorePreviousJob()
{
    const auto previous = std::move(*m_previous);
    m_previous.reset();
    m_opened = previous.opened;
    showSnapshot(*m_opened);
    m_views.heatmap->setModel(m_opened->heatmap, shownAnalysis());
    m_views.linkHeatmap->setModel(m_opened->linkHeatmap);
    applyAnalysis();
    applyHeatmapVisibility();
    applyJobViews(jobViews(), previous.views);
    emit menusChanged();
    emit restored(previous.sessionPath);
}

void JobPresenter::clear()
{
    showEmptyStates(EmptyState::NoJob);
    m_opened.reset();
    resetJobViews(jobViews(), { 0, 1 });
    emit menusChanged();
    m_shown.reset();
    m_views.heatmap->setModel(nullptr, nullptr);
    m_views.linkHeatmap->setModel(nullptr);
    m_views.flaps->setReview(nullptr, nullptr);
    m_views.counters->setSnapshot(nullptr);
    m_views.topology->setData(nullptr, nullptr);
    m_views.linkList->setSnapshot(nullptr);
    m_views.hosts->setSnapshot(nullptr);
    m_views.incidents->setAnalysis(nullptr, nullptr);
    m_views.summary->setMessage(tr("No bundle open."));
    showViews(false);
    m_views.warnings->clear();
    emit cleared();
}

void JobPresenter::showSnapshot(const OpenedJob& opened, bool statesToCome)
{
    showViews(true);
    auto* state = m_views.state;
    const auto links = state->selectedLinks();
    const TimeRange oldSpan = state->span(), oldWindow = state->window();
    state->setSpan(opened.snapshot->job.span);
    state->clearLinks();
    if (m_reloading) {
        // A live refresh: the same links stay plotted; a window at the right edge follows the new data.
        for (const auto l : links) {
            if (index(l) < opened.snapshot->topology.links().size()) {
                state->selectLink(l);
            }
        }
        const TimeNs grow = opened.snapshot->job.span.end - oldSpan.end;
        if (oldWindow.end >= oldSpan.end - oldWindow.delta() / 100 && grow > 0) {
            state->setWindow({ oldWindow.start, oldWindow.end + grow }, false);
        } else {
            state->setWindow(oldWindow, false);
        }
    }
    const auto analysis = m_analysisHidden ? nullptr : opened.analysis; // stage 1 has none yet anyway
    m_views.counters->setStalls(analysis ? stallWindows(*analysis) : std::vector<TimeRange> {});
    m_views.counters->setSnapshot(opened.snapshot);
    m_views.topology->setData(opened.snapshot, analysis, opened.linkStates, statesToCome);
    showHosts(opened.snapshot);
    m_views.linkList->setSnapshot(opened.snapshot, analysis, m_analysisHidden ? nullptr : opened.fabricReview);
    m_views.summary->setSummary(summarize(opened.path, opened.loaded));
    m_views.warnings->clear();
    for (const auto& g : groupIssues(opened.warnings)) {
        auto* item = new QListWidgetItem(QString::fromStdString(g.format()), m_views.warnings);
        item->setToolTip(plainTip(QString::fromStdString(g.first.format())));
    }
    m_shown = opened.snapshot;
    emit titleChanged();
    applyHeatmapVisibility();
}

// A crash's "job died" moment can lie past the data's end (the collective timeout runs on after the last record):
// the views' span reaches it, so the death is on the time axis rather than off its edge.
void JobPresenter::showJobDeath(const OpenedJob& opened)
{
    if (!opened.analysis || m_analysisHidden) { // in training the death is part of the answer
        return;
    }
    TimeNs died = kNoTime;
    for (const auto& inc : opened.analysis->incidents) {
        if (inc.jobCrashed && inc.jobDiedNs != kNoTime && (died == kNoTime || inc.jobDiedNs > died)) {
            died = inc.jobDiedNs;
        }
    }
    const auto span = m_views.state->span();
    if (died != kNoTime && died >= span.end) {
        const TimeNs margin = std::max<TimeNs>((died - span.start) / 50, kNsPerSec);
        m_views.state->setSpan({ span.start, died + margin });
    }
}

void JobPresenter::setAnalysisHidden(bool hidden)
{
    m_analysisHidden = hidden;
    showIdleStates();
    m_views.incidentsDock->setVisible(!hidden);
    m_views.flapsDock->setVisible(!hidden);
    (hidden ? m_views.summaryDock : m_views.incidentsDock)->raise();
    applyAnalysis();
}

void JobPresenter::applyAnalysis()
{
    if (!m_opened || !m_opened->snapshot) {
        return;
    }
    const auto analysis = shownAnalysis();
    m_views.topology->setData(m_opened->snapshot, analysis, m_opened->linkStates);
    showHosts(m_opened->snapshot);
    m_views.heatmap->setModel(m_opened->heatmap, analysis);
    m_views.counters->setStalls(analysis ? stallWindows(*analysis) : std::vector<TimeRange> {});
    m_views.linkList->setSnapshot(m_opened->snapshot, analysis, m_analysisHidden ? nullptr : m_opened->fabricReview);
    m_views.incidents->setAnalysis(m_opened->snapshot, analysis);
    m_views.flaps->setReview(m_opened->snapshot, m_analysisHidden ? nullptr : m_opened->fabricReview);
    m_views.linkHeatmap->setCulpritMarksHidden(m_analysisHidden);
    emit menusChanged(); // "Only ranks with records" applies to this job or not
}

// The hosts' inventory and findings, and their marks in the fabric view (after its setData, which clears them).
// An exercise hides the findings: they would name the culprit's host.
void JobPresenter::showHosts(const std::shared_ptr<const JobSnapshot>& snap)
{
    m_views.hosts->setSnapshot(snap, m_analysisHidden);
    m_views.topology->setFlaggedHosts(m_views.hosts->flaggedHosts());
}

void JobPresenter::setLinkHeatmapShown(bool on)
{
    m_showLinkHeatmap = on;
    applyHeatmapVisibility();
}

// Fabric data alone: the link heatmap is the main view. With a job: the rank heatmap, and the link heatmap
// stacked under it on the same time axis unless turned off.
void JobPresenter::applyHeatmapVisibility()
{
    const auto& snap = m_shown;
    const bool fabricOnly = snap && snap->job.worldSize == 0;
    const bool hasLinks = snap && (!snap->topology.links().empty() || !snap->counterPorts.empty());
    m_views.heatmap->setVisible(!fabricOnly);
    m_views.linkHeatmap->setVisible(fabricOnly || (m_showLinkHeatmap && hasLinks));
}

void JobPresenter::ensureLateness()
{
    if (!m_opened || m_opened->heatmap->hasLateness() || m_latenessJob.isRunning()) {
        return;
    }
    emit statusMessage(tr("Computing lateness…"));
    auto opened = m_opened; // the job holds its own references: never a raw `this`
    m_latenessJob.setFuture(
        QtConcurrent::run(workerPool(), [opened] { return opened->heatmap->withLateness(*opened->analysis); }));
}

} // namespace stallscope
