// SPDX-License-Identifier: MIT
#pragma once

// One rank's collective records as a source read them, before they join the snapshot: what the Flight Recorder
// front ends (pickle, JSON, JSON lines) and the profiler-trace reader all produce, and the small helpers they
// share (operation names, dtype widths, rank lists, a rank from a file name). Shared by import/ formats; no
// format includes another's headers.

#include "core/collectives.h"
#include "core/result.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct RankRecord
{
    std::string pg; // process_group[0], the pg_config key
    std::uint32_t seq = 0; // collective_seq_id: the join key across ranks
    CollectiveOp op = CollectiveOp::Other;
    std::uint64_t bytes = 0; // input bytes (product of input_sizes[0] × dtype size)
    TimeNs enqueueNs = kNoTime; // time_created_ns
    TimeNs startNs = kNoTime; // time_discovered_started_ns (CPU observation; absent without timing)
    TimeNs endNs = kNoTime; // time_discovered_completed_ns
    CollectiveState state = CollectiveState::Scheduled;
};

struct GroupInfo
{
    std::string desc;
    std::vector<std::uint32_t> ranks;
};

// pg_status: how far each process group got on this rank (ints in pickle, strings in JSON; -1 = none yet).
// A rank whose last enqueued collective is behind the others' never reached the collective they wait in.
struct GroupStatus
{
    std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
};

struct RankRecords
{
    std::optional<std::uint32_t> rank; // from the file name, when it ends in digits
    std::string version; // "2.10"
    std::map<std::string, GroupInfo> groups; // pg_config
    std::map<std::string, GroupStatus> pgStatus; // pg_status, keyed by the PG id string
    std::vector<RankRecord> entries; // collectives only, oldest first
    std::size_t p2pSkipped = 0;
    // The source carried no sequence numbers (profiler traces of older PyTorch and other frameworks): `seq` is the
    // collective's ordinal within its group in this file, which matches across ranks of one trace window (every
    // rank issues a group's collectives in the same order) but not the dumps' numbering.
    bool seqFromOrder = false;
    std::vector<LoadIssue> warnings;
};

// "nccl:all_reduce" → AllReduce, "nccl:_all_gather_base" → AllGather, ...; Other when unknown.
CollectiveOp opFromProfilingName(const std::string& name);
// c10 dtype name → bytes per element; 0 when unknown.
std::size_t dtypeBytes(const std::string& dtype);
// Trailing digits of a file name ("nccl_trace_rank_17" → 17), after the extensions collectors add.
std::optional<std::uint32_t> rankFromFileName(const std::string& path);
// "[0, 1, 2, 3]" or "[0,1,2,3]" (a Python literal in a string) → ranks.
std::vector<std::uint32_t> parseRanks(const std::string& s);
// A group's member list as PyTorch's profiler writes it: whole ("[0, 1, 2, 3]"), or, past 30 members, its first 29
// and its last ("[0, 1, ..., 28, ..., 1023]": format_list in torch/csrc/profiler/util.cpp). A cut list is filled in
// when the members it shows step evenly and its last member is where that step lands after `size` members (the
// group size beside it; 0 when not known, then the step decides); nullopt when a cut list cannot be filled in (the
// members are then the ranks that ran the group) or when the size passes `maxSize`.
std::optional<std::vector<std::uint32_t>> parseGroupRanks(
    std::string_view s, std::uint32_t size, std::uint32_t maxSize);

// As a raw folder adds a rank's records (the dumps' and the traces' glue):
// a rank number no job reaches: the file that says it is left out (it would size every per-rank array);
std::optional<LoadIssue> outsideAnyJob(std::uint32_t rank, const std::string& file);
// group members no job reaches, dropped from pg_config's lists with one warning per group;
void dropRanksOutsideAnyJob(
    std::map<std::string, GroupInfo>& groups, const std::string& file, std::vector<LoadIssue>& warnings);
// a rank's record that holds nothing the views and the analysis follow (a pipeline stage's send/recv only, or a
// trace of the CPU alone) leaves its row unknown: a warning says why by the file, or the rank looks as if its record
// were missing. `kernels`: the NCCL kernels a trace held.
void warnNothingJoinable(const std::string& file, std::uint32_t rank, const RankRecords& r, std::size_t kernels,
    bool trace, std::vector<LoadIssue>& warnings);

} // namespace stallscope
