// SPDX-License-Identifier: MIT
#include "import/common/fabric_builder.h"
#include "core/parse_number.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

namespace stallscope {

std::uint64_t FabricBuilder::canonical(std::uint64_t guid) const
{
    for (int hops = 0; hops < 4; ++hops) { // aliases point at nodes; a short chain at most
        auto it = m_alias.find(guid);
        if (it == m_alias.end() || it->second == guid) {
            break;
        }
        guid = it->second;
    }
    return guid;
}

namespace {

// "3", not "" nor "3a".
bool allDigits(std::string_view s)
{
    return !s.empty()
        && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// An RDMA device name as the kernel names it: mlx5_3, hfi1_0 (letters, digits, '_', digits), irdma0, bnxt_re0,
// qedr0.
bool isRdmaDeviceName(std::string_view t)
{
    for (std::string_view stem : { "irdma", "bnxt_re", "qedr" }) {
        if (t.starts_with(stem) && allDigits(t.substr(stem.size()))) {
            return true;
        }
    }
    std::size_t i = 0;
    while (i < t.size() && t[i] >= 'a' && t[i] <= 'z') {
        ++i;
    }
    if (i == 0) {
        return false;
    }
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
        ++i;
    }
    return i < t.size() && t[i] == '_' && allDigits(t.substr(i + 1));
}

} // namespace

NodeKind guessKindFromDescription(const std::string& desc)
{
    // "gpu-a017 mlx5_3": a host name, a blank, the device.
    const auto blank = desc.find_last_of(" \t\n\r\f\v");
    if (blank == std::string::npos) {
        return NodeKind::Switch;
    }
    return isRdmaDeviceName(std::string_view(desc).substr(blank + 1)) ? NodeKind::Hca : NodeKind::Switch;
}

std::uint64_t FabricBuilder::node(
    NodeKind kind, std::uint64_t guid, const std::string& desc, int ports, bool sure, bool joinByDescription)
{
    if (auto it = m_alias.find(guid); it != m_alias.end() && !desc.empty()) {
        const auto target = m_nodes.find(canonical(guid));
        if (target != m_nodes.end() && !target->second.desc.empty() && target->second.desc != desc) {
            m_alias.erase(it); // a node of its own that an earlier source took for a port GUID
        }
    }
    guid = canonical(guid);
    if (!m_nodes.count(guid) && kind == NodeKind::Hca && !desc.empty()) {
        if (auto it = m_hcaByDesc.find(desc);
            it != m_hcaByDesc.end() && !it->second.ambiguous && (joinByDescription || !it->second.nodeGuid)) {
            m_alias[guid] = it->second.guid;
            if (!joinByDescription) {
                it->second.nodeGuid = true;
            }
            return it->second.guid;
        }
    }
    auto [it, fresh] = m_nodes.try_emplace(guid);
    auto& n = it->second;
    if (fresh || sure || !n.kindSure) {
        n.kind = kind;
    }
    n.kindSure = n.kindSure || sure;
    kind = n.kind;
    if (!desc.empty()) {
        n.desc = desc;
    }
    n.ports = std::max(n.ports, ports);
    if (kind == NodeKind::Hca && !desc.empty()) {
        auto [d, added] = m_hcaByDesc.try_emplace(desc, DescOwner { guid, !joinByDescription, false });
        if (!added && d->second.guid != guid && d->second.nodeGuid && !joinByDescription) {
            d->second.ambiguous = true; // two HCAs share it: it names neither
        }
    }
    return guid;
}

void FabricBuilder::alias(std::uint64_t otherGuid, std::uint64_t nodeGuid)
{
    nodeGuid = canonical(nodeGuid);
    if (otherGuid != nodeGuid && !m_nodes.count(otherGuid)) {
        m_alias[otherGuid] = nodeGuid;
    }
}

void FabricBuilder::link(
    std::uint64_t guidA, int portA, std::uint64_t guidB, int portB, const std::string& width, const std::string& speed)
{
    if (std::tie(guidB, portB) < std::tie(guidA, portA)) {
        std::swap(guidA, guidB);
        std::swap(portA, portB);
    }
    auto& l = m_links[{ guidA, portA, guidB, portB }];
    if (l.width.empty() && l.speed.empty()) {
        l.width = width;
        l.speed = speed;
        return;
    }
    if (width.empty() && speed.empty()) {
        return;
    }
    // The other end (or another tool) reports the link too: keep the slower report, remember a difference.
    const auto rate
        = [](const std::string& w, const std::string& sp) { return std::atof(w.c_str()) * laneDataGbps(sp); };
    const double was = rate(l.width, l.speed);
    const double now = rate(width, speed);
    l.endsDisagree = l.endsDisagree || (was > 0 && now > 0 && std::abs(was - now) > 1e-6 * was);
    if (was <= 0 || (now > 0 && now < was)) {
        l.width = width;
        l.speed = speed;
    }
}

void FabricBuilder::lid(std::uint32_t lid, std::uint64_t guid)
{
    if (lid != 0) {
        m_lids[lid] = guid;
    }
}

// A switch with an HCA neighbour is a leaf (tier 1); every other switch is one more than its nearest leaf
// (spines 2, cores 3 in a three-tier fabric), by breadth-first search over switch-to-switch links. A switch
// reached from no leaf is a spine (2).
std::map<std::uint64_t, std::uint8_t> FabricBuilder::switchTiers(const LinkMap& links) const
{
    std::map<std::uint64_t, std::vector<std::uint64_t>> up;
    std::map<std::uint64_t, std::uint8_t> tier;
    std::vector<std::uint64_t> frontier;
    for (const auto& [key, l] : links) {
        const auto ga = std::get<0>(key), gb = std::get<2>(key);
        const auto ka = m_nodes.at(ga).kind, kb = m_nodes.at(gb).kind;
        if (ka == NodeKind::Switch && kb == NodeKind::Switch) {
            up[ga].push_back(gb);
            up[gb].push_back(ga);
        } else if (ka != kb) {
            const auto sw = ka == NodeKind::Switch ? ga : gb;
            if (tier.emplace(sw, 1).second) {
                frontier.push_back(sw);
            }
        }
    }
    for (std::uint8_t t = 2; !frontier.empty() && t < 16; ++t) {
        std::vector<std::uint64_t> next;
        for (auto sw : frontier) {
            for (auto peer : up[sw]) {
                if (tier.emplace(peer, t).second) {
                    next.push_back(peer);
                }
            }
        }
        frontier = std::move(next);
    }
    return tier;
}

std::vector<std::uint64_t> FabricBuilder::switchesAbove(const std::vector<std::string>& hosts) const
{
    LinkMap links;
    std::map<std::uint64_t, std::vector<std::uint64_t>> peers;
    for (const auto& [key, l] : m_links) {
        const auto ga = canonical(std::get<0>(key)), gb = canonical(std::get<2>(key));
        if (m_nodes.count(ga) && m_nodes.count(gb)) {
            links.try_emplace({ ga, std::get<1>(key), gb, std::get<3>(key) }, &l);
            peers[ga].push_back(gb);
            peers[gb].push_back(ga);
        }
    }
    const auto tiers = switchTiers(links);
    const std::set<std::string> wanted(hosts.begin(), hosts.end());
    std::set<std::uint64_t> found;
    std::vector<std::uint64_t> frontier;
    for (const auto& [guid, n] : m_nodes) {
        const auto space = n.desc.rfind(' ');
        if (n.kind != NodeKind::Hca || space == std::string::npos || !wanted.count(n.desc.substr(0, space))) {
            continue;
        }
        for (auto peer : peers[guid]) {
            if (m_nodes.at(peer).kind == NodeKind::Switch && found.insert(peer).second) {
                frontier.push_back(peer);
            }
        }
    }
    const auto tierOf = [&](std::uint64_t g) {
        const auto it = tiers.find(g);
        return it == tiers.end() ? 0 : int(it->second);
    };
    while (!frontier.empty()) { // upward only: each step to a strictly higher tier, so it ends
        std::vector<std::uint64_t> next;
        for (auto sw : frontier) {
            for (auto peer : peers[sw]) {
                if (m_nodes.at(peer).kind == NodeKind::Switch && tierOf(peer) > tierOf(sw)
                    && found.insert(peer).second) {
                    next.push_back(peer);
                }
            }
        }
        frontier = std::move(next);
    }
    return { found.begin(), found.end() };
}

std::optional<std::uint64_t> FabricBuilder::guidOfLid(std::uint32_t lid) const
{
    auto it = m_lids.find(lid);
    return it == m_lids.end() ? std::nullopt : std::optional<std::uint64_t>(canonical(it->second));
}

std::optional<std::uint64_t> FabricBuilder::guidOfHca(const std::string& desc) const
{
    auto it = m_hcaByDesc.find(desc);
    return it == m_hcaByDesc.end() || it->second.ambiguous ? std::nullopt
                                                           : std::optional<std::uint64_t>(canonical(it->second.guid));
}

std::uint64_t FabricBuilder::placeHca(const std::string& desc)
{
    if (auto known = guidOfHca(desc)) {
        return *known;
    }
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a: stable across runs and platforms
    for (const unsigned char c : desc) {
        h = (h ^ c) * 1099511628211ULL;
    }
    ++m_placed;
    return node(NodeKind::Hca, kPlacedGuidPrefix | (h & 0x0000ffffffffffffULL), desc, 1, true);
}

bool FabricBuilder::hasNode(std::uint64_t guid) const
{
    return m_nodes.count(canonical(guid)) > 0;
}

Topology FabricBuilder::build(StringPool& strings, const std::string& file, std::vector<LoadIssue>& warnings) const
{
    // Canonical links, once each, whatever GUID each source used.
    LinkMap links;
    std::set<std::uint64_t> unknown;
    for (const auto& [key, l] : m_links) {
        auto [ga, pa, gb, pb] = key;
        ga = canonical(ga);
        gb = canonical(gb);
        if (!m_nodes.count(ga) || !m_nodes.count(gb)) {
            unknown.insert(!m_nodes.count(ga) ? ga : gb);
            continue;
        }
        if (std::tie(gb, pb) < std::tie(ga, pa)) {
            std::swap(ga, gb);
            std::swap(pa, pb);
        }
        links.try_emplace({ ga, pa, gb, pb }, &l);
    }
    for (auto guid : unknown) {
        warnings.push_back({ file, 0, -1, "a link names a node no source describes (GUID " + formatGuid(guid) + ")" });
    }
    const auto tiers = switchTiers(links);
    Topology topo;
    for (const auto& [guid, n] : m_nodes) {
        FabricNode fn;
        fn.kind = n.kind;
        fn.guid = guid;
        fn.description = strings.intern(n.desc);
        fn.portCount = static_cast<std::uint16_t>(n.ports);
        if (n.kind == NodeKind::Hca) {
            const auto space = n.desc.rfind(' ');
            fn.host = strings.intern(space == std::string::npos ? n.desc : n.desc.substr(0, space));
            fn.hcaName = strings.intern(space == std::string::npos ? std::string() : n.desc.substr(space + 1));
            fn.tier = 0;
        } else {
            const auto t = tiers.find(guid);
            fn.tier = t == tiers.end() ? 2 : t->second;
        }
        topo.addNode(fn);
    }
    std::set<std::pair<std::uint64_t, int>> usedPorts;
    for (const auto& [key, l] : links) {
        const auto& [ga, pa, gb, pb] = key;
        if (!usedPorts.insert({ ga, pa }).second || !usedPorts.insert({ gb, pb }).second) {
            warnings.push_back({ file, 0, -1,
                "port " + formatGuid(ga) + "/" + std::to_string(pa) + " or " + formatGuid(gb) + "/" + std::to_string(pb)
                    + " is cabled to two peers across the snapshots: the later link is kept out" });
            continue;
        }
        const auto a = *topo.findNodeByGuid(ga);
        const auto b = *topo.findNodeByGuid(gb);
        const bool swap = topo.node(a).tier > topo.node(b).tier; // lower tier first, as the bundle has it
        FabricLink fl;
        fl.a = { swap ? b : a, static_cast<std::uint16_t>(swap ? pb : pa) };
        fl.b = { swap ? a : b, static_cast<std::uint16_t>(swap ? pa : pb) };
        const auto digits = l->width.substr(0, l->width.find_first_not_of("0123456789"));
        fl.width = parseNumber<std::uint8_t>(digits).value_or(l->width.empty() ? 4 : 0); // "4x" → 4; 0 unknown
        fl.speed = strings.intern(l->speed);
        fl.endsDisagree = l->endsDisagree;
        topo.addLink(fl);
    }
    return topo;
}

} // namespace stallscope
