// SPDX-License-Identifier: MIT
#pragma once

// Chrome trace event JSON that Perfetto (and chrome://tracing) opens: one track per rank with collectives
// as slices, link counters as counter tracks, link events as instant events. Times are microseconds since
// the job's clock origin (the origin is in the metadata), so a subset goes to the tools users already have.

#include "analysis/analysis.h"
#include "core/result.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct TraceExportOptions
{
    std::optional<TimeRange> window; // all of the job when unset
    std::vector<std::uint32_t> ranks; // all ranks when empty
    bool allLinks = false; // counters of every link, else only incident culprits
};

struct TraceExportCounts
{
    std::uint64_t slices = 0;
    std::uint64_t counterSamples = 0;
    std::uint64_t instants = 0;
};

TraceExportCounts writeChromeTrace(
    std::ostream& out, const JobSnapshot& snap, const AnalysisResult* analysis, const TraceExportOptions& options);

// "0-15,139,200-203" → ranks (sorted, unique); nullopt when malformed or out of range.
std::optional<std::vector<std::uint32_t>> parseRankList(const std::string& text, std::uint32_t worldSize);
// "4m..6m" (times since job start) or "EPOCH_NS..EPOCH_NS" (more than 15 digits); an error names the part that
// is wrong and why (unreadable, beyond what a time holds, an end not after its start). Used by every --window.
Result<TimeRange, std::string> parseTimeWindow(const std::string& text, TimeNs origin);

} // namespace stallscope
