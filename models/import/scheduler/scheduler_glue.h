// SPDX-License-Identifier: MIT
#pragma once

// How a rank placement file joins a raw folder's facts (import/folder/formats.cpp's row calls it): noted in the
// folder sink, kept in `placements` by its path. Calling thread.

#include "import/common/folder_sink.h"
#include "import/scheduler/placement.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

std::optional<LoadIssue> addRankPlacement(
    FileInput& in, FolderSink& sink, std::vector<std::pair<std::string, RankPlacement>>& placements);

} // namespace stallscope
