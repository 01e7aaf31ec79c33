// SPDX-License-Identifier: MIT
#include "import/folder/raw_folder.h"

#include "core/issue_groups.h"
#include "import/folder/gathered.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace stallscope {

namespace fs = std::filesystem;
using folder::Gathered;

bool isRawFolder(const std::string& dir)
{
    std::error_code ec;
    return fs::is_directory(dir, ec) && !fs::exists(fs::path(dir) / "manifest.json", ec);
}

namespace {

// What the files of a folder with nothing readable were, as the warnings of a folder that opens would say — the
// first thing to know: "nothing readable was found" alone hid that the folder's one file was `logs.tgz`, a tar
// archive to extract. The first eight groups (issue_groups.h), one to a line.
std::string whatTheFolderHeld(const std::vector<LoadIssue>& warnings)
{
    const auto groups = groupIssues(warnings);
    if (groups.empty()) {
        return {};
    }
    constexpr std::size_t kShown = 8;
    std::string s = ". What it holds:";
    for (std::size_t i = 0; i < std::min(groups.size(), kShown); ++i) {
        s += "\n  " + groups[i].format();
    }
    if (groups.size() > kShown) {
        s += "\n  (and " + std::to_string(groups.size() - kShown) + " more kinds of warning)";
    }
    return s;
}

FolderHint hintOf(const Gathered& g)
{
    FolderHint h;
    for (const auto* list : { &g.dumps, &g.traces }) {
        for (const auto& [file, records] : *list) {
            for (const auto& e : records.entries) {
                for (const TimeNs t : { e.enqueueNs, e.startNs, e.endNs }) {
                    if (t == kNoTime) {
                        continue;
                    }
                    h.span.start = h.span.start == kNoTime ? t : std::min(h.span.start, t);
                    h.span.end = h.span.end == kNoTime ? t : std::max(h.span.end, t);
                }
            }
        }
    }
    std::set<std::string> hosts;
    for (const auto& [file, facts] : g.logs) {
        if (!facts.host.empty()) {
            hosts.insert(facts.host);
        }
    }
    for (const auto& [rank, o] : g.mapping.ranks) {
        if (!o.host.empty()) {
            hosts.insert(o.host);
        }
    }
    h.hosts.assign(hosts.begin(), hosts.end());
    if (!h.hosts.empty()) {
        h.switches = g.fabric.switchesAbove(h.hosts);
    }
    return h;
}

} // namespace

Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress)
{
    return loadRawFolder(dir, progress, {});
}

Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress, const MoreFolders& more,
    const ScratchPolicy& scratch, folder::PreparsedFiles* preparsed)
{
    const auto t0 = std::chrono::steady_clock::now();
    LoadedJob out;
    Gathered g;
    g.counters = CounterSink(scratch);
    g.scratch = scratch;
    g.progress = &progress;
    if (auto err = folder::readFolder(dir, g, progress, out.bytesOnDisk, preparsed)) {
        return *err;
    }
    if (more) {
        auto folders = more(hintOf(g));
        if (!folders) {
            return folders.error();
        }
        for (const auto& extra : folders.value()) {
            std::uint64_t ignored = 0; // bytes of the user's folder only
            if (auto err = folder::readFolder(extra, g, progress, ignored)) {
                return *err;
            }
        }
    }
    folder::joinInspector(g); // before the clocks: its processes' collectives are traces from here on
    folder::alignClocks(g);
    // Without a dump or trace the folder is a job of its logs when the logs name ranks or hosts (issue #40), else
    // fabric data alone (topology, counters, the SM's log): a snapshot with no ranks, for the fabric review.
    const bool noRecords = g.dumps.empty() && g.traces.empty();
    const bool logsOnly = noRecords && folder::logsMakeAJob(g);
    const bool fabricOnly = noRecords && !logsOnly;
    auto snap = std::make_shared<JobSnapshot>();
    snap->job.name = fs::path(dir).filename().string();
    auto owned = std::make_shared<OwnedColumns>();
    if (const auto timeout = folder::collectiveTimeoutFromLogs(g)) {
        snap->policy.collectiveTimeoutNs = *timeout; // PyTorch's timeout as the job ran with it, not the default
    }
    if (logsOnly) {
        folder::addLogJob(*snap, *owned, g, dir);
    } else if (!fabricOnly) {
        if (auto w = folder::addCollectives(*snap, *owned, g); !w) {
            return w.error();
        }
        folder::applyLogOutcomes(*owned, g);
        folder::warnRanksWithoutRecords(*owned, dir, g.warnings);
    }
    folder::addLogFacts(*snap, g);
    folder::addAnalyzerFacts(*snap, g);
    auto& sink = g.counters;
    sink.timeOffsetNs = g.mapping.offset("counters"); // the mapping file's correction of sample times
    folder::addCounters(g, sink); // before the topology is built: it places HCAs no topology describes
    if (g.fabric.placedCount() > 0) {
        g.warnings.push_back({ dir, 0, -1,
            std::to_string(g.fabric.placedCount())
                + " HCAs with counters are in no topology file (ibnetdiscover, iblinkinfo): shown as unplaced ports, "
                  "with no link to a switch" });
    }
    if (!g.fabric.empty()) {
        snap->topology = g.fabric.build(snap->strings, dir, g.warnings);
    }
    const auto seriesBlock = sink.flush(*snap, *owned, progress);
    if (progress.cancelled()) {
        return LoadIssue { dir, 0, -1, "opening cancelled" };
    }
    if (!sink.error().empty()) {
        return LoadIssue { dir, 0, -1, sink.error() + " (the counters did not fit in memory and were being spilled)" };
    }
    out.spilledBytes = sink.spilledBytes();
    attachOwnedColumns(*snap, owned, seriesBlock);
    resolveJoins(*snap);
    folder::addLinkEvents(*snap, g); // after the counters are attached: traps are placed by them
    folder::addHostNotes(*snap, g); // after the ranks' hosts are known: Slurm tasks are placed by them
    folder::addHostPorts(*snap, g);
    folder::widenSpan(*snap);
    if (g.yearGuess && !snap->job.untimed()) {
        g.warnings.push_back(std::move(*g.yearGuess));
    }
    if (fabricOnly) {
        if (snap->topology.nodes().empty() && snap->counters.empty() && snap->linkEvents.empty() && snap->notes.empty()
            && snap->hostPorts.empty() && snap->goneHcas.empty() && snap->portErrors.empty()
            && snap->subnetManagers.empty() && snap->switchVitals.empty() && snap->gpuPaths.empty()
            && snap->nvlinks.empty()) {
            for (const auto& [file, list] : g.placements) { // read, but a host list alone is no job
                g.warnings.insert(g.warnings.begin(), { file, list.line, -1,
                    "a " + list.source + " of " + std::to_string(list.hosts.size())
                        + " hosts: where ranks ran, but no job by itself — open it with the job's dumps or logs" });
            }
            return LoadIssue { dir, 0, -1,
                std::string("manifest.json is missing and ")
                    + (g.placements.empty() ? "nothing readable was found" : "no job or fabric data was found")
                    + ": no Flight Recorder dump, profiler trace, "
                "fabric topology, port counters, node tool output or subnet manager log"
                    + whatTheFolderHeld(g.warnings) };
        }
        out.warnings.push_back(
            { dir, 0, -1, "no Flight Recorder dump or profiler trace: opened as fabric data only (no job, no ranks)" });
    }
    std::string summary;
    for (const auto& [what, n] : g.counts) {
        const auto plural = what.back() == 's' ? "es" : "s"; // "NCCL RAS statuses"
        summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + what + (n > 1 ? plural : "");
    }
    out.recognised = std::move(g.recognised);
    out.recognised.insert(out.recognised.begin(), summary);
    out.warnings.insert(out.warnings.end(), g.warnings.begin(), g.warnings.end());
    out.counterBytes = sink.columnBytes();
    out.collectiveBytes = owned->memoryBytes();
    if (sink.spilledBytes() == 0) {
        out.collectiveBytes -= std::min(out.collectiveBytes, sink.columnBytes()); // the counters were in `owned` too
    }
    out.snapshot = std::move(snap);
    out.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace stallscope
