// SPDX-License-Identifier: MIT
// A folder of raw files opens as it is: recognised by content, joined by rank, host and HCA.
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::string dump(int rank, long long t0, bool stuck)
{
    auto entry = [&](int seq, long long created, long long started, long long completed, const char* state) {
        return "{\"pg_id\": 0, \"process_group\": [\"0\", \"default_pg\"], \"collective_seq_id\": "
            + std::to_string(seq) + ", \"profiling_name\": \"nccl:all_reduce\", \"time_created_ns\": "
            + std::to_string(created) + ", \"input_sizes\": [[1048576]], \"input_dtypes\": [\"Float\"], \"state\": \""
            + state + "\", \"time_discovered_started_ns\": " + std::to_string(started)
            + ", \"time_discovered_completed_ns\": " + std::to_string(completed)
            + ", \"retired\": true, \"is_p2p\": false}";
    };
    std::string entries;
    for (int s = 1; s <= 3; ++s) {
        const long long c = t0 + s * 1'000'000'000LL + rank * 1000;
        entries += entry(s, c, c + 10'000, c + 5'000'000, "completed") + ",";
    }
    const long long c = t0 + 4'000'000'000LL;
    entries += stuck ? entry(4, c, c + 10'000, 0, "started") : entry(4, c, c + 10'000, c + 5'000'000, "completed");
    return "{\"version\": \"2.10\", \"pg_config\": {\"0\": {\"name\": \"0\", \"desc\": \"default_pg\", \"ranks\": "
           "\"[0, 1]\"}}, "
           "\"entries\": ["
        + entries + "]}";
}

} // namespace

TEST_CASE("a folder of raw files opens without a manifest or mapping file", "[core][import]")
{
    TempDir tmp;
    const auto dir = tmp.path() / "incident";
    std::filesystem::create_directories(dir);
    const long long t0 = 1'748'779'200'000'000'000LL; // 2025-06-01 12:00:00 UTC
    writeFile(dir / "nccl_trace_rank_0", dump(0, t0, false));
    writeFile(dir / "nccl_trace_rank_1", dump(1, t0, false));
    writeFile(dir / "rank0.log", "[default0]:hostA:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n");
    writeFile(dir / "rank1.log", "[default1]:hostB:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n");
    writeFile(dir / "fabric.txt",
        "# Topology file: generated on Sun Jun  1 12:15:03 2025\n"
        "Switch\t8 \"S-fc6a1c0300e4f000\"\t\t# \"leaf-1\" enhanced port 0 lid 17 lmc 0\n"
        "[1]\t\"H-0c42a10300000001\"[1](c42a10300000001) \t\t# \"hostA mlx5_0\" lid 3 4xNDR\n"
        "[2]\t\"H-0c42a10300000002\"[1](c42a10300000002) \t\t# \"hostB mlx5_0\" lid 4 4xNDR\n"
        "Ca\t1 \"H-0c42a10300000001\"\t\t# \"hostA mlx5_0\"\n"
        "[1](c42a10300000001) \t\"S-fc6a1c0300e4f000\"[1]\t\t# lid 3 lmc 0 \"leaf-1\" lid 17 4xNDR\n"
        "Ca\t1 \"H-0c42a10300000002\"\t\t# \"hostB mlx5_0\"\n"
        "[1](c42a10300000002) \t\"S-fc6a1c0300e4f000\"[2]\t\t# lid 4 lmc 0 \"leaf-1\" lid 17 4xNDR\n");
    writeFile(dir / "counters-hostA.csv",
        "t_ns,host,device,port,state,link_downed,port_xmit_data\n" + std::to_string(t0)
            + ",hostA,mlx5_0,1,4: ACTIVE,3,100\n" + std::to_string(t0 + 1'000'000'000LL)
            + ",hostA,mlx5_0,1,4: ACTIVE,4,200\n");
    writeFile(dir / "README.txt", "collected by the on-call engineer\n");
    writeFile(dir / "prom.json",
        "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", \"result\": ["
        "{\"metric\": {\"__name__\": \"node_infiniband_port_data_transmitted_bytes_total\", \"device\": \"mlx5_0\", "
        "\"instance\": \"hostB:9100\", \"job\": \"node\", \"port\": \"1\"}, "
        "\"values\": [[1748779200, \"4000\"], [1748779215.5, \"8000\"], [1748779230, \"NaN\"]]},"
        "{\"metric\": {\"device\": \"mlx5_0\", \"instance\": \"hostB:9100\", \"port\": \"1\"}, "
        "\"values\": [[1748779200, \"0.5\"]]}]}}");
    writeFile(dir / "opensm.log",
        "Jun 01 12:00:31 000100 [7FFFF700] 0x02 -> log_trap_info: Received Generic Notice type:1 num:128 (Link state "
        "change) Producer:2 (Switch) from LID:17 TID:0x0000000000000004\n"
        "Jun 01 12:00:31 123456 [7FFFF700] 0x02 -> drop_mgr_remove_port: Removed port with GUID:0x0c42a10300000002 "
        "LID range [4, 4] of node:hostB mlx5_0\n"
        "Jun 01 12:00:33 500000 [7FFFF700] 0x02 -> state_mgr_report_new_ports: Discovered new port with "
        "GUID:0x0c42a10300000002 LID range [4,4] of node: hostB mlx5_0\n"
        "Jun 01 12:00:34 000000 [7FFFF700] 0x02 -> SUBNET UP\n");

    auto r = openJob(dir.string());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& s = *r->snapshot;
    CHECK(s.job.worldSize == 2);
    CHECK(s.collectiveCount() == 8);
    CHECK(s.groups.size() == 1);
    REQUIRE(s.ranks[1].hcaNode.has_value());
    CHECK(s.str(s.topology.node(*s.ranks[1].hcaNode).description) == "hostB mlx5_0");
    REQUIRE(s.counters.size() == 3); // 2 from the collector CSV (hostA), 1 from Prometheus (hostB)
    CHECK(s.counterPorts[0].node.has_value());
    const auto& prom = s.counters[2];
    CHECK(prom.kind == CounterKind::PortXmitData);
    REQUIRE(prom.size() == 2); // the NaN sample is dropped
    CHECK(prom.value(0) == 1000); // 4000 bytes = 1000 four-byte words
    CHECK(prom.timesNs[1] == 1'748'779'215'500'000'000LL);
    bool rateWarned = false;
    for (const auto& w : r->warnings) {
        rateWarned = rateWarned || w.message.find("no __name__") != std::string::npos;
    }
    CHECK(rateWarned);
    REQUIRE_FALSE(r->recognised.empty());
    const auto& summary = r->recognised.front();
    CHECK_THAT(summary,
        Catch::Contains("2 Flight Recorder JSON dumps") && Catch::Contains("2 rank logs")
            && Catch::Contains("1 ibnetdiscover topology") && Catch::Contains("1 counters CSV"));
    REQUIRE(s.linkEvents.size() == 2);
    CHECK(s.linkEvents[0].state == LinkState::Down);
    CHECK(s.linkEvents[0].guid == 0x0c42a10300000002ULL);
    CHECK(s.linkEvents[0].timeNs == t0 + 31'123'456'000LL); // local time = UTC here; the year from the dumps
    CHECK(s.linkEvents[1].state == LinkState::Up);
    CHECK(s.str(s.linkEvents[1].source) == "opensm");
    CHECK_THAT(summary, Catch::Contains("1 OpenSM log") && Catch::Contains("1 Prometheus matrix"));
    bool skipped = false;
    for (const auto& w : r->warnings) {
        skipped = skipped
            || (w.file.find("README.txt") != std::string::npos && w.message.find("skipped") != std::string::npos);
    }
    CHECK(skipped);
}

TEST_CASE("a folder without dumps says what is missing", "[core][import]")
{
    TempDir tmp;
    writeFile(tmp.path() / "notes.txt", "nothing here\n");
    auto r = openJob(tmp.str());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("manifest.json is missing") && Catch::Contains("Flight Recorder"));
}

TEST_CASE("counter series going backwards and a duplicate rank are warnings with file and line", "[core][import]")
{
    TempDir tmp;
    const auto dir = tmp.path();
    const long long t0 = 1'748'779'200'000'000'000LL;
    writeFile(dir / "nccl_trace_rank_0", dump(0, t0, false));
    writeFile(dir / "nccl_trace_rank_1", dump(1, t0, false));
    std::filesystem::create_directories(dir / "copy");
    writeFile(dir / "copy" / "nccl_trace_rank_1", dump(1, t0, false));
    writeFile(dir / "rank0.log", "[default0]:hostA:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n");
    writeFile(dir / "fabric.txt",
        "Switch\t2 \"S-fc6a1c0300000001\"\t\t# \"leaf-01\" enhanced port 0 lid 1 lmc 0\n"
        "[1]\t\"H-0c42a10300000001\"[1](c42a10300000001) \t\t# \"hostA mlx5_0\" lid 3 4xNDR\n\n"
        "Ca\t1 \"H-0c42a10300000001\"\t\t# \"hostA mlx5_0\"\n"
        "[1](c42a10300000001) \t\"S-fc6a1c0300000001\"[1]\t\t# lid 3 lmc 0 \"leaf-01\" lid 1 4xNDR\n");
    writeFile(dir / "counters-hostA.csv",
        "t_ns,host,device,port,state,link_downed\n" + std::to_string(t0) + ",hostA,mlx5_0,1,4: ACTIVE,7\n"
            + std::to_string(t0 + 1'000'000'000) + ",hostA,mlx5_0,1,4: ACTIVE,2\n");
    auto r = openJob(dir.string());
    REQUIRE(r.ok());
    bool backwards = false, duplicate = false;
    for (const auto& w : r->warnings) {
        backwards = backwards
            || (w.file.find("counters-hostA.csv") != std::string::npos && w.line == 3
                && w.message.find("went backwards from 7 to 2") != std::string::npos);
        duplicate = duplicate || w.message.find("a second dump of rank 1") != std::string::npos;
    }
    CHECK(backwards);
    CHECK(duplicate);
    CHECK(r->snapshot->job.worldSize == 2);
}

TEST_CASE("torchrun's local-rank folders do not place ranks", "[core][import]")
{
    TempDir tmp;
    const auto dir = tmp.path();
    const long long t0 = 1'748'779'200'000'000'000LL;
    writeFile(dir / "nccl_trace_rank_0", dump(0, t0, false));
    writeFile(dir / "nccl_trace_rank_1", dump(1, t0, false));
    // --log-dir layout on two nodes: each node's local rank 0 in a folder named 0
    for (const char* host : { "hostA", "hostB" }) {
        std::filesystem::create_directories(dir / host / "attempt_0" / "0");
        writeFile(dir / host / "attempt_0" / "0" / "stderr.log",
            std::string(host) + ":1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n");
    }
    auto r = openJob(dir.string());
    REQUIRE(r.ok());
    bool warned = false;
    for (const auto& w : r->warnings) {
        warned = warned || w.message.find("a local rank?") != std::string::npos;
    }
    CHECK(warned);
    CHECK(r->snapshot->str(r->snapshot->ranks[0].host).empty()); // not placed on either host
}

TEST_CASE("a JSON dump with an empty buffer (no entries key) is still a rank's dump", "[core][import]")
{
    TempDir tmp;
    const long long t0 = 1'748'779'200'000'000'000LL;
    writeFile(tmp.path() / "nccl_trace_rank_0", dump(0, t0, false));
    writeFile(tmp.path() / "nccl_trace_rank_1",
        R"({"version": "2.10", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
            "pg_status": {"0": {"last_enqueued_collective": "-1", "last_started_collective": "-1",
                                "last_completed_collective": "-1"}}})");
    auto r = openJob(tmp.str());
    REQUIRE(r.ok());
    CHECK_THAT(r->recognised.front(), Catch::Contains("2 Flight Recorder JSON dumps"));
    CHECK(r->snapshot->collectives[1].size() == 0);
}

TEST_CASE("raw folder: text past the memory budget is read again at its turn and opens the same", "[core][import]")
{
    // Logs and topologies are added on the calling thread after every file is read; their text was held until
    // then (32 rank logs of 64 MiB: 2.1 GB). Past ScratchPolicy::memoryBytes a file's text is let go and read
    // again when its turn comes: what opens must not depend on which.
    TempDir tmp;
    const auto sim = simulateOrFail(tinyConfig());
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    std::filesystem::create_directory(tmp.str("scratch"));
    NullProgress none;
    auto held = openJob(tmp.str("raw"));
    auto reread = openJob(tmp.str("raw"), none, ScratchPolicy { 1, tmp.str("scratch") });
    REQUIRE(held);
    REQUIRE(reread);
    const auto& a = *held->snapshot;
    const auto& b = *reread->snapshot;
    REQUIRE(a.ranks.size() == b.ranks.size());
    std::size_t placed = 0;
    for (std::size_t r = 0; r < a.ranks.size(); ++r) {
        CHECK(a.str(a.ranks[r].host) == b.str(b.ranks[r].host));
        CHECK(a.ranks[r].hcaNode == b.ranks[r].hcaNode);
        placed += a.ranks[r].hcaNode.has_value() ? 1 : 0;
    }
    CHECK(placed == a.ranks.size()); // the rank logs were read (they name each rank's HCA)
    CHECK(a.collectiveCount() == b.collectiveCount());
    CHECK(a.linkEvents.size() == b.linkEvents.size());
    CHECK(a.topology.nodes().size() == b.topology.nodes().size());
    CHECK(a.topology.links().size() == b.topology.links().size());
    CHECK(held->recognised == reread->recognised);
    CHECK(held->warnings.size() == reread->warnings.size());
}
