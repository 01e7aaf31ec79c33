// SPDX-License-Identifier: MIT
#include "view/counter_plot_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stallscope {

ColumnDecimator::ColumnDecimator(PlotPoints& out, TimeRange window, int columns, TimeNs origin)
    : m_out(out)
    , m_start(window.start)
    , m_colNs(double(window.delta()) / double(std::max(columns, 1)))
    , m_origin(origin)
{
}

void ColumnDecimator::add(TimeNs t, double value)
{
    const double key = double(t - m_origin) / 1e9;
    const auto c = static_cast<long long>(double(t - m_start) / m_colNs);
    if (c != m_col) {
        flush();
        m_col = c;
        m_lo = m_hi = value;
        m_tLo = m_tHi = key;
    } else if (value < m_lo) {
        m_lo = value;
        m_tLo = key;
    } else if (value > m_hi) {
        m_hi = value;
        m_tHi = key;
    }
}

void ColumnDecimator::flush()
{
    if (m_col == kNone) {
        return;
    }
    // Emit min and max in time order so the line visits both.
    if (m_tLo <= m_tHi) {
        m_out.keys.insert(m_out.keys.end(), { m_tLo, m_tHi });
        m_out.values.insert(m_out.values.end(), { m_lo, m_hi });
    } else {
        m_out.keys.insert(m_out.keys.end(), { m_tHi, m_tLo });
        m_out.values.insert(m_out.values.end(), { m_hi, m_lo });
    }
    m_col = kNone;
}

std::pair<std::size_t, std::size_t> sampleRange(const CounterSeries& s, TimeRange window)
{
    auto k0 = static_cast<std::size_t>(
        std::lower_bound(s.timesNs.begin(), s.timesNs.end(), window.start) - s.timesNs.begin());
    auto k1 = static_cast<std::size_t>(
        std::upper_bound(s.timesNs.begin(), s.timesNs.end(), window.end) - s.timesNs.begin());
    return { std::max<std::size_t>(k0, 1), std::min(s.size() - 1, k1) };
}

double sampleRate(const CounterSeries& s, std::size_t k)
{
    const TimeNs dt = s.timesNs[k] - s.timesNs[k - 1];
    if (dt <= 0) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return double(counterDelta(s.value(k - 1), s.value(k), s.bits).increase) * 1e9 / double(dt);
}

PlotPoints counterRate(const CounterSeries& s, TimeRange window, int columns, double scale, TimeNs origin)
{
    PlotPoints out;
    if (s.size() < 2 || columns <= 0) {
        return out;
    }
    const auto [k0, k1] = sampleRange(s, window);
    const bool decimate = double(k1 - k0 + 1) > 2.0 * columns;
    ColumnDecimator columnsOf(out, window, columns, origin);
    for (std::size_t k = k0; k <= k1 && k < s.size(); ++k) {
        const double rate = sampleRate(s, k) * scale;
        if (std::isnan(rate)) {
            continue;
        }
        if (decimate) {
            columnsOf.add(s.timesNs[k], rate);
        } else {
            out.keys.push_back(double(s.timesNs[k] - origin) / 1e9);
            out.values.push_back(rate);
        }
    }
    columnsOf.flush();
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

PortSeriesSet portSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port)
{
    PortSeriesSet out {};
    for (const auto& s : snap.counters) {
        const auto& p = snap.counterPorts[s.port];
        auto& slot = out[static_cast<std::size_t>(s.kind)];
        if (!slot && p.guid == guid && p.port == port) {
            slot = &s;
        }
    }
    return out;
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
