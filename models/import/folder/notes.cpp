// SPDX-License-Identifier: MIT
// The snapshot's notes (core/job_snapshot.h HostNote) from what the folder's Slurm, kernel and rank logs said.
#include "import/folder/gathered.h"

#include <algorithm>

namespace stallscope::folder {

namespace {

// The rank-log events that are facts about how a rank ended, not inputs to its collectives or link events.
bool isNote(LogEventKind k)
{
    switch (k) {
    case LogEventKind::DeviceFatal:
    case LogEventKind::WatchdogFailure:
    case LogEventKind::HeartbeatTimeout:
    case LogEventKind::WatchdogException:
    case LogEventKind::Terminated:
    case LogEventKind::SocketError:
        return true;
    default:
        return false;
    }
}

bool isTorchrun(HostEventKind k)
{
    return k == HostEventKind::RankFailed || k == HostEventKind::RankFailedFirst;
}

std::string rankNoteText(const LogEvent& e)
{
    switch (e.kind) {
    case LogEventKind::DeviceFatal:
        return "NCCL: " + e.hca + " local catastrophic error";
    case LogEventKind::WatchdogFailure:
        return "watchdog: failure at work " + std::to_string(e.seq) + " (last enqueued "
            + std::to_string(e.lastEnqueued) + ", last completed " + std::to_string(e.lastCompleted) + ")";
    case LogEventKind::HeartbeatTimeout:
        return "watchdog stuck" + (e.stuckSeconds >= 0 ? " for " + std::to_string(e.stuckSeconds) + " s" : "");
    case LogEventKind::SocketError:
        return "NCCL socket to " + e.peer + ": " + e.text;
    default:
        return e.text;
    }
}

} // namespace

void addHostNotes(JobSnapshot& snap, const Gathered& g)
{
    const auto slurm = snap.strings.intern("slurm");
    const auto kernel = snap.strings.intern("kernel");
    const auto fabricManager = snap.strings.intern("fabric manager");
    const auto pytorch = snap.strings.intern("pytorch");
    const auto nccl = snap.strings.intern("nccl");
    const auto torchrun = snap.strings.intern("torchrun");
    const auto worldSize = snap.job.worldSize;
    // Where torchrun ran (its failure table is here), srun started one torchrun per node: a task is a node, not a
    // rank, and its fate stays with the host.
    const bool tasksAreNodes = std::any_of(g.hostLogs.begin(), g.hostLogs.end(), [](const auto& h) {
        return std::any_of(
            h.second.events.begin(), h.second.events.end(), [](const HostEvent& e) { return isTorchrun(e.kind); });
    });
    for (const auto& [file, facts] : g.hostLogs) {
        for (const auto& e : facts.events) {
            HostNote n;
            n.timeNs = e.timeNs;
            n.host = snap.strings.intern(e.host);
            n.kind = snap.strings.intern(std::string(toString(e.kind)));
            n.code = e.code;
            const bool task = e.kind == HostEventKind::TaskSignal || e.kind == HostEventKind::TaskExit;
            n.source = task || e.kind == HostEventKind::StepCancelled ? slurm
                : isFabricManager(e.kind)                             ? fabricManager
                : isTorchrun(e.kind)                                  ? torchrun
                                                                      : kernel;
            if (!e.evidence.empty()) {
                n.evidence = snap.strings.intern(file + ":" + std::to_string(e.line) + ": " + e.evidence);
            }
            if (isTorchrun(e.kind)) { // torchrun names the global rank and its host
                n.rank = e.firstTask < worldSize ? e.firstTask : kNoRank;
                n.text = snap.strings.intern(e.text);
                snap.notes.push_back(n);
                continue;
            }
            if (!task) {
                n.text = snap.strings.intern(
                    e.text + (e.device.empty() || e.kind == HostEventKind::PortModule ? "" : " (" + e.device + ")"));
                snap.notes.push_back(n);
                continue;
            }
            // A Slurm task is a global rank when srun starts one task per GPU (its host agrees); with torchrun
            // under srun a task is a node, and the note stays with the host (said by its host disagreeing, or by
            // torchrun's table).
            bool placed = false;
            for (std::uint64_t t = e.firstTask; !tasksAreNodes && t <= e.lastTask && t < worldSize; ++t) {
                const auto& host = snap.ranks[t].host;
                if (snap.str(host).empty() || snap.str(host) == e.host) {
                    n.rank = static_cast<std::uint32_t>(t);
                    n.text = snap.strings.intern("task " + std::to_string(t) + ": " + e.text);
                    snap.notes.push_back(n);
                    placed = true;
                }
            }
            if (!placed) {
                n.rank = kNoRank;
                n.text = snap.strings.intern("task" + std::string(e.firstTask == e.lastTask ? " " : "s ")
                    + std::to_string(e.firstTask) + (e.firstTask == e.lastTask ? "" : "-" + std::to_string(e.lastTask))
                    + ": " + e.text);
                snap.notes.push_back(n);
            }
        }
    }
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if (!isNote(e.kind)) {
                continue;
            }
            HostNote n;
            n.timeNs = e.timeNs;
            n.rank = f.rank && *f.rank < worldSize ? *f.rank : kNoRank;
            n.host = snap.strings.intern(f.host);
            n.kind = snap.strings.intern(std::string(toString(e.kind)));
            n.text = snap.strings.intern(rankNoteText(e));
            n.source = e.kind == LogEventKind::DeviceFatal || e.kind == LogEventKind::SocketError ? nccl : pytorch;
            snap.notes.push_back(n);
        }
    }
    addRasNotes(snap, g);
    sortNotes(snap.notes);
}

} // namespace stallscope::folder
