// SPDX-License-Identifier: MIT
// A rank placement file into a raw folder's facts.
#include "import/scheduler/scheduler_glue.h"

#include <algorithm>

namespace stallscope {

std::optional<LoadIssue> addRankPlacement(
    FileInput& in, FolderSink& sink, std::vector<std::pair<std::string, RankPlacement>>& placements)
{
    auto r = parseRankPlacement(in.path.string(), in.text);
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    const bool counted = std::all_of(r->hosts.begin(), r->hosts.end(), [](const auto& h) { return h.slots > 0; });
    std::uint64_t slots = 0;
    for (const auto& h : r->hosts) {
        slots += h.slots;
    }
    sink.note(in.path, "rank placement",
        r->source + ": " + std::to_string(r->hosts.size()) + " hosts"
            + (counted ? ", " + std::to_string(slots) + " ranks" : std::string(", ranks per host not said")));
    placements.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

} // namespace stallscope
