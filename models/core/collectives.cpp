// SPDX-License-Identifier: MIT
#include "core/collectives.h"

#include <algorithm>
#include <array>

namespace stallscope {

namespace {
constexpr std::array<std::string_view, kCollectiveOpCount> kOpNames = {
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "reduce",
    "all_to_all",
    "barrier",
    "send",
    "recv",
    "other",
};
constexpr std::array<std::string_view, kCollectiveStateCount> kStateNames = {
    "scheduled",
    "started",
    "completed",
    "failed",
    "timed_out",
};
} // namespace

std::string_view toString(CollectiveOp op)
{
    return kOpNames.at(static_cast<std::size_t>(op));
}
std::string_view toString(CollectiveState state)
{
    return kStateNames.at(static_cast<std::size_t>(state));
}

std::optional<CollectiveOp> parseCollectiveOp(std::string_view s)
{
    for (std::size_t i = 0; i < kOpNames.size(); ++i) {
        if (kOpNames[i] == s) {
            return static_cast<CollectiveOp>(i);
        }
    }
    return std::nullopt;
}

std::optional<CollectiveState> parseCollectiveState(std::string_view s)
{
    for (std::size_t i = 0; i < kStateNames.size(); ++i) {
        if (kStateNames[i] == s) {
            return static_cast<CollectiveState>(i);
        }
    }
    return std::nullopt;
}

std::optional<RecordAt> recordAt(const RankCollectives& c, TimeNs t)
{
    const auto after = static_cast<std::size_t>(
        std::upper_bound(c.enqueueNs.begin(), c.enqueueNs.end(), t) - c.enqueueNs.begin());
    if (after == 0) {
        return std::nullopt;
    }
    for (std::size_t i = after; i > 0 && after - i < kInterleavedRecords; --i) {
        const auto j = i - 1;
        if (c.startNs[j] != kNoTime && c.startNs[j] <= t && (c.endNs[j] == kNoTime || t < c.endNs[j])) {
            return RecordAt { j, true };
        }
    }
    return RecordAt { after - 1, false };
}

} // namespace stallscope
