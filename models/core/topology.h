// SPDX-License-Identifier: MIT
#pragma once

// The fabric: hosts, HCAs, switches (with tier) and the links between ports.
// A port is (node, port number); a link joins two ports. Nodes are named as the fabric names them
// (node description, e.g. "gpu-a017 mlx5_3", "leaf-r3", "spine-05") and by GUID.

#include "core/string_pool.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope {

enum class NodeKind : std::uint8_t { Hca, Switch };

struct FabricNode
{
    NodeKind kind = NodeKind::Hca;
    std::uint64_t guid = 0;
    StringId description {}; // node description as ibnetdiscover prints it
    StringId host {}; // HCAs: the host name ("gpu-a017"); switches: empty
    StringId hcaName {}; // HCAs: "mlx5_3"; switches: empty
    std::uint8_t tier = 0; // 0 = HCA, 1 = leaf, 2 = spine
    std::uint16_t portCount = 0;
};

struct PortRef
{
    NodeId node {};
    std::uint16_t port = 0;
    friend bool operator==(const PortRef&, const PortRef&) = default;
};

struct FabricLink
{
    PortRef a; // lower tier end (HCA for host links, leaf for leaf-spine links)
    PortRef b;
    std::uint8_t width = 4; // lanes: 1, 2, 4, 8, 12
    StringId speed {}; // "NDR", "HDR", ... or iblinkinfo's per-lane "25.78125 Gbps"
    // The two ends reported different widths or speeds (width/speed then hold the slower): a link that
    // retrained between the tool's reads of its ends, or one end misreporting.
    bool endsDisagree = false;
};

// Data rate of one lane in Gb/s after line encoding, from ibnetdiscover's speed names or iblinkinfo's
// per-lane signalling rate: SDR 2.5 GBd 8b/10b = 2, DDR 4, QDR 8, FDR10 10, FDR 14.0625 GBd 64b/66b = 13.64,
// EDR 25, HDR 50, NDR 100, XDR 200 (InfiniBand Architecture Specification vol. 2, physical layer). 0 when
// unknown. The link's rate is width × this.
double laneDataGbps(std::string_view speed);

class Topology
{
public:
    NodeId addNode(FabricNode node);
    LinkId addLink(FabricLink link);

    const std::vector<FabricNode>& nodes() const { return m_nodes; }
    const std::vector<FabricLink>& links() const { return m_links; }
    const FabricNode& node(NodeId id) const { return m_nodes.at(index(id)); }
    const FabricLink& link(LinkId id) const { return m_links.at(index(id)); }

    std::optional<NodeId> findNodeByGuid(std::uint64_t guid) const;
    // The link attached to a port, if any. O(1).
    std::optional<LinkId> linkAt(PortRef port) const;
    // A link that trained at another rate than it was added with (simulated degraded links).
    void setLinkRate(LinkId id, std::uint8_t width, StringId speed);
    std::size_t switchCount() const;
    std::size_t hcaCount() const;

private:
    static std::uint64_t portKey(PortRef p) { return (std::uint64_t(index(p.node)) << 16) | p.port; }

    std::vector<FabricNode> m_nodes;
    std::vector<FabricLink> m_links;
    std::unordered_map<std::uint64_t, NodeId> m_byGuid;
    std::unordered_map<std::uint64_t, LinkId> m_linkByPort;
};

// "host-leaf" (an HCA on either end), "leaf-spine", "spine-core" by the switches' tiers, else "switch-switch".
std::string_view tierName(const Topology& topo, const FabricLink& link);

std::string formatGuid(std::uint64_t guid); // "0x0c42a10300a1b2c4"
std::optional<std::uint64_t> parseGuid(std::string_view text); // accepts with or without 0x, any padding

} // namespace stallscope
