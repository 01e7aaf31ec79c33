// SPDX-License-Identifier: MIT
// Analysis pieces: counter windows across saturation and resets, policy verdicts, output formats.
#include "analysis/analysis.h"
#include "analysis/incident_frame.h"
#include "analysis/internal.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <thread>

using namespace stallscope;
using namespace stallscope::test;

namespace {

CounterSeries series(const std::vector<TimeNs>& t, const std::vector<std::uint8_t>& v)
{
    CounterSeries s;
    s.bits = 8;
    s.storageBytes = 1;
    s.timesNs = t;
    s.values = v.data();
    return s;
}

} // namespace

TEST_CASE("counter increases over a window handle resets and saturation", "[core][analysis]")
{
    const std::vector<TimeNs> t = { 0, 10, 20, 30, 40, 50 };
    SECTION("a plain +1 in the sample (10, 20]")
    {
        const std::vector<std::uint8_t> v = { 3, 3, 4, 4, 4, 4 };
        const auto w = analysis::increaseIn(series(t, v), 12, 18);
        CHECK(w.increase == 1);
        CHECK(w.firstFrom == 10);
        CHECK(w.firstTo == 20);
    }
    SECTION("a reset to 0 then +1 counts as +1, not as a wrap")
    {
        const std::vector<std::uint8_t> v = { 200, 200, 1, 1, 1, 1 };
        const auto w = analysis::increaseIn(series(t, v), 0, 50);
        CHECK(w.increase == 1);
        CHECK(w.reset);
    }
    SECTION("stuck at 255: no visible increase, flagged saturated")
    {
        const std::vector<std::uint8_t> v = { 255, 255, 255, 255, 255, 255 };
        const auto w = analysis::increaseIn(series(t, v), 0, 50);
        CHECK(w.increase == 0);
        CHECK(w.saturated);
    }
    SECTION("a window outside the data")
    {
        const std::vector<std::uint8_t> v = { 1, 2, 3, 4, 5, 6 };
        CHECK(analysis::increaseIn(series(t, v), 100, 200).increase == 0);
    }
}

TEST_CASE("a flap under the budget is priced as a stall, over it as a crash", "[core][analysis]")
{
    auto c = tinyConfig();
    const auto sim = simulateOrFail(c);
    const auto r = analyze(*sim.snapshot);
    REQUIRE(r.incidents.size() == 1);
    const auto& inc = r.incidents[0];
    CHECK(inc.number == 1);
    CHECK(inc.kind == IncidentKind::LinkFlap);
    CHECK(inc.policy.outageSource == "link events");
    CHECK(std::llabs(inc.policy.outageNs - 2 * kNsPerSec) < 10 * kNsPerMs);
    CHECK(inc.policy.underBudget);
    CHECK(inc.policy.crashGpuSeconds == 0);
    CHECK(inc.policy.costPerDayIfHourlyGpuHours == Approx(inc.policy.totalGpuSeconds * 24 / 3600));
    // What-if: the same 2 s outage crashes at NCCL_IB_TIMEOUT=14 (0.47 s budget) and stalls at 20.
    bool crashAt14 = false, stallAt20 = false;
    for (const auto& row : inc.policy.whatIf) {
        if (row.outageNs == inc.policy.outageNs) {
            crashAt14 = crashAt14 || (row.ncclIbTimeout == 14 && row.crash);
            stallAt20 = stallAt20 || (row.ncclIbTimeout == 20 && !row.crash && row.stallNs == 4096LL << 20);
        }
    }
    CHECK(crashAt14);
    CHECK(stallAt20);
    CHECK(r.whyPassed.applicable);
    CHECK(r.whyPassed.chancePerCheck == Approx(62.0 / 3600).epsilon(0.01));
    CHECK(r.whyPassed.dipRawPercent > 90);
    CHECK(r.whyPassed.dip1MinPercent > 1);
    CHECK(r.whyPassed.dip1MinPercent < 20);
    // The fabric index's 1 s bins, which the analysis hands it, are the bins it sums itself.
    {
        const analysis::FabricIndex fabric(*sim.snapshot);
        REQUIRE_FALSE(fabric.hostBytesPerSecond().empty());
        const auto own = analysis::whyItPassed(*sim.snapshot, r.incidents, AnalysisOptions {});
        CHECK(own.dipRawPercent == r.whyPassed.dipRawPercent);
        CHECK(own.dip1MinPercent == r.whyPassed.dip1MinPercent);
        CHECK(own.dip5MinPercent == r.whyPassed.dip5MinPercent);
        CHECK(fabric.hostBytesPerSecond()
            == analysis::hostTrafficBins(
                *sim.snapshot, sim.snapshot->job.span.start, kNsPerSec, fabric.hostBytesPerSecond().size()));
    }

    c.faults[0].durationNs = 45 * kNsPerSec;
    c.durationNs = 14 * 60 * kNsPerSec;
    const auto crash = analyze(*simulateOrFail(c).snapshot);
    REQUIRE(crash.incidents.size() == 1);
    const auto& ci = crash.incidents[0];
    CHECK(ci.jobCrashed);
    CHECK_FALSE(ci.policy.underBudget);
    CHECK(ci.policy.crashGpuSeconds > 0);
    CHECK(ci.firstFailedRanks.size() == 3);
    CHECK(ci.suspectRanks == ci.firstFailedRanks);
    CHECK(ci.timedOutRanks == 61);
}

TEST_CASE(
    "a counter series sampled nanoseconds apart in a month-long job does not size the traffic bins", "[core][analysis]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto r = analyze(*sim.snapshot);
    REQUIRE(r.whyPassed.applicable);
    // The first host's data counter as a broken file would have it: two samples 1 ns apart (an interval of 1 ns),
    // in a job stretched to 30 days. A bin per nanosecond would be 2.6e15 doubles.
    JobSnapshot snap = *sim.snapshot;
    const std::vector<TimeNs> times = { snap.job.span.start, snap.job.span.start + 1 };
    const std::vector<std::uint8_t> values = { 1, 2 };
    auto first = std::find_if(snap.counters.begin(), snap.counters.end(), [&](const CounterSeries& s) {
        const auto& p = snap.counterPorts[s.port];
        return s.kind == CounterKind::PortXmitData && p.node && snap.topology.node(*p.node).kind == NodeKind::Hca;
    });
    REQUIRE(first != snap.counters.end());
    const auto port = first->port;
    *first = series(times, values);
    first->port = port;
    first->kind = CounterKind::PortXmitData;
    snap.job.span.end = snap.job.span.start + 30 * 86400 * kNsPerSec;
    const auto w = analysis::whyItPassed(snap, r.incidents, AnalysisOptions {});
    CHECK(w.applicable);
    CHECK(w.dipRawPercent <= 100);
    CHECK(w.dip1MinPercent <= 100);
}

TEST_CASE("matching reports its progress through both passes, never going back", "[core][analysis]")
{
    auto config = tinyConfig();
    config.hosts = 64; // 512 ranks: several reports per pass from the caller's slice
    const auto sim = simulateOrFail(config);
    struct Fractions : Progress
    {
        std::vector<double> seen;
        void report(std::string_view stage, std::uint64_t done, std::uint64_t total) override
        {
            if (stage == "Matching collectives across ranks" && total > 0) {
                seen.push_back(double(done) / double(total));
            }
        }
        bool cancelled() const override { return false; }
    };
    for (const unsigned parts : { 1u, 2u }) {
        Fractions progress;
        analysis::matchCollectives(*sim.snapshot, progress, parts);
        INFO(parts << " slices");
        REQUIRE(progress.seen.size() >= 8);
        CHECK(std::is_sorted(progress.seen.begin(), progress.seen.end()));
        CHECK(progress.seen.front() == 0.0);
        // The first pass, which reads the sequence numbers, reports too: the stage does not stand still over it.
        CHECK(std::count_if(progress.seen.begin(), progress.seen.end(), [](double f) { return f < 1.0 / 6; }) >= 4);
        CHECK(progress.seen.back() > 0.75); // the last report of the caller's slice, 64 ranks before its end
        CHECK(progress.seen.back() < 1.0);
    }
}

TEST_CASE("attributing an incident to the fabric reports progress as its links are scored", "[core][analysis]")
{
    auto config = tinyConfig();
    config.hosts = 64; // 512 ranks, some 600 links: several reports from the caller's slice
    const auto sim = simulateOrFail(config);
    struct Seen : Progress
    {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> reports;
        bool otherThread = false;
        std::thread::id caller = std::this_thread::get_id();
        void report(std::string_view stage, std::uint64_t done, std::uint64_t total) override
        {
            if (stage == "Attributing to the fabric") {
                reports.emplace_back(done, total);
                otherThread = otherThread || std::this_thread::get_id() != caller;
            }
        }
        bool cancelled() const override { return false; }
    } seen;
    const auto r = analyze(*sim.snapshot, AnalysisOptions {}, seen);
    REQUIRE(r.incidents.size() == 1);
    REQUIRE(seen.reports.size() >= 3);
    CHECK_FALSE(seen.otherThread);
    const auto total = seen.reports.front().second;
    CHECK(std::all_of(seen.reports.begin(), seen.reports.end(), [&](const auto& p) { return p.second == total; }));
    CHECK(std::is_sorted(seen.reports.begin(), seen.reports.end()));
    CHECK(seen.reports.back().first == total);
    // Within the one incident, not only before and after it.
    CHECK(std::count_if(seen.reports.begin(), seen.reports.end(), [&](const auto& p) {
        return p.first > 0 && p.first < total;
    }) >= 1);
}

TEST_CASE("collectives matched in slices of ranks side by side are matched as in one pass", "[core][analysis]")
{
    // A crash (failed, timed-out and scheduled records), clock skew, and ranks whose arrivals tie.
    auto config = tinyConfig();
    config.faults[0].durationNs = 45 * kNsPerSec;
    const auto sim = simulateOrFail(config);
    NullProgress none;
    const auto one = analysis::matchCollectives(*sim.snapshot, none, 1);
    const auto fields = [](const CollectiveMatch& m) {
        return std::make_tuple(m.group, m.seq, m.shape, m.entered, m.completed, m.failed, m.timedOut, m.firstArrivalNs,
            m.lastArrivalNs, m.firstArriver, m.lastArriver, m.secondLastArrivalNs, m.firstEndNs, m.lastEndNs,
            m.minInsideNs, m.minInsideArrivalNs, m.firstFailureNs, m.firstFailedRank, m.lastGiveUpNs, m.meanArrivalNs);
    };
    REQUIRE(std::any_of(one.begin(), one.end(), [](const CollectiveMatch& m) { return m.failed > 0; }));
    for (const unsigned parts : { 2u, 3u, 7u }) {
        INFO(parts << " slices");
        const auto split = analysis::matchCollectives(*sim.snapshot, none, parts);
        REQUIRE(split.size() == one.size());
        for (std::size_t k = 0; k < one.size(); ++k) {
            INFO("match " << k);
            REQUIRE(fields(split[k]) == fields(one[k]));
        }
    }
    // Ties across slices: ranks 1 and 3 arrive first together, 0 and 2 last together; one pass names the lower rank.
    JobSnapshot tied;
    tied.job.worldSize = 4;
    tied.groups.push_back({});
    tied.shapes.push_back({ 0, CollectiveOp::AllReduce, 1024 });
    auto owned = std::make_shared<OwnedColumns>();
    owned->ranks.resize(4);
    for (std::uint32_t r = 0; r < 4; ++r) {
        const TimeNs arrival = r % 2 == 0 ? 500 : 100;
        owned->ranks[r].push(arrival - 10, arrival, 900 + r, 1, 0, CollectiveState::Completed);
    }
    attachOwnedColumns(tied, owned, {});
    const auto whole = analysis::matchCollectives(tied, none, 1);
    const auto halves = analysis::matchCollectives(tied, none, 2);
    REQUIRE(whole.size() == 1);
    REQUIRE(halves.size() == 1);
    CHECK(whole[0].firstArriver == 1);
    CHECK(whole[0].lastArriver == 0);
    CHECK(fields(halves[0]) == fields(whole[0]));
}

TEST_CASE("matching finds every group's sequence numbers however a rank interleaves its groups", "[core][analysis]")
{
    // Three groups; each rank enqueues on them in runs, one group split over several runs, sequence numbers going
    // back inside a run, and one rank missing a collective that the others have.
    JobSnapshot snap;
    snap.job.worldSize = 4;
    snap.groups.resize(3);
    snap.shapes = { { 0, CollectiveOp::AllReduce, 1024 }, { 1, CollectiveOp::AllGather, 64 },
        { 2, CollectiveOp::Broadcast, 8 }, { 0, CollectiveOp::ReduceScatter, 512 } };
    struct Call
    {
        std::uint16_t shape;
        std::uint32_t seq;
    };
    const std::vector<Call> calls { { 0, 7 }, { 3, 4 }, { 0, 9 }, { 1, 100 }, { 1, 101 }, { 2, 3 }, { 0, 5 }, { 1, 99 },
        { 2, 2 } };
    auto owned = std::make_shared<OwnedColumns>();
    owned->ranks.resize(4);
    std::map<std::pair<std::uint16_t, std::uint32_t>, std::uint32_t> expected; // (group, seq) → ranks that entered
    for (std::uint32_t r = 0; r < 4; ++r) {
        TimeNs t = 1000 + r;
        for (const auto& call : calls) {
            if (r == 2 && call.seq == 100) {
                continue;
            }
            owned->ranks[r].push(t, t + 5, t + 50, call.seq, call.shape, CollectiveState::Completed);
            ++expected[{ snap.shapes[call.shape].group, call.seq }];
            t += 100;
        }
    }
    attachOwnedColumns(snap, owned, {});
    NullProgress none;
    for (const unsigned parts : { 1u, 2u }) {
        INFO(parts << " slices");
        const auto matches = analysis::matchCollectives(snap, none, parts);
        std::map<std::pair<std::uint16_t, std::uint32_t>, std::uint32_t> found;
        for (const auto& m : matches) {
            CHECK(snap.shapes[m.shape].group == m.group);
            found[{ m.group, m.seq }] = m.entered;
        }
        CHECK(found == expected);
    }
}

TEST_CASE("analysis output: text for people, versioned JSON", "[core][analysis]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto& snap = *sim.snapshot;
    const auto r = analyze(snap);
    const auto text = analysisText(snap, r);
    CHECK_THAT(text,
        Catch::Contains("1 incident(s)") && Catch::Contains("link_flap") && Catch::Contains("gpu-a004 mlx5_5")
            && Catch::Contains("Why nothing caught it"));
    const auto j = nlohmann::json::parse(analysisJson(snap, r));
    CHECK(j["schema"] == "stallscope.analysis/1");
    const auto& inc = j["incidents"][0];
    for (const char* key : { "kind", "start_ns", "end_ns", "ranks_affected", "collective", "culprit_link",
             "suspect_ranks", "gpu_seconds_lost", "job_crashed", "outage_ns", "retry_budget_ns", "under_budget" }) {
        INFO(key);
        CHECK(inc.contains(key));
    }
    CHECK(inc["collective"]["op"] == "all_reduce");
    CHECK(inc["culprit_link"]["endpoints"][0]["node"] == "gpu-a004 mlx5_5");
    CHECK(inc["culprit_link"]["endpoints"][1]["node"] == "leaf-r5");
    CHECK_FALSE(inc["culprit_link"]["evidence"].empty());
    // Deterministic: the same input gives the same JSON (but for the timing field).
    auto again = nlohmann::json::parse(analysisJson(snap, analyze(snap)));
    auto first = j;
    first.erase("seconds");
    again.erase("seconds");
    CHECK(first == again);
}

TEST_CASE("a healthy job has no incidents", "[core][analysis]")
{
    auto c = tinyConfig();
    c.faults.clear();
    const auto sim = simulateOrFail(c);
    const auto r = analyze(*sim.snapshot);
    CHECK(r.incidents.empty());
    CHECK_FALSE(r.whyPassed.applicable);
    CHECK(r.collectives.size() == sim.snapshot->collectives[0].size());
}

TEST_CASE("lateness: who arrived late against the median arrival", "[core][analysis]")
{
    auto c = tinyConfig();
    c.faults = { parseFaultSpec("slow-rank:rank=9:at=10s:factor=1.5").value() };
    const auto sim = simulateOrFail(c);
    const auto r = analyze(*sim.snapshot);
    const auto& m = r.collectives.at(r.collectives.size() / 2);
    const auto late = rankLateness(*sim.snapshot, m);
    REQUIRE(late.size() == 64);
    CHECK(m.lastArriver == 9);
    CHECK(late[9] > 200 * kNsPerMs); // computes 1.5x longer: ~0.45 s late at the last bucket
    for (std::uint32_t rank = 0; rank < 64; ++rank) {
        if (rank != 9) {
            CHECK(std::llabs(late[rank]) < 60 * kNsPerMs); // jitter and skew only
        }
    }
    REQUIRE(r.incidents.size() == 1);
    CHECK(r.incidents[0].kind == IncidentKind::Straggler);
    CHECK(r.incidents[0].suspectRanks == std::vector<std::uint32_t> { 9 });
}

namespace {

// 128 ranks in 4 pods of 4 hosts, 2 spines per pod, 2 core switches.
SimConfig fourPods()
{
    auto config = *presetConfig("small");
    config.hosts = 16;
    config.pods = 4;
    config.spines = 2;
    config.cores = 2;
    return config;
}

// fourPods() for 20 s without a fault: for questions about the fabric's shape.
auto quietFourPods()
{
    auto config = fourPods();
    config.durationNs = 20 * kNsPerSec;
    config.faults.clear();
    return simulateOrFail(config);
}

} // namespace

TEST_CASE("a core link is crossed by a group that spans pods, not by one inside a pod", "[core][analysis]")
{
    auto sim = quietFourPods();
    auto& snap = *sim.snapshot;
    // A second group: the 32 ranks of pod 0 (hosts 0..3), as tensor- or pipeline-parallel groups often are.
    ProcessGroup pod0 { snap.strings.intern("1"), snap.strings.intern("pod0"), {} };
    for (std::uint32_t r = 0; r < 32; ++r) {
        pod0.ranks.push_back(r);
    }
    snap.groups.push_back(pod0);
    const analysis::FabricIndex fabric(snap);
    const auto& topo = snap.topology;
    int coreLinks = 0, leafLinks = 0;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        const auto ta = topo.node(l.a.node).tier, tb = topo.node(l.b.node).tier;
        const auto id = static_cast<LinkId>(i);
        if (std::max(ta, tb) == 3) { // spine-core
            ++coreLinks;
            CHECK(fabric.crosses(id, snap.groups[0])); // the whole job spans pods
            CHECK_FALSE(fabric.crosses(id, snap.groups[1])); // pod 0's traffic never leaves it
        } else if (ta == 1 || tb == 1) {
            if (topo.node(l.a.node).kind == NodeKind::Switch && topo.node(l.b.node).kind == NodeKind::Switch) {
                ++leafLinks;
                const bool inPod0
                    = std::string(snap.str(topo.node(l.a.node).description)).find("-p0-") != std::string::npos;
                CHECK(fabric.crosses(id, snap.groups[1]) == inPod0); // rail leaves of pod 0 go up to its spines
            }
        }
    }
    CHECK(coreLinks == 4 * 2 * 2);
    CHECK(leafLinks == 4 * 8 * 2);
}

TEST_CASE("a remembered search of sample times finds what a fresh search finds", "[core][analysis]")
{
    const std::vector<TimeNs> times { 10, 20, 30, 40, 50 };
    const std::vector<TimeNs> other { 15, 25, 35 };
    analysis::SampleSearch search;
    for (int round = 0; round < 2; ++round) { // the second round answers from what the first remembered
        CHECK(search.lowerBound(times, 25) == 2);
        CHECK(search.lowerBound(times, 30) == 2);
        CHECK(search.lowerBound(times, 31) == 3);
        CHECK(search.lowerBound(other, 25) == 1); // the same time in other sample times
        CHECK(search.lowerBound(std::span(times).first(2), 31) == 2); // the same array, cut shorter
        CHECK(search.lowerBound(times, 5) == 0);
        CHECK(search.lowerBound(times, 99) == 5);
    }
    // Over a job's counters, every window of the analysis's sizes: the same increase with or without the search.
    const auto sim = simulateOrFail(tinyConfig());
    const auto& snap = *sim.snapshot;
    const auto start = snap.job.span.start;
    for (std::size_t i = 0; i < snap.counters.size(); i += 7) {
        const auto& s = snap.counters[i];
        for (const TimeNs from : { start, start + 61 * kNsPerSec, start + 90 * kNsPerSec + 1 }) {
            for (const TimeNs to : { from + kNsPerSec, from + 60 * kNsPerSec }) {
                const auto fresh = analysis::increaseIn(s, from, to);
                const auto remembered = analysis::increaseIn(s, from, to, &search);
                CHECK(remembered.increase == fresh.increase);
                CHECK(remembered.firstFrom == fresh.firstFrom);
            }
        }
    }
}

TEST_CASE("a switch link is crossed by two ranks exactly when one of them is below it", "[core][analysis]")
{
    auto sim = quietFourPods();
    auto& snap = *sim.snapshot;
    const auto& topo = snap.topology;
    // The HCAs below a switch found by walking down the cables from it, tier by tier.
    const auto hcasBelow = [&](NodeId top) {
        std::set<std::size_t> hcas;
        std::vector<NodeId> todo { top };
        while (!todo.empty()) {
            const auto n = todo.back();
            todo.pop_back();
            for (const auto& l : topo.links()) {
                for (const auto& [near, far] : { std::pair(l.a, l.b), std::pair(l.b, l.a) }) {
                    const auto& f = topo.node(far.node);
                    if (near.node != n) {
                        continue;
                    }
                    if (f.kind == NodeKind::Hca) {
                        hcas.insert(index(far.node));
                    } else if (f.tier < topo.node(n).tier) {
                        todo.push_back(far.node);
                    }
                }
            }
        }
        return hcas;
    };
    std::map<std::size_t, std::set<std::size_t>> below; // lower switch → its HCAs
    const std::vector<std::uint32_t> some { 0, 7, 8, 31, 32, 63, 64, 127 }; // hosts' first and last ranks, four pods
    for (std::size_t i = 0; i < some.size(); ++i) {
        for (std::size_t j = i + 1; j < some.size(); ++j) {
            const ProcessGroup pair { snap.strings.intern("p"), snap.strings.intern("pair"), { some[i], some[j] } };
            const analysis::FabricIndex fabric(snap);
            for (std::uint32_t k = 0; k < topo.links().size(); ++k) {
                const auto& l = topo.link(static_cast<LinkId>(k));
                if (topo.node(l.a.node).kind != NodeKind::Switch || topo.node(l.b.node).kind != NodeKind::Switch) {
                    continue;
                }
                const auto lower = topo.node(l.a.node).tier <= topo.node(l.b.node).tier ? l.a.node : l.b.node;
                auto it = below.find(index(lower));
                if (it == below.end()) {
                    it = below.emplace(index(lower), hcasBelow(lower)).first;
                }
                int inside = 0;
                for (const auto r : pair.ranks) {
                    inside += it->second.count(index(*snap.ranks[r].hcaNode));
                }
                INFO("ranks " << some[i] << " and " << some[j] << ", link " << k);
                CHECK(fabric.crosses(static_cast<LinkId>(k), pair) == (inside == 1));
            }
        }
    }
}

TEST_CASE("links whose only evidence is that traffic stopped, like every other, are not listed", "[core][analysis]")
{
    auto config = fourPods();
    config.durationNs = 3 * 60 * kNsPerSec;
    config.bucketBytes = 2ULL << 30;
    config.faults = { parseFaultSpec("flap:spine-core:pod=1:spine=1:core=0:at=60s:for=3s:ar=off").value() };
    const auto sim = simulateOrFail(config);
    const auto result = analyze(*sim.snapshot);
    REQUIRE_FALSE(result.incidents.empty());
    const auto& inc = result.incidents[0];
    REQUIRE(inc.culprit.has_value());
    for (const auto& other : inc.otherLinks) {
        INFO(other.a.node << " <-> " << other.b.node << " score " << other.score);
        CHECK((other.confidence != "none" || other.score > 2.0));
    }
}

TEST_CASE("with adaptive retransmission the cost and the what-if follow the job's own schedule", "[core][analysis]")
{
    auto c = *presetConfig("small");
    std::string error;
    c.policy.adaptive = *parseAdaptiveRetransmission("init=10..13,ranges=13..17x2,18..20x3", error);
    c.faults = { parseFaultSpec("flap:host-leaf:rank=5:at=100s:for=2s").value() };
    const auto sim = simulateOrFail(c);
    const auto result = analyze(*sim.snapshot);
    REQUIRE(result.incidents.size() == 1);
    const auto& p = result.incidents[0].policy;
    const auto schedule = c.policy.adaptive.retransmissions();
    CHECK(p.retryBudgetNs == schedule.back());
    REQUIRE_FALSE(p.whatIf.empty());
    // The job's profile first ("ADP"), then the fixed timer at each NCCL_IB_TIMEOUT; the measured outage first.
    CHECK(p.whatIf.front().adaptive);
    CHECK(p.whatIf.front().label() == "ADP");
    CHECK(p.whatIf.front().outageNs == 2 * kNsPerSec);
    CHECK(p.whatIf.front().stallNs == schedule[10]);
    bool fixed20 = false;
    for (const auto& row : p.whatIf) {
        if (!row.adaptive && row.ncclIbTimeout == 20 && row.outageNs == 2 * kNsPerSec) {
            fixed20 = true;
            CHECK(row.stallNs == TimeoutPolicy {}.retryPeriodNs());
        }
    }
    CHECK(fixed20);
    const auto text = analysisText(*sim.snapshot, result);
    CHECK(text.find("adaptive retransmission init=10..13,ranges=13..17x2,18..20x3") != std::string::npos);
    CHECK(text.find("               ADP (24.7s)") != std::string::npos);
}

TEST_CASE("an incident is framed by one rule: half its length either side, the cursor in the outage", "[core][analysis]")
{
    Incident inc;
    inc.startNs = 100 * kNsPerSec;
    inc.endNs = 110 * kNsPerSec;
    // No culprit: the window pads 5 s either side, the cursor a tenth of the way in, no link to plot.
    auto f = frameIncident(inc);
    CHECK(f.window == TimeRange { 95 * kNsPerSec, 115 * kNsPerSec });
    CHECK(f.cursorNs == 101 * kNsPerSec);
    CHECK_FALSE(f.link);
    // A short stall still gets 2 s either side.
    inc.endNs = inc.startNs + kNsPerSec;
    CHECK(frameIncident(inc).window == TimeRange { 98 * kNsPerSec, 103 * kNsPerSec });
    // A culprit whose down and up are known: the cursor in the middle of the outage, its link plotted.
    LinkVerdict c;
    c.link = static_cast<LinkId>(7);
    c.downNs = 100 * kNsPerSec;
    c.upNs = 102 * kNsPerSec;
    inc.culprit = c;
    f = frameIncident(inc);
    CHECK(f.cursorNs == 101 * kNsPerSec);
    REQUIRE(f.link);
    CHECK(*f.link == static_cast<LinkId>(7));
    // Only the down known: back to the tenth of the way in.
    inc.culprit->upNs = kNoTime;
    CHECK(frameIncident(inc).cursorNs == inc.startNs + kNsPerSec / 10);
}
