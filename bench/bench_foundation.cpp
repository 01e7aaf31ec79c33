// SPDX-License-Identifier: MIT
// Foundation benchmarks (issue #2): simulator throughput, bundle open time and resident memory, each
// against its physical floor measured in the same run.
//
//   STALLSCOPE_BENCH_BUNDLE=/path/to/bench-hour ./bench_foundation
//
// Without STALLSCOPE_BENCH_BUNDLE the load benchmarks use a bundle generated once into
// $TMPDIR/stallscope-bench-hour (the bench-hour preset: 1,024 ranks × 1 h × 10 collectives/s).
// Load runs are warm (the bundle is in the page cache): that is what a user re-opening a bundle sees.
#include "analysis/analysis.h"
#include "bundle/writer.h"
#include "core/mapped_file.h"
#include "core/snapshot_summary.h"
#include "import/open_job.h"
#include "sim/config.h"
#include "sim/simulator.h"
#include "view/heatmap_model.h"

#include "bench_support.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

std::string benchBundle()
{
    return bench::bundleFor("STALLSCOPE_BENCH_BUNDLE", "bench-hour", "stallscope-bench-hour");
}

std::uint64_t bundleBytes(const std::string& dir)
{
    std::uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        n += e.is_regular_file() ? e.file_size() : 0;
    }
    return n;
}

// Floor: map every file of the bundle (MAP_POPULATE) and touch one byte per page.
void BM_MapAndTouchFloor(benchmark::State& state)
{
    const auto dir = benchBundle();
    for (auto _ : state) {
        std::uint64_t sum = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            std::string err;
            auto map = MappedFile::open(e.path().string(), err);
            if (!map) {
                state.SkipWithError(err.c_str());
                return;
            }
            const auto bytes = map->bytes();
            for (std::size_t i = 0; i < bytes.size(); i += 4096) {
                sum += static_cast<unsigned char>(bytes[i]);
            }
        }
        benchmark::DoNotOptimize(sum);
    }
    state.counters["bundle_MB"] = double(bundleBytes(dir)) / 1e6;
}
BENCHMARK(BM_MapAndTouchFloor)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

// Opening the bundle: snapshot ready to draw (every column validated, joins resolved).
void BM_LoadBundle(benchmark::State& state)
{
    const auto dir = benchBundle();
    double rssRatio = 0;
    for (auto _ : state) {
        const auto before = residentBytes();
        auto loaded = openJob(dir);
        if (!loaded) {
            state.SkipWithError(loaded.error().format().c_str());
            return;
        }
        rssRatio = double(residentBytes() - before) / double(loaded->bytesOnDisk);
        state.counters["records_M"] = double(loaded->snapshot->collectiveCount()) / 1e6;
        benchmark::DoNotOptimize(loaded->snapshot.get());
    }
    state.counters["rss_over_disk"] = rssRatio;
}
BENCHMARK(BM_LoadBundle)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

// Simulator throughput on a 1,024-rank job, 5 minutes, 10 collectives/s, in memory (no write).
void BM_Simulate1024Ranks5Min(benchmark::State& state)
{
    auto c = *presetConfig("bench-hour");
    c.durationNs = 300 * kNsPerSec;
    c.faults[0].atNs = 120 * kNsPerSec;
    std::uint64_t records = 0;
    for (auto _ : state) {
        NullProgress none;
        auto sim = simulate(c, none);
        records = sim->snapshot->collectiveCount();
        benchmark::DoNotOptimize(sim->snapshot.get());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(records * state.iterations()));
    state.counters["records_M"] = double(records) / 1e6;
}
BENCHMARK(BM_Simulate1024Ranks5Min)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// Floor for the simulator's memory: fault in fresh memory of the same size as its columns (32 B/record).
void BM_FreshMemoryFloor(benchmark::State& state)
{
    const std::size_t bytes = std::size_t(1024) * 300 * 10 * 32;
    for (auto _ : state) {
        auto* p = static_cast<char*>(std::malloc(bytes));
        for (std::size_t i = 0; i < bytes; i += 4096) {
            p[i] = 1;
        }
        benchmark::DoNotOptimize(p);
        std::free(p);
    }
    state.counters["MB"] = double(bytes) / 1e6;
}
BENCHMARK(BM_FreshMemoryFloor)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// Full analysis of the bench-hour bundle (issue #3 target: <= 2 s for ~37 M records).
void BM_AnalyzeBenchHour(benchmark::State& state)
{
    auto loaded = openJob(benchBundle());
    if (!loaded) {
        state.SkipWithError(loaded.error().format().c_str());
        return;
    }
    std::size_t incidents = 0;
    for (auto _ : state) {
        const auto r = analyze(*loaded->snapshot);
        incidents = r.incidents.size();
    }
    state.counters["records_M"] = double(loaded->snapshot->collectiveCount()) / 1e6;
    state.counters["incidents"] = double(incidents);
    state.SetItemsProcessed(static_cast<std::int64_t>(loaded->snapshot->collectiveCount() * state.iterations()));
}
BENCHMARK(BM_AnalyzeBenchHour)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// Linearity: the same job shape for 15, 30 and 60 minutes, simulated in memory (not timed).
void BM_AnalyzeScaling(benchmark::State& state)
{
    auto c = *presetConfig("bench-hour");
    c.durationNs = state.range(0) * 60 * kNsPerSec;
    NullProgress none;
    auto sim = simulate(c, none);
    for (auto _ : state) {
        benchmark::DoNotOptimize(analyze(*sim->snapshot).incidents.size());
    }
    state.counters["records_M"] = double(sim->snapshot->collectiveCount()) / 1e6;
    state.SetItemsProcessed(static_cast<std::int64_t>(sim->snapshot->collectiveCount() * state.iterations()));
}
BENCHMARK(BM_AnalyzeScaling)->Arg(15)->Arg(30)->Arg(60)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// Heatmap frames on bench-hour at 1600 x 1024: zoom from the whole hour to a 1 ms window around the stall
// and pan, rasterizing every frame (the widget's cache misses on every step). Reports median and p99.
void BM_HeatmapFrames(benchmark::State& state)
{
    auto loaded = openJob(benchBundle());
    if (!loaded) {
        state.SkipWithError(loaded.error().format().c_str());
        return;
    }
    const auto& snap = loaded->snapshot;
    // As the app opens a bundle: heatmap levels on one core while the analysis runs on the other.
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<double> levelsSeconds { 0 }, firstFrameSeconds { 0 };
    auto levels = std::async(std::launch::async, [snap, t0, &levelsSeconds, &firstFrameSeconds] {
        NullProgress quiet;
        auto m = HeatmapModel::build(snap, {}, quiet);
        levelsSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        // The window's stage 2: the heatmap drawn before the analysis has marked any stall.
        std::vector<HeatCell> first;
        m->rasterize(TimeAxisMapping { snap->job.span, 1600 }, 1024, m->rowOrder(RowOrder::Rank), first);
        firstFrameSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return m;
    });
    const auto analysis = analyze(*snap);
    const double analysisSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<TimeRange> stalls;
    for (const auto& inc : analysis.incidents) {
        stalls.push_back({ inc.startNs, inc.endNs });
    }
    const auto model = levels.get()->withStalls(stalls);
    {
        std::vector<HeatCell> first;
        model->rasterize(TimeAxisMapping { snap->job.span, 1600 }, 1024, model->rowOrder(RowOrder::Rank), first);
    }
    const double buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const TimeNs focus = stalls.empty() ? snap->job.span.start + snap->job.span.delta() / 2 : stalls[0].start;
    const auto order = model->rowOrder(RowOrder::Rank);
    std::vector<double> frameMs;
    std::vector<HeatCell> cells;
    for (auto _ : state) {
        frameMs.clear();
        TimeRange w = snap->job.span;
        for (int i = 0; i < 120; ++i) {
            const auto f0 = std::chrono::steady_clock::now();
            model->rasterize(TimeAxisMapping { w, 1600 }, 1024, order, cells);
            frameMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
            if (std::getenv("STALLSCOPE_BENCH_VERBOSE")) {
                std::fprintf(stderr, "%lld %.1f\n", (long long)w.delta(), frameMs.back());
            }
            bench::zoomStep(w, focus, 0.85, kNsPerMs); // around the stall until 1 ms wide, then pan
        }
    }
    std::sort(frameMs.begin(), frameMs.end());
    state.counters["median_ms"] = frameMs[frameMs.size() / 2];
    state.counters["p99_ms"] = frameMs[std::min(frameMs.size() - 1, std::size_t(std::ceil(frameMs.size() * 0.99)) - 1)];
    state.counters["max_ms"] = frameMs.back();
    state.counters["after_load_to_first_frame_s"] = buildSeconds; // with the stalls marked
    state.counters["open_to_first_frame_s"] = loaded->loadSeconds + firstFrameSeconds.load(); // stage 2, unmarked
    state.counters["levels_s"] = levelsSeconds.load(); // the heatmap can be drawn from here (stalls come later)
    state.counters["analysis_s"] = analysisSeconds;
    state.counters["load_s"] = loaded->loadSeconds;
    state.counters["levels_over_snapshot"] = double(model->memoryBytes()) / double(loaded->bytesOnDisk);
}
BENCHMARK(BM_HeatmapFrames)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

} // namespace

BENCHMARK_MAIN();
