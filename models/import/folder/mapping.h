// SPDX-License-Identifier: MIT
// The optional mapping file of a raw folder (docs/raw-folders.md): fills what the files do not say, never
// needed for a complete folder. Recognised by its "stallscope_mapping" key, wherever it lies in the folder.
//
//   {"stallscope_mapping": 1,
//    "ranks": {"17": {"host": "gpu-a017", "hca": "mlx5_3", "gpu": 3}},
//    "time_zones": {"rank_logs": "+02:00", "opensm": "+01:00"},
//    "clock_offsets": {"profiler": "-1.5s", "counters": "+250ms"}}
//
// time_zones: the UTC offset of sources written in local time without a zone (rank logs, the OpenSM log).
// clock_offsets: added to every time of a source (dumps, profiler, rank_logs, opensm, counters,
// fabric_snapshots) to put it on the job clock; a signed duration ("-1.5s", "+2h", "250ms").
#pragma once

#include "core/result.h"
#include "core/types.h"

#include <map>
#include <optional>
#include <string>

namespace stallscope {

struct RankOverride
{
    std::string host, hca;
    std::optional<std::uint16_t> gpu;
};

struct FolderMapping
{
    std::map<std::uint32_t, RankOverride> ranks;
    std::map<std::string, TimeNs> timeZones; // source → local − UTC
    std::map<std::string, TimeNs> clockOffsets; // source → added to its times
    TimeNs offset(const std::string& source) const
    {
        auto it = clockOffsets.find(source);
        return it == clockOffsets.end() ? 0 : it->second;
    }
};

bool looksLikeMapping(const std::string& text);
Result<FolderMapping> parseMapping(const std::string& file, const std::string& text);

// "+02:00", "-0530", "UTC", "Z" → offset in ns. (Clock offsets are signed durations: core/time_format.h.)
std::optional<TimeNs> parseUtcOffset(const std::string& text);

} // namespace stallscope
