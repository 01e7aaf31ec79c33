// SPDX-License-Identifier: MIT
// The inventory per host (host_inventory.h): readings merged per port, and the sources checked against each other.
#include "analysis/host_inventory.h"

#include "analysis/gpu_links.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace stallscope {

namespace {

std::string gbps(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g Gb/s", v);
    return buf;
}

bool assignedLid(const std::optional<std::uint32_t>& lid)
{
    return lid && *lid != 0 && *lid != 0xffff;
}

// What two readings of one port say differently about what does not change while a host runs (the state does:
// a port that changed state between readings is a node finding, not a conflict).
void compare(const InventoryPort& merged, const HostPort& next, std::vector<std::string>& conflicts)
{
    const auto& was = merged.port;
    const auto said = [&](const std::string& field, const std::string& a, const std::string& b) {
        conflicts.push_back(inventoryPortName(next) + ": " + field + " " + a + " (" + merged.sources.back() + ") but "
            + b + " (" + next.source + ")");
    };
    if (!was.fw.empty() && !next.fw.empty() && was.fw != next.fw) {
        said("firmware", was.fw, next.fw);
    }
    if (was.rate.gbps > 0 && next.rate.gbps > 0 && was.rate.gbps != next.rate.gbps) {
        said("rate", gbps(was.rate.gbps), gbps(next.rate.gbps));
    }
    if (!was.linkLayer.empty() && !next.linkLayer.empty() && was.infiniband() != next.infiniband()) {
        said("link layer", was.linkLayer, next.linkLayer);
    }
    if (assignedLid(was.lid) && assignedLid(next.lid) && *was.lid != *next.lid) {
        said("LID", std::to_string(*was.lid), std::to_string(*next.lid));
    }
}

// The later reading's fields win; what it did not say is kept from the earlier ones.
void merge(InventoryPort& into, const HostPort& next)
{
    HostPort m = next;
    const auto& was = into.port;
    if (m.state == PortState::Unknown) {
        m.state = was.state;
    }
    if (m.phys == PhysState::Unknown) {
        m.phys = was.phys;
    }
    if (m.rate.gbps == 0) {
        m.rate = was.rate;
    }
    m.lid = m.lid ? m.lid : was.lid;
    m.smLid = m.smLid ? m.smLid : was.smLid;
    m.linkDowned = m.linkDowned ? m.linkDowned : was.linkDowned;
    for (auto field : { &HostPort::linkLayer, &HostPort::fw, &HostPort::netdev }) {
        if ((m.*field).empty()) {
            m.*field = was.*field;
        }
    }
    m.nodeGuid = m.nodeGuid ? m.nodeGuid : was.nodeGuid;
    m.portGuid = m.portGuid ? m.portGuid : was.portGuid;
    into.port = std::move(m);
    if (std::find(into.sources.begin(), into.sources.end(), next.source) == into.sources.end()) {
        into.sources.push_back(next.source);
    }
}

// A rank's NCCL uses an HCA port that a tool shows not carrying traffic.
void checkRanks(HostInventory& h)
{
    for (const auto& r : h.ranks) {
        if (r.hca.empty()) {
            continue;
        }
        const auto who = "rank " + std::to_string(r.rank) + " (GPU " + std::to_string(r.localGpu) + ") uses " + r.hca;
        const auto device = r.hca.substr(0, r.hca.find('/'));
        for (const auto& g : h.goneHcas) {
            if (g.device == device) {
                h.conflicts.push_back(
                    who + ", which " + g.source + " could not reach (" + g.file + ":" + std::to_string(g.line) + ")");
            }
        }
        for (const auto& p : h.ports) {
            const bool down = p.port.state == PortState::Down
                || (p.port.phys != PhysState::Unknown && p.port.phys != PhysState::LinkUp);
            if (inventoryPortName(p.port) == r.hca && down) {
                h.conflicts.push_back(who + ", which " + p.port.source + " shows " + std::string(toString(p.port.state))
                    + ", physical state " + std::string(toString(p.port.phys)));
            }
        }
    }
}

// Each rank's GPU as NCCL's world init line names it: the Init fact's text ends ", busId 41000"
// (import/logs/rank_log_messages.cpp commInit).
std::map<std::uint32_t, std::string> gpuPciOfRanks(const JobSnapshot& snap)
{
    std::map<std::uint32_t, std::string> out;
    constexpr std::string_view kBus = ", busId ";
    for (const auto& f : snap.logFacts) {
        if (f.kind != LogEventKind::Init || f.rank == kNoRank) {
            continue;
        }
        const std::string_view text = snap.str(f.text);
        if (const auto at = text.find(kBus); at != std::string_view::npos) {
            if (auto pci = pciOfNcclBusId(text.substr(at + kBus.size())); !pci.empty()) {
                out[f.rank] = std::move(pci);
            }
        }
    }
    return out;
}

// The kernel's GPU notes (an Xid, a GPU off the bus) by host: what checkGpus looks through.
std::map<std::string, std::vector<std::string>> gpuNotesByHost(const JobSnapshot& snap)
{
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& n : snap.notes) {
        const auto& kind = snap.str(n.kind);
        if (kind == "GPU Xid" || kind == "GPU off the bus") {
            out[snap.str(n.host)].push_back(snap.str(n.text));
        }
    }
    return out;
}

// A rank runs on a GPU its host's kernel reported an Xid for or off the bus (the note names the GPU's PCI address,
// perhaps without its function: "PCI:0000:41:00").
void checkGpus(const std::vector<std::string>& gpuNotes, HostInventory& h)
{
    for (const auto& r : h.ranks) {
        if (r.gpuPci.size() < 2) {
            continue;
        }
        const auto device = r.gpuPci.substr(0, r.gpuPci.size() - 2); // "0000:41:00"
        for (const auto& text : gpuNotes) {
            if (text.find(device) != std::string::npos) {
                h.conflicts.push_back("rank " + std::to_string(r.rank) + " (GPU " + std::to_string(r.localGpu) + ", "
                    + r.gpuPci + ") runs on a GPU the kernel reports: " + text);
                break;
            }
        }
    }
}

// The host's GPUs from topo -m and the nvlink lists, and each rank's nearest NIC.
void addGpus(const JobSnapshot& snap, const std::map<std::pair<std::string, std::uint16_t>, NearestNic>& nearest,
    std::map<std::string, HostInventory>& hosts)
{
    std::map<std::pair<std::string, std::uint16_t>, InventoryGpu> gpus;
    for (const auto& [key, n] : nearest) {
        auto& g = gpus[key];
        g.index = key.second;
        g.nearestNic = n.nic;
        g.nearestPath = gpuPathText(n.path);
    }
    for (const auto& p : snap.gpuPaths) { // a GPU whose row names only GPUs
        gpus[{ p.host, p.gpu }].index = p.gpu;
    }
    for (const auto& l : snap.nvlinks) {
        auto& g = gpus[{ l.host, l.gpu }];
        g.index = l.gpu;
        g.model = l.model;
        g.nvlinks = l.links.size();
        g.inactiveNvlinks = l.inactive();
        for (const auto& link : l.links) {
            g.nvlinkGBps = std::max(g.nvlinkGBps, link.second);
        }
    }
    for (auto& [key, g] : gpus) {
        const auto n = nearest.find(key);
        if (n != nearest.end() && n->second.tied) {
            g.nearestPath += ", tied";
        }
        auto& h = hosts[key.first];
        h.host = key.first;
        h.gpus.push_back(std::move(g));
    }
    for (auto& [name, h] : hosts) {
        for (auto& r : h.ranks) {
            const auto n = nearest.find({ name, r.localGpu });
            if (n != nearest.end() && !n->second.tied) {
                r.nearestNic = n->second.nic;
            }
        }
    }
}

// A rank's NCCL uses an HCA farther from its GPU than the one topo -m puts nearest: its traffic crosses PCIe host
// bridges or the CPUs' interconnect that GPUDirect RDMA through the near HCA would not (NCCL_IB_HCA set by hand,
// or a map of GPUs to HCAs that does not match this host).
void checkNearest(const NicPaths& paths, HostInventory& h)
{
    for (const auto& r : h.ranks) {
        if (r.hca.empty() || r.nearestNic.empty()) {
            continue;
        }
        const auto used = paths.find({ h.host, r.localGpu, r.hca.substr(0, r.hca.find('/')) });
        const auto near = paths.find({ h.host, r.localGpu, r.nearestNic });
        if (used == paths.end() || near == paths.end() || used->second.kind <= near->second.kind) {
            continue;
        }
        h.conflicts.push_back("rank " + std::to_string(r.rank) + " (GPU " + std::to_string(r.localGpu) + ") uses "
            + r.hca + ", " + gpuPathText(used->second) + " from its GPU in topo -m, where " + r.nearestNic + " is "
            + gpuPathText(near->second));
    }
}

} // namespace

std::string pciOfNcclBusId(std::string_view busId)
{
    std::string hex;
    for (const char c : busId) {
        if (std::isxdigit(static_cast<unsigned char>(c))) {
            hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        } else if (c != ':' && c != '.') {
            break;
        }
    }
    constexpr std::size_t kFunctionDeviceBus = 5, kDomain = 4, kLongest = 16;
    if (hex.size() < 3 || hex.size() > kLongest) {
        return {};
    }
    if (hex.size() < kFunctionDeviceBus + kDomain) {
        hex.insert(0, kFunctionDeviceBus + kDomain - hex.size(), '0');
    }
    const auto domainEnd = hex.size() - kFunctionDeviceBus;
    return hex.substr(0, domainEnd) + ":" + hex.substr(domainEnd, 2) + ":" + hex.substr(domainEnd + 2, 2) + "."
        + hex.substr(domainEnd + 4, 1);
}

std::string inventoryPortName(const HostPort& p)
{
    return p.port == 0 ? p.device : p.device + "/" + std::to_string(p.port);
}

bool HostInventory::portDown() const
{
    return std::any_of(findings.begin(), findings.end(), [](const NodeFinding& f) { return f.portDown; });
}

std::vector<HostInventory> hostInventory(const JobSnapshot& snap, const std::vector<NodeFinding>& findings)
{
    std::map<std::string, HostInventory> hosts;
    const auto of = [&](const std::string& name) -> HostInventory& {
        auto& h = hosts[name];
        h.host = name;
        return h;
    };
    const auto gpuPci = gpuPciOfRanks(snap);
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto& info = snap.ranks[r];
        const auto& name = snap.str(info.host);
        if (name.empty()) {
            continue;
        }
        const auto& hca = snap.str(info.hca);
        const auto pci = gpuPci.find(r);
        of(name).ranks.push_back(
            { r, info.localGpu, hca.empty() ? std::string() : hca + "/" + std::to_string(info.hcaPort),
                pci == gpuPci.end() ? std::string() : pci->second, std::string() });
    }
    std::map<std::pair<std::string, std::string>, std::size_t> portIndex; // (host, "mlx5_0/1") → ports[i]
    for (const auto& p : snap.hostPorts) {
        auto& h = of(p.host);
        const auto [at, added] = portIndex.try_emplace({ p.host, inventoryPortName(p) }, h.ports.size());
        if (added) {
            h.ports.push_back({ p, { p.source } });
            continue;
        }
        compare(h.ports[at->second], p, h.conflicts);
        merge(h.ports[at->second], p);
    }
    for (const auto& g : snap.goneHcas) {
        of(g.host).goneHcas.push_back(g);
    }
    for (const auto& f : findings) {
        of(f.host).findings.push_back(f);
    }
    for (const auto& n : snap.notes) {
        if (const auto& name = snap.str(n.host); !name.empty()) {
            ++of(name).notes;
        }
    }
    addGpus(snap, nearestNics(snap.gpuPaths), hosts);
    const auto gpuNotes = gpuNotesByHost(snap);
    const auto paths = nicPaths(snap);
    std::vector<HostInventory> out;
    out.reserve(hosts.size());
    for (auto& [name, h] : hosts) {
        std::sort(h.ports.begin(), h.ports.end(), [](const InventoryPort& a, const InventoryPort& b) {
            return std::pair(a.port.device, a.port.port) < std::pair(b.port.device, b.port.port);
        });
        checkRanks(h);
        checkNearest(paths, h);
        if (const auto gpu = gpuNotes.find(name); gpu != gpuNotes.end()) {
            checkGpus(gpu->second, h);
        }
        out.push_back(std::move(h));
    }
    const auto rank = [](const HostInventory& h) { return h.portDown() ? 0 : !h.findings.empty() ? 1 : 2; };
    std::stable_sort(
        out.begin(), out.end(), [&](const HostInventory& a, const HostInventory& b) { return rank(a) < rank(b); });
    return out;
}

} // namespace stallscope
