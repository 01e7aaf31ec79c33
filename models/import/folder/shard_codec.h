// SPDX-License-Identifier: MIT
#pragma once

// Internal to the sharded convert (import/folder/shard.h): the shard file, version 1. Little-endian, as the
// machines that write and read it are.
//
//   "STALLSCOPE SHARD" u32 version    magic and version
//   u32 index, u32 count             K/N
//   str dir                          the raw folder, absolute
//   u64 fingerprint, u64 files       its listing (shard_plan.h) and how many files it lists
//   u32 entries, then per entry:     one parsed file
//     str path (inside dir), u64 size, i64 modified ns, str format (its row's name), u64 zeros head, u64 tail,
//     u8 ok; ok: the parse's value (a dump's RankRecords; a trace's rank, world size, kernels, RankRecords),
//     else the parse's LoadIssue
//   u32 CRC-32 of all that           a damaged file is refused, never read as another job
//
// str is u32 length + bytes. Every count read is checked against the bytes left before anything is sized by it.

#include "import/folder/preparsed.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::folder {

struct ShardHeader
{
    std::uint32_t index = 0, count = 0;
    std::string dir;
    std::uint64_t fingerprint = 0;
    std::uint64_t folderFiles = 0;
};

struct ShardEntry
{
    std::string path; // inside the folder, '/'-separated
    std::uint64_t size = 0;
    TimeNs modified = kNoTime;
    PreparsedFile file;
};

struct DecodedShard
{
    ShardHeader header;
    std::vector<ShardEntry> entries;
};

// True when a shard keeps what `format` parses: Flight Recorder dumps (pickle, JSON) and profiler traces.
bool keptInShard(const Format& format);

std::string encodeShard(const ShardHeader& header, const std::vector<ShardEntry>& entries);
// `file` names the shard in errors: "FILE (byte offset N): damaged shard: …".
Result<DecodedShard> decodeShard(const std::string& file, const std::string& bytes);

} // namespace stallscope::folder
