// SPDX-License-Identifier: MIT
// GPU↔GPU and GPU↔NIC paths and NVLinks (gpu_links.h).
#include "analysis/gpu_links.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace stallscope {

namespace {

std::string at(const std::string& file, std::int64_t line)
{
    return file + ":" + std::to_string(line);
}

std::string gbpsText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g GB/s", v);
    return buf;
}

void nvlinkListFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    for (const auto& g : snap.nvlinks) {
        const auto gpu = "GPU " + std::to_string(g.gpu);
        if (const auto off = g.inactive(); off > 0) {
            std::string which;
            std::size_t named = 0;
            double speed = 0;
            for (const auto& [link, gbps] : g.links) {
                if (gbps == 0 && ++named <= 8) {
                    which += (which.empty() ? "" : ", ") + std::to_string(link);
                }
                speed = std::max(speed, gbps);
            }
            which += named > 8 ? ", …" : "";
            const bool all = off == g.links.size();
            const auto text = all ? gpu + "'s " + std::to_string(off)
                    + " NVLinks are all inactive: it reaches the other GPUs over PCIe only (the Fabric Manager is not "
                      "running, or the GPU's NVLinks or the NVSwitch ports behind them failed)"
                                  : gpu + " has " + std::to_string(off) + " of " + std::to_string(g.links.size())
                    + " NVLinks inactive (link" + (off > 1 ? "s " : " ") + which + ") while the others run at "
                    + gbpsText(speed) + ": its NVLink bandwidth is cut by that share (a failed link, or the NVSwitch "
                      "port behind it)";
            out.push_back({ g.host, gpu, "NVLink inactive", text, at(g.file, g.firstInactiveLine) + ": " + g.firstInactive,
                true });
        }
        if (!g.errors.empty()) {
            std::string counts;
            for (std::size_t i = 0; i < g.errors.size() && i < 6; ++i) {
                const auto& e = g.errors[i];
                counts += (counts.empty() ? "" : ", ")
                    + (e.link == GpuNvlinks::kAllLinks ? std::string() : "link " + std::to_string(e.link) + " ")
                    + std::to_string(e.value) + " " + e.counter;
            }
            out.push_back({ g.host, gpu, "NVLink error counters",
                gpu + "'s NVLink error counters are above zero (" + counts
                    + "): replays and recoveries retransmit or retrain the link, which stalls the traffic on it",
                at(g.file, g.line) + ": the NVLink error counters of GPU " + std::to_string(g.gpu)
                    + (g.model.empty() ? std::string() : " (" + g.model + ")") + " start here",
                false });
        }
    }
}

// One host's GPU↔GPU cells from topo -m: (gpu, peer gpu) → path.
using PairPaths = std::map<std::pair<std::uint16_t, std::uint16_t>, const GpuPath*>;

std::optional<std::uint16_t> peerIndex(const GpuPath& p)
{
    if (!p.peerIsGpu || p.peer.size() < 4) {
        return std::nullopt;
    }
    std::uint32_t v = 0;
    for (std::size_t i = 3; i < p.peer.size(); ++i) {
        v = v * 10 + static_cast<std::uint32_t>(p.peer[i] - '0');
        if (v > 0xffff) {
            return std::nullopt;
        }
    }
    return static_cast<std::uint16_t>(v);
}

// A peer as the findings name it: "GPU 6" (topo -m's column says "GPU6"), a NIC by its device name.
std::string peerName(const GpuPath& p)
{
    const auto i = peerIndex(p);
    return i ? "GPU " + std::to_string(*i) : p.peer;
}

// On a host whose GPUs are bonded all-to-all (every pair over NVLink, as behind NVSwitches or a full mesh), a GPU
// with no NVLink pair while three or more others have them all is "GPU without NVLink"; pairs bonded over fewer links
// than most are "fewer NVLinks", blamed on a GPU in two or more of them, else named as the pair. Hosts wired unevenly
// by design (DGX-1's hybrid cube mesh: NV1, NV2 and SYS pairs) are not all-to-all and are left alone.
void topoFindings(const std::string& host, const PairPaths& pairs, std::vector<NodeFinding>& out)
{
    std::map<std::uint16_t, bool> anyNv;
    for (const auto& [key, p] : pairs) {
        anyNv[key.first] = anyNv[key.first] || p->path.kind == GpuPathKind::NvLink;
    }
    std::map<std::uint16_t, std::size_t> byCount; // NV count → pairs among the GPUs with NVLink (each pair once)
    std::size_t bonded = 0;
    for (const auto& [key, p] : pairs) {
        if (key.first < key.second && anyNv[key.first] && anyNv[key.second]) {
            if (p->path.kind != GpuPathKind::NvLink) {
                return; // not all-to-all
            }
            byCount[p->path.nvlinks]++;
        }
    }
    for (const auto& [g, nv] : anyNv) {
        bonded += nv ? 1 : 0;
    }
    if (bonded < 3) {
        return;
    }
    std::uint16_t k = 0;
    std::size_t most = 0;
    for (const auto& [count, n] : byCount) {
        if (n >= most) {
            k = count;
            most = n;
        }
    }
    const auto bad = [&](const GpuPath* p) { return p->path.kind != GpuPathKind::NvLink || p->path.nvlinks < k; };
    std::vector<const GpuPath*> badPairs; // each once, from the lower GPU's row
    for (const auto& [key, p] : pairs) {
        if (key.first < key.second && bad(p)) {
            badPairs.push_back(p);
        }
    }
    const auto usual = "NV" + std::to_string(k);
    const auto evidence = [](const GpuPath* p) {
        return at(p->file, p->line) + ": topo -m row of GPU " + std::to_string(p->gpu) + ", " + p->peer + " "
            + gpuPathText(p->path);
    };
    // The GPU in the most bad pairs is blamed for all of them, then the next, while one is in two or more: a GPU
    // whose NVLinks are down spoils its pairs with every sound GPU, and must not make each of them look at fault.
    while (true) {
        std::map<std::uint16_t, std::vector<const GpuPath*>> of;
        for (const auto* p : badPairs) {
            of[p->gpu].push_back(p);
            of[*peerIndex(*p)].push_back(p);
        }
        const auto worst = std::max_element(
            of.begin(), of.end(), [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
        if (worst == of.end() || worst->second.size() < 2) {
            break;
        }
        const auto g = worst->first;
        const auto gpu = "GPU " + std::to_string(g);
        const auto* first = worst->second.front();
        const auto peer = first->gpu == g ? *peerIndex(*first) : first->gpu;
        if (const auto own = pairs.find({ g, peer }); own != pairs.end()) {
            first = own->second; // the evidence from the blamed GPU's own row
        }
        const auto other = peerName(*first);
        std::string paths; // the PCIe paths it takes instead, nearest first: "NODE, SYS"
        for (auto k = GpuPathKind::Pix; k <= GpuPathKind::Sys; k = static_cast<GpuPathKind>(static_cast<int>(k) + 1)) {
            const bool used = std::any_of(worst->second.begin(), worst->second.end(),
                [&](const GpuPath* p) { return p->path.kind == k; });
            paths += used ? (paths.empty() ? "" : ", ") + std::string(toString(k)) : std::string();
        }
        if (!anyNv[g]) {
            out.push_back({ host, gpu, "GPU without NVLink",
                gpu + " reaches the other GPUs over PCIe (" + paths + ") while they reach each other "
                    + "over " + usual + ": its NVLinks are down (the Fabric Manager did not bring them up, or they "
                    + "failed)",
                evidence(first), true });
        } else {
            out.push_back({ host, gpu, "fewer NVLinks",
                gpu + " reaches " + std::to_string(worst->second.size()) + " GPUs over fewer NVLinks than " + usual
                    + " (" + other + " over " + gpuPathText(first->path) + "): some of its NVLinks are down",
                evidence(first), false });
        }
        std::erase_if(badPairs, [&](const GpuPath* p) { return p->gpu == g || *peerIndex(*p) == g; });
    }
    for (const auto* p : badPairs) {
        out.push_back({ host, "GPU " + std::to_string(p->gpu) + " ↔ " + peerName(*p), "fewer NVLinks",
            "GPU " + std::to_string(p->gpu) + " reaches " + peerName(*p) + " over " + gpuPathText(p->path)
                + " where the other GPU pairs have " + usual + ": some NVLinks between the two are down",
            evidence(p), false });
    }
}

} // namespace

NicPaths nicPaths(const JobSnapshot& snap)
{
    NicPaths out;
    for (const auto& p : snap.gpuPaths) {
        if (!p.peerIsGpu) {
            out.try_emplace({ p.host, p.gpu, p.peer }, p.path);
        }
    }
    return out;
}

void gpuLinkFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    nvlinkListFindings(snap, out);
    std::map<std::string, PairPaths> byHost;
    for (const auto& p : snap.gpuPaths) {
        if (const auto peer = peerIndex(p)) {
            byHost[p.host].try_emplace({ p.gpu, *peer }, &p);
        }
    }
    for (const auto& [host, pairs] : byHost) {
        topoFindings(host, pairs, out);
    }
}

} // namespace stallscope
