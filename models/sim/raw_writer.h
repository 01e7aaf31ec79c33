// SPDX-License-Identifier: MIT
#pragma once

// Writes a snapshot (a simulated incident) as the folder of raw files a real cluster leaves behind, in the
// formats of docs/formats.md, so the importers, the analysis and new on-call engineers can train on incidents
// whose truth is known:
//   nccl_trace_rank_<r>      Flight Recorder dump per rank (pickle protocol 2, or JSON), schema 2.10
//   <host>_<pid>.<ns>.pt.trace.json  optional PyTorch profiler trace per rank: the NCCL kernels of completed
//                            collectives with their args, and the CPU record_param_comms ops
//   rank<r>.log              the rank's stderr: NCCL's HCA list and init line, async port events of its own HCA,
//                            transport-retry completion errors (failed ranks), watchdog timeouts
//   ibnetdiscover.txt        the fabric as `ibnetdiscover` prints it
//   fabric.net               the same fabric as an ibsim net file (node ids = node descriptions)
//   counters-<host>.csv      HCA port counters, in the CSV of `stallscope collect`
//   switch-counters.prom     switch port counters as treydock/infiniband_exporter exposes them (ms timestamps)
//   opensm.log               the subnet manager's view of the link events (port removed / rediscovered, traps)
//   nodes/<host>/            with nodeFiles: what is collected from each host at the end of the window:
//                            ibstat.txt, dmesg.txt (--time-format iso, the HCA's Port: N Link DOWN/ACTIVE lines)
//                            and sys/class/infiniband/<dev>/ (state, phys_state, rate, link_downed, ...)
// Local times in logs are UTC unless logUtcOffsetNs says otherwise.

#include "core/job_snapshot.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct RawWriteOptions
{
    bool pickle = true; // Flight Recorder dumps as pickle (the default form) or JSON
    std::size_t frEntries = 0; // keep the last N entries per rank, like TORCH_FR_BUFFER_SIZE; 0 = all
    bool flightRecorder = true; // write the dumps (off: a folder of logs, traces and counters only)
    bool counters = true; // write the port counters (off: they live elsewhere, e.g. in a Prometheus server)
    bool nodeFiles = false; // also write each host's ibstat, dmesg and /sys/class/infiniband copy (nodes/<host>/)
    bool kineto = false; // also write a PyTorch profiler trace per rank (<host>_<pid>.<ns>.pt.trace.json)
    // Dumps and traces for these ranks only, sorted (what is retrieved after an incident: one node's dumps, rank 0's
    // profiler trace); empty = every rank. Logs, counters and node files are written for every rank regardless.
    std::vector<std::uint32_t> recordRanks;
    // One of several processes writing one folder (a Slurm job array's task): the files of the hosts of shard
    // `shard` of `shards` (the hosts in rank order cut into runs of equal count: dumps, traces, rank logs, counter
    // CSVs, node files), and in shard 0 the folder's own (fabric, subnet manager, switch counters, scheduler output).
    // All shards into one folder write the folder one process writes.
    std::uint32_t shard = 0, shards = 1;
    TimeNs logUtcOffsetNs = 0; // rank logs and the OpenSM log in local time this far from UTC (e.g. +2 h)
    TimeNs profilerSkewNs = 0; // profiler traces' clock this far from the dumps' (a badly synced host)
};

// Returns "" or an error naming the file that could not be written. Each file is written atomically.
// "0-7,16,32-33" → sorted ranks, each below `world`; nullopt for anything else.
std::optional<std::vector<std::uint32_t>> parseRankSet(std::string_view text, std::uint32_t world);

std::string writeRawFolder(const JobSnapshot& snap, const std::string& dir, const RawWriteOptions& options = {});

// The hosts of shard `shard` of `shards` (RawWriteOptions): hosts in the order of their first rank (fabric data: of
// their first HCA), cut into `shards` runs of equal count.
std::set<std::string> shardHosts(const JobSnapshot& snap, std::uint32_t shard, std::uint32_t shards);

} // namespace stallscope
