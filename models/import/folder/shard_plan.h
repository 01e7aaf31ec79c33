// SPDX-License-Identifier: MIT
#pragma once

// Internal to the sharded convert (import/folder/shard.h): which shard parses which file of a raw folder, decided
// from the listing alone so that every shard and the merge agree, and the listing's fingerprint that proves they
// saw one folder.

#include "import/folder/preparsed.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::folder {

struct FolderPlan
{
    std::string dir; // as the files are named: absolute, no trailing separator
    FolderListing listing;
    // Of every listed file's path relative to `dir`, size and modification time, and the sysfs copies' paths.
    std::uint64_t fingerprint = 0;
    std::vector<std::int64_t> shardOf; // per listed file: the shard that parses it; -1: the merge reads it
};

// Lists `dir` (absolute) and cuts its files' units into `count` runs. Listing problems go to `warnings` (the
// merge's own reading says them again).
Result<FolderPlan> planShards(const std::string& dir, std::uint32_t count, std::vector<LoadIssue>& warnings);

// A listed file's path inside the plan's folder ("nodes/gpu-a003/ibstat.txt"), and back.
std::string relativeName(const FolderPlan& plan, const std::filesystem::path& file);

// True unless the file's first bytes rule out every format a shard keeps (a Flight Recorder dump, pickle or JSON;
// a profiler trace): text that starts with a letter, a digit or '#' is a log, a CSV or a scrape. Only spares a
// shard reading such files whole; a file it passes over is read at the merge, so a wrong guess costs time, never
// a difference.
bool mayHoldRecords(const std::filesystem::path& file);

} // namespace stallscope::folder
