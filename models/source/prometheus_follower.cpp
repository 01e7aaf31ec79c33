// SPDX-License-Identifier: MIT
// Following a server live (`--follow`, the window's Live toggle): each poll asks for the newest window and reports the
// ports whose link_downed moved or whose state went down since the last one. Runs on the caller's thread.
#include "source/prometheus_source.h"

#include "core/counters.h"

#include <algorithm>

namespace stallscope {

PrometheusFollower::PrometheusFollower(PrometheusQuery query)
    : m_q(std::move(query))
    , m_step(m_q.stepNs)
    , m_last(m_q.range.start)
{
}

Result<std::vector<LiveAlert>> PrometheusFollower::poll(TimeNs nowNs, Progress& progress)
{
    std::vector<LiveAlert> alerts;
    auto q = m_q;
    q.stepNs = m_step;
    // Overlap two steps: the newest samples of the last poll may have been evaluated before their scrape landed.
    q.range = { m_polls == 0 ? m_q.range.start
                             : std::max(m_q.range.start, m_last - 2 * std::max<TimeNs>(m_step, kNsPerSec)),
        nowNs };
    if (q.range.end <= q.range.start) {
        return alerts;
    }
    auto loaded = loadFromPrometheus(q, progress);
    if (!loaded) {
        // An empty window (nothing scraped yet) is not an error while following; the first poll that sees
        // series is the baseline.
        if (loaded.error().message.find("hold no InfiniBand series") != std::string::npos) {
            return alerts;
        }
        return loaded.error();
    }
    m_step = loaded->stepNs;
    const auto& snap = *loaded->job.snapshot;
    const auto portName = [&](std::uint64_t guid, std::uint16_t port) {
        const auto node = snap.topology.findNodeByGuid(guid);
        return (node ? snap.str(snap.topology.node(*node).description) : formatGuid(guid)) + " p"
            + std::to_string(port);
    };
    const bool baseline = m_polls == 0;
    for (const auto& s : snap.counters) {
        if (s.kind != CounterKind::LinkDowned || s.size() == 0) {
            continue;
        }
        const auto& p = snap.counterPorts[s.port];
        const auto key = std::make_pair(p.guid, p.port);
        auto it = m_downed.find(key);
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (it != m_downed.end() && s.timesNs[k] > it->second.first && !baseline) {
                const auto d = counterDelta(it->second.second, s.value(k), s.bits);
                if (d.increase > 0 && !d.reset) {
                    alerts.push_back({ s.timesNs[k], portName(p.guid, p.port),
                        "link went down (link_downed " + std::to_string(it->second.second) + " -> "
                            + std::to_string(s.value(k)) + ")" });
                }
            }
            if (it == m_downed.end()) {
                it = m_downed.emplace(key, std::make_pair(s.timesNs[k], s.value(k))).first;
            } else if (s.timesNs[k] > it->second.first) {
                it->second = { s.timesNs[k], s.value(k) };
            }
        }
    }
    for (const auto& e : snap.linkEvents) {
        if (m_events.insert({ e.guid, e.port, e.timeNs }).second && !baseline && e.state == LinkState::Down) {
            alerts.push_back({ e.timeNs, portName(e.guid, e.port), "link went down (port state)" });
        }
    }
    std::sort(alerts.begin(), alerts.end(), [](const LiveAlert& a, const LiveAlert& b) { return a.timeNs < b.timeNs; });
    m_last = nowNs;
    ++m_polls;
    return alerts;
}

} // namespace stallscope
