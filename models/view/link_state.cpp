// SPDX-License-Identifier: MIT
#include "view/link_state.h"

#include "view/counter_plot_data.h"

#include <algorithm>
#include <array>
#include <map>

namespace stallscope {

std::string_view toString(LinkHealth h)
{
    switch (h) {
    case LinkHealth::Normal:
        return "normal";
    case LinkHealth::Idle:
        return "idle";
    case LinkHealth::Congested:
        return "congested";
    case LinkHealth::Erroring:
        return "erroring";
    case LinkHealth::Down:
        return "down";
    }
    return "normal";
}

namespace {

// Increase over the sample interval containing t (t[k-1], t[k]], and that interval's length.
std::pair<std::uint64_t, TimeNs> sampleDelta(const CounterSeries& s, TimeNs t)
{
    if (s.size() < 2) {
        return { 0, 0 };
    }
    auto k = static_cast<std::size_t>(std::lower_bound(s.timesNs.begin(), s.timesNs.end(), t) - s.timesNs.begin());
    if (k == 0 || k >= s.size()) {
        return { 0, 0 };
    }
    return { counterDelta(s.value(k - 1), s.value(k), s.bits).increase, s.timesNs[k] - s.timesNs[k - 1] };
}

} // namespace

LinkStates::LinkStates(std::shared_ptr<const JobSnapshot> snap)
    : m_snap(std::move(snap))
{
    const auto& s = *m_snap;
    // (guid, port) → series index per counter kind: one pass instead of a search per lookup.
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::array<int, kCounterKindCount>> byPort;
    for (std::size_t i = 0; i < s.counters.size(); ++i) {
        const auto& p = s.counterPorts[s.counters[i].port];
        auto [it, fresh] = byPort.try_emplace({ p.guid, p.port });
        if (fresh) {
            it->second.fill(-1);
        }
        it->second[static_cast<std::size_t>(s.counters[i].kind)] = static_cast<int>(i);
    }
    auto findSeries
        = [&](const JobSnapshot&, std::uint64_t guid, std::uint16_t port, CounterKind kind) -> const CounterSeries* {
        auto it = byPort.find({ guid, port });
        const int i = it == byPort.end() ? -1 : it->second[static_cast<std::size_t>(kind)];
        return i < 0 ? nullptr : &s.counters[static_cast<std::size_t>(i)];
    };
    m_links.resize(s.topology.links().size());
    for (std::uint32_t i = 0; i < m_links.size(); ++i) {
        auto& pl = m_links[i];
        pl.down = linkDownIntervals(s, static_cast<LinkId>(i));
        const auto& l = s.topology.links()[i];
        for (const auto& end : { l.a, l.b }) {
            const auto& node = s.topology.node(end.node);
            for (const auto kind : { CounterKind::LinkDowned, CounterKind::LinkErrorRecovery, CounterKind::SymbolError,
                     CounterKind::PortRcvErrors }) {
                if (const auto* ser = findSeries(s, node.guid, end.port, kind)) {
                    for (std::size_t k = 1; k < ser->size(); ++k) {
                        if (counterDelta(ser->value(k - 1), ser->value(k), ser->bits).increase > 0) {
                            pl.errorSamples.push_back({ ser->timesNs[k - 1], ser->timesNs[k] });
                        }
                    }
                }
            }
            if (!pl.traffic) {
                pl.traffic = findSeries(s, node.guid, end.port, CounterKind::PortXmitData);
            }
            if (node.kind == NodeKind::Switch && !pl.wait) {
                pl.wait = findSeries(s, node.guid, end.port, CounterKind::PortXmitWait);
            }
        }
        std::sort(pl.errorSamples.begin(), pl.errorSamples.end(), [](auto& a, auto& b) { return a.start < b.start; });
    }
}

LinkHealth LinkStates::stateAt(LinkId link, TimeNs t) const
{
    const auto& pl = m_links.at(index(link));
    for (const auto& d : pl.down) {
        if (d.start <= t && t < d.end) {
            return LinkHealth::Down;
        }
    }
    for (const auto& e : pl.errorSamples) {
        if (e.start < t && t <= e.end) {
            return LinkHealth::Erroring;
        }
    }
    if (pl.wait) {
        const auto [ticks, dt] = sampleDelta(*pl.wait, t);
        if (dt > 0 && double(ticks) / (double(dt) / 1e9) > 1e6) {
            return LinkHealth::Congested; // data queued for more than ~a million ticks per second
        }
    }
    if (pl.traffic) {
        const auto [words, dt] = sampleDelta(*pl.traffic, t);
        if (dt > 0 && words == 0) {
            return LinkHealth::Idle;
        }
    }
    return LinkHealth::Normal;
}

} // namespace stallscope
