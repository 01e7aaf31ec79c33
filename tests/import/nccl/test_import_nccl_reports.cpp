// SPDX-License-Identifier: MIT
// NCCL's own reports (docs/formats.md §7): Inspector's per-collective JSON lines and RAS status / monitor output,
// from our own golden files in the exact shapes NCCL's source writes (tests/data/nccl, make_inspector.py).
#include "analysis/analysis.h"
#include "core/time_format.h"
#include "import/common/file_bytes.h"
#include "import/nccl/inspector.h"
#include "import/nccl/ras_status.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

using namespace stallscope;
using namespace stallscope::test;

namespace {

InspectorFile inspectorFile(const std::string& name)
{
    auto bytes = readFileBytes(testDataPath("nccl/inspector/" + name));
    REQUIRE(bytes.ok());
    auto f = parseNcclInspector(name, bytes.value());
    INFO((f ? "" : f.error().format()));
    REQUIRE(f.ok());
    return std::move(f.value());
}

const RasFact* factOf(const RasReport& r, RasFactKind kind, std::int64_t rank = -1)
{
    for (const auto& f : r.facts) {
        if (f.kind == kind && (rank < 0 || f.rank == rank)) {
            return &f;
        }
    }
    return nullptr;
}

} // namespace

TEST_CASE(
    "an NCCL Inspector log gives its communicators and collectives, times of writing as the clock", "[core][import]")
{
    const auto f = inspectorFile("node-a01-pid5102.log");
    CHECK(f.host == "node-a01");
    CHECK(f.pid == 5102);
    CHECK(f.version == "v4.0");
    REQUIRE(f.comms.size() == 2);
    CHECK(f.comms[0].id == "0x5eed0003bbbb");
    CHECK(f.comms[0].name == "dp_shard_1");
    CHECK(f.comms[0].rank == 0);
    CHECK(f.comms[0].size == 2);
    CHECK(f.comms[1].name == "default_pg");
    CHECK(f.comms[1].rank == 1);
    CHECK(f.comms[1].size == 4);
    CHECK(f.comms[1].nodes == 2);
    REQUIRE(f.records.size() == 40);
    CHECK(f.p2p == 1); // the send is counted, not a collective
    CHECK(f.verbose == 0);
    const auto& stalled = f.records[25]; // step 12's all-reduce
    CHECK(stalled.op == CollectiveOp::AllReduce);
    CHECK(stalled.sn == 12);
    CHECK(stalled.bytes == 256ull << 20);
    CHECK(stalled.execUs >= 4'300'000);
    CHECK(stalled.execUs < 4'300'100);
    CHECK(stalled.gpuTimed);
    CHECK(stalled.startNs == kNoTime); // not verbose: only the time its line was written
    CHECK(stalled.dumpNs > 1796000002'400000'000);
    CHECK(f.records[0].op == CollectiveOp::AllGather);
    CHECK(f.warnings.empty());
}

TEST_CASE("verbose Inspector lines give kernel start and stop, and a line cut mid-write is a grouped warning",
    "[core][import]")
{
    const auto v = inspectorFile("node-a02-pid6202.log");
    REQUIRE(v.records.size() == 40);
    CHECK(v.verbose == 40);
    const auto& r = v.records[1];
    REQUIRE(r.startNs != kNoTime);
    CHECK(r.enqueueNs == r.startNs - 31'000); // coll_start_ts, 31 µs before the first channel's kernel
    CHECK(r.endNs - r.startNs >= 3'000'000); // last channel's stop − first channel's start ≈ exec time
    CHECK(r.endNs - r.startNs <= 3'100'000);
    CHECK(r.endNs - r.startNs == r.execUs * 1000);

    const auto cut = inspectorFile("node-a02-pid6201.log");
    CHECK(cut.records.size() == 39);
    REQUIRE(cut.warnings.size() == 1);
    CHECK_THAT(cut.warnings[0].format(), Catch::Contains("node-a02-pid6201.log:40") && Catch::Contains("cut"));
}

TEST_CASE("an Inspector job opens as ranks: global rank from the world communicator, (comm, op, sn) matched "
          "across ranks, the stall found",
    "[core][import][analysis]")
{
    auto job = openJob(testDataPath("nccl/inspector").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto& snap = *job->snapshot;
    REQUIRE(snap.job.worldSize == 4);
    REQUIRE(snap.groups.size() == 3);
    std::map<std::string, std::vector<std::uint32_t>> members;
    for (const auto& g : snap.groups) {
        members[snap.str(g.desc)] = g.ranks;
    }
    CHECK(members["default_pg"] == std::vector<std::uint32_t> { 0, 1, 2, 3 });
    CHECK(members["dp_shard_0"] == std::vector<std::uint32_t> { 0, 2 });
    CHECK(members["dp_shard_1"] == std::vector<std::uint32_t> { 1, 3 });
    CHECK(snap.collectives[0].size() == 40);
    CHECK(snap.collectives[2].size() == 39); // its last line was cut
    const auto listed = std::count_if(job->recognised.begin(), job->recognised.end(),
        [](const std::string& s) { return s.find("NCCL Inspector log") != std::string::npos; });
    CHECK(listed >= 4);

    const auto result = analyze(snap);
    REQUIRE(result.incidents.size() == 1);
    const auto& inc = result.incidents[0];
    INFO(inc.summary);
    CHECK(inc.op == CollectiveOp::AllReduce);
    CHECK(inc.ranksAffected == 4);
    CHECK(snap.str(snap.groups[inc.group].desc) == "default_pg");
    CHECK(inc.endNs - inc.startNs > 4 * kNsPerSec);
    CHECK(inc.endNs - inc.startNs < 5 * kNsPerSec);
    // Every rank's record of that collective is the same one: the 13th all-reduce, step 12.
    CHECK(formatUtc(inc.startNs).substr(0, 19) == formatUtc(1796000002'400000'000).substr(0, 19));
}

TEST_CASE("Inspector lines written only at teardown carry no time: left off the timeline, said so", "[core][import]")
{
    auto bytes = readFileBytes(testDataPath("nccl/inspector-teardown/node-b07-pid777.log"));
    REQUIRE(bytes.ok());
    auto f = parseNcclInspector("node-b07-pid777.log", bytes.value());
    REQUIRE(f.ok());
    REQUIRE(f->records.size() == 5);
    CHECK(f->comms[0].name == "unknown"); // no comm_name in these lines
    CHECK(f->records[0].op == CollectiveOp::ReduceScatter);
    CHECK(f->records[0].gpuTimed); // no coll_timing_source: GPU timing, as the plugin did before it said

    auto job = openJob(testDataPath("nccl/inspector-teardown").string());
    REQUIRE(job.ok());
    const bool said = std::any_of(job->warnings.begin(), job->warnings.end(),
        [](const LoadIssue& w) { return w.message.find("at teardown") != std::string::npos; });
    CHECK(said);
}

TEST_CASE(
    "a RAS text status: dead and unresponsive processes, missing ranks, ranks behind, async errors", "[core][import]")
{
    auto r = parseRasText("status-hang.txt", testData("nccl/ras/status-hang.txt"));
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->form == "status");
    CHECK(r->ncclVersion == "2.26.2+cuda12.8");
    CHECK(r->nodes == 4);
    CHECK(r->processes == 32);
    CHECK(r->gpus == 32);
    CHECK(r->communicators == 9);
    const auto* unresponsive = factOf(r.value(), RasFactKind::Unresponsive);
    REQUIRE(unresponsive);
    CHECK(unresponsive->pid == 88231);
    CHECK(unresponsive->host == "10.20.3.14");
    CHECK(unresponsive->gpu == "5");
    const auto* missing = factOf(r.value(), RasFactKind::Missing);
    REQUIRE(missing);
    CHECK(missing->rank == 21);
    CHECK(missing->comm == "d1c2b3a49586877");
    CHECK(missing->commSize == 32);
    CHECK(missing->pid == 88231);
    const auto* err = factOf(r.value(), RasFactKind::AsyncError);
    REQUIRE(err);
    CHECK(err->rank == 12);
    CHECK(err->commSize == 4);
    CHECK_THAT(err->text, Catch::Contains("remote process exited"));
    const auto* behind = factOf(r.value(), RasFactKind::Behind);
    REQUIRE(behind);
    CHECK(behind->rank == 26);
    CHECK(behind->ops == 4412);
    CHECK_THAT(behind->text, Catch::Contains("AllReduce 4412") && Catch::Contains("others reached 4413"));
    CHECK(r->facts.size() == 4);
    CHECK(missing->timeNs == kNoTime); // a text status carries no time
}

TEST_CASE("RAS of NCCL 2.24: a DEAD process and 'The missing rank:'", "[core][import]")
{
    auto r = parseRasText("status-dead-2.24.txt", testData("nccl/ras/status-dead-2.24.txt"));
    REQUIRE(r.ok());
    const auto* dead = factOf(r.value(), RasFactKind::Dead);
    REQUIRE(dead);
    CHECK(dead->pid == 88231);
    CHECK(dead->host == "10.20.3.14");
    const auto* missing = factOf(r.value(), RasFactKind::Missing, 21);
    REQUIRE(missing);
    CHECK(missing->commSize == 32);
}

TEST_CASE("RAS JSON status and monitor events, stamped in the answering host's zone", "[core][import]")
{
    LogClock clock;
    clock.utcOffsetNs = 3600 * kNsPerSec; // the host ran at UTC+1
    auto s = parseRasJson("status.json", testData("nccl/ras/status.json"), clock);
    INFO((s ? "" : s.error().format()));
    REQUIRE(s.ok());
    CHECK(s->form == "status (JSON)");
    CHECK(s->ncclVersion == "2.28.9");
    CHECK(s->communicators == 1);
    const auto* dead = factOf(s.value(), RasFactKind::Dead, 3);
    REQUIRE(dead);
    CHECK(dead->comm == "3f00c0ffee17");
    CHECK(dead->commSize == 4);
    CHECK(dead->pid == 51201);
    CHECK(formatUtc(dead->timeNs) == "2026-11-30 02:14:27.000 UTC");
    const auto* err = factOf(s.value(), RasFactKind::AsyncError, 1);
    REQUIRE(err);
    CHECK_THAT(err->text, Catch::Contains("NCCL error 6"));
    CHECK(s->facts.size() == 2);

    auto m = parseRasJson("monitor.json", testData("nccl/ras/monitor.json"));
    REQUIRE(m.ok());
    CHECK(m->form == "monitor (JSON)");
    REQUIRE(m->facts.size() == 2);
    CHECK(m->facts[0].kind == RasFactKind::Unresponsive);
    CHECK(m->facts[1].kind == RasFactKind::Dead);
    CHECK(m->facts[1].gpu == "1");
    CHECK(formatUtc(m->facts[1].timeNs) == "2026-11-30 03:14:21.000 UTC");

    auto t = parseRasText("monitor.txt", testData("nccl/ras/monitor.txt"));
    REQUIRE(t.ok());
    CHECK(t->form == "monitor");
    REQUIRE(t->facts.size() == 3);
    CHECK(t->facts[1].kind == RasFactKind::Dead);
    CHECK(t->facts[1].pid == 51201);
    CHECK(t->facts[2].kind == RasFactKind::PeerEvent);
    CHECK_THAT(t->facts[2].text, Catch::Contains("PEER_RECOVERED"));
}

TEST_CASE("RAS output is recognised by content and bad JSON is named with its offset", "[core][import]")
{
    CHECK(looksLikeRasText(testData("nccl/ras/status-hang.txt")));
    CHECK(looksLikeRasText(testData("nccl/ras/monitor.txt")));
    CHECK(looksLikeRasJson(testData("nccl/ras/status.json")));
    CHECK(looksLikeRasJson(testData("nccl/ras/monitor.json")));
    CHECK_FALSE(looksLikeRasText(testData("logs/rank2.log")));
    CHECK_FALSE(looksLikeRasJson(testData("flight_recorder/nccl_trace_rank_3")));
    auto bytes = readFileBytes(testDataPath("nccl/inspector/node-a01-pid5101.log"));
    REQUIRE(bytes.ok());
    CHECK(looksLikeNcclInspector(bytes.value()));
    CHECK_FALSE(looksLikeRasJson(bytes.value()));

    auto bad = parseRasJson(
        "s.json", "{\"nccl_version\": \"2.28\", \"communicators_count\": 1, \"communicators\": [1e999]}");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().format(), Catch::Contains("s.json"));
}

TEST_CASE("raw folder: NCCL RAS naming the rank lost from the world communicator tells the hang's story, as evidence",
    "[core][import][analysis]")
{
    TempDir tmp;
    SimConfig c = tinyConfig();
    c.faults = { parseFaultSpec("dead-rank:rank=5:at=60s").value() };
    const auto sim = simulateOrFail(c);
    const auto dir = tmp.str("raw");
    REQUIRE(writeRawFolder(*sim.snapshot, dir, {}).empty());
    std::filesystem::remove(dir + "/slurm-job.out");
    const auto world = sim.snapshot->job.worldSize;
    REQUIRE(world > 5);
    // What `ncclras` printed while the job hung: rank 5 of the world communicator is missing.
    writeFile(dir + "/ncclras.txt",
        "NCCL version 2.26.2+cuda12.8\n\nJob summary\n===========\n\n  Nodes  Processes         GPUs  Processes     "
        "GPUs\n(total)   per node  per process    (total)  (total)\n      2          4            1          "
            + std::to_string(world) + "        " + std::to_string(world)
            + "\n\nCommunicators... (2.01s)\n=============\n\nGroup     Comms     Nodes     Ranks     Ranks     Ranks  "
              "  "
              "Status  Errors\n    #  in group  per comm  per node  per comm  in group\n    0         1         2      "
              " "
              "3-4         "
            + std::to_string(world) + "         " + std::to_string(world)
            + "   RUNNING  INCOMPLETE\n\nErrors\n======\n\n#0-0 (00aa11bb22cc33dd) INCOMPLETE\n  Missing communicator "
              "data from 1 rank\n  Rank 5 -- GPU 1 managed by process 4242 on node 10.1.0.2\n\n");
    auto job = openJob(dir);
    REQUIRE(job.ok());
    const bool listed = std::any_of(job->recognised.begin(), job->recognised.end(),
        [](const std::string& s) { return s.find("ncclras.txt: NCCL RAS status") != std::string::npos; });
    CHECK(listed);
    const auto result = analyze(*job->snapshot);
    REQUIRE_FALSE(result.incidents.empty());
    const auto& inc = result.incidents[0];
    INFO(inc.summary);
    CHECK_FALSE(inc.culprit.has_value());
    REQUIRE(inc.rasRank.has_value());
    CHECK(*inc.rasRank == 5);
    CHECK(inc.kind == IncidentKind::DeadRank);
    CHECK(inc.suspectRanks.front() == 5);
    CHECK_THAT(inc.summary, Catch::Contains("NCCL RAS") && Catch::Contains("rank 5"));
    const bool evidence = std::any_of(inc.hostEvidence.begin(), inc.hostEvidence.end(),
        [](const EvidenceLine& e) { return e.what.find("[nccl ras]") != std::string::npos; });
    CHECK(evidence);
}

TEST_CASE("RAS of NCCL 2.27: a separate totals table, an outlier node, and the listed ranks ahead of the others",
    "[core][import]")
{
    // The shape of outputs users pasted into NCCL's issues (2.26–2.27): a PyTorch line before it, the version line
    // "compiled with CUDA", per-node rows then a totals table, and a MISMATCH whose detailed ranks are the two
    // that launched one operation more (the eighteen others are the ones behind).
    auto r = parseRasText("status-2.27-outlier.txt", testData("nccl/ras/status-2.27-outlier.txt"));
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->ncclVersion == "2.27.3");
    CHECK(r->nodes == 3);
    CHECK(r->processes == 20);
    CHECK(r->gpus == 20);
    CHECK(r->communicators == 5);
    CHECK_FALSE(factOf(r.value(), RasFactKind::Behind));
    REQUIRE(r->facts.size() == 2);
    for (const auto& f : r->facts) {
        CHECK(f.kind == RasFactKind::Status);
        CHECK(f.ops == 9121);
        CHECK(f.commSize == 20);
        CHECK_THAT(f.text, Catch::Contains("ahead of the others") && Catch::Contains("ReduceScatter 9121"));
    }
    CHECK(r->facts[1].rank == 17);
    CHECK(r->facts[1].host == "10.40.2.9");
    CHECK(looksLikeRasText(testData("nccl/ras/status-2.27-outlier.txt")));
}

TEST_CASE("Inspector records without a header take the communicator and dump time of the last line that had one",
    "[core][import]")
{
    // Newer Inspector writers state the communicator and writer once per dump (a proposal in NVIDIA/nccl PR 2359
    // moves them into a per-communicator marker): records after such a line carry only their own fields.
    std::string text
        = R"({"header":{"id":"0xabc1","comm_name":"tp","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.3","dump_timestamp_us":1796000000500000,"hostname":"node-c3","pid":91},"dump_stats":{"coll":2}})"
          "\n"
          R"({"coll_perf":{"coll":"AllGather","coll_sn":7,"coll_msg_size_bytes":1048576,"coll_exec_time_us":120,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":8.7,"coll_busbw_gbs":4.3}})"
          "\n"
          R"({"coll_perf":{"coll":"AllGather","coll_sn":8,"coll_msg_size_bytes":1048576,"coll_exec_time_us":118,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":8.8,"coll_busbw_gbs":4.4}})"
          "\n";
    text.reserve(text.size() + jsonPadding());
    auto f = parseNcclInspector("node-c3-pid91.log", text);
    INFO((f ? "" : f.error().format()));
    REQUIRE(f.ok());
    CHECK(f->host == "node-c3");
    CHECK(f->version == "v4.3");
    REQUIRE(f->comms.size() == 1);
    CHECK(f->comms[0].name == "tp");
    REQUIRE(f->records.size() == 2);
    CHECK(f->records[1].sn == 8);
    CHECK(f->records[1].dumpNs == 1796000000500000LL * 1000);
    CHECK(f->warnings.empty());
}

TEST_CASE("a RAS process placed by a rank past the job's world is no rank: notes name only ranks the job has",
    "[core][import][hostile]")
{
    // Found by the folder fuzz target (its seeds built from tests/data): RAS placed a process by the rank it held in
    // a communicator of the world's size, without checking that rank against the world; the note then read the
    // ranks' array past its end (heap-use-after-free under ASan). Kept as regressions/folder/ras-rank-past-world.
    TempDir tmp;
    writeFile(tmp.path() / "node017_48211.172775204=123456789.pt.trace.json",
        testData("kineto/node017_48211.1727752045123456789.pt.trace.json"));
    auto inspector = testData("nccl/inspector/node-a01-pid5101.log");
    for (auto at = inspector.find("0x5eed0001f00d"); at != std::string::npos; at = inspector.find("0x5eed0001f00d")) {
        inspector.replace(at, 14, "0x5eed0001f00*d"); // the world communicator's id damaged
    }
    writeFile(tmp.path() / "node-a01-pid5101.log", inspector);
    writeFile(tmp.path() / "status-hang.txt", testData("nccl/ras/status-hang.txt"));
    writeFile(tmp.path() / "nccl-two-processes.log", testData("logs/nccl-two-processes.log"));
    auto job = openJob(tmp.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto& snap = *job->snapshot;
    REQUIRE_FALSE(snap.notes.empty());
    for (const auto& n : snap.notes) {
        INFO(snap.str(n.text));
        CHECK((n.rank == kNoRank || n.rank < snap.ranks.size()));
    }
}
