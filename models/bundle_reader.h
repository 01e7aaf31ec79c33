// SPDX-License-Identifier: MIT
#pragma once

// Loads a Stallscope bundle v1 directory into an immutable snapshot. Pure function of the files: never
// writes into the bundle. Returns the snapshot plus warnings, or the first fatal problem naming the file
// and the line (text files) or byte offset (binary files). No partial snapshot escapes on error.

#include "job_snapshot.h"
#include "progress.h"
#include "result.h"

#include <string>
#include <vector>

namespace stallscope {

struct LoadedBundle
{
    SnapshotPtr snapshot;
    std::vector<LoadIssue> warnings;
    std::uint64_t bytesOnDisk = 0; // sum of the bundle's files
    std::uint64_t collectiveBytes = 0; // memory holding collective columns (mapped file or arena)
    std::uint64_t counterBytes = 0; // memory holding counter columns
    double loadSeconds = 0;
    std::vector<std::string> recognised; // folders of raw files: "file: what it was read as"
};

Result<LoadedBundle> loadBundle(const std::string& dir, Progress& progress);
Result<LoadedBundle> loadBundle(const std::string& dir);

} // namespace stallscope
