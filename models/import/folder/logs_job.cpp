// SPDX-License-Identifier: MIT
// A folder of logs without a Flight Recorder dump or profiler trace is still a job (issue #40): its ranks are the
// ones the lines name, its hosts where NCCL's prefix puts them, and what each rank said is kept as log facts for
// the analysis (analysis/log_story.cpp). No collective record is made up: the rows have none.
#include "import/folder/gathered.h"

#include <algorithm>

namespace stallscope::folder {

namespace {

// A world communicator of more ranks than this many times the highest rank the folder's lines name is a damaged
// line, not a reason to make rows: one rank's log of a 1,024-GPU job says "nranks 1024" beside "rank 0" (×1,024).
constexpr std::uint64_t kWorldSpread = 1024;

// The highest rank the logs name, dropping (with a warning) ranks no job has.
std::optional<std::uint32_t> highestRank(Gathered& g)
{
    std::optional<std::uint32_t> top;
    for (auto& [file, f] : g.logs) {
        if (f.rank && *f.rank >= JobInfo::kMaxWorldSize) {
            g.warnings.push_back({ file, 0, -1,
                "rank " + std::to_string(*f.rank) + " is past the largest job Stallscope opens ("
                    + std::to_string(JobInfo::kMaxWorldSize) + " ranks): its lines are kept without a rank" });
            f.rank.reset();
        }
        if (f.rank) {
            top = std::max(top.value_or(0), *f.rank);
        }
    }
    return top;
}

// The world communicator's size NCCL's init lines give, when it agrees with the ranks seen.
std::uint32_t worldFromInit(Gathered& g, std::uint32_t seen)
{
    std::uint32_t world = 0;
    for (const auto& [file, f] : g.logs) {
        if (!f.nranks || *f.nranks <= world) {
            continue;
        }
        if (*f.nranks > JobInfo::kMaxWorldSize || *f.nranks > kWorldSpread * std::max<std::uint64_t>(seen, 1)) {
            g.warnings.push_back({ file, 0, -1,
                "NCCL's init line says nranks " + std::to_string(*f.nranks) + " where the folder's lines name "
                    + std::to_string(seen) + " rank(s): not taken as the job's size (a damaged line?)" });
            continue;
        }
        world = *f.nranks;
    }
    return world;
}

bool isTorchrunFate(HostEventKind k)
{
    return k == HostEventKind::RankFailed || k == HostEventKind::RankFailedFirst;
}

// srun starting one task per GPU: its highest task is the world's highest rank (used when no rank line says more).
// torchrun's table names global ranks: the world holds them whatever else says.
std::uint32_t worldFromFates(const Gathered& g, bool torchrun)
{
    std::uint32_t world = 0;
    for (const auto& [file, h] : g.hostLogs) {
        for (const auto& e : h.events) {
            const bool slurm = e.kind == HostEventKind::TaskSignal || e.kind == HostEventKind::TaskExit;
            if (torchrun ? isTorchrunFate(e.kind) : slurm) {
                world = std::max<std::uint32_t>(world, std::min(e.lastTask, kMaxTasksPerLine) + 1);
            }
        }
    }
    return world;
}

// A rank whose own lines did not say its host gets the one torchrun's table names for it.
void placeFromTorchrun(JobSnapshot& snap, const Gathered& g)
{
    for (const auto& [file, h] : g.hostLogs) {
        for (const auto& e : h.events) {
            if (isTorchrunFate(e.kind) && e.firstTask < snap.ranks.size() && !e.host.empty()
                && snap.str(snap.ranks[e.firstTask].host).empty()) {
                snap.ranks[e.firstTask].host = snap.strings.intern(e.host);
            }
        }
    }
}

} // namespace

// Slurm's slurmstepd said it cancelled a job or step: there was a job, whatever else the folder holds.
bool slurmCancelled(const Gathered& g)
{
    return std::any_of(g.hostLogs.begin(), g.hostLogs.end(), [](const auto& h) {
        return std::any_of(h.second.events.begin(), h.second.events.end(),
            [](const HostEvent& e) { return e.kind == HostEventKind::StepCancelled; });
    });
}

bool logsMakeAJob(const Gathered& g)
{
    return std::any_of(g.logs.begin(), g.logs.end(),
               [](const auto& l) { return l.second.rank || !l.second.host.empty() || !l.second.events.empty(); })
        || worldFromFates(g, false) > 0 || worldFromFates(g, true) > 0 || analyzerWorld(g) > 0 || slurmCancelled(g);
}

std::uint32_t addLogJob(JobSnapshot& snap, OwnedColumns& owned, Gathered& g, const std::string& dir)
{
    const auto top = highestRank(g);
    std::uint32_t world = top ? *top + 1 : 0;
    world = std::max({ world, worldFromInit(g, world), worldFromFates(g, true) });
    world = std::max(world, analyzerWorld(g)); // the ranks the Flight Recorder analyzer names
    if (world == 0) {
        world = worldFromFates(g, false);
    }
    if (world == 0 && g.logs.empty()) {
        // Slurm's cancellation alone: a job of unknown size, shown as one rank so its story has a row (said).
        world = 1;
        g.warnings.push_back({ dir, 0, -1,
            "no line names a task or rank: the job's size is not known (Slurm's output alone), shown as one rank" });
    } else if (world == 0) {
        // No line names a rank: each log is one process, numbered in the folder's path order (said, not hidden).
        for (auto& [file, f] : g.logs) {
            f.rank = world++;
        }
        g.warnings.push_back({ dir, 0, -1,
            "no log line names a rank: the " + std::to_string(world)
                + " rank log(s) are numbered in path order (a mapping file or NCCL_DEBUG=INFO lines would say)" });
    }
    snap.job.worldSize = world;
    snap.ranks.assign(world, RankInfo {});
    ProcessGroup all { snap.strings.intern("0"), snap.strings.intern("default_pg"), {} };
    all.ranks.resize(world);
    for (std::uint32_t r = 0; r < world; ++r) {
        all.ranks[r] = r;
    }
    snap.groups.push_back(std::move(all));
    placeRanks(snap, g, world);
    placeFromTorchrun(snap, g);
    owned.ranks.resize(world);
    g.warnings.push_back({ dir, 0, -1,
        "no Flight Recorder dump or profiler trace: opened as a job of " + std::to_string(world)
            + " rank(s) from their logs alone — what the lines say, no collective records" });
    return world;
}

std::optional<TimeNs> collectiveTimeoutFromLogs(const Gathered& g)
{
    constexpr std::int64_t kMostMs = 30LL * 24 * 3600 * 1000; // a month: anything longer is a damaged number
    std::map<std::int64_t, std::size_t> seen;
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if (e.kind == LogEventKind::WatchdogTimeout && e.timeoutMs > 0 && e.timeoutMs <= kMostMs) {
                ++seen[e.timeoutMs];
            }
        }
    }
    const auto most = std::max_element(
        seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return most == seen.end() ? std::nullopt : std::optional<TimeNs>(most->first * kNsPerMs);
}

void addLogFacts(JobSnapshot& snap, const Gathered& g)
{
    const auto world = snap.job.worldSize;
    for (const auto& [file, f] : g.logs) {
        const auto fileId = snap.strings.intern(g.shown(file));
        const auto host = snap.strings.intern(f.host);
        for (const auto& e : f.events) {
            LogFact x;
            x.kind = e.kind;
            x.timeNs = e.timeNs;
            x.rank = f.rank && *f.rank < world ? *f.rank : kNoRank;
            x.host = host;
            x.hca = snap.strings.intern(e.hca);
            x.peer = snap.strings.intern(e.peer);
            x.pg = snap.strings.intern(e.pg);
            x.op = snap.strings.intern(e.op);
            x.text = snap.strings.intern(e.text);
            x.file = fileId;
            x.line = e.line;
            const bool completion = e.kind == LogEventKind::CompletionError;
            x.status = completion ? e.status : -1;
            x.vendorErr = e.vendorErr;
            const bool watchdog = e.kind == LogEventKind::WatchdogTimeout || e.kind == LogEventKind::WatchdogFailure
                || e.kind == LogEventKind::CollectiveMismatch;
            x.seq = watchdog ? std::int64_t(e.seq) : -1;
            x.numelIn = e.numelIn;
            x.numelOut = e.numelOut;
            x.ranForMs = e.ranForMs;
            x.timeoutMs = e.timeoutMs;
            x.lastEnqueued = e.lastEnqueued;
            x.lastStarted = e.lastStarted;
            x.lastCompleted = e.lastCompleted;
            x.nranks = e.nranks;
            x.namedRank = e.namedRank;
            x.peerRank = e.peerRank;
            x.peerOp = snap.strings.intern(e.peerOp);
            snap.logFacts.push_back(x);
        }
    }
    std::stable_sort(snap.logFacts.begin(), snap.logFacts.end(), [](const LogFact& a, const LogFact& b) {
        return (a.timeNs == kNoTime ? 1 : 0) < (b.timeNs == kNoTime ? 1 : 0)
            || (a.timeNs != kNoTime && b.timeNs != kNoTime && a.timeNs < b.timeNs);
    });
}

} // namespace stallscope::folder
