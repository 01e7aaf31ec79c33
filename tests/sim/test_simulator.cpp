// SPDX-License-Identifier: MIT
// The simulator's determinism and its physics against the timeout policy (docs/formats.md §6).
#include "bundle/writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace stallscope;
using namespace stallscope::test;

namespace {

// Index of the record with sequence number `seq` on rank r, or -1.
std::ptrdiff_t findSeq(const RankCollectives& c, std::uint32_t seq)
{
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (c.seq[i] == seq) {
            return static_cast<std::ptrdiff_t>(i);
        }
    }
    return -1;
}

// Total increase of a counter kind on one port (by GUID/port), over the whole series.
std::uint64_t increase(const JobSnapshot& s, std::uint64_t guid, std::uint16_t port, CounterKind kind)
{
    for (const auto& series : s.counters) {
        const auto& p = s.counterPorts[series.port];
        if (p.guid == guid && p.port == port && series.kind == kind) {
            return series.value(series.size() - 1) - series.value(0);
        }
    }
    FAIL("no such series");
    return 0;
}

std::uint64_t totalErrorIncrease(const JobSnapshot& s)
{
    std::uint64_t total = 0;
    for (const auto& series : s.counters) {
        if (series.kind == CounterKind::LinkDowned || series.kind == CounterKind::SymbolError
            || series.kind == CounterKind::PortRcvErrors || series.kind == CounterKind::LinkErrorRecovery
            || series.kind == CounterKind::PortXmitDiscards) {
            total += series.value(series.size() - 1) - series.value(0);
        }
    }
    return total;
}

std::size_t countState(const JobSnapshot& s, CollectiveState st)
{
    std::size_t n = 0;
    for (const auto& c : s.collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            n += c.stateAt(i) == st;
        }
    }
    return n;
}

} // namespace

TEST_CASE("the simulator is deterministic: same seed, same bytes", "[core][sim]")
{
    const auto config = tinyConfig();
    TempDir tmp;
    const auto a = simulateOrFail(config);
    const auto b = simulateOrFail(config);
    REQUIRE(writeBundle(*a.snapshot, tmp.str("a")).empty());
    REQUIRE(writeBundle(*b.snapshot, tmp.str("b")).empty());
    for (const auto* name :
        { "manifest.json", "collectives.bin", "counters.bin", "topology.json", "link_events.jsonl" }) {
        INFO(name);
        CHECK(readFile(tmp.path() / "a" / name) == readFile(tmp.path() / "b" / name));
    }
    CHECK(truthToJson(config, a) == truthToJson(config, b));

    auto other = config;
    other.seed = 2;
    const auto c = simulateOrFail(other);
    REQUIRE(writeBundle(*c.snapshot, tmp.str("c")).empty());
    CHECK(readFile(tmp.path() / "a" / "collectives.bin") != readFile(tmp.path() / "c" / "collectives.bin"));
}

TEST_CASE("a 2 s flap at NCCL_IB_TIMEOUT=20 stretches the collective on every rank and the job goes on", "[core][sim]")
{
    const auto config = tinyConfig();
    const auto sim = simulateOrFail(config);
    const auto& snap = *sim.snapshot;
    REQUIRE(sim.stalls.size() == 1);
    REQUIRE_FALSE(sim.crashNs.has_value());
    const auto& stall = sim.stalls[0];
    const TimeNs outage = config.faults[0].durationNs;
    const TimeNs period = config.policy.retryPeriodNs();
    CHECK(stall.endNs - stall.startNs >= outage);
    CHECK(stall.endNs - stall.startNs <= outage + period);
    CHECK(stall.ranksAffected == snap.job.worldSize);

    for (std::uint32_t r = 0; r < snap.job.worldSize; ++r) {
        const auto& c = snap.collectives[r];
        const auto i = findSeq(c, stall.seq);
        REQUIRE(i >= 0);
        REQUIRE(c.stateAt(i) == CollectiveState::Completed);
        const TimeNs inside = c.endNs[i] - c.startNs[i];
        // A normal collective of this size takes ~9 ms; this one spans the outage plus at most one period.
        const auto normal = c.endNs[i - 1] - c.startNs[i - 1];
        REQUIRE(normal < 100 * kNsPerMs);
        REQUIRE(inside >= outage);
        REQUIRE(inside <= outage + period + 1 * kNsPerSec);
        // The job went on: later collectives completed.
        REQUIRE(static_cast<std::size_t>(i) + 10 < c.size());
        REQUIRE(c.stateAt(c.size() - 1) == CollectiveState::Completed);
    }
    CHECK(countState(snap, CollectiveState::Failed) == 0);
    CHECK(countState(snap, CollectiveState::TimedOut) == 0);

    SECTION("link_downed goes +1 at both ends of the flapped link and nowhere else")
    {
        const auto& link = snap.topology.link(snap.ranks[config.faults[0].rank].hcaNode
                ? *snap.topology.linkAt({ *snap.ranks[config.faults[0].rank].hcaNode, 1 })
                : LinkId {});
        const auto guidA = snap.topology.node(link.a.node).guid;
        const auto guidB = snap.topology.node(link.b.node).guid;
        CHECK(increase(snap, guidA, link.a.port, CounterKind::LinkDowned) == 1);
        CHECK(increase(snap, guidB, link.b.port, CounterKind::LinkDowned) == 1);
        CHECK(increase(snap, guidA, link.a.port, CounterKind::SymbolError) >= 3);
        CHECK(increase(snap, guidB, link.b.port, CounterKind::PortXmitWait) > 1'000'000); // switch side queued
        std::uint64_t downedElsewhere = 0;
        for (const auto& s : snap.counters) {
            const auto& p = snap.counterPorts[s.port];
            const bool onLink
                = (p.guid == guidA && p.port == link.a.port) || (p.guid == guidB && p.port == link.b.port);
            if (!onLink && s.kind == CounterKind::LinkDowned) {
                downedElsewhere += s.value(s.size() - 1) - s.value(0);
            }
        }
        CHECK(downedElsewhere == 0);
        CHECK(snap.linkEvents.size() == 4); // down and up at both ends
    }

    SECTION("traffic stops on every link during the stall")
    {
        const auto& s = snap.counters[6]; // rank 0's HCA port_xmit_data (8 series per port, data at index 6)
        REQUIRE(s.kind == CounterKind::PortXmitData);
        int flatInside = 0;
        for (std::size_t k = 1; k < s.size(); ++k) {
            if (s.timesNs[k - 1] > stall.startNs + 10 * kNsPerMs && s.timesNs[k] < stall.endNs - 10 * kNsPerMs) {
                CHECK(s.value(k) == s.value(k - 1));
                ++flatInside;
            } else if (s.timesNs[k] < stall.startNs - 2 * kNsPerSec) {
                CHECK(s.value(k) > s.value(k - 1)); // traffic flows in normal seconds
            }
        }
        CHECK(flatInside >= 1);
    }
}

TEST_CASE("a 45 s flap exceeds the retry budget and fails the job", "[core][sim]")
{
    auto config = tinyConfig();
    config.durationNs = 15 * 60 * kNsPerSec;
    config.faults[0].durationNs = 45 * kNsPerSec;
    const auto sim = simulateOrFail(config);
    const auto& snap = *sim.snapshot;
    REQUIRE(sim.crashNs.has_value());
    REQUIRE(sim.stalls.size() == 1);
    CHECK(sim.stalls[0].crashed);
    // The ranks next to the link fail first, with transport-retry errors ~30 s after the outage began...
    CHECK(sim.failedRanks.size() == 3);
    CHECK(std::find(sim.failedRanks.begin(), sim.failedRanks.end(), config.faults[0].rank) != sim.failedRanks.end());
    CHECK(countState(snap, CollectiveState::Failed) == 3);
    const TimeNs budget = config.policy.retryBudgetNs();
    for (auto r : sim.failedRanks) {
        const auto& c = snap.collectives[r];
        const auto i = findSeq(c, sim.stalls[0].seq);
        REQUIRE(c.stateAt(i) == CollectiveState::Failed);
        const TimeNs failedAfter = c.endNs[i] - sim.stalls[0].startNs;
        CHECK(failedAfter >= budget - 10 * kNsPerMs);
        CHECK(failedAfter <= budget + 2 * kNsPerSec);
    }
    // ... and every other rank times out at the collective timeout.
    CHECK(countState(snap, CollectiveState::TimedOut) == snap.job.worldSize - 3);
    for (std::uint32_t r = 0; r < snap.job.worldSize; ++r) {
        const auto& c = snap.collectives[r];
        const auto i = findSeq(c, sim.stalls[0].seq);
        REQUIRE(i >= 0);
        if (c.stateAt(i) == CollectiveState::TimedOut) {
            CHECK(c.endNs[i] - c.enqueueNs[i] == config.policy.collectiveTimeoutNs);
        }
        for (std::size_t k = i + 1; k < c.size(); ++k) {
            CHECK(c.stateAt(k) == CollectiveState::Scheduled); // enqueued, never started
        }
    }
}

TEST_CASE("a dead rank hangs the job and shows no link counter errors anywhere", "[core][sim]")
{
    auto config = tinyConfig();
    config.durationNs = 15 * 60 * kNsPerSec;
    config.faults = { parseFaultSpec("dead-rank:rank=21:at=60s").value() };
    const auto sim = simulateOrFail(config);
    const auto& snap = *sim.snapshot;
    REQUIRE(sim.crashNs.has_value());
    CHECK(totalErrorIncrease(snap) == 0);
    CHECK(snap.linkEvents.empty());
    const auto seq = sim.stalls.at(0).seq;
    // The dead rank either never entered the collective or entered and never finished it.
    if (const auto i = findSeq(snap.collectives[21], seq); i >= 0) {
        CHECK(snap.collectives[21].stateAt(i) == CollectiveState::Started);
    }
    CHECK(countState(snap, CollectiveState::TimedOut) == snap.job.worldSize - 1);
    CHECK(countState(snap, CollectiveState::Failed) == 0);
}

TEST_CASE(
    "a leaf-spine flap costs one ACK timeout under adaptive routing, the route's repair without it", "[core][sim]")
{
    // docs/formats.md §6b: data in flight on the dying link is lost whatever the routing does; the QP learns
    // of it at its ACK timeout (4.096 us x 2^NCCL_IB_TIMEOUT) and retransmits over the new route.
    auto config = tinyConfig();
    config.durationNs = 10 * 60 * kNsPerSec;
    const TimeNs period = config.policy.retryPeriodNs();
    // A long outage, repeated so that some of its onsets fall inside a collective's data phase.
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=2:spine=1:at=60s:for=40s:every=53s:ar=on").value() };
    auto sim = simulateOrFail(config);
    REQUIRE_FALSE(sim.stalls.empty());
    for (const auto& o : sim.outages) {
        CHECK(o.recovery == Recovery::AdaptiveRouting);
        CHECK(o.trafficUpNs - o.downNs == config.arRerouteNs);
    }
    for (const auto& s : sim.stalls) {
        // One retry period however long the link stays down (40 s, past the 30 s budget), and no crash.
        CHECK(s.retries == 1);
        CHECK(s.endNs - s.startNs == period);
        CHECK_FALSE(s.crashed);
    }
    CHECK_FALSE(sim.crashNs.has_value());

    // Without AR the route moves when the subnet manager has rewritten the tables: whole retry periods.
    config.smRerouteNs = 9 * kNsPerSec;
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=2:spine=1:at=60s:for=40s:ar=off").value() };
    sim = simulateOrFail(config);
    REQUIRE(sim.outages.size() == 1);
    CHECK(sim.outages[0].recovery == Recovery::SubnetManager);
    REQUIRE(sim.stalls.size() == 1);
    const auto& s = sim.stalls[0];
    CHECK(s.endNs >= sim.outages[0].trafficUpNs);
    CHECK(s.endNs < sim.outages[0].upNs);
    CHECK((s.endNs - s.startNs) % period == 0);
    CHECK(s.retries == static_cast<std::uint32_t>((sim.outages[0].trafficUpNs - s.startNs + period - 1) / period));
    CHECK_FALSE(sim.crashNs.has_value());

    // A 2 s flap ends before the SM reroutes: the link itself comes back, then the next retry fires.
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=2:spine=1:at=60s:for=2s:ar=off").value() };
    sim = simulateOrFail(config);
    REQUIRE(sim.stalls.size() == 1);
    CHECK(sim.outages[0].recovery == Recovery::LinkUp);
    CHECK(sim.stalls[0].endNs >= sim.outages[0].upNs);
    CHECK(sim.stalls[0].endNs - sim.stalls[0].startNs >= kNsPerSec);

    // A reroute slower than the retry budget crashes the job.
    config.smRerouteNs = 40 * kNsPerSec;
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=2:spine=1:at=60s:for=60s:ar=off").value() };
    sim = simulateOrFail(config);
    CHECK(sim.crashNs.has_value());
}

TEST_CASE("a link that retrains without going down counts link_error_recovery and costs an ACK timeout", "[core][sim]")
{
    auto config = tinyConfig();
    config.durationNs = 5 * 60 * kNsPerSec;
    config.bucketBytes = 2ULL << 30; // long data phases, so that retrains land inside them
    config.faults = { parseFaultSpec("errors:host-leaf:rank=9:at=60s:count=6:gap=20s:pause=300ms").value() };
    const auto sim = simulateOrFail(config);
    const auto& snap = *sim.snapshot;
    REQUIRE(sim.outages.size() == 6);
    CHECK(snap.linkEvents.empty()); // the port never left Active: no trap, nothing in the SM's log
    const auto& link = snap.topology.link(sim.outages[0].link);
    for (const auto& end : { link.a, link.b }) {
        const auto guid = snap.topology.node(end.node).guid;
        CHECK(increase(snap, guid, end.port, CounterKind::LinkErrorRecovery) == 6);
        CHECK(increase(snap, guid, end.port, CounterKind::LinkDowned) == 0);
    }
    REQUIRE_FALSE(sim.stalls.empty());
    for (const auto& s : sim.stalls) {
        CHECK(s.endNs - s.startNs == config.policy.retryPeriodNs());
        CHECK_FALSE(s.crashed);
    }
    CHECK(parseFaultSpec("errors:host-leaf:rank=1:gap=100ms:pause=200ms").ok());
    auto bad = config;
    bad.faults = { parseFaultSpec("errors:host-leaf:rank=1:gap=100ms:pause=200ms").value() };
    CHECK_FALSE(validateConfig(bad).empty()); // pauses must be shorter than the gap between them
}

TEST_CASE("a slow rank makes everyone wait without link errors", "[core][sim]")
{
    auto config = tinyConfig();
    config.faults = { parseFaultSpec("slow-rank:rank=9:at=30s:factor=1.5").value() };
    const auto sim = simulateOrFail(config);
    const auto& snap = *sim.snapshot;
    CHECK(sim.stalls.empty());
    CHECK(totalErrorIncrease(snap) == 0);
    // After the slowdown, rank 9 arrives last at the step's first collective: others start earlier.
    const auto& slow = snap.collectives[9];
    const auto& fast = snap.collectives[8];
    const auto last = slow.size() - 5 * 3;
    CHECK(fast.startNs[last] < slow.startNs[last]);
}

namespace {

SimConfig podGroupConfig(const std::string& fault)
{
    auto c = *presetConfig("small");
    c.hosts = 32;
    c.pods = 4;
    c.spines = 2;
    c.cores = 2;
    c.podGroups = true;
    c.bucketBytes = 2ULL << 30;
    c.durationNs = 4 * 60 * kNsPerSec;
    c.faults = { parseFaultSpec(fault).value() };
    return c;
}

// Records of `group` whose data phase overlaps [a, b), and how many of them took over twice the usual time.
std::pair<int, int> recordsDuring(const JobSnapshot& snap, std::uint16_t group, TimeNs a, TimeNs b)
{
    int seen = 0, slow = 0;
    for (const auto& rank : snap.collectives) {
        for (std::size_t i = 0; i < rank.size(); ++i) {
            if (snap.shapes[rank.shape[i]].group != group || rank.startNs[i] == kNoTime || rank.endNs[i] == kNoTime
                || rank.endNs[i] <= a || rank.startNs[i] >= b) {
                continue;
            }
            ++seen;
            slow += rank.endNs[i] - rank.startNs[i] > 2 * 100 * kNsPerMs;
        }
    }
    return { seen, slow };
}

} // namespace

TEST_CASE("with pod groups a core link stalls only the collectives that cross pods, a pod's link its own pod's",
    "[core][sim]")
{
    SECTION("groups: the global one and one per pod, each numbering its collectives from 1")
    {
        const auto sim = simulateOrFail(podGroupConfig("flap:spine-core:pod=3:spine=0:core=1:at=70s:for=3s"));
        const auto& snap = *sim.snapshot;
        REQUIRE(snap.groups.size() == 5);
        CHECK(snap.groups[0].ranks.size() == 256);
        for (std::uint16_t g = 1; g < 5; ++g) {
            CHECK(snap.groups[g].ranks.size() == 64);
            CHECK(snap.groups[g].ranks.front() == (g - 1) * 64u);
        }
        const auto& r100 = snap.collectives[100]; // pod 1: groups 0 and 2 only, seqs 1, 2, 3 ... in each
        std::map<std::uint16_t, std::uint32_t> next { { 0, 1 }, { 2, 1 } };
        for (std::size_t i = 0; i < r100.size(); ++i) {
            const auto g = snap.shapes[r100.shape[i]].group;
            REQUIRE(next.count(g) == 1);
            CHECK(r100.seq[i] == next[g]++);
        }
        CHECK(next[2] * 2 >= next[0]); // two of five collectives per step are pod-local
    }
    SECTION("a core link: every stall is the global group's; pod-local collectives during the outage run normally")
    {
        const auto sim
            = simulateOrFail(podGroupConfig("flap:spine-core:pod=3:spine=0:core=1:at=70500ms:for=3s:every=33s:ar=off"));
        REQUIRE(sim.stalls.size() >= 4);
        int podLocalDuringOutage = 0;
        for (const auto& s : sim.stalls) {
            CHECK(s.group == 0);
            CHECK(s.ranksAffected == 256);
        }
        for (const auto& o : sim.outages) {
            for (std::uint16_t g = 1; g < 5; ++g) {
                const auto [seen, slow] = recordsDuring(*sim.snapshot, g, o.downNs, o.trafficUpNs);
                podLocalDuringOutage += seen;
                CHECK(slow == 0);
            }
        }
        CHECK(podLocalDuringOutage > 0); // the test means something: pod-local work did overlap an outage
    }
    SECTION("a pod's leaf-spine link stalls its pod's group or the global one, never another pod's")
    {
        const auto sim = simulateOrFail(
            podGroupConfig("flap:leaf-spine:pod=2:leaf=5:spine=1:at=70500ms:for=2s:every=23s:jitter=5s:ar=on"));
        int own = 0;
        for (const auto& s : sim.stalls) {
            CHECK((s.group == 0 || s.group == 3));
            own += s.group == 3;
            CHECK(s.ranksAffected == 256); // the other pods wait for it in the next global collective
        }
        CHECK(own > 0);
        for (const auto& o : sim.outages) {
            for (const std::uint16_t g : { 1, 2, 4 }) {
                CHECK(recordsDuring(*sim.snapshot, g, o.downNs, o.trafficUpNs).second == 0);
            }
        }
    }
    SECTION("a rank dying inside its pod's group: that group hangs, the other pods time out in the next global one")
    {
        const auto sim = simulateOrFail(podGroupConfig("dead-rank:rank=140:at=70500ms"));
        REQUIRE(sim.stalls.size() == 1);
        CHECK(sim.stalls[0].group == 3);
        CHECK(sim.stalls[0].crashed);
        const auto& snap = *sim.snapshot;
        const auto& other = snap.collectives[10]; // pod 0
        std::size_t timedOut = 0;
        for (std::size_t i = 0; i < other.size(); ++i) {
            if (other.stateAt(i) == CollectiveState::TimedOut) {
                ++timedOut;
                CHECK(snap.shapes[other.shape[i]].group == 0);
            }
        }
        CHECK(timedOut == 1);
    }
}

TEST_CASE("with adaptive retransmission a flap costs the first retransmission after it, not a whole ACK timeout",
    "[core][sim]")
{
    auto c = *presetConfig("small");
    c.faults = { parseFaultSpec("flap:host-leaf:rank=5:at=100s:for=2s:every=100s").value() };
    const auto fixed = simulateOrFail(c);
    std::string error;
    c.policy.adaptive = *parseAdaptiveRetransmission("init=10..13,ranges=13..17x2,18..20x3", error);
    const auto adaptive = simulateOrFail(c);
    const auto schedule = c.policy.adaptive.retransmissions();
    REQUIRE(fixed.stalls.size() == adaptive.stalls.size());
    REQUIRE_FALSE(adaptive.stalls.empty());
    for (std::size_t i = 0; i < adaptive.stalls.size(); ++i) {
        const auto& s = adaptive.stalls[i];
        // Every flap hit a data phase at its start: the path is down 2 s, the 11th retransmission (2.11 s) is
        // the first after it; with the fixed timeout one period (4.29 s).
        CHECK(s.endNs - s.startNs == schedule[10]);
        CHECK(s.retries == 11);
        CHECK(fixed.stalls[i].endNs - fixed.stalls[i].startNs == TimeoutPolicy {}.retryPeriodNs());
    }
    // Past the schedule the QPs fail: a 30 s outage crashes under the 24.7 s profile.
    c.faults = { parseFaultSpec("flap:host-leaf:rank=5:at=100s:for=30s").value() };
    c.durationNs = 14 * 60 * kNsPerSec;
    const auto crash = simulateOrFail(c);
    REQUIRE(crash.stalls.size() == 1);
    CHECK(crash.stalls[0].crashed);
}
