// SPDX-License-Identifier: MIT
#pragma once

// Writes a snapshot as a Stallscope bundle v1 directory. The directory is assembled under a temporary name
// beside the target and renamed into place at the end, so a failed or interrupted write never leaves a
// half-written bundle behind and never damages an existing one.

#include "core/job_snapshot.h"

#include <string>

namespace stallscope {

enum class ColumnFormat { Binary, JsonLines };

struct BundleWriteOptions
{
    ColumnFormat collectives = ColumnFormat::Binary;
    ColumnFormat counters = ColumnFormat::Binary;
    bool replaceExisting = true; // replace an existing bundle directory at the target path
};

// Returns an empty string on success, else a message naming the path and the reason.
std::string writeBundle(const JobSnapshot& snap, const std::string& dir, const BundleWriteOptions& options = {});

} // namespace stallscope
