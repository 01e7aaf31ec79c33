// SPDX-License-Identifier: MIT
#pragma once

// What opening a job gives, whatever it was opened from (a bundle, a folder of raw files): the immutable
// snapshot, what was read and what was left out.

#include "core/job_snapshot.h"
#include "core/result.h"

#include <string>
#include <vector>

namespace stallscope {

struct LoadedJob
{
    SnapshotPtr snapshot;
    std::vector<LoadIssue> warnings;
    std::uint64_t bytesOnDisk = 0; // sum of the files read
    std::uint64_t collectiveBytes = 0; // memory holding collective columns (mapped file or arena)
    std::uint64_t counterBytes = 0; // memory holding counter columns
    double loadSeconds = 0;
    // Counter samples that outgrew the memory budget and went through a scratch file (ScratchPolicy); the counter
    // columns are then in a mapped scratch file too.
    std::uint64_t spilledBytes = 0;
    std::vector<std::string> recognised; // folders of raw files: "file: what it was read as"
};

} // namespace stallscope
