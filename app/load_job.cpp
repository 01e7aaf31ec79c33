// SPDX-License-Identifier: MIT
#include "load_job.h"

#include "bundle/reader.h"

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

OpenedBundle openBundle(const std::string& path, SharedProgress& progress, const StageCallback& onStage)
{
    return openWith(
        path, [&path](Progress& p) { return openJob(path, p); }, progress, onStage);
}

OpenedBundle openWith(
    const std::string& name, const Loader& load, SharedProgress& progress, const StageCallback& onStage)
{
    OpenedBundle out;
    out.path = name;
    auto loaded = load(progress);
    if (!loaded) {
        out.error = loaded.error().format();
        return out;
    }
    out.loaded = loaded.value();
    out.warnings = loaded->warnings;
    out.snapshot = loaded->snapshot;
    if (progress.cancelled()) {
        out.error = "cancelled";
        return out;
    }
    if (onStage) {
        onStage(out); // stage 1: the snapshot alone
    }
    // The heatmap levels do not depend on the analysis (stall windows are an overlay): build them on the
    // second core while the analysis runs on this one. The main view's come first and are shown at once (a job's
    // ranks; fabric data's links), the other view's when ready.
    auto levels = std::async(std::launch::async, [partial = out, &onStage] {
        NullProgress quiet; // the analysis reports progress meanwhile; this takes about as long
        std::shared_ptr<const HeatmapModel> model;
        std::shared_ptr<const LinkHeatmapModel> links;
        auto show = [&] {
            if (onStage) {
                auto stage2 = partial;
                stage2.heatmap = model;
                stage2.linkHeatmap = links;
                onStage(stage2); // stage 2: the heatmaps, before the analysis has named any stall
            }
        };
        if (partial.snapshot->job.worldSize == 0) {
            links = LinkHeatmapModel::loadOrBuild(partial.snapshot, partial.path, quiet);
            model = HeatmapModel::build(partial.snapshot, {}, quiet);
            show();
        } else {
            model = HeatmapModel::build(partial.snapshot, {}, quiet);
            show();
            links = LinkHeatmapModel::loadOrBuild(partial.snapshot, partial.path, quiet);
            show();
        }
        return std::pair { model, links };
    });
    progress.report("Analysing", 0, 1);
    auto analysis = std::make_shared<AnalysisResult>(analyze(*out.snapshot, AnalysisOptions {}, progress));
    std::vector<TimeRange> stalls;
    for (const auto& inc : analysis->incidents) {
        if (inc.kind != IncidentKind::Straggler) {
            stalls.push_back({ inc.startNs, inc.endNs });
        }
    }
    out.analysis = std::move(analysis);
    progress.report("Reviewing the fabric", 0, 1);
    out.fabricReview = std::make_shared<FabricReview>(reviewFabric(*out.snapshot, FabricReviewOptions {}, progress));
    progress.report("Building heatmap levels", 0, 1);
    auto [rankLevels, linkLevels] = levels.get();
    out.heatmap = rankLevels->withStalls(std::move(stalls));
    out.linkHeatmap = linkLevels;
    if (progress.cancelled()) {
        out.error = "cancelled";
    }
    return out;
}

std::string writeLinkLevels(const std::string& dir)
{
    auto loaded = loadBundle(dir);
    if (!loaded) {
        return loaded.error().format();
    }
    const auto snap = loaded->snapshot;
    if (snap->counters.empty() && snap->linkEvents.empty()) {
        return {};
    }
    NullProgress quiet;
    return LinkHeatmapModel::build(snap, quiet)->save((std::filesystem::path(dir) / "link_levels.bin").string());
}

} // namespace stallscope
