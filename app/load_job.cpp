// SPDX-License-Identifier: MIT
#include "load_job.h"

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

OpenedBundle openBundle(const std::string& path, SharedProgress& progress)
{
    OpenedBundle out;
    out.path = path;
    auto loaded = loadBundle(path, progress);
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
    // The heatmap levels do not depend on the analysis (stall windows are an overlay): build them on the
    // second core while the analysis runs on this one.
    auto levels = std::async(std::launch::async, [snap = out.snapshot] {
        NullProgress quiet; // the analysis reports progress meanwhile; this takes about as long
        return HeatmapModel::build(snap, {}, quiet);
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
    progress.report("Building heatmap levels", 0, 1);
    out.heatmap = levels.get()->withStalls(std::move(stalls));
    if (progress.cancelled()) {
        out.error = "cancelled";
    }
    return out;
}

} // namespace stallscope
