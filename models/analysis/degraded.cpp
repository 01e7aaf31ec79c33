// SPDX-License-Identifier: MIT
// Degraded links: links that trained below the rate of their tier (docs/formats.md §5e), from the topology
// alone, and what the job's collectives reached when its traffic crosses one.
#include "analysis/internal.h"

#include "core/stats.h"
#include "core/time_format.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace stallscope::analysis {

namespace {

double linkGbps(const JobSnapshot& snap, const FabricLink& l)
{
    return double(l.width) * laneDataGbps(snap.str(l.speed));
}

std::string rateText(const JobSnapshot& snap, const FabricLink& l)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, " (%g Gb/s)", linkGbps(snap, l));
    return std::to_string(l.width) + "x " + std::string(snap.str(l.speed)) + buf;
}

// Host links form one tier; switch-to-switch links one tier per pair of switch tiers.
std::string tierOf(const JobSnapshot& snap, const FabricLink& l)
{
    const auto& a = snap.topology.node(l.a.node);
    const auto& b = snap.topology.node(l.b.node);
    if (a.kind == NodeKind::Hca || b.kind == NodeKind::Hca) {
        return "host links";
    }
    const auto lo = std::min(a.tier, b.tier), hi = std::max(a.tier, b.tier);
    return "switch links (tier " + std::to_string(lo) + "-" + std::to_string(hi) + ")";
}

// Bus bandwidth the group's completed collectives reached, median over them, bytes/s (NCCL-tests' busbw:
// payload × 2(n-1)/n for all-reduce, × (n-1)/n for all-gather and reduce-scatter, over the data phase).
double medianBusBandwidth(const JobSnapshot& snap, const std::vector<CollectiveMatch>& matches, std::uint16_t group)
{
    const double n = double(snap.groups[group].ranks.size());
    std::vector<double> bw;
    for (const auto& m : matches) {
        if (m.group != group || m.minInsideNs == kNoTime || m.minInsideNs <= 0 || m.completed == 0) {
            continue;
        }
        const auto& shape = snap.shapes[m.shape];
        const double factor = shape.op == CollectiveOp::AllReduce                            ? 2 * (n - 1) / n
            : shape.op == CollectiveOp::AllGather || shape.op == CollectiveOp::ReduceScatter ? (n - 1) / n
                                                                                             : 1.0;
        bw.push_back(double(shape.bytes) * factor / (double(m.minInsideNs) / 1e9));
    }
    return bw.empty() ? 0 : median(bw);
}

} // namespace

// The most common key of a histogram; ties go to the larger key (the faster rate, the wider link).
template <typename K> std::pair<K, std::size_t> usualOf(const std::map<K, std::size_t>& counts)
{
    std::pair<K, std::size_t> best {};
    for (const auto& [k, n] : counts) {
        if (n >= best.second) {
            best = { k, n };
        }
    }
    return best;
}

struct TierStats
{
    std::map<double, std::size_t> rates; // Gb/s → links
    std::map<int, std::size_t> widths; // lanes → links
    std::size_t links = 0;
};

// Why a link is degraded, or "" when it is not: lanes lost against its tier's usual width (a fault at any
// speed); a slower speed than most of its tier, when that speed is rare there (not a second kind of hardware,
// e.g. storage nodes at HDR among GPUs at NDR); ends that reported different rates.
std::string degradedBecause(const FabricLink& l, double gbps, const TierStats& t)
{
    const auto [usualWidth, widthLinks] = usualOf(t.widths);
    const auto [usualRate, rateLinks] = usualOf(t.rates);
    if (l.endsDisagree) {
        return "its two ends (or two snapshots) report different rates";
    }
    if (l.width < usualWidth && widthLinks >= 2 && 2 * widthLinks > t.links) {
        return "lanes lost: " + std::to_string(l.width) + "x where its tier is " + std::to_string(usualWidth) + "x";
    }
    const std::size_t atThisRate = t.rates.at(gbps);
    const bool rare = atThisRate <= std::max<std::size_t>(2, t.links / 20);
    if (gbps < usualRate && rare && rateLinks >= 3 && 2 * rateLinks > t.links) {
        return "slower speed than the rest of its tier";
    }
    return {};
}

std::vector<DegradedLink> findDegradedLinks(
    const JobSnapshot& snap, const FabricIndex& fx, const std::vector<CollectiveMatch>& matches)
{
    const auto& topo = snap.topology;
    std::map<std::string, TierStats> tiers;
    for (const auto& l : topo.links()) {
        if (const double g = linkGbps(snap, l); g > 0 && l.a.node != l.b.node) { // a loopback cable says nothing
            auto& t = tiers[tierOf(snap, l)];
            ++t.rates[g];
            ++t.widths[l.width];
            ++t.links;
        }
    }
    std::vector<DegradedLink> out;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        const double g = linkGbps(snap, l);
        if (g <= 0 || l.a.node == l.b.node) {
            continue;
        }
        const auto tier = tierOf(snap, l);
        const auto& stats = tiers[tier];
        const auto why = degradedBecause(l, g, stats);
        if (why.empty()) {
            continue;
        }
        const auto usual = usualOf(stats.rates);
        DegradedLink d;
        d.link = static_cast<LinkId>(i);
        const auto endpoint = [&](const PortRef& p) {
            const auto& n = topo.node(p.node);
            return LinkEndpoint { snap.str(n.description), n.guid, p.port };
        };
        d.a = endpoint(l.a);
        d.b = endpoint(l.b);
        d.tier = tier;
        d.gbps = g;
        d.usualGbps = usual.first;
        d.peers = static_cast<std::uint32_t>(usual.second - (usual.first == g ? 1 : 0));
        d.why = why;
        d.rate = rateText(snap, l);
        char buf[96];
        std::snprintf(buf, sizeof buf, "%g Gb/s, like %u other %s", usual.first, d.peers, tier.c_str());
        d.usual = buf;
        d.endsDisagree = l.endsDisagree;
        for (std::uint16_t gi = 0; gi < snap.groups.size(); ++gi) {
            if (fx.placedFraction(snap.groups[gi]) < 0.5 || !fx.crosses(d.link, snap.groups[gi])) {
                continue;
            }
            d.jobCrosses = true;
            const double bw = medianBusBandwidth(snap, matches, gi);
            const double hostGbps = tiers.count("host links") ? usualOf(tiers["host links"].rates).first : 0;
            if (bw > 0 && hostGbps > 0) {
                char text[256];
                std::snprintf(text, sizeof text,
                    "the job's traffic (pg %s) crosses it: its collectives reach a median bus bandwidth of %s/s, "
                    "%.0f %% of its %g Gb/s host links; this link carries %.0f %% of the usual rate",
                    std::string(snap.str(snap.groups[gi].name)).c_str(), formatBytes(bw).c_str(),
                    100.0 * bw * 8 / 1e9 / hostGbps, hostGbps, 100.0 * g / usual.first);
                d.impact = text;
            }
            break;
        }
        out.push_back(std::move(d));
    }
    std::stable_sort(out.begin(), out.end(), [](const DegradedLink& a, const DegradedLink& b) {
        return a.jobCrosses != b.jobCrosses ? a.jobCrosses : a.gbps / a.usualGbps < b.gbps / b.usualGbps;
    });
    return out;
}

} // namespace stallscope::analysis

namespace stallscope {

std::vector<DegradedLink> degradedLinks(const JobSnapshot& snap)
{
    const analysis::FabricIndex fabric(snap);
    return analysis::findDegradedLinks(snap, fabric, {});
}

} // namespace stallscope
