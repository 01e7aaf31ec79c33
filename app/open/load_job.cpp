// SPDX-License-Identifier: MIT
#include "open/load_job.h"

#include "bundle/reader.h"
#include "core/atomic_file.h"

#include <filesystem>
#include <future>

namespace stallscope {

void SharedProgress::report(std::string_view stage, std::uint64_t done, std::uint64_t total)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stage != stage) {
            m_stage = stage;
        }
    }
    m_fraction.store(total > 0 ? double(done) / double(total) : 0.0);
}

std::string SharedProgress::stage() const
{
    std::lock_guard lock(m_mutex);
    return m_stage;
}

OpenedJob openPath(const std::string& path, SharedProgress& progress, const StageCallback& onStage, OpenFor use)
{
    return openWith(
        path, [&path](Progress& p) { return openJob(path, p); }, progress, onStage, use);
}

namespace {

// What the window's second stage adds, as it comes (openWith).
struct LevelsStage
{
    std::shared_ptr<const LinkStates> linkStates;
    std::shared_ptr<const HeatmapModel> heatmap;
    std::shared_ptr<const LinkHeatmapModel> linkHeatmap;
};

// Sees the load's cancel, reports nothing: for work beside the one that reports (the analysis).
class CancelOf final : public Progress
{
public:
    explicit CancelOf(const Progress& of)
        : m_of(of)
    {
    }
    void report(std::string_view, std::uint64_t, std::uint64_t) override { }
    bool cancelled() const override { return m_of.cancelled(); }

private:
    const Progress& m_of;
};

// The headless open: analysis (and for OpenFor::Images the fabric review); the images rasterize from the records.
OpenedJob finishForImages(OpenedJob out, SharedProgress& progress, OpenFor use)
{
    // The fabric review (every link's flaps) on the second core while the analysis runs on this one.
    std::future<std::shared_ptr<FabricReview>> review;
    if (use == OpenFor::Images) {
        review = std::async(std::launch::async, [snap = out.snapshot] {
            NullProgress quiet;
            return std::make_shared<FabricReview>(reviewFabric(*snap, FabricReviewOptions {}, quiet));
        });
    }
    progress.report("Analysing", 0, 1);
    out.analysis = std::make_shared<AnalysisResult>(analyze(*out.snapshot, AnalysisOptions {}, progress));
    if (review.valid()) {
        auto reviewed = review.get();
        noteJobStalls(*reviewed, *out.analysis, *out.snapshot); // the report's Flaps section weighs the job's records
        out.fabricReview = std::move(reviewed);
    }
    out.heatmap = HeatmapModel::recordsOnly(out.snapshot, {})->withStalls(*out.analysis);
    if (progress.cancelled()) {
        out.error = "cancelled";
    }
    return out;
}

} // namespace

OpenedJob openWith(
    const std::string& name, const Loader& load, SharedProgress& progress, const StageCallback& onStage, OpenFor use)
{
    OpenedJob out;
    out.path = name;
    auto loaded = load(progress);
    if (!loaded) {
        // A reader that saw the cancel names the file it stopped in; what the user did was cancel.
        out.error = progress.cancelled() ? "cancelled" : loaded.error().format();
        return out;
    }
    out.loaded = loaded.value();
    out.warnings = loaded->warnings;
    out.snapshot = loaded->snapshot;
    if (progress.cancelled()) {
        out.error = "cancelled";
        return out;
    }
    if (use != OpenFor::Window) {
        return finishForImages(std::move(out), progress, use);
    }
    // Fabric data's main view is the links: their states come before anything is shown. A job's is the ranks: its
    // first frame does not wait for the states of every link (seconds at 132,096 links), which follow it.
    const bool fabricOnly = out.snapshot->job.worldSize == 0;
    if (fabricOnly) {
        out.linkStates = std::make_shared<const LinkStates>(out.snapshot, progress);
    }
    if (progress.cancelled()) {
        out.error = "cancelled";
        return out;
    }
    if (onStage) {
        onStage(out); // stage 1: the snapshot alone
    }
    // The heatmap levels do not depend on the analysis (stall windows are an overlay): build them on the
    // second core while the analysis runs on this one. The main view's come first and are shown at once (a job's
    // ranks; fabric data's links), then a job's link states, then the other view's levels.
    auto levels = std::async(std::launch::async, [partial = out, &onStage, &progress, fabricOnly] {
        NullProgress quiet; // the analysis reports progress meanwhile; this takes about as long
        LevelsStage stage { partial.linkStates, nullptr, nullptr };
        auto show = [&] {
            if (onStage) {
                auto stage2 = partial;
                stage2.heatmap = stage.heatmap;
                stage2.linkHeatmap = stage.linkHeatmap;
                stage2.linkStates = stage.linkStates;
                onStage(stage2); // stage 2: the heatmaps, before the analysis has named any stall
            }
        };
        if (fabricOnly) {
            stage.linkHeatmap = LinkHeatmapModel::loadOrBuild(partial.snapshot, partial.path, quiet);
            stage.heatmap = HeatmapModel::build(partial.snapshot, {}, quiet);
            show();
        } else {
            stage.heatmap = HeatmapModel::loadOrBuild(partial.snapshot, partial.path, quiet);
            show();
            CancelOf cancel(progress); // cancelled, the links not reached read as normal: the load ends anyway
            stage.linkStates = std::make_shared<const LinkStates>(partial.snapshot, cancel);
            show();
            stage.linkHeatmap = LinkHeatmapModel::loadOrBuild(partial.snapshot, partial.path, quiet);
            show();
        }
        return stage;
    });
    progress.report("Analysing", 0, 1);
    out.analysis = std::make_shared<AnalysisResult>(analyze(*out.snapshot, AnalysisOptions {}, progress));
    progress.report("Reviewing the fabric", 0, 1);
    auto review = reviewFabric(*out.snapshot, FabricReviewOptions {}, progress);
    noteJobStalls(review, *out.analysis, *out.snapshot);
    out.fabricReview = std::make_shared<FabricReview>(std::move(review));
    progress.report("Building heatmap levels", 0, 1);
    const auto stage = levels.get();
    out.heatmap = stage.heatmap->withStalls(*out.analysis);
    out.linkHeatmap = stage.linkHeatmap;
    out.linkStates = stage.linkStates;
    if (progress.cancelled()) {
        out.error = "cancelled";
    }
    return out;
}

std::string writeLevels(const std::string& dir)
{
    auto loaded = loadBundle(dir);
    if (!loaded) {
        return loaded.error().format();
    }
    const auto snap = loaded->snapshot;
    NullProgress quiet;
    const auto folder = std::filesystem::path(dir);
    if (snap->job.worldSize > 0) {
        if (auto e = HeatmapModel::build(snap, {}, quiet)->save((folder / "rank_levels.bin").string()); !e.empty()) {
            return e;
        }
    }
    if (snap->counters.empty() && snap->linkEvents.empty()) {
        return {};
    }
    return LinkHeatmapModel::build(snap, quiet)->save((folder / "link_levels.bin").string());
}

SimulationWritten writeSimulatedBundle(
    const SimConfig& config, const SimResult& sim, const std::string& dir, const BundleWriteOptions& options)
{
    SimulationWritten out;
    out.error = writeBundle(*sim.snapshot, dir, options);
    if (!out.error.empty()) {
        return out;
    }
    if (auto e = writeLevels(dir); !e.empty()) {
        out.warning = "the heatmaps' levels were not kept beside the bundle: " + e;
    }
    out.error = writeFileAtomic((std::filesystem::path(dir) / "truth.json").string(), truthToJson(config, sim));
    return out;
}

} // namespace stallscope
