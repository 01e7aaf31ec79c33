// SPDX-License-Identifier: MIT
#include "view/link_state.h"

#include "view/counter_plot_data.h"

#include "core/parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <unordered_map>

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
    NullProgress none;
    build(none);
}

LinkStates::LinkStates(std::shared_ptr<const JobSnapshot> snap, Progress& progress, TimeRange within)
    : m_snap(std::move(snap))
    , m_within(within)
{
    build(progress);
}

void LinkStates::build(Progress& progress)
{
    const auto& s = *m_snap;
    // (guid, port) → series index per counter kind: one pass instead of a search per lookup (2.1 M series over
    // 264,192 ports at 131,072 ranks).
    const auto key = [](std::uint64_t guid, std::uint16_t port) { return guid * 0x10001u ^ port; };
    std::unordered_map<std::uint64_t, std::array<int, kCounterKindCount>> byPort;
    byPort.reserve(s.counterPorts.size());
    for (std::size_t i = 0; i < s.counters.size(); ++i) {
        const auto& p = s.counterPorts[s.counters[i].port];
        auto [it, fresh] = byPort.try_emplace(key(p.guid, p.port));
        if (fresh) {
            it->second.fill(-1);
        }
        it->second[static_cast<std::size_t>(s.counters[i].kind)] = static_cast<int>(i);
    }
    // Series of another port under the same key would be a wrong match: check the port the series names.
    const auto findSeries = [&](std::uint64_t guid, std::uint16_t port, CounterKind kind) -> const CounterSeries* {
        auto it = byPort.find(key(guid, port));
        const int i = it == byPort.end() ? -1 : it->second[static_cast<std::size_t>(kind)];
        if (i < 0) {
            return nullptr;
        }
        const auto& ser = s.counters[static_cast<std::size_t>(i)];
        const auto& p = s.counterPorts[ser.port];
        return p.guid == guid && p.port == port ? &ser : nullptr;
    };
    m_links.resize(s.topology.links().size());
    std::atomic<bool> stop { false };
    // Links are independent: split them over the cores. Progress is the caller's: only its part reports and asks.
    parallelParts([&](unsigned part, unsigned parts) {
        const auto [from, to] = partSlice(m_links.size(), part, parts);
        for (auto i = from; i < to && !stop; ++i) {
            if (part == 0 && i % 256 == 0) {
                progress.report("Reading the links' states", i * parts, m_links.size());
                stop = progress.cancelled();
            }
            fillLink(i, findSeries);
        }
    });
}

template <typename Find> void LinkStates::fillLink(std::size_t i, const Find& findSeries)
{
    const auto& s = *m_snap;
    auto& pl = m_links[i];
    pl.down = linkDownIntervals(s, static_cast<LinkId>(i));
    const auto& l = s.topology.links()[i];
    for (const auto& end : { l.a, l.b }) {
        const auto& node = s.topology.node(end.node);
        for (const auto kind : { CounterKind::LinkDowned, CounterKind::LinkErrorRecovery, CounterKind::SymbolError,
                 CounterKind::PortRcvErrors }) {
            if (const auto* ser = findSeries(node.guid, end.port, kind)) {
                // Sample k covers (t[k - 1], t[k]]: those with t[k] >= within.start and t[k - 1] < within.end.
                const auto& t = ser->timesNs;
                const auto from = std::size_t(std::lower_bound(t.begin(), t.end(), m_within.start) - t.begin());
                const auto to = std::size_t(std::lower_bound(t.begin(), t.end(), m_within.end) - t.begin()) + 1;
                forEachIncrease(*ser, from, to, [&](std::size_t k) {
                    pl.errorSamples.push_back({ ser->timesNs[k - 1], ser->timesNs[k] });
                });
            }
        }
        if (!pl.traffic) {
            pl.traffic = findSeries(node.guid, end.port, CounterKind::PortXmitData);
        }
        if (node.kind == NodeKind::Switch && !pl.wait) {
            pl.wait = findSeries(node.guid, end.port, CounterKind::PortXmitWait);
        }
    }
    std::sort(pl.errorSamples.begin(), pl.errorSamples.end(), [](auto& a, auto& b) { return a.start < b.start; });
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
