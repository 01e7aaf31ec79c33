// SPDX-License-Identifier: MIT
#pragma once

// Accumulates what every fabric source says about nodes, ports and links — ibnetdiscover (plain and -p),
// iblinkinfo, the switch-side exporters' info series — and builds one Topology from the union. Sources name
// the same HCA differently: ibnetdiscover's plain form by node GUID, its -p form and iblinkinfo by port GUID,
// exporters by description. Port GUIDs are aliases of their node; an HCA description ("gpu-a017 mlx5_3") is
// unique, so a second GUID under the same HCA description is an alias too. Switch descriptions are not unique
// and never merge. Snapshots taken while a link was down lack that link; the union restores it.

#include "core/result.h"
#include "core/topology.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace stallscope {

// "gpu-b020 mlx5_7" names an HCA ("<host> <device>"); "spine-05" or "leaf-07 Quantum-2" a switch. A guess, for
// sources that do not state the kind.
NodeKind guessKindFromDescription(const std::string& desc);

class FabricBuilder
{
public:
    // Declares a node; returns its canonical GUID (an earlier GUID when the HCA description is known).
    // `sure` = the source states the kind (a header, a type field); a guessed kind never overrides a stated one.
    // An HCA first seen here may be a port GUID of an HCA already known by the same description (sources that
    // name port GUIDs). `joinByDescription` off means `guid` is a node GUID (ibnetdiscover's node headers): it
    // joins only a node a port-GUID source named, never another node GUID, since two HCAs may share a
    // description (older fabrics name every CA "MT23108 InfiniHost Mellanox Technologies"); a description two
    // node GUIDs carry joins nothing.
    std::uint64_t node(NodeKind kind, std::uint64_t guid, const std::string& desc, int ports = 0, bool sure = true,
        bool joinByDescription = true);
    void alias(std::uint64_t otherGuid, std::uint64_t nodeGuid);
    // Declares a link between two ports (either order; duplicates ignored). Unknown GUIDs are kept and
    // reported at build() if no node is ever declared for them.
    void link(std::uint64_t guidA, int portA, std::uint64_t guidB, int portB, const std::string& width = {},
        const std::string& speed = {});
    void lid(std::uint32_t lid, std::uint64_t guid);

    std::uint64_t canonical(std::uint64_t guid) const;
    std::optional<std::uint64_t> guidOfLid(std::uint32_t lid) const;
    std::optional<std::uint64_t> guidOfHca(const std::string& desc) const;
    // The HCA "<host> <device>" that host-side counters name; when no topology source describes it, an
    // unplaced HCA node (no link) under a GUID made from the description (kPlacedGuidPrefix | hash), so host
    // counters open without a topology (docs/raw-folders.md).
    std::uint64_t placeHca(const std::string& desc);
    std::size_t placedCount() const { return m_placed; }
    bool hasNode(std::uint64_t guid) const;
    bool empty() const { return m_nodes.empty(); }
    std::size_t nodeCount() const { return m_nodes.size(); }
    std::size_t linkCount() const { return m_links.size(); }

    // Tiers: a switch next to an HCA is a leaf (1), other switches spines (2).
    Topology build(StringPool& strings, const std::string& file, std::vector<LoadIssue>& warnings) const;
    // The switches a job on `hosts` can cross: the leaves of its HCAs ("<host> <device>") and every switch above
    // them (higher tier), never sideways or down to other leaves. Canonical GUIDs, sorted.
    std::vector<std::uint64_t> switchesAbove(const std::vector<std::string>& hosts) const;

private:
    struct RawNode
    {
        NodeKind kind = NodeKind::Switch;
        bool kindSure = false;
        std::string desc;
        int ports = 0;
    };
    struct RawLink
    {
        std::string width, speed;
        bool endsDisagree = false;
    };
    std::map<std::uint64_t, RawNode> m_nodes;
    std::unordered_map<std::uint64_t, std::uint64_t> m_alias;
    struct DescOwner
    {
        std::uint64_t guid = 0;
        bool nodeGuid = false; // registered by a node GUID (joinByDescription off)
        bool ambiguous = false; // two node GUIDs carry this description
    };
    std::unordered_map<std::string, DescOwner> m_hcaByDesc;
    std::map<std::tuple<std::uint64_t, int, std::uint64_t, int>, RawLink> m_links; // raw GUIDs, canonicalised late
    using LinkMap = std::map<std::tuple<std::uint64_t, int, std::uint64_t, int>, const RawLink*>;
    std::map<std::uint64_t, std::uint8_t> switchTiers(const LinkMap& links) const;
    std::unordered_map<std::uint32_t, std::uint64_t> m_lids;
    std::size_t m_placed = 0;
};

// The top 16 bits of a GUID Stallscope made up for an HCA no topology describes (IEEE OUI space that no vendor
// GUID uses: real node GUIDs start with the vendor's OUI).
inline constexpr std::uint64_t kPlacedGuidPrefix = 0xfffe000000000000ULL;

} // namespace stallscope
