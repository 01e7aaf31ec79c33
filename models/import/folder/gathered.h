// SPDX-License-Identifier: MIT
#pragma once

// Internal to the raw-folder importer (import/folder/raw_folder.cpp): what the folder's files say before it becomes a
// snapshot, filled by import/folder/read.cpp and turned into a snapshot by import/folder/assemble.cpp.

#include "core/job_snapshot.h"
#include "core/progress.h"
#include "import/common/counter_sink.h"
#include "import/common/fabric_builder.h"
#include "import/common/folder_sink.h"
#include "import/common/host_facts.h"
#include "import/common/node_facts.h"
#include "import/flight_recorder/flight_recorder.h"
#include "import/folder/mapping.h"
#include "import/infiniband/collector_csv.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/ib_node_list.h"
#include "import/infiniband/opensm_log.h"
#include "import/infiniband/sysfs_tree.h"
#include "import/logs/fr_trace_text.h"
#include "import/logs/host_log.h"
#include "import/logs/rank_log.h"
#include "import/nccl/inspector.h"
#include "import/nccl/ras_status.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"
#include "import/prometheus/prometheus_glue.h"
#include "import/scheduler/placement.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stallscope::folder {

// What the folder's files say, before it becomes a snapshot: its notes and warnings (FolderSink), and the facts of
// each kind the formats' glue adds.
struct Gathered : FolderSink
{
    std::vector<std::pair<std::string, RankRecords>> dumps;
    std::vector<std::pair<std::string, RankRecords>> traces; // profiler traces, as dumps without open entries
    std::uint32_t worldHint = 0; // distributedInfo.world_size
    std::vector<std::pair<std::string, RankLogFacts>> logs;
    std::set<std::size_t> rankFromName; // logs whose rank came from a file or folder name, not their lines
    std::vector<std::pair<std::string, HostLogFacts>> hostLogs; // Slurm output, kernel logs
    std::vector<std::pair<std::string, FrTraceText>> frTrace; // the Flight Recorder analyzer's saved output
    std::vector<OpensmLog> opensm;
    std::vector<std::pair<std::string, InspectorFile>> inspector; // NCCL Inspector logs, one per process
    std::vector<std::pair<std::string, RasReport>> ras; // NCCL RAS status / monitor output
    std::vector<PromSeries> matrix;
    using SwitchSeries = MatrixSwitchSeries;
    std::vector<SwitchSeries> matrixSwitch;
    // Scrapes as read: their states and dates; their readings went into `counters` as they were read, under an id
    // per distinct series (`exposition.series`) until the fabric is known (addCounters).
    ExpositionScrapes exposition;
    // Every counter sample of the folder, held or spilled to scratch files past the memory budget.
    CounterSink counters;
    ScratchPolicy scratch; // the memory budget, and which files are read in pieces
    Progress* progress = nullptr; // of the load: files read in pieces report on it and stop when it is cancelled
    std::vector<std::pair<DatedFile, std::vector<PerfquerySample>>> perfquery;
    std::vector<std::pair<std::string, IblinkinfoSnapshot>> linkinfo;
    std::vector<std::string> csvs; // the collector's CSVs, read again one at a time as the counters are joined
    std::vector<SysfsTree> sysfs; // copies of /sys/class/infiniband
    std::vector<NodeToolsFile> nodeTools; // ibstat, ibstatus, ibv_devinfo, rdma link outputs
    std::vector<std::pair<std::string, RankPlacement>> placements; // hostfiles, Slurm node lists
    FabricBuilder fabric;
    LogClock clock; // rank logs: the year from the dumps, the zone from the mapping file
    bool yearKnown = false; // clock.year came from a dump or a log line, not the default
    // Said once the snapshot is built, and only when something read carries a time: a node folder of ibstat and
    // topo -m outputs has no time for the guessed year to matter to.
    std::optional<LoadIssue> yearGuess;
    FolderMapping mapping;
    bool haveMapping = false;

};

struct PreparsedFiles;

// Reads every file under `dir` into `g` (recognised by content; files that cannot be read become warnings); the
// files `preparsed` holds (a sharded convert's, import/folder/preparsed.h) are taken from it, not read.
// Returns an error only when cancelled.
std::optional<LoadIssue> readFolder(
    const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes, PreparsedFiles* preparsed = nullptr);

// Turning what was read into the snapshot (import/folder/assemble.cpp).
Result<std::uint32_t> addCollectives(JobSnapshot& snap, OwnedColumns& owned, Gathered& g);
void applyLogOutcomes(OwnedColumns& owned, const Gathered& g);
// rank → host, GPU, HCA, transport and log span from the logs, then the mapping file (import/folder/assemble.cpp).
void placeRanks(JobSnapshot& snap, Gathered& g, std::uint32_t world);
// Logs alone as a job (import/folder/logs_job.cpp): true when the folder's rank logs name a rank or a host; then the
// ranks the lines name (and the world communicator's size, when plausible) are the job, with no collective record.
bool logsMakeAJob(const Gathered& g);
std::uint32_t addLogJob(JobSnapshot& snap, OwnedColumns& owned, Gathered& g, const std::string& dir);
// The collective timeout the job ran with, from its watchdog timeouts' Timeout(ms) (the most common value); nullopt
// when no line gives one.
std::optional<TimeNs> collectiveTimeoutFromLogs(const Gathered& g);
// Every rank log's events as the snapshot's log facts, in time order.
void addLogFacts(JobSnapshot& snap, const Gathered& g);
// The Flight Recorder analyzer's findings (import/folder/fr_trace_facts.cpp): the job size the ranks they name
// need (0 when they name none), and the findings as log facts after the others (they carry no time).
std::uint32_t analyzerWorld(const Gathered& g);
void addAnalyzerFacts(JobSnapshot& snap, const Gathered& g);
// Names the ranks of the job with no collective record (their dump or trace is not in the folder, or empty).
void warnRanksWithoutRecords(const OwnedColumns& owned, const std::string& dir, std::vector<LoadIssue>& warnings);
void addCounters(Gathered& g, CounterSink& sink);
void addLinkEvents(JobSnapshot& snap, Gathered& g);
// Scheduler fates, GPU faults, kernel link events and the ranks' own last words as the snapshot's notes.
void addHostNotes(JobSnapshot& snap, const Gathered& g);
void widenSpan(JobSnapshot& snap);
// The node tools' ports and the sysfs copies' as the snapshot's host ports (import/folder/node_ports.cpp).
void addHostPorts(JobSnapshot& snap, const Gathered& g);
// NCCL Inspector's processes as ranks: their collectives join the traces (import/folder/nccl_reports.cpp).
void joinInspector(Gathered& g);
// What NCCL RAS said about ranks and processes as the snapshot's notes (source "nccl ras").
void addRasNotes(JobSnapshot& snap, const Gathered& g);
// Clock offsets of the mapping file, and the check that sources agree (import/folder/clocks.cpp).
void alignClocks(Gathered& g);

} // namespace stallscope::folder
