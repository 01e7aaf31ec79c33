// SPDX-License-Identifier: MIT
// The simulated fabric: rail-optimized two-tier fat tree. Host h has GPUs 0..G-1, GPU g uses HCA mlx5_g,
// which connects to the leaf of rail g; every leaf connects to every spine.
#include "sim/internal.h"

#include <cstdio>

namespace stallscope::sim {

namespace {
constexpr std::uint64_t kHcaGuidBase = 0x0c42a10300000000ULL;
constexpr std::uint64_t kLeafGuidBase = 0xfc6a1c0300e40000ULL;
constexpr std::uint64_t kSpineGuidBase = 0xfc6a1c0300e50000ULL;

std::string hostName(std::uint32_t h)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "gpu-a%03u", h);
    return buf;
}
} // namespace

Fabric buildFabric(const SimConfig& c, JobSnapshot& snap)
{
    Fabric f;
    auto& topo = snap.topology;
    const auto speed = snap.strings.intern("NDR");
    for (std::uint32_t s = 0; s < c.spines; ++s) {
        char name[32];
        std::snprintf(name, sizeof name, "spine-%02u", s + 1);
        f.spineNode.push_back(topo.addNode({ NodeKind::Switch, kSpineGuidBase + (std::uint64_t(s) << 8),
            snap.strings.intern(name), {}, {}, 2, static_cast<std::uint16_t>(c.gpusPerHost) }));
    }
    for (std::uint32_t g = 0; g < c.gpusPerHost; ++g) {
        char name[32];
        std::snprintf(name, sizeof name, "leaf-r%u", g);
        f.leafNode.push_back(topo.addNode({ NodeKind::Switch, kLeafGuidBase + (std::uint64_t(g) << 8),
            snap.strings.intern(name), {}, {}, 1, static_cast<std::uint16_t>(c.hosts + c.spines) }));
    }
    // Leaf ports: 1..hosts face hosts, hosts+1..hosts+spines face spines. Spine port g+1 faces leaf g.
    f.uplink.resize(std::size_t(c.gpusPerHost) * c.spines);
    for (std::uint32_t g = 0; g < c.gpusPerHost; ++g) {
        for (std::uint32_t s = 0; s < c.spines; ++s) {
            f.uplink[g * c.spines + s] = topo.addLink({ { f.leafNode[g], static_cast<std::uint16_t>(c.hosts + s + 1) },
                { f.spineNode[s], static_cast<std::uint16_t>(g + 1) }, 4, speed });
        }
    }
    snap.ranks.resize(c.worldSize());
    f.hcaLink.resize(c.worldSize());
    f.hcaNode.resize(c.worldSize());
    for (std::uint32_t h = 0; h < c.hosts; ++h) {
        const auto host = snap.strings.intern(hostName(h));
        for (std::uint32_t g = 0; g < c.gpusPerHost; ++g) {
            const std::uint32_t r = h * c.gpusPerHost + g;
            const std::string hca = "mlx5_" + std::to_string(g);
            const auto hcaId = snap.strings.intern(hca);
            const auto desc = snap.strings.intern(hostName(h) + ' ' + hca);
            f.hcaNode[r]
                = topo.addNode({ NodeKind::Hca, kHcaGuidBase + (std::uint64_t(h) << 8) + g, desc, host, hcaId, 0, 1 });
            f.hcaLink[r]
                = topo.addLink({ { f.hcaNode[r], 1 }, { f.leafNode[g], static_cast<std::uint16_t>(h + 1) }, 4, speed });
            snap.ranks[r] = RankInfo { host, static_cast<std::uint16_t>(g), hcaId, 1, f.hcaNode[r] };
        }
    }
    return f;
}

} // namespace stallscope::sim
