// SPDX-License-Identifier: MIT
#include "import/folder/raw_folder.h"

#include "import/folder/gathered.h"

#include <chrono>

namespace stallscope {

namespace fs = std::filesystem;
using folder::Gathered;

bool isRawFolder(const std::string& dir)
{
    std::error_code ec;
    return fs::is_directory(dir, ec) && !fs::exists(fs::path(dir) / "manifest.json", ec);
}

Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    LoadedJob out;
    Gathered g;
    if (auto err = folder::readFolder(dir, g, progress, out.bytesOnDisk)) {
        return *err;
    }
    folder::alignClocks(g);
    if (g.dumps.empty() && g.traces.empty()) {
        return LoadIssue { dir, 0, -1,
            "manifest.json is missing and no readable Flight Recorder dump or profiler trace was found: nothing to "
            "open" };
    }
    auto snap = std::make_shared<JobSnapshot>();
    snap->job.name = fs::path(dir).filename().string();
    auto owned = std::make_shared<OwnedColumns>();
    if (auto w = folder::addCollectives(*snap, *owned, g); !w) {
        return w.error();
    }
    folder::applyLogOutcomes(*owned, g);
    if (!g.fabric.empty()) {
        snap->topology = g.fabric.build(snap->strings, dir, g.warnings);
    }
    CounterSink sink;
    sink.timeOffsetNs = g.mapping.offset("counters"); // the mapping file's correction of sample times
    folder::addCounters(dir, g, sink);
    const auto seriesBlock = sink.flush(*snap, *owned);
    attachOwnedColumns(*snap, owned, seriesBlock);
    resolveJoins(*snap);
    folder::addLinkEvents(*snap, g); // after the counters are attached: traps are placed by them
    folder::widenSpan(*snap);
    std::string summary;
    for (const auto& [what, n] : g.counts) {
        summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + what + (n > 1 ? "s" : "");
    }
    out.recognised = std::move(g.recognised);
    out.recognised.insert(out.recognised.begin(), summary);
    out.warnings = std::move(g.warnings);
    out.collectiveBytes = owned->memoryBytes();
    out.snapshot = std::move(snap);
    out.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace stallscope
