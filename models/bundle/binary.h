// SPDX-License-Identifier: MIT
#pragma once

// Binary columnar parts of a bundle (collectives.bin, counters.bin). Internal to the bundle reader/writer.
// Reading maps the file and points the snapshot's spans into the mapping: no copy, resident memory equals
// the file size.

#include "core/job_snapshot.h"
#include "core/mapped_file.h"
#include "core/progress.h"
#include "core/result.h"

#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace stallscope::bundle {

// Both return an empty string on success, else the reason.
std::string writeCollectivesBin(const JobSnapshot& snap, std::FILE* out);
// The same file a rank at a time, for records never all in memory: `rankBlock(r)` is called for each rank in order
// and must give counts[r] records; its view is used only until the next call.
std::string writeCollectivesBin(const std::vector<CollectiveShape>& shapes, std::span<const std::uint64_t> counts,
    const std::function<RankCollectives(std::uint32_t)>& rankBlock, std::FILE* out);
std::string writeCountersBin(const JobSnapshot& snap, std::FILE* out);
// counters.bin up to its values: header, port, time-block and series tables, time blocks. Series i has the samples
// of blocks[seriesBlock[i]] (its own timesNs and values are not read); its values follow the head in series order,
// each padded to 8 bytes.
std::string writeCountersHead(const std::vector<CounterPort>& ports, const std::vector<CounterSeries>& series,
    const std::vector<std::uint32_t>& seriesBlock, const std::vector<std::span<const TimeNs>>& blocks, std::FILE* out);

std::optional<LoadIssue> readCollectivesBin(
    const std::string& file, std::shared_ptr<MappedFile> map, JobSnapshot& snap, Progress& progress);
std::optional<LoadIssue> readCountersBin(const std::string& file, std::shared_ptr<MappedFile> map, JobSnapshot& snap);

} // namespace stallscope::bundle
