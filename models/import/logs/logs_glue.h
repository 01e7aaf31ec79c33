// SPDX-License-Identifier: MIT
#pragma once

// How logs join a raw folder's facts (import/folder/formats.cpp's rows call these). A log is read once the folder's
// clock is known (the dumps' year, the mapping file's zone): on a worker thread (readRankLog, readHostLog), or in
// `add` when it was not. Its Slurm and kernel lines go to `hostLogs`, each rank's facts to `logs` (a rank named by
// the file or folder name alone is listed in `rankFromName`, by its index in `logs`), each noted in the folder sink.
// The Flight Recorder analyzer's output carries no time: read alone before the clocks are known, or as a rank log
// too when a job's output also holds the ranks' own lines.

#include "import/common/folder_sink.h"
#include "import/common/log_clock.h"
#include "import/logs/fr_trace_text.h"
#include "import/logs/host_log.h"
#include "import/logs/rank_log.h"

#include <any>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

using RankLogFiles = std::vector<std::pair<std::string, RankLogFacts>>;
using FrTraceFiles = std::vector<std::pair<std::string, FrTraceText>>;

std::any readRankLog(const std::string& file, const std::string& text, const LogClock& clock);
std::any readHostLog(const std::string& file, const std::string& text, const LogClock& clock);
std::optional<LoadIssue> addRankLog(FileInput& in, FolderSink& sink, const LogClock& clock, RankLogFiles& logs,
    std::set<std::size_t>& rankFromName, HostLogFiles& hostLogs);
std::optional<LoadIssue> addHostLog(FileInput& in, FolderSink& sink, const LogClock& clock, HostLogFiles& hostLogs);
// The host log within another tool's capture (dmesg after ibstat in one file), when the text holds one: its lines
// that name no host are `host`'s. Its warnings join the sink; it is not noted apart from the capture.
void addHostLogWithin(
    FileInput& in, FolderSink& sink, const LogClock& clock, HostLogFiles& hostLogs, const std::string& host);

// The analyzer's output alone, and within a rank log.
bool frTraceAlone(const std::string& text);
bool frTraceInRankLog(const std::string& text);
std::optional<LoadIssue> addFrTrace(FileInput& in, FolderSink& sink, const LogClock& clock, RankLogFiles& logs,
    std::set<std::size_t>& rankFromName, HostLogFiles& hostLogs, FrTraceFiles& frTrace);

} // namespace stallscope
