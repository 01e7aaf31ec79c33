// SPDX-License-Identifier: MIT
// Fabric over days (issue #13): opening a week of a 2,048-port fabric without a job, as the window does it
// (snapshot, then the link heatmap's levels on one core while the flap finder runs on the other, then the first
// full-week frame), link heatmap frames at any zoom, and resident memory against the bundle's size.
//
//   STALLSCOPE_BENCH_FABRIC=/path/to/fabric-week ./bench_fabric
//
// Without the variable the bundle is generated once into $TMPDIR/stallscope-fabric-week (preset fabric-week:
// 7 days, 1,024 links = 2,048 ports, counters every 60 s, 588 MB).
#include "analysis/flaps.h"
#include "bundle/writer.h"
#include "core/snapshot_summary.h"
#include "import/open_job.h"
#include "sim/config.h"
#include "sim/simulator.h"
#include "view/counter_pyramid.h"
#include "view/link_heatmap_model.h"

#include "bench_support.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

constexpr int kColumns = 1600;
constexpr int kPixelRows = 480;

std::string fabricBundle()
{
    return bench::bundleFor("STALLSCOPE_BENCH_FABRIC", "fabric-week", "stallscope-fabric-week");
}

// One frame as the widget draws it: every row rasterized at the plot's width, folded into the pixel rows.
void frame(const LinkHeatmapModel& m, const std::vector<std::uint32_t>& order, TimeRange w, std::vector<LinkCell>& tmp,
    std::vector<LinkCell>& pixels)
{
    tmp.resize(kColumns);
    pixels.assign(std::size_t(kColumns) * kPixelRows, LinkCell::NoData);
    const double rowsPerPixel = double(order.size()) / kPixelRows;
    const auto plan = m.plan(w, kColumns);
    for (std::size_t r = 0; r < order.size(); ++r) {
        m.rasterizeRow(order[r], plan, tmp.data());
        auto* line = pixels.data() + std::size_t(double(r) / rowsPerPixel) * kColumns;
        for (int x = 0; x < kColumns; ++x) {
            line[x] = std::max(line[x], tmp[std::size_t(x)]);
        }
    }
}

// The series the counter plots draw for the top flapping links: both ends' traffic, errors and waits.
std::vector<const CounterSeries*> plottedSeries(const JobSnapshot& snap, const FabricReview& review)
{
    std::vector<const CounterSeries*> out;
    for (std::size_t i = 0; i < review.flapping.size() && i < 3; ++i) {
        const auto& f = review.flapping[i];
        for (const auto& [guid, port] : { std::pair { f.guidA, f.portA }, std::pair { f.guidB, f.portB } }) {
            for (const auto kind : { CounterKind::PortXmitData, CounterKind::PortRcvData, CounterKind::LinkDowned,
                     CounterKind::SymbolError, CounterKind::PortXmitWait }) {
                if (const auto* series = findSeries(snap, guid, port, kind)) {
                    out.push_back(series);
                }
            }
        }
    }
    return out;
}

// Counter plot frames over the same zoom as the heatmap: from the samples, and from the pyramid (built on the
// first frame that needs it, as the widget does), in one run. Median ms per frame for all plotted series.
void plotFrames(benchmark::State& state, const JobSnapshot& snap, const FabricReview& review, TimeNs focus)
{
    const auto series = plottedSeries(snap, review);
    std::vector<double> raw, fast;
    CounterPyramidCache cache;
    const auto b0 = std::chrono::steady_clock::now();
    for (const auto* s : series) {
        (void)cache.of(*s);
    }
    const double buildMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count();
    std::size_t points = 0;
    TimeRange w = snap.job.span;
    for (int i = 0; i < 120; ++i) {
        auto f0 = std::chrono::steady_clock::now();
        for (const auto* s : series) {
            points += counterRate(*s, w, kColumns, 4.0, snap.job.clockOriginNs).keys.size();
        }
        raw.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
        f0 = std::chrono::steady_clock::now();
        for (const auto* s : series) {
            points += counterRate(*s, cache.of(*s), w, kColumns, 4.0, snap.job.clockOriginNs).keys.size();
        }
        fast.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
        bench::zoomStep(w, focus, 0.8, 60 * kNsPerSec);
    }
    benchmark::DoNotOptimize(points);
    std::sort(raw.begin(), raw.end());
    std::sort(fast.begin(), fast.end());
    std::uint64_t pyramidBytes = 0;
    for (const auto* s : series) {
        pyramidBytes += cache.of(*s).memoryBytes();
    }
    state.counters["plot_series"] = double(series.size());
    state.counters["plot_samples_per_series"] = series.empty() ? 0 : double(series.front()->size());
    state.counters["plot_slowest_frame_ms_samples"] = raw.back();
    state.counters["plot_slowest_frame_ms_pyramid"] = fast.back();
    state.counters["plot_median_frame_ms_samples"] = raw[raw.size() / 2];
    state.counters["plot_median_frame_ms_pyramid"] = fast[fast.size() / 2];
    state.counters["plot_pyramids_build_ms"] = buildMs;
    state.counters["plot_pyramids_MB"] = double(pyramidBytes) / 1e6;
}

void BM_FabricWeek(benchmark::State& state)
{
    const auto dir = fabricBundle();
    for (auto _ : state) {
        const auto rss0 = residentBytes();
        const auto t0 = std::chrono::steady_clock::now();
        auto loaded = openJob(dir);
        if (!loaded) {
            state.SkipWithError(loaded.error().format().c_str());
            return;
        }
        const auto snap = loaded->snapshot;
        const auto tOpen = std::chrono::steady_clock::now();
        // As the window: the flap finder runs on the other core while the levels are read (or built) and the
        // first frame drawn; the Flaps panel fills in when it is done.
        auto reviewed = std::async(std::launch::async, [snap] { return reviewFabric(*snap); });
        NullProgress quiet;
        const auto model = LinkHeatmapModel::loadOrBuild(snap, dir, quiet);
        std::vector<LinkCell> tmp, pixels;
        const auto order = model->order(LinkRowOrder::Tier);
        frame(*model, order, snap->job.span, tmp, pixels);
        const auto tFirst = std::chrono::steady_clock::now();
        const auto review = reviewed.get();
        const auto tReview = std::chrono::steady_clock::now();
        // Frames: zoom 0.8x per frame from the week to a minute around the first hourly flap, then pan.
        const TimeNs focus = review.flapping.empty() ? snap->job.span.start : review.flapping[0].flaps[0].timeNs();
        std::vector<double> ms;
        TimeRange w = snap->job.span;
        for (int i = 0; i < 120; ++i) {
            const auto f0 = std::chrono::steady_clock::now();
            frame(*model, order, w, tmp, pixels);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
            bench::zoomStep(w, focus, 0.8, 60 * kNsPerSec);
        }
        std::sort(ms.begin(), ms.end());
        state.counters["open_s"] = std::chrono::duration<double>(tOpen - t0).count();
        state.counters["open_to_first_frame_s"] = std::chrono::duration<double>(tFirst - t0).count();
        state.counters["open_to_flaps_s"] = std::chrono::duration<double>(tReview - t0).count();
        state.counters["median_frame_ms"] = ms[ms.size() / 2];
        state.counters["p99_frame_ms"] = ms[std::min(ms.size() - 1, std::size_t(std::ceil(ms.size() * 0.99)) - 1)];
        state.counters["rss_over_bundle"] = double(residentBytes() - rss0) / double(loaded->bytesOnDisk);
        state.counters["levels_MB"] = double(model->memoryBytes()) / 1e6;
        state.counters["bundle_MB"] = double(loaded->bytesOnDisk) / 1e6;
        state.counters["flapping_links"] = double(review.flapping.size());
        plotFrames(state, *snap, review, focus);
    }
}
BENCHMARK(BM_FabricWeek)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

} // namespace

BENCHMARK_MAIN();
