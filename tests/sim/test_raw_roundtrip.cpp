// SPDX-License-Identifier: MIT
// Simulated incidents written as the raw files a cluster leaves behind (Flight Recorder dumps, rank logs,
// ibnetdiscover, collector CSV, switch exporter, OpenSM log) open without a mapping file, and the analysis
// of the folder names the same link — or no link and the right rank — as the simulator's truth.
#include "analysis/analysis.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

using namespace stallscope;
using namespace stallscope::test;

namespace {

SimConfig scenario(std::uint32_t hosts, TimeNs duration, const std::string& fault)
{
    auto c = *presetConfig("small");
    c.seed = 77;
    c.hosts = hosts;
    c.durationNs = duration;
    c.faults = { parseFaultSpec(fault).value() };
    if (hosts > 8) {
        c.spines = 8;
    }
    return c;
}

struct Roundtrip
{
    SimResult sim;
    LoadedJob loaded;
    AnalysisResult result;
};

Roundtrip roundtrip(const SimConfig& c, const TempDir& tmp, bool pickle)
{
    Roundtrip rt { simulateOrFail(c), {}, {} };
    RawWriteOptions options;
    options.pickle = pickle;
    const auto dir = tmp.str("raw");
    REQUIRE(writeRawFolder(*rt.sim.snapshot, dir, options).empty());
    auto r = openJob(dir);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    for (const auto& w : r->warnings) {
        UNSCOPED_INFO("warning: " << w.format());
    }
    rt.loaded = std::move(r.value());
    rt.result = analyze(*rt.loaded.snapshot);
    return rt;
}

bool sameLink(const LinkVerdict& v, const JobSnapshot& truthSnap, LinkId truthLink)
{
    const auto& l = truthSnap.topology.link(truthLink);
    const auto a = std::pair(truthSnap.topology.node(l.a.node).guid, l.a.port);
    const auto b = std::pair(truthSnap.topology.node(l.b.node).guid, l.b.port);
    const auto va = std::pair(v.a.guid, v.a.port), vb = std::pair(v.b.guid, v.b.port);
    return (va == a && vb == b) || (va == b && vb == a);
}

} // namespace

TEST_CASE("raw folder: a 2 s host link flap is found and named (pickle dumps)", "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto rt = roundtrip(scenario(8, 240 * kNsPerSec, "flap:host-leaf:rank=37:at=100s:for=2s"), tmp, true);
    const auto& s = *rt.loaded.snapshot;
    CHECK(s.job.worldSize == 64);
    CHECK(s.topology.hcaCount() == 64);
    CHECK(s.collectiveCount() == rt.sim.snapshot->collectiveCount());
    for (std::uint32_t r = 0; r < s.ranks.size(); ++r) {
        REQUIRE(s.ranks[r].hcaNode.has_value()); // every rank lands on its HCA, no mapping file
        CHECK(s.topology.node(*s.ranks[r].hcaNode).guid
            == rt.sim.snapshot->topology.node(*rt.sim.snapshot->ranks[r].hcaNode).guid);
    }
    REQUIRE(rt.result.incidents.size() == 1);
    const auto& inc = rt.result.incidents[0];
    REQUIRE(inc.culprit.has_value());
    CHECK(sameLink(*inc.culprit, *rt.sim.snapshot, rt.sim.outages.at(0).link));
    CHECK_FALSE(inc.jobCrashed);
    CHECK(std::llabs(inc.startNs - rt.sim.stalls.at(0).startNs) <= kNsPerSec);
}

TEST_CASE("raw folder: a leaf-spine flap is named from the switch exporter (JSON dumps)", "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto rt
        = roundtrip(scenario(8, 240 * kNsPerSec, "flap:leaf-spine:leaf=3:spine=2:at=100s:for=5s:ar=off"), tmp, false);
    REQUIRE_FALSE(rt.result.incidents.empty());
    const auto& inc = rt.result.incidents[0];
    REQUIRE(inc.culprit.has_value());
    CHECK(sameLink(*inc.culprit, *rt.sim.snapshot, rt.sim.outages.at(0).link));
    CHECK_THAT(rt.loaded.recognised.front(), Catch::Contains("Flight Recorder JSON dump"));
    // The SM's sweeps come back from its log ("SUBNET UP"): at start, and after each trap.
    const auto& updates = rt.loaded.snapshot->routeUpdates;
    REQUIRE(updates.size() == rt.sim.snapshot->routeUpdates.size() + 1);
    for (std::size_t i = 0; i < rt.sim.snapshot->routeUpdates.size(); ++i) {
        CHECK(std::llabs(updates[i + 1].timeNs - rt.sim.snapshot->routeUpdates[i].timeNs) < kNsPerMs);
    }
    // 5 s down, the SM's routes after 5 s: the link came back first, so no reroute is claimed.
    CHECK(inc.culprit->recovery != Recovery::SubnetManager);
}

TEST_CASE("raw folder: a 45 s flap crashes the job, the failed ranks come from the logs", "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto rt = roundtrip(scenario(8, 14 * 60 * kNsPerSec, "flap:host-leaf:rank=20:at=100s:for=45s"), tmp, true);
    REQUIRE(rt.sim.crashNs.has_value());
    REQUIRE_FALSE(rt.result.incidents.empty());
    const auto& inc = rt.result.incidents[0];
    CHECK(inc.jobCrashed);
    REQUIRE(inc.culprit.has_value());
    CHECK(sameLink(*inc.culprit, *rt.sim.snapshot, rt.sim.outages.at(0).link));
    REQUIRE_FALSE(inc.firstFailedRanks.empty());
    CHECK(std::find(rt.sim.failedRanks.begin(), rt.sim.failedRanks.end(), inc.firstFailedRanks.front())
        != rt.sim.failedRanks.end());
}

TEST_CASE("raw folder: a dead rank blames no link", "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto rt = roundtrip(scenario(8, 14 * 60 * kNsPerSec, "dead-rank:rank=21:at=90s"), tmp, true);
    REQUIRE_FALSE(rt.result.incidents.empty());
    for (const auto& inc : rt.result.incidents) {
        CHECK_FALSE(inc.culprit.has_value());
        REQUIRE_FALSE(inc.suspectRanks.empty());
        CHECK(inc.suspectRanks.front() == 21);
    }
}

TEST_CASE("raw folder: 1,024 ranks, a host link flap", "[core][import][roundtrip][slow]")
{
    TempDir tmp;
    const auto rt = roundtrip(scenario(128, 90 * kNsPerSec, "flap:host-leaf:rank=777:at=40s:for=2s"), tmp, true);
    CHECK(rt.loaded.snapshot->job.worldSize == 1024);
    REQUIRE(rt.result.incidents.size() == 1);
    REQUIRE(rt.result.incidents[0].culprit.has_value());
    CHECK(sameLink(*rt.result.incidents[0].culprit, *rt.sim.snapshot, rt.sim.outages.at(0).link));
}

TEST_CASE("raw folder: nested folders and gzip files as clusters leave them", "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto c = scenario(8, 180 * kNsPerSec, "flap:host-leaf:rank=5:at=60s:for=2s");
    const auto sim = simulateOrFail(c);
    const auto flat = tmp.path() / "flat";
    REQUIRE(writeRawFolder(*sim.snapshot, flat.string()).empty());
    const auto root = tmp.path() / "incident";
    namespace fs = std::filesystem;
    for (const auto& sub : { "fr", "fabric", "counters", ".cache" }) {
        fs::create_directories(root / sub);
    }
    for (const auto& e : fs::directory_iterator(flat)) {
        const auto name = e.path().filename().string();
        if (name.rfind("nccl_trace_rank_", 0) == 0) {
            fs::rename(e.path(), root / "fr" / name);
        } else if (name.rfind("rank", 0) == 0) {
            // torchrun-style logs/<rank>/stderr.log; rank 5's log lost its NCCL init line, so only the folder
            // says whose it is
            const auto rank = name.substr(4, name.size() - 8);
            fs::create_directories(root / "logs" / rank);
            auto text = readFile(e.path());
            if (rank == "5") {
                const auto at = text.find("Init COMPLETE");
                const auto lineStart = text.rfind('\n', at) + 1;
                text.erase(lineStart, text.find('\n', at) + 1 - lineStart);
            }
            writeFile(root / "logs" / rank / "stderr.log", text);
        } else if (name.rfind("counters-", 0) == 0) {
            fs::rename(e.path(), root / "counters" / name);
        } else {
            fs::rename(e.path(), root / "fabric" / name);
        }
    }
    REQUIRE(std::system(("gzip " + (root / "fabric" / "ibnetdiscover.txt").string()).c_str()) == 0);
    writeFile(root / ".cache" / "nccl_trace_rank_99", "not read: hidden folder");
    auto r = openJob(root.string());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& s = *r->snapshot;
    CHECK(s.job.worldSize == 64);
    CHECK(s.topology.hcaCount() == 64); // from the gzipped ibnetdiscover output
    REQUIRE(s.ranks[5].hcaNode.has_value()); // rank 5 placed by its folder name
    const auto result = analyze(s);
    REQUIRE(result.incidents.size() == 1);
    REQUIRE(result.incidents[0].culprit.has_value());
    CHECK(sameLink(*result.incidents[0].culprit, *sim.snapshot, sim.outages.at(0).link));
}

TEST_CASE("raw folder: profiler traces without Flight Recorder dumps", "[core][import][roundtrip][kineto]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(scenario(8, 240 * kNsPerSec, "flap:host-leaf:rank=37:at=100s:for=2s"));
    RawWriteOptions options;
    options.flightRecorder = false;
    options.kineto = true;
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw"), options).empty());
    auto r = openJob(tmp.str("raw"));
    REQUIRE(r.ok());
    CHECK_THAT(r->recognised.front(), Catch::Contains("64 profiler traces"));
    const auto result = analyze(*r->snapshot);
    REQUIRE(result.incidents.size() == 1);
    REQUIRE(result.incidents[0].culprit.has_value());
    CHECK(sameLink(*result.incidents[0].culprit, *sim.snapshot, sim.outages.at(0).link));
}

TEST_CASE("raw folder: OpenSM traps time a leaf-spine flap the 30 s switch counters only bracket",
    "[core][import][roundtrip]")
{
    TempDir tmp;
    auto c = scenario(8, 240 * kNsPerSec, "flap:leaf-spine:leaf=2:spine=1:at=100s:for=3s:ar=off");
    c.counterIntervalNs = 30 * kNsPerSec;
    const auto sim = simulateOrFail(c);
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    auto r = openJob(tmp.str("raw"));
    REQUIRE(r.ok());
    const auto& s = *r->snapshot;
    const auto& truthLink = sim.snapshot->topology.link(sim.outages.at(0).link);
    const auto leafGuid = sim.snapshot->topology.node(truthLink.a.node).guid;
    std::vector<const LinkEvent*> traps;
    for (const auto& e : s.linkEvents) {
        if (s.str(e.source) == "opensm trap") {
            traps.push_back(&e);
        }
    }
    REQUIRE(traps.size() == 4); // down and up, from the switches at both ends
    for (const auto* e : traps) {
        CHECK((e->guid == leafGuid ? e->port == truthLink.a.port : e->port == truthLink.b.port));
    }
    CHECK(traps[0]->state == LinkState::Down);
    CHECK(std::llabs(traps[0]->timeNs - sim.outages[0].downNs) < kNsPerSec);
    CHECK(traps.back()->state == LinkState::Up);
    CHECK(std::llabs(traps.back()->timeNs - sim.outages[0].upNs) < kNsPerSec);
    const auto result = analyze(s);
    REQUIRE_FALSE(result.incidents.empty());
    REQUIRE(result.incidents[0].culprit.has_value());
    CHECK(sameLink(*result.incidents[0].culprit, *sim.snapshot, sim.outages.at(0).link));
}

TEST_CASE("raw folder without rank logs: the link is named on its own evidence, a dead rank still blames none",
    "[core][import][roundtrip]")
{
    namespace fs = std::filesystem;
    TempDir tmp;
    auto dropLogs = [](const fs::path& dir) {
        for (const auto& e : fs::directory_iterator(dir)) {
            if (e.path().extension() == ".log" && e.path().filename().string().rfind("rank", 0) == 0) {
                fs::remove(e.path());
            }
        }
    };
    const auto flap = simulateOrFail(scenario(8, 240 * kNsPerSec, "flap:host-leaf:rank=37:at=100s:for=2s"));
    REQUIRE(writeRawFolder(*flap.snapshot, tmp.str("flap")).empty());
    dropLogs(tmp.path() / "flap");
    auto r = openJob(tmp.str("flap"));
    REQUIRE(r.ok());
    CHECK_FALSE(r->snapshot->ranks[37].hcaNode.has_value());
    const auto result = analyze(*r->snapshot);
    REQUIRE(result.incidents.size() == 1);
    REQUIRE(result.incidents[0].culprit.has_value());
    CHECK(sameLink(*result.incidents[0].culprit, *flap.snapshot, flap.outages.at(0).link));
    CHECK(result.incidents[0].culprit->confidence != "high"); // the job's paths are unknown

    const auto dead = simulateOrFail(scenario(8, 14 * 60 * kNsPerSec, "dead-rank:rank=21:at=90s"));
    REQUIRE(writeRawFolder(*dead.snapshot, tmp.str("dead")).empty());
    dropLogs(tmp.path() / "dead");
    auto d = openJob(tmp.str("dead"));
    REQUIRE(d.ok());
    for (const auto& inc : analyze(*d->snapshot).incidents) {
        CHECK_FALSE(inc.culprit.has_value());
    }
}

TEST_CASE("raw folder: node_exporter scrapes over time give a host port's down and up", "[core][import][roundtrip]")
{
    TempDir tmp;
    auto sim = simulateOrFail(scenario(8, 120 * kNsPerSec, "flap:host-leaf:rank=10:at=60s:for=2s"));
    const auto dir = tmp.path() / "raw";
    REQUIRE(writeRawFolder(*sim.snapshot, dir.string(), RawWriteOptions {}).empty());
    std::filesystem::copy_file(
        std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "prometheus/node-exporter-state-scrapes.prom",
        dir / "gpu-a001.prom");
    auto r = openJob(dir.string());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& snap = *r->snapshot;
    const auto hca = snap.topology.findNodeByGuid(snap.topology.node(*snap.ranks[10].hcaNode).guid);
    REQUIRE(hca);
    std::vector<const LinkEvent*> fromScrapes;
    for (const auto& e : snap.linkEvents) {
        if (snap.str(e.source) == "node_exporter") {
            fromScrapes.push_back(&e);
        }
    }
    // gpu-a001 mlx5_2 (rank 10): DOWN in the scrape at 1793491261, ACTIVE again at 1793491262; mlx5_0 never moved.
    REQUIRE(fromScrapes.size() == 2);
    CHECK(fromScrapes[0]->state == LinkState::Down);
    CHECK(fromScrapes[0]->timeNs == 1793491261LL * kNsPerSec);
    CHECK(fromScrapes[1]->state == LinkState::Up);
    CHECK(fromScrapes[0]->guid == snap.topology.node(*hca).guid);
}

TEST_CASE("raw folder: watchdog lines without a time (older c10 prefix) are placed by their sequence number",
    "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto c = scenario(8, 14 * 60 * kNsPerSec, "flap:host-leaf:rank=20:at=100s:for=45s");
    const auto sim = simulateOrFail(c);
    const auto dir = tmp.str("raw");
    REQUIRE(writeRawFolder(*sim.snapshot, dir, {}).empty());
    auto timed = openJob(dir);
    REQUIRE(timed.ok());
    // PyTorch before 2.2 printed "[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught ...": no time, no prefix.
    const std::regex c10Prefix(R"(\[rank\d+\]:\[E\d{4} [^\]]*\] )");
    int rewritten = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".log") {
            continue;
        }
        const auto text = readFile(entry.path().string());
        const auto older = std::regex_replace(text, c10Prefix, "[E ProcessGroupNCCL.cpp:737] ");
        rewritten += older != text;
        std::ofstream(entry.path(), std::ios::trunc) << older;
    }
    REQUIRE(rewritten > 0);
    auto untimed = openJob(dir);
    REQUIRE(untimed.ok());
    const auto& a = *timed->snapshot;
    const auto& b = *untimed->snapshot;
    REQUIRE(a.collectives.size() == b.collectives.size());
    std::size_t timedOut = 0;
    for (std::size_t r = 0; r < a.collectives.size(); ++r) {
        const auto& ca = a.collectives[r];
        const auto& cb = b.collectives[r];
        REQUIRE(ca.size() == cb.size());
        for (std::size_t i = 0; i < ca.size(); ++i) {
            CHECK(ca.stateAt(i) == cb.stateAt(i));
            if (ca.stateAt(i) == CollectiveState::TimedOut) {
                ++timedOut;
                CHECK(std::abs(ca.endNs[i] - cb.endNs[i]) < kNsPerMs); // "ran for" is in whole milliseconds
            }
        }
    }
    CHECK(timedOut > 0);
}

TEST_CASE("raw folder: a killed rank that left no dump and no log is named by Slurm's task fates",
    "[core][import][roundtrip]")
{
    TempDir tmp;
    const auto c = scenario(8, 14 * 60 * kNsPerSec, "dead-rank:rank=21:at=90s");
    const auto sim = simulateOrFail(c);
    const auto dir = tmp.str("raw");
    REQUIRE(writeRawFolder(*sim.snapshot, dir, {}).empty());
    REQUIRE(std::filesystem::exists(dir + "/slurm-job.out"));
    // A process killed by SIGKILL writes no Flight Recorder dump, and its log holds nothing about its end.
    std::filesystem::remove(dir + "/nccl_trace_rank_21");
    std::filesystem::remove(dir + "/rank21.log");
    auto withSlurm = openJob(dir);
    REQUIRE(withSlurm.ok());
    const auto result = analyze(*withSlurm->snapshot);
    REQUIRE_FALSE(result.incidents.empty());
    const auto& inc = result.incidents[0];
    INFO(inc.summary);
    CHECK(inc.kind == IncidentKind::DeadRank);
    CHECK_FALSE(inc.culprit.has_value());
    REQUIRE(inc.killedRank.has_value());
    CHECK(*inc.killedRank == 21);
    REQUIRE_FALSE(inc.suspectRanks.empty());
    CHECK(inc.suspectRanks.front() == 21);
    CHECK_THAT(inc.summary, Catch::Contains("rank 21") && Catch::Contains("killed (signal 9)"));
    REQUIRE_FALSE(inc.hostEvidence.empty());
    CHECK_THAT(inc.hostEvidence.front().what, Catch::Contains("task 21: Killed") && Catch::Contains("[slurm]"));
    const auto listed = std::any_of(withSlurm->recognised.begin(), withSlurm->recognised.end(),
        [](const std::string& s) { return s.find("slurm-job.out: host log") != std::string::npos; });
    CHECK(listed);

    // Without Slurm's account the dumps still show rank 21 missing (the world size comes from the other ranks'
    // communicator lines), but nothing says how it ended: Slurm's file is what the story and the evidence come from.
    std::filesystem::remove(dir + "/slurm-job.out");
    auto without = openJob(dir);
    REQUIRE(without.ok());
    const auto blind = analyze(*without->snapshot);
    REQUIRE_FALSE(blind.incidents.empty());
    CHECK_FALSE(blind.incidents[0].killedRank.has_value());
    CHECK(blind.incidents[0].hostEvidence.empty());
    CHECK_THAT(blind.incidents[0].summary, !Catch::Contains("Slurm"));
}

TEST_CASE("raw folder: process groups per pod come back from dumps and traces with their members and sequence numbers",
    "[core][import][roundtrip]")
{
    auto c = scenario(32, 180 * kNsPerSec, "flap:leaf-spine:pod=2:leaf=5:spine=1:at=70500ms:for=2s:ar=on");
    c.pods = 4;
    c.spines = 2;
    c.cores = 2;
    c.podGroups = true;
    c.bucketBytes = 2ULL << 30;
    const auto sim = simulateOrFail(c);
    REQUIRE(sim.stalls.size() == 1);
    REQUIRE(sim.stalls[0].group == 3); // the flap lands in pod 2's own group
    for (const bool traces : { false, true }) {
        INFO((traces ? "profiler traces" : "pickle dumps"));
        TempDir tmp;
        RawWriteOptions options;
        options.pickle = !traces;
        options.flightRecorder = !traces;
        options.kineto = traces;
        REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw"), options).empty());
        auto r = openJob(tmp.str("raw"));
        INFO((r ? "" : r.error().format()));
        REQUIRE(r.ok());
        const auto& s = *r->snapshot;
        REQUIRE(s.groups.size() == 5);
        for (const auto& g : sim.snapshot->groups) {
            const auto it = std::find_if(s.groups.begin(), s.groups.end(),
                [&](const ProcessGroup& x) { return s.str(x.name) == sim.snapshot->str(g.name); });
            REQUIRE(it != s.groups.end());
            CHECK(it->ranks == g.ranks);
        }
        CHECK(s.collectiveCount() == sim.snapshot->collectiveCount());
        const auto result = analyze(s);
        REQUIRE(result.incidents.size() == 1);
        const auto& inc = result.incidents[0];
        CHECK(s.str(s.groups[inc.group].name) == "3");
        CHECK(inc.seq == sim.stalls[0].seq);
        CHECK(inc.ranksAffected == 256); // the other pods held in the next global collective
        CHECK(inc.heldRanks == 192);
        const auto text = analysisText(s, result);
        CHECK(text.find("pg 3 (pod2_shard, 64 ranks) seq") != std::string::npos);
        CHECK(text.find("192 ranks of other groups waited for it") != std::string::npos);
        REQUIRE(inc.culprit.has_value());
        CHECK(sameLink(*inc.culprit, *sim.snapshot, sim.outages.at(0).link));
    }
}

TEST_CASE(
    "raw folder written by shards of the hosts is the folder one process writes, file for file", "[core][sim][shard]")
{
    // 16 hosts, a dead rank (Slurm's task fates in the scheduler output), node files and profiler traces: every kind
    // of file the writer makes, per host and per folder.
    const auto sim = simulateOrFail(scenario(16, 90 * kNsPerSec, "dead-rank:rank=37:at=40s"));
    TempDir tmp;
    RawWriteOptions options;
    options.nodeFiles = true;
    options.kineto = true;
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("one"), options).empty());
    const auto filesOf = [](const std::filesystem::path& dir) {
        std::map<std::string, std::string> files;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
            if (e.is_regular_file()) {
                files[std::filesystem::relative(e.path(), dir).string()] = readFile(e.path());
            }
        }
        return files;
    };
    std::set<std::string> seenHosts;
    for (std::uint32_t k = 0; k < 3; ++k) {
        auto part = options;
        part.shard = k;
        part.shards = 3;
        const auto hosts = shardHosts(*sim.snapshot, k, 3);
        CHECK(hosts.size() >= 5); // 16 hosts in runs of 5 or 6
        for (const auto& h : hosts) {
            CHECK(seenHosts.insert(h).second); // each host in one shard
        }
        REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("shard" + std::to_string(k)), part).empty());
        REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("together"), part).empty());
    }
    CHECK(seenHosts.size() == 16);
    const auto one = filesOf(tmp.path() / "one");
    CHECK(filesOf(tmp.path() / "together") == one);
    // A shard other than the first writes only its hosts' files: its rank logs are its hosts' ranks, no fabric files.
    const auto second = filesOf(tmp.path() / "shard1");
    CHECK(second.count("ibnetdiscover.txt") == 0);
    CHECK(second.count("switch-counters.prom") == 0);
    CHECK(filesOf(tmp.path() / "shard0").count("ibnetdiscover.txt") == 1);
    const auto hosts1 = shardHosts(*sim.snapshot, 1, 3);
    std::size_t logs = 0;
    for (std::uint32_t r = 0; r < sim.snapshot->ranks.size(); ++r) {
        const bool mine = hosts1.count(std::string(sim.snapshot->str(sim.snapshot->ranks[r].host))) > 0;
        const bool has = second.count("rank" + std::to_string(r) + ".log") > 0;
        CHECK(mine == has);
        logs += has;
    }
    CHECK(logs == hosts1.size() * 8);
    CHECK(second.size() < one.size() / 2);
}
