// SPDX-License-Identifier: MIT
#include "core/topology.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace stallscope {

NodeId Topology::addNode(FabricNode node)
{
    const auto id = static_cast<NodeId>(m_nodes.size());
    m_byGuid.emplace(node.guid, id);
    m_nodes.push_back(node);
    return id;
}

LinkId Topology::addLink(FabricLink link)
{
    const auto id = static_cast<LinkId>(m_links.size());
    m_linkByPort[portKey(link.a)] = id;
    m_linkByPort[portKey(link.b)] = id;
    m_links.push_back(link);
    return id;
}

std::optional<NodeId> Topology::findNodeByGuid(std::uint64_t guid) const
{
    if (auto it = m_byGuid.find(guid); it != m_byGuid.end()) {
        return it->second;
    }
    return std::nullopt;
}

std::optional<LinkId> Topology::linkAt(PortRef port) const
{
    if (auto it = m_linkByPort.find(portKey(port)); it != m_linkByPort.end()) {
        return it->second;
    }
    return std::nullopt;
}

std::size_t Topology::switchCount() const
{
    std::size_t n = 0;
    for (const auto& node : m_nodes) {
        n += node.kind == NodeKind::Switch;
    }
    return n;
}

std::size_t Topology::hcaCount() const
{
    return m_nodes.size() - switchCount();
}

std::string formatGuid(std::uint64_t guid)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
    return buf;
}

std::optional<std::uint64_t> parseGuid(std::string_view text)
{
    if (text.starts_with("0x") || text.starts_with("0X")) {
        text.remove_prefix(2);
    }
    if (text.empty() || text.size() > 16) {
        return std::nullopt;
    }
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
    if (ec != std::errc {} || ptr != text.data() + text.size()) {
        return std::nullopt;
    }
    return v;
}

void Topology::setLinkRate(LinkId id, std::uint8_t width, StringId speed)
{
    auto& l = m_links.at(index(id));
    l.width = width;
    l.speed = speed;
}

double laneDataGbps(std::string_view speed)
{
    struct Rate
    {
        std::string_view name;
        double signalling; // GBd per lane, as iblinkinfo prints it
        double data; // Gb/s per lane after 8b/10b or 64b/66b encoding (PAM4 rates as marketed)
    };
    static constexpr Rate kRates[] = { { "SDR", 2.5, 2 }, { "DDR", 5.0, 4 }, { "QDR", 10.0, 8 },
        { "FDR10", 10.3125, 10 }, { "FDR", 14.0625, 13.64 }, { "EDR", 25.78125, 25 }, { "HDR", 53.125, 50 },
        { "NDR", 106.25, 100 }, { "XDR", 212.5, 200 } };
    for (const auto& r : kRates) {
        if (speed == r.name) {
            return r.data;
        }
    }
    // "14.0625 Gbps": the nearest signalling rate within 2 %.
    double gbd = 0;
    const auto* end = speed.data() + speed.size();
    if (auto [p, ec] = std::from_chars(speed.data(), end, gbd); ec != std::errc {} || gbd <= 0) {
        return 0;
    }
    for (const auto& r : kRates) {
        if (std::abs(gbd - r.signalling) <= 0.02 * r.signalling) {
            return r.data;
        }
    }
    return 0;
}

std::string_view tierName(const Topology& topo, const FabricLink& l)
{
    const auto& a = topo.node(l.a.node);
    const auto& b = topo.node(l.b.node);
    if (a.kind == NodeKind::Hca || b.kind == NodeKind::Hca) {
        return "host-leaf";
    }
    const auto lo = std::min(a.tier, b.tier), hi = std::max(a.tier, b.tier);
    if (lo == 1 && hi == 2) {
        return "leaf-spine";
    }
    if (lo == 2 && hi == 3) {
        return "spine-core";
    }
    return "switch-switch";
}

} // namespace stallscope
