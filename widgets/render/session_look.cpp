// SPDX-License-Identifier: MIT
#include "render/session_look.h"

#include <array>
#include <string>

namespace stallscope {

namespace {

// Indexed by the enums' values.
constexpr std::array<const char*, 4> kRowOrders = { "rank", "host", "rail", "first-stuck" };
constexpr std::array<const char*, 3> kMetrics = { "state", "time-in-collectives", "lateness" };
constexpr std::array<const char*, 2> kLinkOrders = { "tier", "trouble-first" };

template <typename E, std::size_t N>
E byName(const std::array<const char*, N>& names, const std::string& name, E fallback)
{
    for (std::size_t i = 0; i < N; ++i) {
        if (name == names[i]) {
            return static_cast<E>(i);
        }
    }
    return fallback;
}

} // namespace

SessionLook sessionLook(const ReviewSession& s)
{
    return { byName(kRowOrders, s.rowOrder, RowOrder::Rank), byName(kMetrics, s.metric, HeatmapMetric::State),
        byName(kLinkOrders, s.linkRowOrder, LinkRowOrder::Tier), s.rankRows == "recorded" };
}

void writeSessionLook(const SessionLook& look, ReviewSession& out)
{
    out.rowOrder = kRowOrders[static_cast<std::size_t>(look.rowOrder)];
    out.metric = kMetrics[static_cast<std::size_t>(look.metric)];
    out.linkRowOrder = kLinkOrders[static_cast<std::size_t>(look.linkOrder)];
    out.rankRows = look.recordedOnly ? "recorded" : "all";
}

} // namespace stallscope
