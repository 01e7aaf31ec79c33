// SPDX-License-Identifier: MIT
#pragma once

// Writes a snapshot as a Stallscope bundle v1 directory. The directory is assembled under a temporary name
// beside the target and renamed into place at the end, so a failed or interrupted write never leaves a
// half-written bundle behind and never damages an existing one.

#include "core/job_snapshot.h"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace stallscope {

enum class ColumnFormat { Binary, JsonLines };

struct BundleWriteOptions
{
    ColumnFormat collectives = ColumnFormat::Binary;
    ColumnFormat counters = ColumnFormat::Binary;
    bool replaceExisting = true; // replace an existing bundle directory at the target path
    // A collectives.bin already written with writeCollectivesFile from the snapshot's own records (the simulator's
    // spill): moved into the bundle (copied across file systems) instead of written again. Binary output only.
    std::string collectivesFile;
    std::string countersFile; // the same for counters.bin (writeCountersFile)
};

// Returns an empty string on success, else a message naming the path and the reason.
std::string writeBundle(const JobSnapshot& snap, const std::string& dir, const BundleWriteOptions& options = {});

// collectives.bin (docs/bundle-format.md) for records that are never all in memory: `rankBlock(r)` is called for
// each rank in order and must give counts[r] records sorted by enqueue time; its view is used only until the next
// call. Written and fsynced at `path`; "" or a message naming the path.
std::string writeCollectivesFile(const std::string& path, const std::vector<CollectiveShape>& shapes,
    std::span<const std::uint64_t> counts, const std::function<RankCollectives(std::uint32_t)>& rankBlock);

// counters.bin for series whose values were written to `valuesPath` as they were made, in series order and each
// padded to 8 bytes (the simulator's counters): the head from the series' metadata (bundle/binary.h), then the
// values file's bytes appended. Written and fsynced at `path`; "" or a message naming the path. The values file is
// consumed: the space of its copied part is released as the copy goes (releaseReadPart), and the caller removes it.
std::string writeCountersFile(const std::string& path, const std::vector<CounterPort>& ports,
    const std::vector<CounterSeries>& series, const std::vector<std::uint32_t>& seriesBlock,
    const std::vector<std::vector<TimeNs>>& blocks, const std::string& valuesPath);

} // namespace stallscope
