// SPDX-License-Identifier: MIT
#pragma once

// "Go to" in the rank heatmap: what a typed query names — a rank number, or a host (its exact name, else the one
// host whose name holds the text). GUI-free, so the rule is tested without a window.

#include "core/job_snapshot.h"

#include <string>
#include <vector>

namespace stallscope {

struct RankSearch
{
    std::vector<std::uint32_t> ranks; // sorted; empty when nothing matched
    std::string what; // "rank 37 on gpu-a004", "gpu-a004: ranks 32..39", or why nothing matched
};

RankSearch findRanks(const JobSnapshot& snap, const std::string& query);

} // namespace stallscope
