// SPDX-License-Identifier: MIT
#pragma once

// PyTorch NCCL Flight Recorder dumps, JSON form (formats.md §1): versions 2.3–2.10, states scheduled /
// started / completed, timing on or off, pg_config and pg_status. One file per rank; the rank comes from the
// file name (<prefix><rank>).

#include "collectives.h"
#include "result.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct FrEntry
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

struct FrGroup
{
    std::string desc;
    std::vector<std::uint32_t> ranks;
};

// pg_status: how far each process group got on this rank (ints in pickle, strings in JSON; -1 = none yet).
// A rank whose last enqueued collective is behind the others' never reached the collective they wait in.
struct FrPgStatus
{
    std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
};

struct FrDump
{
    std::optional<std::uint32_t> rank; // from the file name, when it ends in digits
    std::string version; // "2.10"
    std::map<std::string, FrGroup> groups; // pg_config
    std::map<std::string, FrPgStatus> pgStatus; // pg_status, keyed by the PG id string
    std::vector<FrEntry> entries; // collectives only, oldest first
    std::size_t p2pSkipped = 0;
    std::vector<LoadIssue> warnings;
};

// "nccl:all_reduce" → AllReduce, "nccl:_all_gather_base" → AllGather, ...; Other when unknown.
CollectiveOp opFromProfilingName(const std::string& name);
// c10 dtype name → bytes per element; 0 when unknown.
std::size_t dtypeBytes(const std::string& dtype);
// Trailing digits of a file name ("nccl_trace_rank_17" → 17).
std::optional<std::uint32_t> rankFromFileName(const std::string& path);

// The JSON form (an object with version, pg_config, entries); JSON lines (one entry per line, as some
// third-party collectors write) are detected and read by the second function.
Result<FrDump> parseFlightRecorderJson(const std::string& file, const std::string& text);
Result<FrDump> parseFlightRecorderJsonLines(const std::string& file, const std::string& text);
// The default pickle form (protocol 2), through the safe reader of pickle_reader.h.
Result<FrDump> parseFlightRecorderPickle(const std::string& file, std::string_view bytes);

} // namespace stallscope
