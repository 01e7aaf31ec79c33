// SPDX-License-Identifier: MIT
// The raw writer's per-host node files (docs/raw-folders.md): what an engineer collects from each host after an
// incident — `ibstat`, `dmesg --time-format iso` and a copy of /sys/class/infiniband — as the HCA ports stand at
// the end of the simulated window (the copy's files dated then). A host whose link flapped logs each down and up,
// counts them in link_downed (on top of what the register held before, as the collector read it),
// and shows Down/Polling when the link is still down at the end; a degraded link shows its lower width or speed.
#include "sim/raw_files.h"

#include "core/atomic_file.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

namespace stallscope::rawfiles {

namespace fs = std::filesystem;

namespace {

// One HCA port as the host's tools see it at the end of the window.
struct PortView
{
    std::string device; // "mlx5_3"
    std::uint16_t port = 1;
    std::uint64_t nodeGuid = 0;
    std::uint32_t lid = 0;
    bool up = true; // the link's last event was not a Down
    std::uint8_t width = 4;
    std::string speed; // "NDR"
    std::vector<const LinkEvent*> events; // this port's downs and ups, by time
    std::uint64_t symbolErrors = 0, errorRecoveries = 0; // last readings of the simulated counters
    std::optional<std::uint64_t> linkDowned; // ... and link_downed's, which carries downs from before the window
};

// Nominal lane rate in Gb/s as ibstat and sysfs print it (4x EDR is "100", 4x FDR "56"), not the encoded rate.
double nominalLaneGbps(std::string_view speed)
{
    static const std::map<std::string_view, double> lanes { { "SDR", 2.5 }, { "DDR", 5 }, { "QDR", 10 },
        { "FDR10", 10 }, { "FDR", 14 }, { "EDR", 25 }, { "HDR", 50 }, { "NDR", 100 }, { "XDR", 200 } };
    const auto it = lanes.find(speed);
    return it == lanes.end() ? 100 : it->second;
}

std::string gbps(double v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, v == static_cast<std::uint64_t>(v) ? "%.0f" : "%.1f", v);
    return buf;
}

// A down port trains at nothing: ibstat and sysfs then report the 4x SDR floor, 10 Gb/s.
double rateGbps(const PortView& p)
{
    return p.up ? p.width * nominalLaneGbps(p.speed) : 10;
}

// sysfs node_guid: "b83f:d203:00c4:e000".
std::string sysfsGuid(std::uint64_t g)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "%04llx:%04llx:%04llx:%04llx", static_cast<unsigned long long>(g >> 48),
        static_cast<unsigned long long>((g >> 32) & 0xffff), static_cast<unsigned long long>((g >> 16) & 0xffff),
        static_cast<unsigned long long>(g & 0xffff));
    return buf;
}

std::string hex0x(std::uint64_t g)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(g));
    return buf;
}

// A stable PCI address per device number, so a device's kernel lines name the same function each time.
std::string pciOf(const std::string& device)
{
    static const unsigned buses[] = { 0x1a, 0x3b, 0x4c, 0x5d, 0x9a, 0xba, 0xcc, 0xdc };
    unsigned n = 0;
    for (char c : device) {
        n = c >= '0' && c <= '9' ? n * 10 + unsigned(c - '0') : 0;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "0000:%02x:00.0", buses[n % 8]);
    return buf;
}

// `ibstat` for every HCA of the host (layout of tests/data/node/gpu-b005.ibstat.txt, infiniband-diags).
std::string ibstatText(const std::vector<PortView>& ports)
{
    std::ostringstream o;
    for (const auto& p : ports) {
        o << "CA '" << p.device << "'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n"
          << "\tHardware version: 0\n\tNode GUID: " << hex0x(p.nodeGuid)
          << "\n\tSystem image GUID: " << hex0x(p.nodeGuid) << "\n\tPort " << p.port
          << ":\n\t\tState: " << (p.up ? "Active" : "Down") << "\n\t\tPhysical state: " << (p.up ? "LinkUp" : "Polling")
          << "\n\t\tRate: " << gbps(rateGbps(p)) << "\n\t\tBase lid: " << (p.up ? p.lid : 65535)
          << "\n\t\tLMC: 0\n\t\tSM lid: " << (p.up ? 1 : 0)
          << "\n\t\tCapability mask: 0xa651e848\n\t\tPort GUID: " << hex0x(portGuid(p.nodeGuid))
          << "\n\t\tLink layer: InfiniBand\n";
    }
    return o.str();
}

// `dmesg --time-format iso` stamp: "2026-11-03T04:05:06,123456+00:00", local time `offset` from UTC.
std::string isoStamp(TimeNs t, TimeNs offset)
{
    const auto tm = civil(t + offset);
    const auto offMin = offset / (60 * kNsPerSec);
    const auto absMin = offMin < 0 ? -offMin : offMin;
    char buf[96]; // room for any int fields snprintf may print, so it never truncates
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d,%06lld%c%02lld:%02lld", tm.tm_year + 1900,
        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
        static_cast<long long>(((t + offset) % kNsPerSec + kNsPerSec) % kNsPerSec / 1000), offMin < 0 ? '-' : '+',
        static_cast<long long>(absMin / 60), static_cast<long long>(absMin % 60));
    return buf;
}

// The kernel log: driver load lines before the job, then ib_core's port state changes of the faulted port in
// the mlx5 wording ("mlx5_core 0000:3b:00.0 mlx5_0: Port: 1 Link DOWN" / "... Link ACTIVE").
std::string dmesgText(const std::vector<PortView>& ports, TimeNs start, TimeNs offset)
{
    std::ostringstream o;
    const TimeNs boot = start - 600 * kNsPerSec; // the host came up ten minutes before the job
    o << isoStamp(boot, offset) << " Linux version 5.15.0-119-generic (buildd@lcy02-amd64-075) (gcc 11.4.0)\n"
      << isoStamp(boot + 9 * kNsPerSec, offset) << " mlx5_core " << pciOf(ports.empty() ? "" : ports[0].device)
      << ": firmware version: 28.39.1002\n"
      << isoStamp(boot + 14 * kNsPerSec, offset) << " NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15\n";
    std::vector<std::pair<TimeNs, std::string>> lines;
    for (const auto& p : ports) {
        for (const auto* e : p.events) {
            lines.emplace_back(e->timeNs,
                isoStamp(e->timeNs, offset) + " mlx5_core " + pciOf(p.device) + " " + p.device + ": Port: "
                    + std::to_string(p.port) + (e->state == LinkState::Down ? " Link DOWN\n" : " Link ACTIVE\n"));
        }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [t, line] : lines) {
        o << line;
    }
    return o.str();
}

// Epoch ns as a file time, for the copy's modification times.
fs::file_time_type collectedAt(TimeNs ns)
{
    using namespace std::chrono;
    return time_point_cast<fs::file_time_type::duration>(file_clock::from_sys(sys_time<nanoseconds>(nanoseconds(ns))));
}

// The sysfs files of one port and its device, in the kernel's wording ("4: ACTIVE", "5: LinkUp",
// "400 Gb/sec (4X NDR)").
std::string writeSysfs(const fs::path& root, const PortView& p, TimeNs collectedNs)
{
    // The register the collector sampled: its last reading, which the window's downs moved (the count of
    // downs alone where no collector sampled the port).
    std::uint64_t downs = 0;
    for (const auto* e : p.events) {
        downs += e->state == LinkState::Down ? 1 : 0;
    }
    downs = p.linkDowned.value_or(downs);
    const auto dev = root / p.device;
    const auto port = dev / "ports" / std::to_string(p.port);
    const std::string rate
        = gbps(rateGbps(p)) + " Gb/sec (" + std::to_string(p.up ? p.width : 4) + "X " + (p.up ? p.speed : "SDR") + ")";
    const std::pair<fs::path, std::string> files[]
        = { { dev / "node_guid", sysfsGuid(p.nodeGuid) }, { dev / "fw_ver", "28.39.1002" },
              { dev / "board_id", "MT_0000000838" }, { port / "state", p.up ? "4: ACTIVE" : "1: DOWN" },
              { port / "phys_state", p.up ? "5: LinkUp" : "2: Polling" }, { port / "rate", rate },
              { port / "link_layer", "InfiniBand" }, { port / "counters" / "link_downed", std::to_string(downs) },
              { port / "counters" / "link_error_recovery", std::to_string(p.errorRecoveries) },
              { port / "counters" / "symbol_error", std::to_string(p.symbolErrors) } };
    for (const auto& [path, text] : files) {
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        if (auto e = writeFileAtomic(path.string(), text + "\n"); !e.empty()) {
            return e;
        }
        // A copy is dated by its files' modification time (docs/formats.md §4): taken at the window's end.
        fs::last_write_time(path, collectedAt(collectedNs), ec);
    }
    return {};
}

} // namespace

std::string writeNodeFiles(
    const JobSnapshot& snap, const fs::path& dir, TimeNs local, const std::set<std::string>* only)
{
    const auto& t = snap.topology;
    // Link events by (node GUID, port); a port whose own end reported nothing takes its peer's (the switch side).
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::vector<const LinkEvent*>> events;
    // Events after the window's end happen after the files were collected.
    for (const auto& e : snap.linkEvents) {
        if (e.timeNs >= snap.job.span.end) {
            continue;
        }
        events[{ e.guid, e.port }].push_back(&e);
    }
    // Last error counter readings by (node, port): the sysfs copy is read once, at the end.
    std::map<std::pair<std::uint32_t, std::uint16_t>, std::pair<std::uint64_t, std::uint64_t>> errors;
    std::map<std::pair<std::uint32_t, std::uint16_t>, std::uint64_t> linkDowned;
    for (const auto& s : snap.counters) {
        const auto& cp = snap.counterPorts[s.port];
        if (!cp.node || s.size() == 0) {
            continue;
        }
        const std::pair key { index(*cp.node), cp.port };
        if (s.kind == CounterKind::LinkDowned) {
            linkDowned[key] = s.value(s.size() - 1);
        } else if (s.kind == CounterKind::SymbolError || s.kind == CounterKind::LinkErrorRecovery) {
            auto& v = errors[key];
            (s.kind == CounterKind::SymbolError ? v.first : v.second) = s.value(s.size() - 1);
        }
    }
    // HCA node indices per host; each host's files are built and written before the next host's.
    std::map<std::string, std::vector<std::uint32_t>> hosts;
    for (std::uint32_t n = 0; n < t.nodes().size(); ++n) {
        const std::string host(snap.str(t.nodes()[n].host));
        if (t.nodes()[n].kind == NodeKind::Hca && !host.empty() && (!only || only->count(host))) {
            hosts[host].push_back(n);
        }
    }
    for (const auto& [host, nodes] : hosts) {
        std::vector<PortView> ports;
        for (const auto n : nodes) {
            const auto& node = t.nodes()[n];
            for (std::uint16_t p = 1; p <= node.portCount; ++p) {
                const auto link = t.linkAt({ static_cast<NodeId>(n), p });
                if (!link) {
                    continue;
                }
                const auto& l = t.link(*link);
                PortView v;
                v.device = snap.str(node.hcaName);
                v.port = p;
                v.nodeGuid = node.guid;
                v.lid = lidOf(n);
                v.width = l.width;
                v.speed = snap.str(l.speed);
                const auto peer = index(l.a.node) == n && l.a.port == p ? l.b : l.a;
                auto it = events.find({ node.guid, p });
                if (it == events.end()) {
                    it = events.find({ t.node(peer.node).guid, peer.port });
                }
                if (it != events.end()) {
                    v.events = it->second;
                    v.up = v.events.back()->state != LinkState::Down;
                }
                if (auto e = errors.find({ n, p }); e != errors.end()) {
                    v.symbolErrors = e->second.first;
                    v.errorRecoveries = e->second.second;
                }
                if (auto d = linkDowned.find({ n, p }); d != linkDowned.end()) {
                    v.linkDowned = d->second;
                }
                ports.push_back(std::move(v));
            }
        }
        const auto hostDir = dir / "nodes" / host;
        std::error_code ec;
        fs::create_directories(hostDir, ec);
        if (ec) {
            return hostDir.string() + ": cannot create the folder: " + ec.message();
        }
        if (auto e = writeFileAtomic((hostDir / "ibstat.txt").string(), ibstatText(ports)); !e.empty()) {
            return e;
        }
        if (auto e = writeFileAtomic((hostDir / "dmesg.txt").string(), dmesgText(ports, snap.job.span.start, local));
            !e.empty()) {
            return e;
        }
        for (const auto& p : ports) {
            if (auto e = writeSysfs(hostDir / "sys" / "class" / "infiniband", p, snap.job.span.end); !e.empty()) {
                return e;
            }
        }
    }
    return {};
}

} // namespace stallscope::rawfiles
