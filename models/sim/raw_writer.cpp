// SPDX-License-Identifier: MIT
#include "sim/raw_writer.h"

#include "core/atomic_file.h"
#include "sim/pickle_writer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

std::tm civil(TimeNs t)
{
    const auto secs = static_cast<std::time_t>(t / kNsPerSec);
    std::tm tm {};
    gmtime_r(&secs, &tm);
    return tm;
}

// NCCL's WARN prefix "[2025-06-01 12:00:01] "
std::string ncclStamp(TimeNs t)
{
    const auto tm = civil(t);
    char buf[40];
    std::snprintf(buf, sizeof buf, "[%04d-%02d-%02d %02d:%02d:%02d] ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
        tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

// c10's "E0601 12:10:31.004117210"
std::string c10Stamp(char level, TimeNs t)
{
    const auto tm = civil(t);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%c%02d%02d %02d:%02d:%02d.%09lld", level, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
        tm.tm_min, tm.tm_sec, static_cast<long long>(t % kNsPerSec));
    return buf;
}

// OpenSM's "Jun 01 12:00:34 000000"
std::string opensmStamp(TimeNs t)
{
    static const char* months[]
        = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    const auto tm = civil(t);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s %02d %02d:%02d:%02d %06lld", months[tm.tm_mon], tm.tm_mday, tm.tm_hour,
        tm.tm_min, tm.tm_sec, static_cast<long long>((t % kNsPerSec) / 1000));
    return buf;
}

std::string profilingName(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "nccl:all_reduce";
    case CollectiveOp::AllGather:
        return "nccl:_all_gather_base";
    case CollectiveOp::ReduceScatter:
        return "nccl:_reduce_scatter_base";
    case CollectiveOp::Broadcast:
        return "nccl:broadcast";
    case CollectiveOp::AllToAll:
        return "nccl:all_to_all";
    case CollectiveOp::Barrier:
        return "nccl:barrier";
    case CollectiveOp::Reduce:
        return "nccl:reduce";
    default:
        return "nccl:coalesced";
    }
}

std::string opType(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "ALLREDUCE";
    case CollectiveOp::AllGather:
        return "_ALLGATHER_BASE";
    case CollectiveOp::ReduceScatter:
        return "_REDUCE_SCATTER_BASE";
    case CollectiveOp::Broadcast:
        return "BROADCAST";
    default:
        return "COALESCED";
    }
}

std::string rankList(const std::vector<std::uint32_t>& ranks)
{
    std::string s = "[";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    return s + "]";
}

// One Flight Recorder entry, as the dump states it (formats.md §1b): what FR cannot say (failed vs timed
// out) collapses into "started" + retired.
struct FrView
{
    const char* state;
    bool retired;
    TimeNs started, completed;
};

FrView frView(const RankCollectives& c, std::size_t i)
{
    switch (c.stateAt(i)) {
    case CollectiveState::Completed:
        return { "completed", true, c.startNs[i], c.endNs[i] };
    case CollectiveState::Failed:
    case CollectiveState::TimedOut:
        return { "started", true, c.startNs[i], kNoTime };
    case CollectiveState::Started:
        return { "started", false, c.startNs[i], kNoTime };
    default:
        return { "scheduled", false, kNoTime, kNoTime };
    }
}

std::string pickleDump(const JobSnapshot& snap, std::uint32_t rank, std::size_t from, const std::string& threadId)
{
    const auto& c = snap.collectives[rank];
    PickleWriter w;
    w.beginDict();
    w.str("version");
    w.str("2.10");
    w.str("comm_lib_version");
    w.str("2.21.5");
    w.str("pg_config");
    w.beginDict();
    for (const auto& g : snap.groups) {
        w.str(snap.str(g.name));
        w.beginDict();
        w.str("name");
        w.str(snap.str(g.name));
        w.str("desc");
        w.str(snap.str(g.desc));
        w.str("ranks");
        w.str(rankList(g.ranks));
        w.endDict();
    }
    w.endDict();
    w.str("entries");
    w.beginList();
    for (std::size_t i = from; i < c.size(); ++i) {
        const auto& shape = snap.shapes[c.shape[i]];
        const auto& pg = snap.groups[shape.group];
        const auto v = frView(c, i);
        w.beginDict();
        w.str("record_id");
        w.integer(static_cast<std::int64_t>(i));
        w.str("pg_id");
        w.integer(shape.group);
        w.str("process_group");
        w.tuple2(snap.str(pg.name), snap.str(pg.desc));
        w.str("thread_id");
        w.str(threadId);
        w.str("thread_name");
        w.str("pt_main_thread");
        w.str("collective_seq_id");
        w.integer(c.seq[i]);
        w.str("p2p_seq_id");
        w.integer(0);
        w.str("op_id");
        w.integer(c.seq[i]);
        w.str("profiling_name");
        w.str(profilingName(shape.op));
        w.str("time_created_ns");
        w.integer(c.enqueueNs[i]);
        for (const char* key : { "input_sizes", "output_sizes" }) {
            w.str(key);
            w.beginList();
            w.beginList();
            w.integer(static_cast<std::int64_t>(shape.bytes / 2));
            w.endList();
            w.endList();
        }
        for (const char* key : { "input_dtypes", "output_dtypes" }) {
            w.str(key);
            w.beginList();
            w.str("BFloat16");
            w.endList();
        }
        w.str("state");
        w.str(v.state);
        w.str("time_discovered_started_ns");
        v.started == kNoTime ? w.none() : w.integer(v.started);
        w.str("time_discovered_completed_ns");
        v.completed == kNoTime ? w.none() : w.integer(v.completed);
        if (v.completed != kNoTime && v.started != kNoTime) {
            w.str("duration_ms");
            w.real(double(v.completed - v.started) / 1e6);
        }
        w.str("retired");
        w.boolean(v.retired);
        w.str("timeout_ms");
        w.integer(600000);
        w.str("is_p2p");
        w.boolean(false);
        w.endDict();
    }
    w.endList();
    w.endDict();
    return w.finish();
}

std::string jsonDump(const JobSnapshot& snap, std::uint32_t rank, std::size_t from, const std::string& threadId)
{
    using nlohmann::json;
    const auto& c = snap.collectives[rank];
    json pgs = json::object();
    for (const auto& g : snap.groups) {
        pgs[std::string(snap.str(g.name))]
            = { { "name", snap.str(g.name) }, { "desc", snap.str(g.desc) }, { "ranks", rankList(g.ranks) } };
    }
    json entries = json::array();
    for (std::size_t i = from; i < c.size(); ++i) {
        const auto& shape = snap.shapes[c.shape[i]];
        const auto& pg = snap.groups[shape.group];
        const auto v = frView(c, i);
        const auto elems = static_cast<std::int64_t>(shape.bytes / 2);
        json e = { { "record_id", i }, { "pg_id", shape.group },
            { "process_group", { snap.str(pg.name), snap.str(pg.desc) } }, { "thread_id", threadId },
            { "thread_name", "pt_main_thread" }, { "collective_seq_id", c.seq[i] }, { "p2p_seq_id", 0 },
            { "op_id", c.seq[i] }, { "profiling_name", profilingName(shape.op) }, { "time_created_ns", c.enqueueNs[i] },
            { "input_sizes", { { elems } } }, { "input_dtypes", { "BFloat16" } }, { "output_sizes", { { elems } } },
            { "output_dtypes", { "BFloat16" } }, { "state", v.state },
            { "time_discovered_started_ns", v.started == kNoTime ? 0 : v.started },
            { "time_discovered_completed_ns", v.completed == kNoTime ? 0 : v.completed }, { "retired", v.retired },
            { "timeout_ms", 600000 }, { "is_p2p", false } };
        entries.push_back(std::move(e));
    }
    return json {
        { "version", "2.10" }, { "comm_lib_version", "2.21.5" }, { "pg_config", pgs }, { "entries", entries }
    }.dump();
}

const char* kernelName(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case CollectiveOp::AllGather:
        return "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case CollectiveOp::ReduceScatter:
        return "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case CollectiveOp::Broadcast:
        return "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    default:
        return "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)";
    }
}

const char* collectiveName(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "allreduce";
    case CollectiveOp::AllGather:
        return "_allgather_base";
    case CollectiveOp::ReduceScatter:
        return "_reduce_scatter_base";
    case CollectiveOp::Broadcast:
        return "broadcast";
    default:
        return "allreduce_coalesced";
    }
}

// µs with ns precision ("%.3f"), as Kineto writes ts and dur.
std::string micros(TimeNs ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return buf;
}

// A Kineto Chrome trace (formats.md §3b): the completed collectives as kernels on the PG's NCCL stream, each
// linked by External id to its CPU record_param_comms op; ts relative to the 3-month-floored base.
std::string kinetoTrace(const JobSnapshot& snap, std::uint32_t r, TimeNs skew)
{
    const auto& c = snap.collectives[r];
    const auto& ri = snap.ranks[r];
    const TimeNs bucket = 7'889'238LL * kNsPerSec;
    const TimeNs base = (snap.job.span.start / bucket) * bucket;
    const auto pid = std::to_string(40000 + r);
    const auto dev = std::to_string(ri.localGpu);
    std::string o;
    o.reserve(c.size() * 900 + 4096);
    o += "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": " + dev
        + ", \"name\": \"NVIDIA H100 80GB HBM3\"}],\n \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": "
        + std::to_string(r) + ", \"world_size\": " + std::to_string(snap.ranks.size())
        + ", \"nccl_version\": \"2.21.5\"},\n \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": "
        + std::to_string(base) + ",\n \"traceEvents\": [\n";
    o += "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + dev
        + ", \"tid\": 41, \"args\": {\"name\": \"stream 41\"}}";
    std::int64_t external = 90000;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (c.stateAt(i) != CollectiveState::Completed || c.startNs[i] == kNoTime || c.endNs[i] == kNoTime) {
            continue;
        }
        const auto& shape = snap.shapes[c.shape[i]];
        const auto& pg = snap.groups[shape.group];
        const auto ext = std::to_string(++external);
        const auto nelems = std::to_string(shape.bytes / 2);
        const std::string common = "\"Collective name\": \"" + std::string(collectiveName(shape.op))
            + "\", \"dtype\": \"BFloat16\", \"In msg nelems\": " + nelems + ", \"Out msg nelems\": " + nelems
            + ", \"Group size\": " + std::to_string(pg.ranks.size()) + ", \"Process Group Name\": \""
            + std::string(snap.str(pg.name)) + "\", \"Process Group Description\": \"" + std::string(snap.str(pg.desc))
            + "\", \"Process Group Ranks\": \"" + rankList(pg.ranks) + "\", \"Seq\": " + std::to_string(c.seq[i]);
        o += ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": " + pid
            + ", \"tid\": " + pid + ", \"ts\": " + micros(c.enqueueNs[i] + skew - base)
            + ", \"dur\": 18.402, \"args\": {" + "\"External id\": " + ext + ", " + common
            + ", \"Rank\": " + std::to_string(r) + "}}";
        o += ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + std::string(kernelName(shape.op))
            + "\", \"pid\": " + dev + ", \"tid\": 41, \"ts\": " + micros(c.startNs[i] + skew - base)
            + ", \"dur\": " + micros(c.endNs[i] - c.startNs[i]) + ", \"args\": {\"External id\": " + ext
            + ", \"device\": " + dev + ", \"stream\": 41, \"correlation\": " + std::to_string(external * 3)
            + ", \"grid\": [32, 1, 1], \"block\": [640, 1, 1], " + common + "}}";
    }
    o += "\n ],\n \"traceName\": \"" + std::string(snap.str(ri.host)) + "_" + pid + ".pt.trace.json\"}\n";
    return o;
}

std::string rankLog(
    const JobSnapshot& snap, std::uint32_t r, const std::vector<const LinkEvent*>& ownEvents, TimeNs local)
{
    const auto& ri = snap.ranks[r];
    const std::string host(snap.str(ri.host));
    const auto pid = std::to_string(40000 + r);
    const auto gpu = std::to_string(ri.localGpu);
    const std::string pre = "[default" + gpu + "]:";
    const std::string who = host + ":" + pid + ":" + pid + " [" + gpu + "] ";
    // Every HCA of the host, in index order (rail-optimized: HCA i serves GPU i).
    std::map<std::uint16_t, std::string> hcas;
    for (std::uint32_t q = 0; q < snap.ranks.size(); ++q) {
        if (snap.ranks[q].host == ri.host) {
            hcas[snap.ranks[q].localGpu] = std::string(snap.str(snap.ranks[q].hca));
        }
    }
    std::ostringstream o;
    o << pre << who << "NCCL INFO Bootstrap : Using eth0:10.0." << (r / 256) << '.' << (r % 256) << "<0>\n";
    o << pre << who << "NCCL INFO NET/IB : Using";
    for (const auto& [i, name] : hcas) {
        o << " [" << i << ']' << name << ":1/IB";
    }
    o << " [RO]; OOB eth0:10.0." << (r / 256) << '.' << (r % 256) << "<0>\n";
    o << pre << who << "NCCL INFO comm 0x55d0" << r << " rank " << r << " nranks " << snap.ranks.size() << " cudaDev "
      << gpu << " nvmlDev " << gpu << " busId 3d000 commId 0x2114bc51af4fb978 - Init COMPLETE\n";
    const std::string hca(snap.str(ri.hca));
    const std::string async = host + ":" + pid + ":" + std::to_string(40000 + r + 77) + " [" + gpu + "] ";
    std::vector<std::pair<TimeNs, std::string>> lines;
    for (const auto* e : ownEvents) {
        lines.emplace_back(e->timeNs,
            pre + ncclStamp(e->timeNs + local) + async + "transport/net_ib.cc:1032 NCCL WARN NET/IB : " + hca
                + ":1 Got async error event: " + (e->state == LinkState::Down ? "port error" : "port active"));
    }
    const auto& c = snap.collectives[r];
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto& shape = snap.shapes[c.shape[i]];
        if (c.stateAt(i) == CollectiveState::Failed && c.endNs[i] != kNoTime) {
            lines.emplace_back(c.endNs[i],
                pre + ncclStamp(c.endNs[i] + local) + who
                    + "transport/net_ib.cc:1712 NCCL WARN NET/IB: Got completion from peer 10.0.1.12<48133> with "
                      "status=12 opcode=0 len=0 vendor err 129 (Recv) hca "
                    + hca);
        }
        if (c.stateAt(i) == CollectiveState::TimedOut && c.endNs[i] != kNoTime) {
            const auto ranFor = (c.endNs[i] - c.enqueueNs[i]) / 1'000'000;
            lines.emplace_back(c.endNs[i],
                pre + "[rank" + std::to_string(r) + "]:[" + c10Stamp('E', c.endNs[i] + local) + " " + pid
                    + " ProcessGroupNCCL.cpp:757] [Rank " + std::to_string(r)
                    + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(c.seq[i])
                    + ", OpType=" + opType(shape.op) + ", NumelIn=" + std::to_string(shape.bytes / 2)
                    + ", NumelOut=" + std::to_string(shape.bytes / 2) + ", Timeout(ms)=600000) ran for "
                    + std::to_string(ranFor) + " milliseconds before timing out.");
        }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [t, line] : lines) {
        o << line << '\n';
    }
    return o.str();
}

// An HCA's port GUID: distinct from every node GUID (real HCAs differ by a small offset; the simulator's
// HCA node GUIDs are consecutive, so a bit they never use is flipped instead).
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

// `ibnetdiscover` plain output (formats.md §5a): switches, then CAs.
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
                    o << "\t\t# \"" << snap.str(remote.description) << "\" lid " << lidOf(rn) << " 4xNDR\n";
                } else {
                    o << '[' << p << "](" << own << ") \t\"S-" << guidHex(remote.guid) << "\"[" << it->second.port
                      << "]\t\t# lid " << lidOf(n) << " lmc 0 \"" << snap.str(remote.description) << "\" lid "
                      << lidOf(rn) << " 4xNDR\n";
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

const char* treydockName(CounterKind k)
{
    switch (k) {
    case CounterKind::LinkDowned:
        return "link_downed";
    case CounterKind::LinkErrorRecovery:
        return "link_error_recovery";
    case CounterKind::SymbolError:
        return "symbol_error";
    case CounterKind::PortRcvErrors:
        return "receive_errors";
    case CounterKind::PortXmitDiscards:
        return "transmit_discards";
    case CounterKind::PortXmitWait:
        return "transmit_wait";
    case CounterKind::PortXmitData:
        return "transmit_data_bytes";
    case CounterKind::PortRcvData:
        return "receive_data_bytes";
    case CounterKind::PortXmitPackets:
        return "transmit_packets";
    case CounterKind::PortRcvPackets:
        return "receive_packets";
    }
    return "unknown";
}

// HCA ports → collector CSVs per host; switch ports → one treydock exposition file.
std::string writeCounters(const JobSnapshot& snap, const fs::path& dir)
{
    const auto& t = snap.topology;
    // Host side: rows keyed by (host, device, port, time).
    std::map<std::string,
        std::map<std::tuple<std::string, std::uint16_t, TimeNs>, std::map<CounterKind, std::uint64_t>>>
        rows;
    std::set<CounterKind> kinds;
    std::ostringstream prom;
    prom << "# HELP infiniband_switch_port_link_downed_total Number of times the link failed to recover\n"
            "# TYPE infiniband_switch_port_link_downed_total counter\n";
    for (std::uint32_t n = 0; n < t.nodes().size(); ++n) {
        const auto& node = t.nodes()[n];
        if (node.kind == NodeKind::Switch) {
            prom << "infiniband_switch_info{guid=\"0x" << guidHex(node.guid) << "\",lid=\"" << lidOf(n)
                 << "\",switch=\"" << snap.str(node.description) << "\"} 1\n";
        }
    }
    for (const auto& s : snap.counters) {
        const auto& cp = snap.counterPorts[s.port];
        if (!cp.node) {
            continue;
        }
        const auto& node = t.node(*cp.node);
        if (node.kind == NodeKind::Hca) {
            kinds.insert(s.kind);
            auto& byHost = rows[std::string(snap.str(node.host))];
            for (std::size_t i = 0; i < s.size(); ++i) {
                byHost[{ std::string(snap.str(node.hcaName)), cp.port, s.timesNs[i] }][s.kind] = s.value(i);
            }
            continue;
        }
        const std::string name = std::string("infiniband_switch_port_") + treydockName(s.kind) + "_total";
        const auto mult = semantics(s.kind).unitBytes == 4 ? 4 : 1;
        for (std::size_t i = 0; i < s.size(); ++i) {
            prom << name << "{guid=\"0x" << guidHex(node.guid) << "\",port=\"" << cp.port << "\"} " << s.value(i) * mult
                 << ' ' << s.timesNs[i] / 1'000'000 << '\n';
        }
    }
    if (auto e = writeFileAtomic((dir / "switch-counters.prom").string(), prom.str()); !e.empty()) {
        return e;
    }
    for (const auto& [host, byKey] : rows) {
        std::ostringstream csv;
        csv << "t_ns,host,device,port,state";
        for (auto k : kinds) {
            csv << ',' << semantics(k).name;
        }
        csv << '\n';
        for (const auto& [key, values] : byKey) {
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
        if (auto e = writeFileAtomic((dir / ("counters-" + host + ".csv")).string(), csv.str()); !e.empty()) {
            return e;
        }
    }
    return {};
}

std::string opensmLog(const JobSnapshot& snap, TimeNs local)
{
    const auto& t = snap.topology;
    std::ostringstream o;
    const TimeNs start = snap.job.span.start;
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
        if (fn.kind == NodeKind::Switch) {
            o << opensmStamp(e.timeNs + local)
              << " [7FFFE700] 0x01 -> log_trap_info: Received Generic Notice type:1 num:128 "
              << "(Link state change) Producer:2 (Switch) from LID:" << lid << " TID:0x0000000000000000\n"
              << opensmStamp(e.timeNs + local)
              << " [7FFFE700] 0x02 -> log_notice: Reporting Urgent Notice \"Link state "
              << "change\" from switch LID " << lid << ", GUID 0x" << guidHex(fn.guid) << '\n';
            continue;
        }
        if (e.state == LinkState::Down) {
            o << opensmStamp(e.timeNs + local) << " [7FFFF700] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x"
              << guidHex(portGuid(fn.guid)) << " LID range [" << lid << ", " << lid
              << "] of node:" << snap.str(fn.description) << '\n';
        } else {
            o << opensmStamp(e.timeNs + local)
              << " [7FFFF700] 0x02 -> state_mgr_report_new_ports: Discovered new port with "
              << "GUID:0x" << guidHex(portGuid(fn.guid)) << " LID range [" << lid << "," << lid
              << "] of node: " << snap.str(fn.description) << '\n';
        }
        o << opensmStamp(e.timeNs + 50'000'000 + local) << " [7FFFF700] 0x02 -> SUBNET UP\n";
    }
    return o.str();
}

} // namespace

std::string writeRawFolder(const JobSnapshot& snap, const std::string& dirName, const RawWriteOptions& options)
{
    const fs::path dir(dirName);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        return dirName + ": cannot create the folder: " + ec.message();
    }
    // HCA port events of each rank's own HCA (the subnet manager's view stands in for the async event).
    std::map<std::uint64_t, std::vector<const LinkEvent*>> eventsByGuid;
    for (const auto& e : snap.linkEvents) {
        eventsByGuid[e.guid].push_back(&e);
    }
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto& c = snap.collectives[r];
        const std::size_t from
            = options.frEntries == 0 || c.size() <= options.frEntries ? 0 : c.size() - options.frEntries;
        const auto thread = std::to_string(140213377414976ULL + r);
        if (options.flightRecorder) {
            const auto dump = options.pickle ? pickleDump(snap, r, from, thread) : jsonDump(snap, r, from, thread);
            if (auto e = writeFileAtomic((dir / ("nccl_trace_rank_" + std::to_string(r))).string(), dump); !e.empty()) {
                return e;
            }
        }
        if (options.kineto) {
            const auto name = std::string(snap.str(snap.ranks[r].host)) + "_" + std::to_string(40000 + r) + "."
                + std::to_string(snap.job.span.start) + ".pt.trace.json";
            if (auto e = writeFileAtomic((dir / name).string(), kinetoTrace(snap, r, options.profilerSkewNs));
                !e.empty()) {
                return e;
            }
        }
        std::vector<const LinkEvent*> own;
        if (const auto node = snap.ranks[r].hcaNode) {
            if (auto it = eventsByGuid.find(snap.topology.node(*node).guid); it != eventsByGuid.end()) {
                own = it->second;
            }
        }
        if (auto e = writeFileAtomic(
                (dir / ("rank" + std::to_string(r) + ".log")).string(), rankLog(snap, r, own, options.logUtcOffsetNs));
            !e.empty()) {
            return e;
        }
    }
    for (const auto& [name, text] :
        { std::pair<std::string, std::string> { "ibnetdiscover.txt", ibnetdiscoverText(snap) },
            { "fabric.net", ibsimNet(snap) }, { "opensm.log", opensmLog(snap, options.logUtcOffsetNs) } }) {
        if (auto e = writeFileAtomic((dir / name).string(), text); !e.empty()) {
            return e;
        }
    }
    return writeCounters(snap, dir);
}

} // namespace stallscope
