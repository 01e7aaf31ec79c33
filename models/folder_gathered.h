// SPDX-License-Identifier: MIT
#pragma once

// Internal to the raw-folder importer (folder_import.cpp): what the folder's files say before it becomes a
// snapshot, filled by folder_read.cpp and turned into a snapshot by folder_assemble.cpp.

#include "counter_sink.h"
#include "fabric_builder.h"
#include "import_fabric_tools.h"
#include "import_flight_recorder.h"
#include "import_mapping.h"
#include "import_opensm_log.h"
#include "import_prom_text.h"
#include "import_prometheus.h"
#include "import_rank_log.h"
#include "job_snapshot.h"
#include "progress.h"

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace stallscope::folder {

struct DatedFile
{
    std::string file;
    TimeNs modified = kNoTime; // the sample time of undated snapshots
};

// What the folder's files say, before it becomes a snapshot.
struct Gathered
{
    std::vector<std::pair<std::string, FrDump>> dumps;
    std::vector<std::pair<std::string, FrDump>> traces; // profiler traces, as dumps without open entries
    std::uint32_t worldHint = 0; // distributedInfo.world_size
    std::vector<std::pair<std::string, RankLogFacts>> logs;
    std::set<std::size_t> rankFromName; // logs whose rank came from a file or folder name, not their lines
    std::vector<OpensmLog> opensm;
    std::vector<PromSeries> matrix;
    std::vector<std::pair<DatedFile, ExpositionFile>> exposition;
    std::vector<std::pair<DatedFile, std::vector<PerfquerySample>>> perfquery;
    std::vector<std::pair<std::string, IblinkinfoSnapshot>> linkinfo;
    std::vector<std::pair<std::string, std::string>> csvs; // file, text
    FabricBuilder fabric;
    LogClock clock; // rank logs: the year from the dumps, the zone from the mapping file
    FolderMapping mapping;
    bool haveMapping = false;

    std::vector<LoadIssue> warnings;
    std::vector<std::string> recognised;
    std::map<std::string, int> counts;

    void note(const std::filesystem::path& p, const std::string& what, const std::string& detail)
    {
        recognised.push_back(p.filename().string() + ": " + what + (detail.empty() ? "" : ", " + detail));
        ++counts[what];
    }
    template <typename W> void warn(const W& ws) { warnings.insert(warnings.end(), ws.begin(), ws.end()); }
};

// Reads every file under `dir` into `g` (recognised by content; files that cannot be read become warnings).
// Returns an error only when cancelled.
std::optional<LoadIssue> readFolder(const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes);

// Turning what was read into the snapshot (folder_assemble.cpp).
Result<std::uint32_t> addCollectives(JobSnapshot& snap, OwnedColumns& owned, Gathered& g);
void applyLogOutcomes(OwnedColumns& owned, const Gathered& g);
void addCounters(const std::string& dir, Gathered& g, CounterSink& sink);
void addLinkEvents(JobSnapshot& snap, Gathered& g);
void widenSpan(JobSnapshot& snap);
// Clock offsets of the mapping file, and the check that sources agree (folder_clocks.cpp).
void alignClocks(Gathered& g);

} // namespace stallscope::folder
