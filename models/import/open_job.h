// SPDX-License-Identifier: MIT
#pragma once

// The one way to open a job: a Stallscope bundle (a folder with manifest.json) or a folder of raw files as the
// cluster left them, recognised by content. Both give the same LoadedJob. Pure function of the files: never
// writes into what it opens; an exception inside a reader becomes an error naming the path, never a crash.

#include "core/loaded_job.h"
#include "core/progress.h"
#include "core/scratch_file.h"
#include "import/folder/shard.h"

#include <string>
#include <vector>

namespace stallscope {

Result<LoadedJob> openJob(const std::string& path, Progress& progress, const ScratchPolicy& scratch = {});
Result<LoadedJob> openJob(const std::string& path);
// The raw folder of a sharded convert read with all its shards (import/folder/shard.h): the job a single convert of
// the folder gives, warnings included.
Result<folder::MergedShards> openShards(
    const std::vector<std::string>& shards, Progress& progress, const ScratchPolicy& scratch = {});

} // namespace stallscope
