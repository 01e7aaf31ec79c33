// SPDX-License-Identifier: MIT
#include "view/link_heatmap_model.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace stallscope {

namespace {

constexpr std::size_t kMaxLevel0Buckets = 65'536; // per row: a week of 1 s counters folds to ~9 s buckets
// Level 0 for all rows together: 256 MB at most, whatever the fabric's size (50,000 links get 5,368 buckets a row).
constexpr std::size_t kMaxLevel0Cells = std::size_t(256) << 20;
constexpr std::size_t kFold = 4;
constexpr double kCongestedTicksPerSec = 1e6; // as the topology view (view/link_state.cpp)

using PortKey = std::pair<std::uint64_t, std::uint16_t>;

int tierRank(std::string_view tier)
{
    // The fabric team reads the shared links first: one uplink carries many hosts' traffic.
    return tier == "spine-core"   ? 0
        : tier == "leaf-spine"    ? 1
        : tier == "switch-switch" ? 2
        : tier == "host-leaf"     ? 3
                                  : 4;
}

} // namespace

std::string_view toString(LinkCell c)
{
    switch (c) {
    case LinkCell::NoData:
        return "no data";
    case LinkCell::Idle:
        return "idle";
    case LinkCell::Normal:
        return "normal";
    case LinkCell::Congested:
        return "congested";
    case LinkCell::Erroring:
        return "erroring";
    case LinkCell::Down:
        return "down";
    }
    return "no data";
}

// Rows and level-0 sizing: what a cached level 0 must agree with (cheap: the topology and each series' ends).
std::shared_ptr<LinkHeatmapModel> LinkHeatmapModel::shape(std::shared_ptr<const JobSnapshot> snap)
{
    std::shared_ptr<LinkHeatmapModel> m(new LinkHeatmapModel());
    m->m_snap = snap;
    const auto& s = *snap;
    const auto& topo = s.topology;

    // Rows: every link, then every counter port on no link; grouped by tier and lower switch.
    std::set<PortKey> linked;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        const auto& a = topo.node(l.a.node);
        const auto& b = topo.node(l.b.node);
        LinkRow r;
        r.link = static_cast<LinkId>(i);
        r.guid = a.guid;
        r.port = l.a.port;
        r.tier = std::string(tierName(topo, l));
        r.name = s.str(a.description) + " p" + std::to_string(l.a.port) + " <-> " + s.str(b.description) + " p"
            + std::to_string(l.b.port);
        // Host links group under their leaf; switch links under the lower switch.
        const auto& groupNode = a.kind == NodeKind::Hca ? b : a;
        r.group = r.tier + ": " + s.str(groupNode.description);
        linked.insert({ a.guid, l.a.port });
        linked.insert({ b.guid, l.b.port });
        m->m_rows.push_back(std::move(r));
    }
    for (const auto& p : s.counterPorts) {
        if (linked.insert({ p.guid, p.port }).second) {
            LinkRow r;
            r.guid = p.guid;
            r.port = p.port;
            r.tier = "unplaced";
            const std::string desc = p.node ? s.str(topo.node(*p.node).description) : formatGuid(p.guid);
            r.name = desc + " p" + std::to_string(p.port) + " (no link in the topology)";
            r.group = "unplaced ports";
            m->m_rows.push_back(std::move(r));
        }
    }
    std::stable_sort(m->m_rows.begin(), m->m_rows.end(), [](const LinkRow& x, const LinkRow& y) {
        const int tx = tierRank(x.tier), ty = tierRank(y.tier);
        return tx != ty ? tx < ty : x.group != y.group ? x.group < y.group : x.port < y.port;
    });

    // Level 0: the finest sampling interval, coarsened so no row holds more than kMaxLevel0Buckets.
    TimeNs finest = std::numeric_limits<TimeNs>::max();
    for (const auto& c : s.counters) {
        if (c.size() >= 2) {
            finest
                = std::min(finest, std::max<TimeNs>(1, (c.timesNs.back() - c.timesNs.front()) / TimeNs(c.size() - 1)));
        }
    }
    const TimeNs span = std::max<TimeNs>(1, s.job.span.end - s.job.span.start);
    if (finest == std::numeric_limits<TimeNs>::max()) {
        finest = std::max<TimeNs>(kNsPerSec, span / 1024); // events only
    }
    m->m_t0 = s.job.span.start;
    const auto perRow
        = std::clamp<std::size_t>(kMaxLevel0Cells / std::max<std::size_t>(m->m_rows.size(), 1), 64, kMaxLevel0Buckets);
    m->m_bucket0 = std::max<TimeNs>(finest, (span + TimeNs(perRow) - 1) / TimeNs(perRow));
    m->m_buckets.push_back(static_cast<std::size_t>(span / m->m_bucket0 + 1));
    return m;
}

std::shared_ptr<const LinkHeatmapModel> LinkHeatmapModel::build(
    std::shared_ptr<const JobSnapshot> snap, Progress& progress)
{
    auto m = shape(snap);
    const auto& s = *snap;
    const auto& topo = s.topology;
    m->m_levels.emplace_back(m->m_rows.size() * m->m_buckets[0], std::uint8_t(LinkCell::NoData));

    // (guid, port) → series per kind, and → events.
    std::map<PortKey, std::array<const CounterSeries*, kCounterKindCount>> series;
    for (const auto& c : s.counters) {
        const auto& p = s.counterPorts[c.port];
        auto [it, fresh] = series.try_emplace({ p.guid, p.port });
        if (fresh) {
            it->second.fill(nullptr);
        }
        it->second[static_cast<std::size_t>(c.kind)] = &c;
    }
    std::map<PortKey, std::vector<const LinkEvent*>> events;
    for (const auto& e : s.linkEvents) {
        events[{ e.guid, e.port }].push_back(&e);
    }
    for (std::uint32_t row = 0; row < m->m_rows.size(); ++row) {
        if (row % 256 == 0) {
            if (progress.cancelled()) {
                return nullptr;
            }
            progress.report("Building the link heatmap", row, m->m_rows.size());
        }
        const auto& r = m->m_rows[row];
        std::vector<PortKey> ends = { { r.guid, r.port } };
        if (r.link) {
            const auto& l = topo.link(*r.link);
            ends.push_back({ topo.node(l.b.node).guid, l.b.port });
        }
        const CounterSeries* traffic = nullptr;
        for (const auto& end : ends) {
            if (auto it = series.find(end); it != series.end()) {
                const auto& k = it->second;
                for (const auto kind : { CounterKind::LinkDowned, CounterKind::LinkErrorRecovery,
                         CounterKind::SymbolError, CounterKind::PortRcvErrors }) {
                    const auto* c = k[static_cast<std::size_t>(kind)];
                    for (std::size_t i = 1; c && i < c->size(); ++i) {
                        if (counterDelta(c->value(i - 1), c->value(i), c->bits).increase > 0) {
                            m->fill(row, c->timesNs[i - 1], c->timesNs[i],
                                kind == CounterKind::LinkDowned ? LinkCell::Down : LinkCell::Erroring);
                        }
                    }
                }
                if (const auto* w = k[static_cast<std::size_t>(CounterKind::PortXmitWait)]) {
                    for (std::size_t i = 1; i < w->size(); ++i) {
                        const double dt = double(w->timesNs[i] - w->timesNs[i - 1]) / 1e9;
                        const auto ticks = counterDelta(w->value(i - 1), w->value(i), w->bits).increase;
                        if (dt > 0 && double(ticks) / dt > kCongestedTicksPerSec) {
                            m->fill(row, w->timesNs[i - 1], w->timesNs[i], LinkCell::Congested);
                        }
                    }
                }
                traffic = traffic ? traffic : k[static_cast<std::size_t>(CounterKind::PortXmitData)];
            }
            if (auto it = events.find(end); it != events.end()) {
                TimeNs down = kNoTime;
                for (const auto* e : it->second) {
                    if (e->state == LinkState::Down && down == kNoTime) {
                        down = e->timeNs;
                    } else if (e->state == LinkState::Up && down != kNoTime) {
                        m->fill(row, down - 1, std::max(e->timeNs, down), LinkCell::Down);
                        down = kNoTime;
                    }
                }
                if (down != kNoTime) {
                    m->fill(row, down - 1, std::max(down, s.job.span.end), LinkCell::Down);
                }
            }
        }
        for (std::size_t i = 1; traffic && i < traffic->size(); ++i) {
            const auto words = counterDelta(traffic->value(i - 1), traffic->value(i), traffic->bits).increase;
            m->fill(row, traffic->timesNs[i - 1], traffic->timesNs[i], words == 0 ? LinkCell::Idle : LinkCell::Normal);
        }
    }
    m->buildLevels();
    return m;
}

void LinkHeatmapModel::fill(std::uint32_t row, TimeNs from, TimeNs to, LinkCell cell)
{
    const TimeNs n = static_cast<TimeNs>(m_buckets[0]);
    const TimeNs lo = std::clamp<TimeNs>((from - m_t0) / m_bucket0, 0, n - 1);
    const TimeNs hi = std::clamp<TimeNs>((to - 1 - m_t0) / m_bucket0, 0, n - 1);
    if (to <= m_t0 || lo > hi) {
        return;
    }
    auto* cells = m_levels[0].data() + std::size_t(row) * m_buckets[0];
    for (TimeNs b = lo; b <= hi; ++b) {
        cells[b] = std::max(cells[b], std::uint8_t(cell));
    }
}

// Each level folds kFold buckets of the one below into their worst cell, until a row fits in a few columns.
void LinkHeatmapModel::buildLevels()
{
    for (std::uint32_t row = 0; row < m_rows.size(); ++row) {
        const auto* cells = m_levels[0].data() + std::size_t(row) * m_buckets[0];
        auto& rr = m_rows[row];
        rr.downBuckets = rr.errorBuckets = 0;
        for (std::size_t b = 0; b < m_buckets[0]; ++b) {
            rr.downBuckets += cells[b] == std::uint8_t(LinkCell::Down);
            rr.errorBuckets += cells[b] == std::uint8_t(LinkCell::Erroring);
        }
    }
    while (m_buckets.back() > 64) {
        const auto below = m_buckets.back();
        const auto n = (below + kFold - 1) / kFold;
        std::vector<std::uint8_t> level(m_rows.size() * n, 0);
        const auto& src = m_levels.back();
        for (std::size_t r = 0; r < m_rows.size(); ++r) {
            for (std::size_t b = 0; b < below; ++b) {
                auto& dst = level[r * n + b / kFold];
                dst = std::max(dst, src[r * below + b]);
            }
        }
        m_buckets.push_back(n);
        m_levels.push_back(std::move(level));
    }
}

std::vector<std::uint32_t> LinkHeatmapModel::order(LinkRowOrder o) const
{
    std::vector<std::uint32_t> out(m_rows.size());
    std::iota(out.begin(), out.end(), 0u);
    if (o == LinkRowOrder::TroubleFirst) {
        std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
            const auto& x = m_rows[a];
            const auto& y = m_rows[b];
            return x.downBuckets != y.downBuckets ? x.downBuckets > y.downBuckets : x.errorBuckets > y.errorBuckets;
        });
    }
    return out;
}

std::uint64_t LinkHeatmapModel::memoryBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& l : m_levels) {
        bytes += l.size();
    }
    for (const auto& r : m_rows) {
        bytes += sizeof(r) + r.name.size() + r.group.size() + r.tier.size();
    }
    return bytes;
}

LinkHeatmapModel::ColumnPlan LinkHeatmapModel::plan(TimeRange window, int columns) const
{
    ColumnPlan p;
    const double perCol = double(std::max<TimeNs>(1, window.delta())) / std::max(columns, 1);
    TimeNs bucket = m_bucket0;
    while (p.level + 1 < m_levels.size() && double(bucket) * kFold <= perCol) {
        bucket *= TimeNs(kFold);
        ++p.level;
    }
    const auto n = static_cast<TimeNs>(m_buckets[p.level]);
    p.lo.resize(static_cast<std::size_t>(std::max(columns, 0)));
    p.hi.resize(p.lo.size());
    for (int c = 0; c < columns; ++c) {
        const TimeNs s = window.start + static_cast<TimeNs>(perCol * c);
        const TimeNs e = window.start + static_cast<TimeNs>(perCol * (c + 1));
        TimeNs lo = (s - m_t0) / bucket, hi = (std::max(e, s + 1) - 1 - m_t0) / bucket;
        if (e <= m_t0 || lo >= n) {
            lo = 1;
            hi = 0; // outside the data
        } else {
            lo = std::max<TimeNs>(lo, 0);
            hi = std::min(hi, n - 1);
        }
        p.lo[std::size_t(c)] = lo;
        p.hi[std::size_t(c)] = hi;
    }
    return p;
}

void LinkHeatmapModel::rasterizeRow(std::uint32_t row, const ColumnPlan& plan, LinkCell* out) const
{
    const auto* cells = m_levels[plan.level].data() + std::size_t(row) * m_buckets[plan.level];
    const std::size_t columns = plan.lo.size();
    for (std::size_t c = 0; c < columns; ++c) {
        std::uint8_t worst = 0;
        for (auto b = plan.lo[c]; b <= plan.hi[c]; ++b) {
            worst = std::max(worst, cells[b]);
        }
        out[c] = static_cast<LinkCell>(worst);
    }
}

void LinkHeatmapModel::rasterizeRow(std::uint32_t row, TimeRange window, int columns, LinkCell* out) const
{
    rasterizeRow(row, plan(window, columns), out);
}

LinkCell LinkHeatmapModel::cellAt(std::uint32_t row, TimeNs t) const
{
    const TimeNs b = (t - m_t0) / m_bucket0;
    if (t < m_t0 || b >= static_cast<TimeNs>(m_buckets[0]) || row >= m_rows.size()) {
        return LinkCell::NoData;
    }
    return static_cast<LinkCell>(m_levels[0][std::size_t(row) * m_buckets[0] + std::size_t(b)]);
}

} // namespace stallscope
