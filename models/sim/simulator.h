// SPDX-License-Identifier: MIT
#pragma once

// A deterministic simulator of a data-parallel training job on a rail-optimized two-tier fat tree, with
// link flaps, dead and slow ranks, and NCCL's timeout policy applied as the real stack applies it
// (docs/formats.md §6). Same config and seed give the same snapshot and truth, byte for byte.
//
// Physics in brief (docs/formats.md §6b): a collective progresses only while every link its traffic crosses
// is up. When a link drops, the packets on it are lost; the sending RC queue pair learns of it only when its
// ACK timer expires (T = 4.096 µs × 2^NCCL_IB_TIMEOUT) and retransmits every T, over whatever route the
// fabric has then. The path is usable again when the link is back, or — for a leaf–spine link — when
// adaptive routing (milliseconds) or the subnet manager's reroute (seconds) moved the route off it. The
// collective resumes at the first retransmission after that, so even a rerouted flap costs one T; it fails
// after NCCL_IB_RETRY_CNT × T without a usable path. Failed ranks abort; the others time out at the
// collective timeout and the job dies.

#include "core/job_snapshot.h"
#include "core/progress.h"
#include "core/result.h"
#include "sim/config.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// One occurrence of a link outage (a periodic flap has several).
struct SimOutage
{
    std::uint32_t fault = 0; // index into SimConfig::faults
    LinkId link {};
    TimeNs downNs = 0; // true time (Unix epoch ns)
    TimeNs upNs = 0; // link physically back
    TimeNs trafficUpNs = 0; // traffic can use the path again (AR / SM reroute may be earlier)
    Recovery recovery = Recovery::LinkUp; // what set trafficUpNs
    bool retrain = false; // link error recovery: the logical state stayed Active (no link_downed, no trap)
    bool dropsOnly = false; // with retrain: no retrain either, a symbol-error burst whose dropped packets stall it
};

// A job-wide stall the simulator caused, in true time.
struct SimStall
{
    TimeNs startNs = 0; // progress stopped
    TimeNs endNs = 0; // the collective completed, or the job died
    std::uint32_t ranksAffected = 0;
    std::uint32_t fault = 0;
    std::uint16_t group = 0;
    std::uint32_t seq = 0;
    CollectiveOp op = CollectiveOp::AllReduce;
    std::uint64_t bytes = 0;
    bool crashed = false;
    std::uint32_t retries = 0; // ACK-timeout periods the collective waited (0 when it crashed or never lost data)
};

struct SimResult
{
    std::shared_ptr<JobSnapshot> snapshot;
    std::vector<SimOutage> outages;
    std::vector<SimStall> stalls;
    std::optional<TimeNs> crashNs; // when the job died, if it did
    std::vector<std::uint32_t> failedRanks; // ranks that failed with transport-retry errors
    std::vector<std::pair<std::uint32_t, LinkId>> degradedLinks; // (fault index, link) trained below 4xNDR
    std::vector<std::pair<std::uint32_t, LinkId>> noisyLinks; // (fault index, link) counting symbol errors
    double slowdown = 1.0; // data phases take this much longer: the slowest degraded link's rate deficit
    std::string collectivesFile; // with a RecordSpillPolicy::dir: the collectives.bin the snapshot's records map
    std::string countersFile; // with a RecordSpillPolicy::dir: the counters.bin the snapshot's counters map
};

// Where the collective records and counter samples go. Without a `dir`, all in memory. With one (a folder that
// exists), records past `memoryBytes` are written to chunk files there (sim/record_spill.h) and each counter
// series' values to a file as it is made; the snapshot's collectives and counters end as `dir`/collectives.bin and
// `dir`/counters.bin, mapped (SimResult::collectivesFile, countersFile), for the bundle writer to move in.
struct RecordSpillPolicy
{
    std::string dir;
    std::uint64_t memoryBytes = std::uint64_t(1) << 30;
};

Result<SimResult, std::string> simulate(
    const SimConfig& config, Progress& progress, const RecordSpillPolicy& spill = {});

// truth.json: every injected fault (link endpoints by node description, GUID and port, or rank; down/up
// times) and every stall it caused.
std::string truthToJson(const SimConfig& config, const SimResult& result);

} // namespace stallscope
