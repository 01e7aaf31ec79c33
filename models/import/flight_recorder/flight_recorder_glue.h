// SPDX-License-Identifier: MIT
#pragma once

// How a Flight Recorder dump joins a raw folder's facts (import/folder/formats.cpp's rows call these): parsed on a
// worker thread (its warnings held to the folder's share), then noted in the folder sink and kept in `dumps` by its
// path on the calling thread.

#include "import/common/folder_sink.h"
#include "import/common/rank_records.h"

#include <any>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

using RankRecordFiles = std::vector<std::pair<std::string, RankRecords>>;

std::any parsePickleDump(const std::string& file, const std::string& text, const WarningHold& hold);
std::any parseJsonDump(const std::string& file, const std::string& text, const WarningHold& hold);
std::optional<LoadIssue> addPickleDump(FileInput& in, FolderSink& sink, RankRecordFiles& dumps);
std::optional<LoadIssue> addJsonDump(FileInput& in, FolderSink& sink, RankRecordFiles& dumps);
// The pickle recogniser as the format table takes it (text in, not bytes).
bool looksLikePickleDumpText(const std::string& text);

} // namespace stallscope
