// SPDX-License-Identifier: MIT
#pragma once

// Opening a job off the GUI thread (a bundle, a folder of raw files, a server's series): load → analyse (the job,
// and the fabric's flaps) → build heatmap levels (ranks × time and links × time). Progress is shared through
// atomics that the GUI polls (no signal per step from the worker); cancel() is honoured between stages and
// inside the long loops.

#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "bundle/writer.h"
#include "import/open_job.h"
#include "sim/simulator.h"
#include "view/heatmap_model.h"
#include "view/link_heatmap_model.h"
#include "view/link_state.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

namespace stallscope {

class SharedProgress : public Progress
{
public:
    void report(std::string_view stage, std::uint64_t done, std::uint64_t total) override;
    bool cancelled() const override { return m_cancel.load(); }
    void cancel() { m_cancel.store(true); }
    std::string stage() const;
    double fraction() const { return m_fraction.load(); }

private:
    mutable std::mutex m_mutex;
    std::string m_stage;
    std::atomic<double> m_fraction { 0 };
    std::atomic<bool> m_cancel { false };
};

// A job opened from any input, with what the window and the images draw of it.
struct OpenedJob
{
    std::string path;
    std::string error; // non-empty when opening failed
    std::vector<LoadIssue> warnings;
    std::shared_ptr<const JobSnapshot> snapshot;
    std::shared_ptr<const AnalysisResult> analysis;
    std::shared_ptr<const HeatmapModel> heatmap;
    std::shared_ptr<const LinkHeatmapModel> linkHeatmap; // fabric links × time
    std::shared_ptr<const FabricReview> fabricReview; // every link's flaps (the Flaps panel)
    // Every link's health over time, for the fabric view: built on the loading thread before the first stage is
    // shown (at 33,792 links and a gigabyte of counters it took the GUI thread seconds, at every stage).
    std::shared_ptr<const LinkStates> linkStates;
    LoadedJob loaded; // figures for the summary (snapshot pointer shared with `snapshot`)
};

// Partial results as they become ready, so the window is useful in stages: first the snapshot (summary,
// topology, counters), then the heatmap levels (no stall overlay yet), then everything (the return value).
// Called on worker threads: the callee must hand the copy over to its own thread.
using StageCallback = std::function<void(const OpenedJob& partial)>;

// What the opened data is for. Images (`render`, `report`): a few rasters of a few windows, so the rank heatmap
// draws straight from the records (no levels: at 16,384 ranks they took 2.3 GB and half the time) and the link
// heatmap is left to the fabric image that needs it. WindowImages (`render` of an incident or a time window): the
// same without the fabric review (every link's flaps), which only the fabric image and the report show; the
// analysis then has both cores.
enum class OpenFor { Window, Images, WindowImages };

// A bundle or a folder of raw files (import/open_job.h). Runs on a worker thread.
OpenedJob openPath(const std::string& path, SharedProgress& progress, const StageCallback& onStage = {},
    OpenFor use = OpenFor::Window);
// The same pipeline over any loader (a Prometheus server: source/prometheus_source.h). `name` is what the
// window calls it (the path, or the URL).
using Loader = std::function<Result<LoadedJob>(Progress& progress)>;
OpenedJob openWith(const std::string& name, const Loader& load, SharedProgress& progress,
    const StageCallback& onStage = {}, OpenFor use = OpenFor::Window);

// After a bundle is written (convert, simulate): the heatmaps' level 0 beside it, built from the bundle as it reads
// back, so opening it later draws its first frame without reading every record or counter first — the ranks'
// (`rank_levels.bin`) when it has ranks, the links' (`link_levels.bin`) when it has counters or link events. "" or
// the reason one could not be written (the bundle stays valid without them).
std::string writeLevels(const std::string& dir);

// A simulation written as a bundle the way every caller needs it (simulate, the window's demo): the bundle, its
// link levels (a failure there is only a warning: the bundle stays valid) and truth.json. `error` empty: written.
struct SimulationWritten
{
    std::string error;
    std::string warning;
};
SimulationWritten writeSimulatedBundle(
    const SimConfig& config, const SimResult& sim, const std::string& dir, const BundleWriteOptions& options = {});

} // namespace stallscope
