// SPDX-License-Identifier: MIT
// One job clock for a raw folder: local-time logs in another zone are found and moved onto UTC, sources that
// disagree are reported with the size of the disagreement, and the optional mapping file fills placements and
// corrects clocks.
#include "analysis/analysis.h"
#include "core/time_format.h"
#include "import/folder/mapping.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {

SimConfig crashScenario()
{
    auto c = *presetConfig("small");
    c.seed = 5;
    c.durationNs = 14 * 60 * kNsPerSec;
    c.faults = { parseFaultSpec("flap:host-leaf:rank=20:at=100s:for=45s").value() };
    return c;
}

bool warned(const LoadedJob& b, const std::string& part)
{
    for (const auto& w : b.warnings) {
        if (w.message.find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("rank logs in local time of another zone are put on the dumps' clock", "[core][import][clock]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(crashScenario());
    RawWriteOptions o;
    o.logUtcOffsetNs = 2 * 3600 * kNsPerSec; // the hosts log in UTC+2
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw"), o).empty());
    auto r = openJob(tmp.str("raw"));
    REQUIRE(r.ok());
    CHECK(warned(r.value(), "read as UTC+02:00"));
    const auto result = analyze(*r->snapshot);
    REQUIRE_FALSE(result.incidents.empty());
    const auto& inc = result.incidents[0];
    CHECK(inc.jobCrashed);
    REQUIRE(inc.culprit.has_value()); // the ranks' port events line up with the stall again
    REQUIRE_FALSE(inc.firstFailedRanks.empty()); // and the transport errors close the right records

    SECTION("a mapping file's zone is taken as given")
    {
        writeFile(tmp.path() / "raw" / "mapping.json",
            R"({"stallscope_mapping": 1, "time_zones": {"rank_logs": "+02:00", "opensm": "+02:00"}})");
        auto m = openJob(tmp.str("raw"));
        REQUIRE(m.ok());
        CHECK_FALSE(warned(m.value(), "read as UTC"));
        CHECK_THAT(m->recognised.front(), Catch::Contains("1 mapping file"));
        CHECK(analyze(*m->snapshot).incidents.at(0).culprit.has_value());
    }
}

TEST_CASE("profiler traces on a skewed clock are reported, and a clock offset aligns them", "[core][import][clock]")
{
    TempDir tmp;
    auto c = crashScenario();
    c.durationNs = 4 * 60 * kNsPerSec;
    c.faults = { parseFaultSpec("flap:host-leaf:rank=20:at=100s:for=2s").value() };
    const auto sim = simulateOrFail(c);
    RawWriteOptions o;
    o.kineto = true;
    o.profilerSkewNs = 5 * kNsPerSec;
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw"), o).empty());
    auto r = openJob(tmp.str("raw"));
    REQUIRE(r.ok());
    CHECK(warned(r.value(), "profiler traces disagree with the Flight Recorder dumps by +5.000s"));
    writeFile(tmp.path() / "raw" / "fix.json", R"({"stallscope_mapping": 1, "clock_offsets": {"profiler": "-5s"}})");
    auto fixed = openJob(tmp.str("raw"));
    REQUIRE(fixed.ok());
    CHECK_FALSE(warned(fixed.value(), "profiler traces disagree"));
}

TEST_CASE(
    "a rank log dated days after the dumps end is named: another job's, or a wrong clock", "[core][import][clock]")
{
    // A folder holding one incident's dumps and another's log opened as one job spanning eight months, the stall
    // a hairline in it, and nothing said.
    TempDir tmp;
    const auto sim = simulateOrFail(crashScenario());
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    auto same = openJob(tmp.str("raw"));
    REQUIRE(same.ok());
    CHECK_FALSE(warned(same.value(), "after the Flight Recorder dumps end")); // its own logs go on minutes after
    writeFile(tmp.path() / "raw" / "other-job.log", testData("logs/rank2.log")); // 2025-06-01; the job is 2026-11
    auto mixed = openJob(tmp.str("raw"));
    REQUIRE(mixed.ok());
    CHECK_FALSE(warned(mixed.value(), "after the Flight Recorder dumps end")); // before them: a long job's start
    auto late = testData("logs/rank2.log");
    for (const auto& [from, to] : { std::pair { "2025-06-01", "2026-12-24" }, { "E0601", "E1224" } }) {
        for (auto at = late.find(from); at != std::string::npos; at = late.find(from)) {
            late.replace(at, std::string(from).size(), to);
        }
    }
    writeFile(tmp.path() / "raw" / "other-job.log", late);
    auto after = openJob(tmp.str("raw"));
    REQUIRE(after.ok());
    bool named = false;
    for (const auto& w : after->warnings) {
        named |= w.file.ends_with("other-job.log")
            && w.message.find("its lines go on to 2026-12-24 12:10:31.004 UTC") == 0
            && w.message.find("after the Flight Recorder dumps end") != std::string::npos;
    }
    CHECK(named);
}

TEST_CASE("two logs placing one rank on different hosts are named, and which one is used", "[core][import][clock]")
{
    // Another job's log (or an earlier attempt's) for rank 2 moved rank 2 to another host and HCA in silence: the
    // culprit link of a stall follows the placement.
    TempDir tmp;
    const auto sim = simulateOrFail(crashScenario());
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    const auto own = openJob(tmp.str("raw"));
    REQUIRE(own.ok());
    CHECK_FALSE(warned(own.value(), "is placed differently"));
    const auto ownHost = own->snapshot->str(own->snapshot->ranks[2].host);
    REQUIRE_FALSE(ownHost.empty());
    REQUIRE(ownHost != "gpu-a017");

    writeFile(tmp.path() / "raw" / "zz-other-job.log",
        testData("logs/rank2.log")); // gpu-a017 GPU 2; HCAs mlx5_0, mlx5_3, mlx5_4
    const auto mixed = openJob(tmp.str("raw"));
    REQUIRE(mixed.ok());
    std::string said;
    for (const auto& w : mixed->warnings) {
        if (w.message.find("rank 2 is placed differently by 2 logs: ") == 0) {
            said = w.format();
        }
    }
    INFO(said);
    CHECK_THAT(said, Catch::Contains(ownHost + " GPU "));
    CHECK_THAT(
        said, Catch::Contains("gpu-a017 GPU 2 mlx5_4 (" + (tmp.path() / "raw" / "zz-other-job.log").string() + ")"));
    CHECK_THAT(said, Catch::Contains("the last is used"));
    CHECK(mixed->snapshot->str(mixed->snapshot->ranks[2].host) == "gpu-a017"); // the last, as said
    CHECK_FALSE(warned(mixed.value(), "rank 3 is placed differently"));

    // A copy of the last log agrees with it: still one disagreement of two placements.
    std::filesystem::copy_file(testDataPath("logs/rank2.log"), tmp.path() / "raw" / "zzz-copy.log");
    const auto twice = openJob(tmp.str("raw"));
    REQUIRE(twice.ok());
    std::size_t disagreements = 0;
    for (const auto& w : twice->warnings) {
        disagreements += w.message.find("rank 2 is placed differently by 2 logs") == 0;
    }
    CHECK(disagreements == 1);
}

TEST_CASE("ranks whose dumps are missing are named, in runs", "[core][import]")
{
    // A folder missing two ranks' dumps opened with their rows blank and nothing said; a rank killed outright writes
    // no dump, so the blank row is often the story.
    TempDir tmp;
    const auto sim = simulateOrFail(crashScenario());
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    const auto whole = openJob(tmp.str("raw"));
    REQUIRE(whole.ok());
    CHECK_FALSE(warned(whole.value(), "no collective record"));
    const auto world = whole->snapshot->job.worldSize;
    REQUIRE(world > 20);
    for (const auto r : { 5, 6, 7, 9, 10, 17 }) {
        std::filesystem::remove(tmp.path() / "raw" / ("nccl_trace_rank_" + std::to_string(r)));
    }
    const auto holes = openJob(tmp.str("raw"));
    REQUIRE(holes.ok());
    CHECK(holes->snapshot->job.worldSize == world); // the others' groups still name every rank
    CHECK(
        warned(holes.value(), "no collective record for 6 of " + std::to_string(world) + " ranks: 5..7, 9, 10, 17 — "));
}

TEST_CASE("a mapping file places a rank whose log lost its NCCL lines", "[core][import][clock]")
{
    TempDir tmp;
    auto c = crashScenario();
    c.durationNs = 3 * 60 * kNsPerSec;
    c.faults = { parseFaultSpec("flap:host-leaf:rank=13:at=60s:for=2s").value() };
    const auto sim = simulateOrFail(c);
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    std::filesystem::remove(tmp.path() / "raw" / "rank13.log");
    auto without = openJob(tmp.str("raw"));
    REQUIRE(without.ok());
    CHECK_FALSE(without->snapshot->ranks[13].hcaNode.has_value());
    writeFile(tmp.path() / "raw" / "mapping.json",
        R"({"stallscope_mapping": 1, "ranks": {"13": {"host": "gpu-a001", "hca": "mlx5_5", "gpu": 5}}})");
    auto with = openJob(tmp.str("raw"));
    REQUIRE(with.ok());
    REQUIRE(with->snapshot->ranks[13].hcaNode.has_value());
    const auto& s = *with->snapshot;
    CHECK(s.str(s.topology.node(*s.ranks[13].hcaNode).description) == "gpu-a001 mlx5_5");
}

TEST_CASE("mapping file values are checked", "[core][import][clock]")
{
    CHECK(parseUtcOffset("+02:00") == 2 * 3600 * kNsPerSec);
    CHECK(parseUtcOffset("-0530") == -(5 * 3600 + 30 * 60) * kNsPerSec);
    CHECK(parseUtcOffset("UTC") == 0);
    CHECK_FALSE(parseUtcOffset("Europe/Paris").has_value());
    CHECK(parseSignedDuration("-1.5s") == -1'500'000'000LL);
    CHECK(parseSignedDuration("+2h") == 7200 * kNsPerSec);
    CHECK(parseSignedDuration("250ms") == 250'000'000LL);
    auto bad = parseMapping("m.json", R"({"stallscope_mapping": 1, "clock_offsets": {"dumpz": "1s"}})");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().format(), Catch::Contains("m.json") && Catch::Contains("clock_offsets.dumpz"));
    bad = parseMapping("m.json", R"({"stallscope_mapping": 1, "ranks": {"x": {}}})");
    CHECK_FALSE(bad.ok());
}
