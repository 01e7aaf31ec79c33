// SPDX-License-Identifier: MIT
#pragma once

// Opens a folder of raw files as the cluster left them (issue #6; docs/raw-folders.md): every file, a few
// folders deep and gzip or not, is recognised by its content — Flight Recorder dumps (pickle, JSON, JSON lines),
// profiler traces, rank logs, ibnetdiscover, iblinkinfo, perfquery, Prometheus scrapes and query_range results,
// the OpenSM log, the collector's CSV, an optional mapping file — and what could not be read is a warning naming
// the file. Work is split: import/folder/read.cpp (recognise and parse, dumps and traces on several threads),
// import/folder/clocks.cpp (one job clock), import/folder/assemble.cpp (ranks, records, counters, link events).

#include "core/loaded_job.h"
#include "core/progress.h"
#include "core/scratch_file.h"

#include <functional>
#include <string>
#include <vector>

namespace stallscope {

namespace folder {
struct PreparsedFiles; // import/folder/preparsed.h
}

// True when `dir` holds no manifest.json (so it is a folder of raw files, not a bundle).
bool isRawFolder(const std::string& dir);

Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress);

// What a folder's job says about where to look for more of its data (a server's counters, issue #14): the
// span its dumps and traces cover (before clock alignment: pad it) and the hosts its logs and mapping name.
struct FolderHint
{
    TimeRange span { kNoTime, kNoTime }; // kNoTime when the folder holds no dump or trace
    std::vector<std::string> hosts; // sorted, unique
    // The switches the job's hosts can cross (their leaves and every switch above), from the folder's topology
    // files; empty without them. Canonical node GUIDs, sorted.
    std::vector<std::uint64_t> switches;
};
// Called once the folder's files are read and before they are joined: returns folders of more raw files to
// read in as if they were part of `dir` (e.g. a server's answers saved to a temporary folder), or an error that
// ends the load. Runs on the loading thread.
using MoreFolders = std::function<Result<std::vector<std::string>>(const FolderHint&)>;
// Counter samples past `scratch.memoryBytes` are spilled to scratch files in `scratch.dir` (issue #13). The files
// `preparsed` holds (a sharded convert's dumps and traces, import/folder/shard.h) are taken from it, not read.
Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress, const MoreFolders& more,
    const ScratchPolicy& scratch = {}, folder::PreparsedFiles* preparsed = nullptr);

} // namespace stallscope
