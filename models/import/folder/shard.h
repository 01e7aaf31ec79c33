// SPDX-License-Identifier: MIT
#pragma once

// Sharded convert (issue #43; docs/sharded-convert.md): N processes — a Slurm job array's tasks — each parse their
// share of a raw folder's Flight Recorder dumps and profiler traces, the part of opening a large folder that takes
// its time, and write what the parse gave as a shard file; then one process reads the raw folder with every shard,
// taking each dump and trace from its shard instead of reading it, and reads the rest (logs, counters, topology,
// the mapping file) itself. Everything after the parse — the clock, the placing of ranks, groups, counters, the
// topology — runs once over the whole folder as a single convert runs it, on the very values a single convert's
// parse gives, so the job is exactly a single convert's.
//
// Which shard parses a file is decided from the folder's listing alone (every shard lists the whole folder and
// agrees): files are grouped into units — the host folder a file sits in, else a block of eight ranks by the rank
// in the file's name, else the host its name begins with — and the sorted units are cut into N runs of equal
// count, so a host's files go to one shard. Files of no unit (topology, mapping file, scheduler output, switch
// scrapes) are read at the merge.

#include "core/loaded_job.h"
#include "core/progress.h"
#include "core/scratch_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::folder {

struct ShardSpec
{
    std::uint32_t index = 0; // K: 0 … count - 1 (SLURM_ARRAY_TASK_ID)
    std::uint32_t count = 1; // N
};
constexpr std::uint32_t kMaxShards = 65536;
// "3/8" → {3, 8}; nullopt unless both are whole numbers with 0 ≤ K < N ≤ kMaxShards.
std::optional<ShardSpec> parseShardSpec(std::string_view text);

// What writing a shard did, for the command's summary.
struct ShardWritten
{
    std::string dir; // the raw folder, absolute: how the merge finds it and names its files
    std::size_t folderFiles = 0; // files the folder lists
    std::size_t shardFiles = 0; // files of this shard's units
    std::size_t kept = 0; // dumps and traces parsed into the shard
    std::uint64_t bytesRead = 0; // of the raw files this shard read whole
    std::uint64_t shardBytes = 0; // the shard file's size
};

// Parses shard `spec` of the raw folder `dir` and writes it atomically to the file `out` (never inside `dir`:
// the caller checks). An error names the folder or the file.
Result<ShardWritten> writeShard(const std::string& dir, ShardSpec spec, const std::string& out, Progress& progress,
    const ScratchPolicy& scratch = {});

// What a merge read: the job, the raw folder the shards came from and how many files their shards gave.
struct MergedShards
{
    LoadedJob job;
    std::string dir;
    std::uint32_t shards = 0;
    std::size_t fromShards = 0;
};

// Reads the shard files `shards` (all N shards of one folder, each once) and then their raw folder with them.
// Refused, naming the file and what was expected: a file that is not a shard or is damaged, a shard missing or
// given twice, shards of different folders or different N, a raw folder changed since the shards were written.
Result<MergedShards> loadFromShards(
    const std::vector<std::string>& shards, Progress& progress, const ScratchPolicy& scratch = {});

} // namespace stallscope::folder
