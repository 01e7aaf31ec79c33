// SPDX-License-Identifier: MIT
// The raw writer's rank-side files: Flight Recorder dumps (pickle, JSON), profiler traces, rank logs; and the
// log time stamps the fabric side shares.
#include "sim/raw_files.h"

#include "sim/pickle_writer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace stallscope::rawfiles {

namespace fs = std::filesystem;

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

// One Flight Recorder entry, as the dump states it (docs/formats.md §1b): what FR cannot say (failed vs timed
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

// A Kineto Chrome trace (docs/formats.md §3b): the completed collectives as kernels on the PG's NCCL stream, each
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
                    + ", NumelOut=" + std::to_string(shape.bytes / 2) + ", Timeout(ms)="
                    + std::to_string(snap.policy.collectiveTimeoutNs / 1'000'000) + ") ran for "
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

} // namespace stallscope::rawfiles
