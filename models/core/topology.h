// SPDX-License-Identifier: MIT
#pragma once

// The fabric: hosts, HCAs, switches (with tier) and the links between ports.
// A port is (node, port number); a link joins two ports. Nodes are named as the fabric names them
// (node description, e.g. "gpu-a017 mlx5_3", "leaf-r3", "spine-05") and by GUID.

#include "core/string_pool.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
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
    StringId speed {}; // "NDR", "HDR", ...
};

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
    std::size_t switchCount() const;
    std::size_t hcaCount() const;

private:
    static std::uint64_t portKey(PortRef p) { return (std::uint64_t(index(p.node)) << 16) | p.port; }

    std::vector<FabricNode> m_nodes;
    std::vector<FabricLink> m_links;
    std::unordered_map<std::uint64_t, NodeId> m_byGuid;
    std::unordered_map<std::uint64_t, LinkId> m_linkByPort;
};

std::string formatGuid(std::uint64_t guid); // "0x0c42a10300a1b2c4"
std::optional<std::uint64_t> parseGuid(std::string_view text); // accepts with or without 0x, any padding

} // namespace stallscope
