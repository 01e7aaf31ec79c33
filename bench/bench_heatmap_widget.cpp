// SPDX-License-Identifier: MIT
// The heatmap as the user feels it (issue #15): the GUI thread's time per frame while zooming from the whole hour
// of bench-hour to a 1 ms window around the stall and panning, one frame every 16 ms (input at 60 Hz), with the
// raster made off the GUI thread (the widget's default) and with it made in the paint (the old way), in one run.
// Also: how many frames showed the previous raster as a placeholder, and how long after the last input the
// final raster was on screen. Offscreen platform; 1600 x 1024 plot.
// Usage: STALLSCOPE_BENCH_BUNDLE=/tmp/bhb ./build/bench/bench_heatmap_widget
#include "analysis/analysis.h"
#include "bench_support.h"
#include "heatmap/heatmap_widget.h"
#include "import/open_job.h"
#include "view/view_state.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>

using namespace stallscope;

namespace {

struct Run
{
    std::vector<double> frameMs;
    int placeholders = 0;
    double settleMs = 0;
};

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(std::ceil(double(v.size()) * q)) - 1)];
}

void waitMs(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

Run zoom(HeatmapWidget& w, ViewState& state, TimeRange span, TimeNs focus, bool async)
{
    Run r;
    w.setAsyncRaster(async);
    state.setWindow(span);
    w.waitForRaster();
    TimeRange win = span;
    QElapsedTimer clock;
    for (int i = 0; i < 120; ++i) {
        bench::zoomStep(win, focus, 0.85, kNsPerMs);
        state.setWindow(win);
        clock.start();
        (void)w.grab(); // one frame: everything the GUI thread does to paint it
        r.frameMs.push_back(double(clock.nsecsElapsed()) / 1e6);
        r.placeholders += w.rasterPending();
        waitMs(std::max(0, 16 - int(r.frameMs.back()))); // the next input 16 ms later; finished rasters land
    }
    clock.start();
    w.waitForRaster();
    r.settleMs = double(clock.nsecsElapsed()) / 1e6;
    return r;
}

// The window's stage 2 (the heatmap before the analysis has named a stall): the load, level 0 built from the records
// or read from rank_levels.bin (convert and simulate keep one), and the first full-span raster of 1,600 × 1,024.
void firstFrame(const SnapshotPtr& snap, const std::string& dir, double loadS)
{
    NullProgress quiet;
    QElapsedTimer t;
    t.start();
    const auto built = HeatmapModel::build(snap, {}, quiet);
    const double buildS = double(t.nsecsElapsed()) / 1e9;
    t.start();
    const auto kept = HeatmapModel::loadOrBuild(snap, dir, quiet);
    const double keptS = double(t.nsecsElapsed()) / 1e9;
    t.start();
    std::vector<HeatCell> cells;
    const auto order = kept->rowOrder(RowOrder::Rank);
    const TimeAxisMapping whole { snap->job.span, 1600 };
    kept->rasterize(whole, 1024, order, cells);
    const double rasterS = double(t.nsecsElapsed()) / 1e9;
    // The window's first frame when the full span is finer than level 0 (a large job: its level 0 is capped at 2^26
    // cells) and many ranks are shown: coarse from the levels, the fine one after it (HeatmapWidget).
    double coarseS = rasterS;
    if (kept->needsRecords(whole)) {
        t.start();
        kept->rasterize(whole, 1024, order, cells, true);
        coarseS = double(t.nsecsElapsed()) / 1e9;
    }
    std::printf(
        "load %.2f s; level 0 built from the records %.2f s, %s %.2f s (%zu tiers of rank blocks); first "
        "raster %.3f s (coarse from the levels %.3f s); open -> first frame %.2f s after the load, %.2f s in all "
        "(levels built: %.2f s in all)\n",
        loadS, buildS, kept->levelsFromFile() ? "read from rank_levels.bin" : "built again (no usable file)", keptS,
        kept->rankBlockTiers(), rasterS, coarseS, keptS + coarseS, loadS + keptS + coarseS, loadS + buildS + coarseS);
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const auto dir = bench::bundleFor("STALLSCOPE_BENCH_BUNDLE", "bench-hour", "stallscope-bench-hour");
    QElapsedTimer opening;
    opening.start();
    auto loaded = openJob(dir);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().format().c_str());
        return 1;
    }
    const double loadS = double(opening.nsecsElapsed()) / 1e9;
    const auto& snap = loaded->snapshot;
    firstFrame(snap, dir, loadS);
    QElapsedTimer built;
    built.start();
    auto levels = std::async(std::launch::async, [snap] {
        NullProgress quiet;
        return HeatmapModel::build(snap, {}, quiet);
    });
    auto analysis = std::make_shared<AnalysisResult>(analyze(*snap));
    const auto stalls = stallWindows(*analysis);
    const std::shared_ptr<const HeatmapModel> model = levels.get()->withStalls(stalls);
    std::printf("ranks %u, levels %d (level 0: %zu buckets of %.1f ms), %.0f MB, analysis + levels %.2f s\n",
        model->rows(), model->levels(), model->baseBuckets(), double(model->baseBucketNs()) / 1e6,
        double(model->memoryBytes()) / 1e6, double(built.nsecsElapsed()) / 1e9);
    ViewState state;
    state.setSpan(snap->job.span);
    HeatmapWidget w(&state);
    w.setModel(model, analysis);
    w.resize(1600 + 70, 1024 + 60); // the plot is about 1600 x 1024 inside the gutter, axis and legend
    const TimeNs focus = stalls.empty() ? snap->job.span.start + snap->job.span.delta() / 2 : stalls[0].start;
    std::printf(
        "bundle %s, plot %dx%d, 120 frames at 60 Hz input\n", dir.c_str(), w.plotRect().width(), w.plotRect().height());
    // Rasters in the paint take seconds each past 16,384 ranks (120 of them: minutes that say nothing new).
    const bool paintRuns = model->rows() < 16384;
    for (const bool async : { false, true, false, true }) {
        if (!async && !paintRuns) {
            continue;
        }
        const auto r = zoom(w, state, snap->job.span, focus, async);
        std::printf("%-28s median %6.2f ms  p99 %6.2f ms  max %6.2f ms  placeholders %3d/120  settled %6.1f ms after "
                    "the last input\n",
            async ? "raster off the GUI thread" : "raster in the paint", percentile(r.frameMs, 0.5),
            percentile(r.frameMs, 0.99), percentile(r.frameMs, 1.0), r.placeholders, r.settleMs);
    }
    return 0;
}
