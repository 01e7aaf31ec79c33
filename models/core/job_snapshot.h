// SPDX-License-Identifier: MIT
#pragma once

// One loaded job: ranks, process groups, collectives, counters, link events and the fabric.
// Built once by a loader or the simulator, then frozen behind SnapshotPtr: immutable and shared by every
// reader (views, analysis, CLI) on any thread. Column data lives in `storage` (mapped files or arenas),
// which the snapshot keeps alive.

#include "core/collectives.h"
#include "core/counters.h"
#include "core/host_gpu.h"
#include "core/host_port.h"
#include "core/log_facts.h"
#include "core/string_pool.h"
#include "core/timeout_policy.h"
#include "core/topology.h"
#include "core/types.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct JobInfo
{
    // No job has more ranks (the largest are ~100,000 GPUs): a rank number or world size from a file past it is
    // refused, never used to size the ranks' arrays (a dump of rank 4294967295 once crashed the window).
    static constexpr std::uint32_t kMaxWorldSize = 1'000'000;

    std::string name;
    std::uint32_t worldSize = 0;
    TimeNs clockOriginNs = 0; // job start on the job clock; "time since job start" is measured from here
    TimeRange span; // covers every record and counter sample

    // No file read carried a time (an fr_trace output alone): views and reports say "time unknown", not the epoch.
    bool untimed() const { return span.start == 0 && span.end == 0; }
};

struct RankInfo
{
    StringId host {};
    std::uint16_t localGpu = 0;
    StringId hca {}; // "mlx5_3"
    std::uint16_t hcaPort = 1;
    std::optional<NodeId> hcaNode; // resolved against the topology ("<host> <hca>")
    // The first and last timed line of the rank's log (kNoTime without one): a rank known from its log alone was
    // alive at least this long; one whose log stops early is the story of a dead rank.
    TimeNs logFirstNs = kNoTime, logLastNs = kNoTime;
    StringId transport {}; // what NCCL's network chose: "IB", "RoCE", "Socket" (after "NET/IB : No device found")
};

struct ProcessGroup
{
    StringId name {}; // pg_config key, e.g. "0"
    StringId desc {}; // e.g. "default_pg"
    std::vector<std::uint32_t> ranks; // global ranks, sorted
};

// What a rank or its host said about how it went, beyond its collectives and link events: a scheduler's task fate,
// a GPU fault, a kernel link event on a host port no topology places, a watchdog, abort or socket error
// (docs/formats.md §2, §2d). Evidence for incidents; the analysis reads a dead rank's story from them.
inline constexpr std::uint32_t kNoRank = 0xffffffffu;

struct HostNote
{
    TimeNs timeNs = kNoTime; // kNoTime: the line carried no wall time (srun's fates, plain dmesg)
    std::uint32_t rank = kNoRank; // the global rank it is about, when known
    StringId host {};
    StringId kind {}; // "killed by signal", "exited", "GPU Xid", "link down", "terminated", "socket error", ...
    std::int64_t code = -1; // signal, exit code or Xid number
    StringId text {}; // readable: "task 21: Killed", "Xid 79: GPU has fallen off the bus."
    StringId source {}; // "slurm", "kernel", "fabric manager", "pytorch", "nccl"
    StringId evidence {}; // "…/gpu-b12/dmesg.txt:7: <the line>" for host-log facts; empty elsewhere (not in bundles)
};

struct JobSnapshot
{
    JobInfo job;
    TimeoutPolicy policy;
    std::vector<RankInfo> ranks; // index = global rank
    std::vector<ProcessGroup> groups;
    std::vector<CollectiveShape> shapes;
    std::vector<RankCollectives> collectives; // index = global rank
    Topology topology;
    std::vector<CounterPort> counterPorts;
    std::vector<CounterSeries> counters;
    std::vector<LinkEvent> linkEvents; // sorted by time
    std::vector<RouteUpdate> routeUpdates; // sorted by time
    std::vector<HostNote> notes; // sorted by time, those without one last
    // HCA ports as node tools and sysfs copies showed them, and HCAs a tool could not reach (core/host_port.h):
    // the node findings read them (analysis/node_findings.h). Not yet kept in bundles.
    std::vector<HostPort> hostPorts;
    std::vector<GoneHca> goneHcas;
    std::vector<PortErrorReport> portErrors; // ibqueryerrors' ports above their thresholds
    std::vector<SmInfo> subnetManagers; // sminfo's answers and failures
    std::vector<SwitchVitals> switchVitals; // ibswinfo's
    std::vector<GpuPath> gpuPaths; // nvidia-smi topo -m: how each host's GPUs reach each other and the NICs
    std::vector<GpuNvlinks> nvlinks; // nvidia-smi nvlink --status / -e
    std::vector<LogFact> logFacts; // what the ranks' logs said, line by line: sorted by time, those without one last
    StringPool strings;
    std::vector<std::shared_ptr<const void>> storage; // owns what the spans above point into

    std::uint64_t collectiveCount() const;
    std::uint64_t counterSampleCount() const;
    // Bytes held by this snapshot: column storage plus tables. Mapped files count their mapped size.
    std::uint64_t memoryBytes() const;
    const std::string& str(StringId id) const { return strings.str(id); }
};

using SnapshotPtr = std::shared_ptr<const JobSnapshot>;

// Notes in time order, those without a time after all the others (each group keeps its order).
void sortNotes(std::vector<HostNote>& notes);

// Arena-backed columns for snapshots built in memory (simulator, JSON Lines loader).
struct OwnedRankColumns
{
    std::vector<TimeNs> enqueueNs, startNs, endNs;
    std::vector<std::uint32_t> seq;
    std::vector<std::uint16_t> shape;
    std::vector<std::uint8_t> state, flags;

    void reserve(std::size_t n);
    void push(TimeNs enqueue, TimeNs start, TimeNs end, std::uint32_t seqNo, std::uint16_t shapeId, CollectiveState st);
    std::size_t size() const { return enqueueNs.size(); }
    // Stable sort by enqueue time (a loader may receive records out of order).
    void sortByEnqueue();
    RankCollectives view() const;
};

struct OwnedCounterBlock
{
    std::vector<TimeNs> timesNs;
    std::vector<std::uint64_t> values;
};

// Columns a snapshot owns; attached as one storage entry.
struct OwnedColumns
{
    std::vector<OwnedRankColumns> ranks;
    std::vector<std::vector<TimeNs>> counterTimes;
    std::vector<std::vector<std::uint8_t>> counterValues; // raw bytes at each series' storage width
    std::uint64_t memoryBytes() const;
};

// Points the snapshot's collective spans (when `owned` has ranks) and the spans of its first
// seriesTimeBlock.size() counter series at `owned`, and keeps `owned` alive. Series i uses time block
// seriesTimeBlock[i] and value block i.
void attachOwnedColumns(
    JobSnapshot& snap, std::shared_ptr<OwnedColumns> owned, const std::vector<std::uint32_t>& seriesTimeBlock);

// Interns a shape; returns nullopt once 65,535 distinct shapes exist.
std::optional<std::uint16_t> internShape(std::vector<CollectiveShape>& shapes, const CollectiveShape& s);

// Resolves rank → HCA node and counter port → node against the topology by node description and GUID.
void resolveJoins(JobSnapshot& snap);

} // namespace stallscope
