// SPDX-License-Identifier: MIT
// The simulator's records spilled to chunk files past a memory budget (sim/record_spill.h) and its counters written
// series by series: the same job as in memory, record for record and byte for byte in the bundle, with the scratch
// files gone afterwards.
#include "analysis/analysis.h"
#include "bundle/reader.h"
#include "bundle/writer.h"
#include "sim/record_spill.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {

SimResult simulateSpilled(const SimConfig& config, const std::string& dir, std::uint64_t memoryBytes)
{
    std::filesystem::create_directories(dir);
    NullProgress none;
    auto r = simulate(config, none, RecordSpillPolicy { dir, memoryBytes });
    REQUIRE(r);
    return std::move(r.value());
}

bool sameRecords(const RankCollectives& a, const RankCollectives& b)
{
    const auto eq = [](auto x, auto y) { return std::equal(x.begin(), x.end(), y.begin(), y.end()); };
    return eq(a.enqueueNs, b.enqueueNs) && eq(a.startNs, b.startNs) && eq(a.endNs, b.endNs) && eq(a.seq, b.seq)
        && eq(a.shape, b.shape) && eq(a.state, b.state) && eq(a.flags, b.flags);
}

std::size_t chunkFiles(const std::filesystem::path& dir)
{
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        n += e.path().extension() == ".chunk";
    }
    return n;
}

} // namespace

TEST_CASE("records spilled in chunks past a small budget make the job the simulator holds in memory", "[core][sim]")
{
    auto config = tinyConfig();
    config.faults[0].durationNs = 45 * kNsPerSec; // a crash: timed-out, failed and scheduled records too
    TempDir tmp;
    const auto held = simulateOrFail(config);
    // 16 KiB of records a chunk: the 2-minute job's ~19,000 records make dozens of chunks.
    const auto spilled = simulateSpilled(config, tmp.str("spill"), 16 << 10);
    REQUIRE(held.snapshot->collectives.size() == spilled.snapshot->collectives.size());
    CHECK(held.snapshot->collectiveCount() > 20 * (16 << 10) / 32);
    for (std::size_t r = 0; r < held.snapshot->collectives.size(); ++r) {
        INFO("rank " << r);
        REQUIRE(sameRecords(held.snapshot->collectives[r], spilled.snapshot->collectives[r]));
    }
    CHECK(held.snapshot->shapes == spilled.snapshot->shapes);
    CHECK(spilled.collectivesFile == tmp.str("spill/collectives.bin"));
    CHECK(chunkFiles(tmp.path() / "spill") == 0);
    CHECK(held.stalls.size() == spilled.stalls.size());
    CHECK(analyze(*held.snapshot).incidents.size() == analyze(*spilled.snapshot).incidents.size());

    // The counters went to a file series by series: the same ports and series, their values the same.
    CHECK(spilled.countersFile == tmp.str("spill/counters.bin"));
    CHECK_FALSE(std::filesystem::exists(tmp.path() / "spill" / "counter-values.tmp"));
    CHECK(sameCounterSeries(*held.snapshot, *spilled.snapshot));
    for (std::size_t i = 0; i < held.snapshot->counterPorts.size(); ++i) {
        REQUIRE(held.snapshot->counterPorts[i].node == spilled.snapshot->counterPorts[i].node); // joins resolved
    }
    // The bundle takes the spill's files as its collectives.bin and counters.bin (moved, not written again): the
    // same bytes as written from memory.
    BundleWriteOptions moved;
    moved.collectivesFile = spilled.collectivesFile;
    moved.countersFile = spilled.countersFile;
    REQUIRE(writeBundle(*held.snapshot, tmp.str("held")).empty());
    REQUIRE(writeBundle(*spilled.snapshot, tmp.str("spilled"), moved).empty());
    CHECK_FALSE(std::filesystem::exists(spilled.collectivesFile));
    CHECK_FALSE(std::filesystem::exists(spilled.countersFile));
    for (const auto* name : { "collectives.bin", "counters.bin", "manifest.json", "topology.json" }) {
        INFO(name);
        CHECK(readFile(tmp.path() / "held" / name) == readFile(tmp.path() / "spilled" / name));
    }
}

TEST_CASE("a spill whose chunk cannot be written ends the simulation naming the chunk", "[core][sim]")
{
    TempDir tmp;
    NullProgress none;
    // A folder that does not exist: the first chunk fails.
    const auto r = simulate(tinyConfig(), none, RecordSpillPolicy { tmp.str("missing"), 64 << 10 });
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error(), Catch::Contains(tmp.str("missing/records-0.chunk")));
}

TEST_CASE("a record spill read back gives each rank's records in the order pushed, chunk after chunk", "[core][sim]")
{
    TempDir tmp;
    const std::vector<CollectiveShape> shapes = { { 0, CollectiveOp::AllReduce, 1024 } };
    std::vector<std::vector<TimeNs>> pushed(3);
    {
        sim::RecordSpill spill(3, tmp.path(), 5 * 32); // a chunk every 5 records
        for (TimeNs t = 0; t < 40; ++t) {
            const auto r = static_cast<std::uint32_t>((t * 7) % 3 == 0 ? 0 : t % 2 + 1); // uneven shares
            spill.push(r, 100 + t, 200 + t, 300 + t, static_cast<std::uint32_t>(t), 0, CollectiveState::Completed);
            pushed[r].push_back(100 + t);
        }
        CHECK(spill.chunks() == 8);
        CHECK(spill.records() == 40);
        REQUIRE(spill.finish(shapes, tmp.str("collectives.bin")).empty());
    }
    CHECK(chunkFiles(tmp.path()) == 0);
    JobSnapshot snap;
    snap.job.worldSize = 3;
    snap.groups.push_back({});
    NullProgress none;
    REQUIRE_FALSE(attachCollectivesFile(tmp.str("collectives.bin"), snap, none));
    for (std::uint32_t r = 0; r < 3; ++r) {
        const auto& c = snap.collectives[r];
        CHECK(std::vector<TimeNs>(c.enqueueNs.begin(), c.enqueueNs.end()) == pushed[r]);
        for (std::size_t i = 0; i < c.size(); ++i) {
            CHECK(c.startNs[i] == c.enqueueNs[i] + 100);
            CHECK(c.seq[i] == static_cast<std::uint32_t>(c.enqueueNs[i] - 100));
        }
    }
}
