// SPDX-License-Identifier: MIT
// Where ranks ran as the launcher was told (docs/formats.md §2h): hostfiles and Slurm node lists from our own golden
// files, Slurm's hostlist expressions, and a folder of dumps that name no host placed by a hostfile.
#include "import/open_job.h"
#include "import/scheduler/placement.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;

namespace {

RankPlacement read(const std::string& name)
{
    const auto text = testData(name);
    REQUIRE(looksLikeRankPlacement(text));
    auto r = parseRankPlacement(name, text);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r);
    return std::move(r.value());
}

} // namespace

TEST_CASE("Slurm hostlist expressions expand as scontrol show hostnames does", "[placement]")
{
    using V = std::vector<std::string>;
    CHECK(expandHostlist("gpu-r[301-303,310],cpu7") == V { "gpu-r301", "gpu-r302", "gpu-r303", "gpu-r310", "cpu7" });
    CHECK(expandHostlist("n[08-10]") == V { "n08", "n09", "n10" }); // zero padding kept
    CHECK(expandHostlist("gpu-b4-[1,0]") == V { "gpu-b4-1", "gpu-b4-0" }); // the list's order, not sorted
    CHECK(expandHostlist("r[1-2]-g[1-2]") == V { "r1-g1", "r1-g2", "r2-g1", "r2-g2" });
    CHECK(expandHostlist("single") == V { "single" });
    CHECK_FALSE(expandHostlist("gpu[1-"));
    CHECK_FALSE(expandHostlist("gpu[5-1]"));
    CHECK_FALSE(expandHostlist("gpu[1-99999999]", 1000)); // past the bound: nothing allocated for it
    CHECK(expandHostlist("n[18446744073709551615]") == V { "n18446744073709551615" }); // the largest bound ends
    // A name longer than any host's is a damaged list: a million of them would be gigabytes.
    CHECK_FALSE(expandHostlist(std::string(300, 'a') + "[1-1000000]"));
    CHECK_FALSE(expandHostlist(std::string(252, 'a') + "[1-9]x[1-9]"));
}

TEST_CASE("hostfiles and Slurm's lists: hosts in order, each with its ranks", "[placement]")
{
    const auto ds = read("placement/deepspeed-hostfile.txt");
    CHECK(ds.source == "hostfile");
    REQUIRE(ds.hosts.size() == 2);
    CHECK(ds.hosts[1].name == "gpu-r302"); // "ops@" taken off
    CHECK(ds.hosts[1].slots == 4);
    CHECK(ds.line == 3);
    CHECK(ds.hostOf(3, 8) == "gpu-r301");
    CHECK(ds.hostOf(4, 8) == "gpu-r302");
    CHECK(ds.hostOf(8, 9) == ""); // past the slots listed

    CHECK(read("placement/mpich-machinefile").hostOf(5, 8) == "gpu-r302");

    const auto env = read("placement/slurm-env.txt");
    CHECK(env.source == "SLURM_JOB_NODELIST");
    REQUIRE(env.hosts.size() == 2);
    CHECK(env.hosts[0].name == "gpu-r302"); // the node list's order
    CHECK(env.hosts[0].slots == 4);
    CHECK(env.hostOf(0, 8) == "gpu-r302");

    const auto job = read("placement/scontrol-show-job.txt");
    CHECK(job.source == "scontrol show job");
    REQUIRE(job.hosts.size() == 2); // NodeList, not ReqNodeList or ExcNodeList
    CHECK(job.hosts[0].slots == 4); // NumTasks ÷ NumNodes
    CHECK(job.line == 5);

    const auto names = read("placement/scontrol-hostnames.txt");
    CHECK(names.source == "scontrol show hostnames");
    REQUIRE(names.hosts.size() == 2);
    CHECK(names.hostOf(3, 8) == "gpu-r301"); // ranks per host not said: world ÷ hosts
    CHECK(names.hostOf(4, 8) == "gpu-r302");

    CHECK_FALSE(looksLikeRankPlacement("training with slots=8 per node\nloss 0.3\nloss 0.2\nloss 0.1\n"));
}

TEST_CASE("dumps that name no host, with a hostfile: each rank on its host", "[placement]")
{
    TempDir dir;
    for (const auto& e : std::filesystem::directory_iterator(testDataPath("flight_recorder/pickle"))) {
        std::filesystem::copy_file(e.path(), dir.path() / e.path().filename());
    }
    writeFile(dir.path() / "hostfile", "gpu-r301 slots=4\ngpu-r302 slots=4\n");
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.ranks.size() == 7);
    CHECK(snap.str(snap.ranks[0].host) == "gpu-r301");
    CHECK(snap.str(snap.ranks[3].host) == "gpu-r301");
    CHECK(snap.str(snap.ranks[4].host) == "gpu-r302");
    CHECK(snap.str(snap.ranks[6].host) == "gpu-r302");

    // A host list alone is read and said to be no job.
    TempDir alone;
    writeFile(alone.path() / "hostfile", "gpu-r301 slots=4\ngpu-r302 slots=4\n");
    auto none = openJob(alone.str());
    REQUIRE_FALSE(none);
    CHECK_THAT(none.error().format(), Catch::Contains("a hostfile of 2 hosts: where ranks ran, but no job by itself"));
}
