// SPDX-License-Identifier: MIT
#pragma once

// Loads a Stallscope bundle v1 directory into an immutable snapshot (to open any folder, bundle or raw files:
// import/open_job.h). Pure function of the files: never writes into the bundle. Returns the snapshot plus
// warnings, or the first fatal problem naming the file and the line (text files) or byte offset (binary files).
// No partial snapshot escapes on error.

#include "core/loaded_job.h"
#include "core/progress.h"
#include "core/result.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

Result<LoadedJob> loadBundle(const std::string& dir, Progress& progress);
Result<LoadedJob> loadBundle(const std::string& dir);

// Points `snap`'s collectives and shapes at a collectives.bin written by writeCollectivesFile (bundle/writer.h),
// mapped in place and checked as a bundle's is; `snap` already holds the job's world size and process groups.
// On a problem `snap`'s collectives and shapes are left empty.
std::optional<LoadIssue> attachCollectivesFile(const std::string& path, JobSnapshot& snap, Progress& progress);
// The same for counters.bin (writeCountersFile): `snap`'s counter ports and series come from the file, mapped.
std::optional<LoadIssue> attachCountersFile(const std::string& path, JobSnapshot& snap);

} // namespace stallscope
