// SPDX-License-Identifier: MIT
// Node tools' outputs into the folder's facts, and every host port (node tools, sysfs copies) into the snapshot.
// Calling thread.
#include "import/folder/formats.h"

#include <algorithm>
#include <map>
#include <set>

namespace stallscope::folder {

namespace {

// "mlx5_1/1 Down/Polling" for the ports not Active: what a reader of `info` wants first.
std::string notActive(const NodeToolsFile& f)
{
    std::string s;
    std::size_t n = 0;
    for (const auto& p : f.ports) {
        if (p.state == PortState::Active || p.state == PortState::Unknown) {
            continue;
        }
        if (++n <= 4) {
            s += (s.empty() ? "" : ", ") + (p.host.empty() ? "" : p.host + " ") + p.device + "/"
                + std::to_string(p.port) + " " + std::string(toString(p.state)) + "/" + std::string(toString(p.phys));
        }
    }
    if (n > 4) {
        s += " and " + std::to_string(n - 4) + " more";
    }
    return s;
}

std::string summary(const NodeToolsFile& f)
{
    std::string tools;
    for (const auto& t : f.tools) {
        tools += (tools.empty() ? "" : ", ") + t;
    }
    std::string s = (tools.empty() ? std::string("ibstat") : tools) + ": " + std::to_string(f.ports.size()) + " ports";
    if (!f.gpuPaths.empty() || !f.nvlinks.empty()) {
        std::set<std::pair<std::string, std::uint16_t>> gpus;
        for (const auto& p : f.gpuPaths) {
            gpus.insert({ p.host, p.gpu });
        }
        for (const auto& g : f.nvlinks) {
            gpus.insert({ g.host, g.gpu });
        }
        s += ", " + std::to_string(gpus.size()) + " GPUs";
    }
    if (!f.hosts.empty()) {
        s += " on " + (f.hosts.size() == 1 ? f.hosts[0] : std::to_string(f.hosts.size()) + " hosts");
    }
    if (const auto down = notActive(f); !down.empty()) {
        s += "; not active: " + down;
    }
    for (const auto& g : f.gone) {
        s += "; " + g.device + " vanished (line " + std::to_string(g.line) + ")";
    }
    if (!f.errors.empty()) {
        s += "; " + std::to_string(f.errors.size()) + " ports above ibqueryerrors' thresholds";
    }
    if (f.unknownLines > 0) {
        s += "; " + std::to_string(f.unknownLines) + " other lines kept unread (first: line "
            + std::to_string(f.unknown.front().first) + " \"" + f.unknown.front().second.substr(0, 60) + "\")";
    }
    return s;
}

} // namespace

std::optional<LoadIssue> addNodeTools(FileInput& in, Gathered& g)
{
    const auto file = in.path.string();
    const auto host = hostOfNodeFile(file);
    auto r = parseNodeTools(file, in.text, host);
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    g.note(in.path, "node InfiniBand tools output", summary(r.value()));
    if (looksLikeHostLog(in.text)) { // a capture of several commands: dmesg after ibstat
        auto h = parseHostLog(file, in.text, g.clock, host.empty() && !r->hosts.empty() ? r->hosts[0] : host);
        if (h) {
            g.warn(h->warnings);
            g.hostLogs.emplace_back(file, std::move(h.value()));
        }
    }
    g.nodeTools.push_back(std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addDcgm(FileInput& in, Gathered& g)
{
    const auto file = in.path.string();
    auto r = parseDcgmScrape(file, in.text, hostOfNodeFile(file));
    if (!r) {
        return r.error();
    }
    g.warn(r->warnings);
    std::string detail = std::to_string(r->samples) + " samples of " + std::to_string(r->gpus) + " GPUs";
    if (!r->hosts.empty()) {
        detail += " on " + (r->hosts.size() == 1 ? r->hosts[0] : std::to_string(r->hosts.size()) + " hosts");
    }
    detail += r->xids.empty() ? std::string() : "; " + std::to_string(r->xids.size()) + " Xids";
    g.note(in.path, "dcgm-exporter scrape", detail);
    NodeToolsFile gpus;
    gpus.tools = { "dcgm-exporter" };
    gpus.hosts = r->hosts;
    gpus.nvlinks = std::move(r->nvlinks);
    g.nodeTools.push_back(std::move(gpus));
    HostLogFacts xids; // as the kernel's Xid lines, so the Xid catalog and the inventory's GPU checks see them
    for (const auto& x : r->xids) {
        HostEvent e;
        e.kind = HostEventKind::GpuXid;
        e.host = x.host;
        e.code = x.code;
        e.device = x.pci.empty() ? std::string() : "PCI:" + x.pci;
        e.text = "Xid " + std::to_string(x.code) + " (dcgm-exporter's last Xid of GPU " + std::to_string(x.gpu) + ")";
        e.evidence = x.evidence;
        e.line = x.line;
        xids.events.push_back(std::move(e));
    }
    if (!xids.events.empty()) {
        g.hostLogs.emplace_back(file, std::move(xids));
    }
    return std::nullopt;
}

void addHostPorts(JobSnapshot& snap, const Gathered& g)
{
    for (const auto& f : g.nodeTools) {
        snap.hostPorts.insert(snap.hostPorts.end(), f.ports.begin(), f.ports.end());
        snap.goneHcas.insert(snap.goneHcas.end(), f.gone.begin(), f.gone.end());
        snap.portErrors.insert(snap.portErrors.end(), f.errors.begin(), f.errors.end());
        snap.subnetManagers.insert(snap.subnetManagers.end(), f.subnetManagers.begin(), f.subnetManagers.end());
        snap.switchVitals.insert(snap.switchVitals.end(), f.switches.begin(), f.switches.end());
        snap.gpuPaths.insert(snap.gpuPaths.end(), f.gpuPaths.begin(), f.gpuPaths.end());
        snap.nvlinks.insert(snap.nvlinks.end(), f.nvlinks.begin(), f.nvlinks.end());
    }
    for (const auto& tree : g.sysfs) {
        for (const auto& r : tree.ports) {
            HostPort p;
            p.host = tree.host;
            p.device = r.device;
            p.port = r.port;
            p.state = r.state;
            p.phys = r.phys;
            p.rate = parsePortRate(r.rate).value_or(PortRate {});
            p.linkLayer = r.linkLayer;
            p.fw = r.fw;
            p.nodeGuid = r.nodeGuid.value_or(0);
            p.source = "sysfs";
            p.file = tree.root + "/" + r.device + "/ports/" + std::to_string(r.port);
            p.evidence = "state " + (r.stateText.empty() ? std::string("not copied") : r.stateText) + ", phys_state "
                + (r.physText.empty() ? std::string("not copied") : r.physText);
            for (const auto& [kind, value] : r.counters) {
                if (kind == CounterKind::LinkDowned) {
                    p.linkDowned = value;
                }
            }
            snap.hostPorts.push_back(std::move(p));
        }
    }
}

} // namespace stallscope::folder
