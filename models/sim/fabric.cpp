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
constexpr std::uint64_t kCoreGuidBase = 0xfc6a1c0300e60000ULL;

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
    const bool podded = c.pods > 1;
    const std::uint32_t hpp = c.hostsPerPod();
    for (std::uint32_t p = 0; p < c.pods; ++p) {
        for (std::uint32_t s = 0; s < c.spines; ++s) {
            char name[40];
            if (podded) {
                std::snprintf(name, sizeof name, "spine-p%u-%02u", p, s + 1);
            } else {
                std::snprintf(name, sizeof name, "spine-%02u", s + 1);
            }
            const std::uint64_t i = p * c.spines + s;
            f.spineNode.push_back(topo.addNode({ NodeKind::Switch, kSpineGuidBase + (i << 8), snap.strings.intern(name),
                {}, {}, 2, static_cast<std::uint16_t>(c.gpusPerHost + c.cores) }));
        }
    }
    for (std::uint32_t k = 0; k < c.cores; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "core-%02u", k + 1);
        f.coreNode.push_back(topo.addNode({ NodeKind::Switch, kCoreGuidBase + (std::uint64_t(k) << 8),
            snap.strings.intern(name), {}, {}, 3, static_cast<std::uint16_t>(c.pods * c.spines) }));
    }
    for (std::uint32_t p = 0; p < c.pods; ++p) {
        for (std::uint32_t g = 0; g < c.gpusPerHost; ++g) {
            char name[40];
            if (podded) {
                std::snprintf(name, sizeof name, "leaf-p%u-r%u", p, g);
            } else {
                std::snprintf(name, sizeof name, "leaf-r%u", g);
            }
            const std::uint64_t i = p * c.gpusPerHost + g;
            f.leafNode.push_back(topo.addNode({ NodeKind::Switch, kLeafGuidBase + (i << 8), snap.strings.intern(name),
                {}, {}, 1, static_cast<std::uint16_t>(hpp + c.spines) }));
        }
    }
    // Leaf ports: 1..hostsPerPod face hosts, then one per spine. Spine ports: 1..rails face its pod's leaves,
    // then one per core. Core port p × spines + s + 1 faces spine s of pod p.
    f.uplink.resize(std::size_t(c.pods) * c.gpusPerHost * c.spines);
    for (std::uint32_t p = 0; p < c.pods; ++p) {
        for (std::uint32_t g = 0; g < c.gpusPerHost; ++g) {
            for (std::uint32_t s = 0; s < c.spines; ++s) {
                f.uplink[(p * c.gpusPerHost + g) * c.spines + s]
                    = topo.addLink({ { f.leafNode[p * c.gpusPerHost + g], static_cast<std::uint16_t>(hpp + s + 1) },
                        { f.spineNode[p * c.spines + s], static_cast<std::uint16_t>(g + 1) }, 4, speed });
            }
        }
    }
    f.coreLink.resize(std::size_t(c.pods) * c.spines * c.cores);
    for (std::uint32_t i = 0; i < c.pods * c.spines; ++i) {
        for (std::uint32_t k = 0; k < c.cores; ++k) {
            f.coreLink[i * c.cores + k]
                = topo.addLink({ { f.spineNode[i], static_cast<std::uint16_t>(c.gpusPerHost + k + 1) },
                    { f.coreNode[k], static_cast<std::uint16_t>(i + 1) }, 4, speed });
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
            f.hcaLink[r] = topo.addLink({ { f.hcaNode[r], 1 },
                { f.leafNode[(h / hpp) * c.gpusPerHost + g], static_cast<std::uint16_t>(h % hpp + 1) }, 4, speed });
            snap.ranks[r] = RankInfo { host, static_cast<std::uint16_t>(g), hcaId, 1, f.hcaNode[r] };
        }
    }
    return f;
}

} // namespace stallscope::sim
