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

namespace stallscope {

// True when `dir` holds no manifest.json (so it is a folder of raw files, not a bundle).
bool isRawFolder(const std::string& dir);

Result<LoadedJob> loadRawFolder(const std::string& dir, Progress& progress);

} // namespace stallscope
