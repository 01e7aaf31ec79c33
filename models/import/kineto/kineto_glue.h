// SPDX-License-Identifier: MIT
#pragma once

// How a profiler trace joins a raw folder's facts (import/folder/formats.cpp's row calls these): parsed on a worker
// thread (its warnings held to the folder's share), then noted in the folder sink, its collectives kept in `traces`
// by its path and its world size in `worldHint` on the calling thread.

#include "import/common/folder_sink.h"
#include "import/common/rank_records.h"

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

std::any parseTrace(const std::string& file, const std::string& text, const WarningHold& hold);
std::optional<LoadIssue> addTrace(FileInput& in, FolderSink& sink,
    std::vector<std::pair<std::string, RankRecords>>& traces, std::uint32_t& worldHint);

} // namespace stallscope
