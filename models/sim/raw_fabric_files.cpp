// SPDX-License-Identifier: MIT
// The raw writer's fabric-side files: ibnetdiscover, the ibsim net file, counters (switch exposition and the
// collector's CSV), the OpenSM log.
#include "sim/raw_files.h"

#include "core/atomic_file.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace stallscope::rawfiles {

namespace fs = std::filesystem;

std::uint64_t portGuid(std::uint64_t nodeGuid)
{
    return nodeGuid ^ (1ULL << 36);
}

std::string guidHex(std::uint64_t g)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(g));
    return buf;
}

// The peer of each port: (node, port) → (node, port).
std::map<std::pair<std::uint32_t, std::uint16_t>, PortRef> peers(const Topology& t)
{
    std::map<std::pair<std::uint32_t, std::uint16_t>, PortRef> out;
    for (const auto& l : t.links()) {
        out[{ index(l.a.node), l.a.port }] = l.b;
        out[{ index(l.b.node), l.b.port }] = l.a;
    }
    return out;
}

std::uint32_t lidOf(std::uint32_t node)
{
    return node + 1;
}

// `ibnetdiscover` plain output (docs/formats.md §5a): switches, then CAs.
std::string ibnetdiscoverText(const JobSnapshot& snap)
{
    const auto& t = snap.topology;
    const auto peer = peers(t);
    std::ostringstream o;
    o << "#\n# Topology file: generated on "
      << "Sun Jun  1 12:15:03 2025"
      << "\n#\n# Initiated from node " << guidHex(t.nodes().empty() ? 0 : t.nodes()[0].guid) << " port "
      << guidHex(t.nodes()[0].guid) << "\n\n";
    for (int pass = 0; pass < 2; ++pass) {
        for (std::uint32_t n = 0; n < t.nodes().size(); ++n) {
            const auto& node = t.nodes()[n];
            const bool sw = node.kind == NodeKind::Switch;
            if (sw != (pass == 0)) {
                continue;
            }
            const auto g = guidHex(node.guid);
            char unpadded[24];
            std::snprintf(unpadded, sizeof unpadded, "%llx", static_cast<unsigned long long>(node.guid));
            o << "vendid=0x2c9\ndevid=" << (sw ? "0xd2f2" : "0x1021") << "\nsysimgguid=0x" << unpadded << '\n'
              << (sw ? "switchguid=0x" : "caguid=0x") << unpadded;
            if (sw) {
                o << '(' << unpadded << ')';
            }
            o << '\n';
            o << (sw ? "Switch\t" : "Ca\t") << node.portCount << " \"" << (sw ? "S-" : "H-") << g << "\"\t\t# \""
              << snap.str(node.description) << "\""
              << (sw ? " enhanced port 0 lid " + std::to_string(lidOf(n)) + " lmc 0" : "") << '\n';
            for (std::uint16_t p = 1; p <= node.portCount; ++p) {
                auto it = peer.find({ n, p });
                if (it == peer.end()) {
                    continue;
                }
                const auto rn = index(it->second.node);
                const auto& link = t.link(*t.linkAt({ static_cast<NodeId>(n), p }));
                const std::string rate = std::to_string(link.width) + "x" + snap.str(link.speed);
                const auto& remote = t.nodes()[rn];
                const bool rsw = remote.kind == NodeKind::Switch;
                char rguid[24];
                std::snprintf(rguid, sizeof rguid, "%llx", static_cast<unsigned long long>(portGuid(remote.guid)));
                char own[24];
                std::snprintf(own, sizeof own, "%llx", static_cast<unsigned long long>(portGuid(node.guid)));
                if (sw) {
                    o << '[' << p << "]\t\"" << (rsw ? "S-" : "H-") << guidHex(remote.guid) << "\"[" << it->second.port
                      << ']';
                    if (!rsw) {
                        o << '(' << rguid << ") ";
                    }
                    o << "\t\t# \"" << snap.str(remote.description) << "\" lid " << lidOf(rn) << " " << rate << "\n";
                } else {
                    o << '[' << p << "](" << own << ") \t\"S-" << guidHex(remote.guid) << "\"[" << it->second.port
                      << "]\t\t# lid " << lidOf(n) << " lmc 0 \"" << snap.str(remote.description) << "\" lid "
                      << lidOf(rn) << " " << rate << "\n";
                }
            }
            o << '\n';
        }
    }
    return o.str();
}

// ibsim's net file: node ids are the descriptions, so the simulated fabric names nodes as the job does.
std::string ibsimNet(const JobSnapshot& snap)
{
    const auto& t = snap.topology;
    const auto peer = peers(t);
    std::ostringstream o;
    for (int pass = 0; pass < 2; ++pass) {
        for (std::uint32_t n = 0; n < t.nodes().size(); ++n) {
            const auto& node = t.nodes()[n];
            if ((node.kind == NodeKind::Switch) != (pass == 0)) {
                continue;
            }
            o << (node.kind == NodeKind::Switch ? "Switch\t" : "Hca\t") << node.portCount << " \""
              << snap.str(node.description) << "\"\n";
            for (std::uint16_t p = 1; p <= node.portCount; ++p) {
                if (auto it = peer.find({ n, p }); it != peer.end()) {
                    o << '[' << p << "]\t\"" << snap.str(t.node(it->second.node).description) << "\"["
                      << it->second.port << "]\n";
                }
            }
            o << '\n';
        }
    }
    return o.str();
}

namespace {

// The switch ports' counters as treydock/infiniband_exporter exposes them, streamed to the file: a large fabric's
// are gigabytes.
std::string writeSwitchExposition(const JobSnapshot& snap, const fs::path& path)
{
    const auto& t = snap.topology;
    return writeFileAtomicWith(path.string(), [&](std::FILE* f) -> std::string {
        std::string line;
        const auto put = [&] { return std::fwrite(line.data(), 1, line.size(), f) == line.size(); };
        line = "# HELP infiniband_switch_port_link_downed_total Number of times the link failed to recover\n"
               "# TYPE infiniband_switch_port_link_downed_total counter\n";
        bool ok = put();
        for (std::uint32_t n = 0; ok && n < t.nodes().size(); ++n) {
            const auto& node = t.nodes()[n];
            if (node.kind == NodeKind::Switch) {
                line = "infiniband_switch_info{guid=\"0x" + guidHex(node.guid) + "\",lid=\"" + std::to_string(lidOf(n))
                    + "\",switch=\"" + std::string(snap.str(node.description)) + "\"} 1\n";
                ok = put();
            }
        }
        for (const auto& s : snap.counters) {
            const auto& cp = snap.counterPorts[s.port];
            if (!ok || !cp.node || t.node(*cp.node).kind == NodeKind::Hca) {
                continue;
            }
            const auto& node = t.node(*cp.node);
            const std::string head = "infiniband_switch_port_" + std::string(semantics(s.kind).treydock)
                + "_total{guid=\"0x" + guidHex(node.guid) + "\",port=\"" + std::to_string(cp.port) + "\"} ";
            const auto mult = semantics(s.kind).unitBytes == 4 ? 4 : 1;
            for (std::size_t i = 0; ok && i < s.size(); ++i) {
                line = head + std::to_string(s.value(i) * mult) + ' ' + std::to_string(s.timesNs[i] / 1'000'000) + '\n';
                ok = put();
            }
        }
        return ok ? std::string() : errnoText();
    });
}

// One host's HCA ports in the CSV of `stallscope collect`: a row per (device, port, sample time), a column per kind.
std::string hostCsv(const JobSnapshot& snap, const std::string& host, const std::vector<std::size_t>& series,
    const std::set<CounterKind>& kinds)
{
    const auto& t = snap.topology;
    std::map<std::tuple<std::string, std::uint16_t, TimeNs>, std::map<CounterKind, std::uint64_t>> rows;
    for (const auto i : series) {
        const auto& s = snap.counters[i];
        const auto& cp = snap.counterPorts[s.port];
        const std::string device(snap.str(t.node(*cp.node).hcaName));
        for (std::size_t k = 0; k < s.size(); ++k) {
            rows[{ device, cp.port, s.timesNs[k] }][s.kind] = s.value(k);
        }
    }
    std::ostringstream csv;
    csv << "t_ns,host,device,port,state";
    for (auto k : kinds) {
        csv << ',' << semantics(k).name;
    }
    csv << '\n';
    for (const auto& [key, values] : rows) {
        const auto& [device, port, time] = key;
        csv << time << ',' << host << ',' << device << ',' << port << ",4: ACTIVE";
        for (auto k : kinds) {
            csv << ',';
            if (auto it = values.find(k); it != values.end()) {
                csv << it->second;
            }
        }
        csv << '\n';
    }
    return csv.str();
}

} // namespace

// HCA ports → collector CSVs per host, built and written one host at a time; switch ports → one treydock exposition
// file, streamed.
std::string writeCounters(
    const JobSnapshot& snap, const fs::path& dir, const std::set<std::string>* hosts, bool switches)
{
    const auto& t = snap.topology;
    std::map<std::string, std::vector<std::size_t>> seriesOf; // host → its HCA ports' series
    std::set<CounterKind> kinds; // every host's columns: the kinds any HCA port has
    for (std::size_t i = 0; i < snap.counters.size(); ++i) {
        const auto& cp = snap.counterPorts[snap.counters[i].port];
        if (!cp.node || t.node(*cp.node).kind != NodeKind::Hca) {
            continue;
        }
        kinds.insert(snap.counters[i].kind);
        std::string host(snap.str(t.node(*cp.node).host));
        if (!hosts || hosts->count(host)) {
            seriesOf[std::move(host)].push_back(i);
        }
    }
    if (switches) {
        if (auto e = writeSwitchExposition(snap, dir / "switch-counters.prom"); !e.empty()) {
            return e;
        }
    }
    for (const auto& [host, series] : seriesOf) {
        if (auto e
            = writeFileAtomic((dir / ("counters-" + host + ".csv")).string(), hostCsv(snap, host, series, kinds));
            !e.empty()) {
            return e;
        }
    }
    return {};
}

std::string opensmLog(const JobSnapshot& snap, TimeNs local)
{
    const auto& t = snap.topology;
    std::vector<std::pair<TimeNs, std::string>> lines; // merged by time: traps, port changes, sweeps
    const TimeNs start = snap.job.span.start;
    std::ostringstream o;
    o << opensmStamp(start + local) << " [7FFFF700] 0x03 -> OpenSM 3.3.23\n"
      << opensmStamp(start + local) << " [7FFFF700] 0x80 -> Entering MASTER state\n"
      << opensmStamp(start + local) << " [7FFFF700] 0x02 -> SUBNET UP\n";
    for (const auto& e : snap.linkEvents) {
        const auto node = t.findNodeByGuid(e.guid);
        if (!node) {
            continue;
        }
        const auto& fn = t.node(*node);
        const auto lid = lidOf(index(*node));
        std::ostringstream l;
        if (fn.kind == NodeKind::Switch) {
            l << opensmStamp(e.timeNs + local)
              << " [7FFFE700] 0x01 -> log_trap_info: Received Generic Notice type:1 num:128 "
              << "(Link state change) Producer:2 (Switch) from LID:" << lid << " TID:0x0000000000000000\n"
              << opensmStamp(e.timeNs + local)
              << " [7FFFE700] 0x02 -> log_notice: Reporting Urgent Notice \"Link state "
              << "change\" from switch LID " << lid << ", GUID 0x" << guidHex(fn.guid) << '\n';
        } else if (e.state == LinkState::Down) {
            l << opensmStamp(e.timeNs + local) << " [7FFFF700] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x"
              << guidHex(portGuid(fn.guid)) << " LID range [" << lid << ", " << lid
              << "] of node:" << snap.str(fn.description) << '\n';
        } else {
            l << opensmStamp(e.timeNs + local)
              << " [7FFFF700] 0x02 -> state_mgr_report_new_ports: Discovered new port with "
              << "GUID:0x" << guidHex(portGuid(fn.guid)) << " LID range [" << lid << "," << lid
              << "] of node: " << snap.str(fn.description) << '\n';
        }
        lines.emplace_back(e.timeNs, l.str());
    }
    // A sweep's end as OpenSM 3.3 logs it (tests/data/ibsim/opensm.log): the routing engine's line, then SUBNET UP.
    for (const auto& r : snap.routeUpdates) {
        lines.emplace_back(r.timeNs,
            opensmStamp(r.timeNs + local) + " [7FFFD700] 0x02 -> osm_ucast_mgr_process: minhop tables configured on "
                + "all switches\n" + opensmStamp(r.timeNs + local) + " [7FFFD700] 0x02 -> SUBNET UP\n");
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [time, text] : lines) {
        o << text;
    }
    return o.str();
}

} // namespace stallscope::rawfiles
