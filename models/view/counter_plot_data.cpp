// SPDX-License-Identifier: MIT
#include "view/counter_plot_data.h"

#include <algorithm>

namespace stallscope {

PlotPoints counterRate(const CounterSeries& s, TimeRange window, int columns, double scale, TimeNs origin)
{
    PlotPoints out;
    if (s.size() < 2 || columns <= 0) {
        return out;
    }
    auto k0 = static_cast<std::size_t>(
        std::lower_bound(s.timesNs.begin(), s.timesNs.end(), window.start) - s.timesNs.begin());
    auto k1 = static_cast<std::size_t>(
        std::upper_bound(s.timesNs.begin(), s.timesNs.end(), window.end) - s.timesNs.begin());
    k0 = std::max<std::size_t>(k0, 1);
    k1 = std::min(s.size() - 1, k1);
    const double colNs = double(window.delta()) / double(columns);
    const bool decimate = double(k1 - k0 + 1) > 2.0 * columns;
    long long col = -1;
    double lo = 0, hi = 0, tLo = 0, tHi = 0;
    auto flush = [&] {
        if (col < 0) {
            return;
        }
        // Emit min and max in time order so the line visits both.
        if (tLo <= tHi) {
            out.keys.insert(out.keys.end(), { tLo, tHi });
            out.values.insert(out.values.end(), { lo, hi });
        } else {
            out.keys.insert(out.keys.end(), { tHi, tLo });
            out.values.insert(out.values.end(), { hi, lo });
        }
    };
    for (std::size_t k = k0; k <= k1 && k < s.size(); ++k) {
        const TimeNs dt = s.timesNs[k] - s.timesNs[k - 1];
        if (dt <= 0) {
            continue;
        }
        const double rate
            = double(counterDelta(s.value(k - 1), s.value(k), s.bits).increase) * scale * 1e9 / double(dt);
        const double key = double(s.timesNs[k] - origin) / 1e9;
        if (!decimate) {
            out.keys.push_back(key);
            out.values.push_back(rate);
            continue;
        }
        const auto c = static_cast<long long>(double(s.timesNs[k] - window.start) / colNs);
        if (c != col) {
            flush();
            col = c;
            lo = hi = rate;
            tLo = tHi = key;
        } else if (rate < lo) {
            lo = rate;
            tLo = key;
        } else if (rate > hi) {
            hi = rate;
            tHi = key;
        }
    }
    if (decimate) {
        flush();
    }
    return out;
}

const CounterSeries* findSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port, CounterKind kind)
{
    for (const auto& s : snap.counters) {
        const auto& p = snap.counterPorts[s.port];
        if (s.kind == kind && p.guid == guid && p.port == port) {
            return &s;
        }
    }
    return nullptr;
}

std::vector<TimeRange> linkDownIntervals(const JobSnapshot& snap, LinkId link)
{
    const auto& l = snap.topology.link(link);
    const auto ga = snap.topology.node(l.a.node).guid;
    const auto gb = snap.topology.node(l.b.node).guid;
    std::vector<TimeRange> out;
    TimeNs down = kNoTime;
    for (const auto& e : snap.linkEvents) {
        const bool mine = (e.guid == ga && e.port == l.a.port) || (e.guid == gb && e.port == l.b.port);
        if (!mine) {
            continue;
        }
        if (e.state == LinkState::Down && down == kNoTime) {
            down = e.timeNs;
        } else if (e.state == LinkState::Up && down != kNoTime) {
            out.push_back({ down, e.timeNs });
            down = kNoTime;
        }
    }
    if (down != kNoTime) {
        out.push_back({ down, snap.job.span.end });
    }
    return out;
}

} // namespace stallscope
