// SPDX-License-Identifier: MIT
// Accuracy of the analysis against the simulator's truth over a matrix of seeded scenarios (#3, #12):
// the culprit link is top-ranked in >= 98 % of flap scenarios that stalled and no innocent link is ever
// blamed; no link is blamed for a dead rank or a straggler; stall bounds within max(one sample interval,
// 10 ms); GPU-seconds within 5 %; the recovery verdict (adaptive routing / subnet manager / link up) is
// never wrong. The simulator's physics is checked against docs/formats.md §6b in test_simulator.cpp; here the
// analysis reads only what the cluster would have recorded (timelines, counters, link events).
#include "analysis/analysis.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace stallscope;
using namespace stallscope::test;

namespace {

struct Scenario
{
    std::string name;
    SimConfig config;
};

SimConfig base(std::uint64_t seed, std::uint32_t hosts, TimeNs duration, TimeNs sample, bool events)
{
    auto c = *presetConfig("small");
    c.seed = seed;
    c.hosts = hosts;
    c.durationNs = duration;
    c.counterIntervalNs = sample;
    c.linkEvents = events;
    c.faults.clear();
    return c;
}

std::vector<Scenario> flapScenarios()
{
    std::vector<Scenario> out;
    std::uint64_t seed = 100;
    const TimeNs samples[] = { kNsPerSec, 10 * kNsPerSec, 30 * kNsPerSec };
    // Host-to-leaf flaps from 0.5 s to 60 s (over the ~30 s retry budget the job crashes).
    const char* hostFlaps[] = { "500ms", "1s", "2s", "3s", "5s", "10s", "20s", "45s", "60s" };
    for (std::size_t i = 0; i < std::size(hostFlaps); ++i) {
        const TimeNs sample = samples[i % 3];
        const bool long_ = *parseDuration(hostFlaps[i]) > 30 * kNsPerSec;
        auto c = base(++seed, 8, (long_ ? 14 : 4) * 60 * kNsPerSec, sample, i % 2 == 0);
        const auto rank = std::to_string((i * 13 + 5) % 64);
        c.faults = { parseFaultSpec("flap:host-leaf:rank=" + rank + ":at=150s:for=" + hostFlaps[i]).value() };
        out.push_back({ std::string("host-leaf ") + hostFlaps[i] + " rank " + rank, c });
    }
    // Repeated flaps of one link, and a flap at a 1 s sample with counters only.
    {
        auto c = base(++seed, 8, 10 * 60 * kNsPerSec, kNsPerSec, false);
        c.faults = { parseFaultSpec("flap:host-leaf:rank=9:at=100s:for=2s:every=150s").value() };
        out.push_back({ "host-leaf 2s every 150s, counters only", c });
    }
    // Leaf-to-spine flaps with and without adaptive routing.
    const char* uplinkFlaps[] = { "500ms", "2s", "10s", "60s" };
    for (std::size_t i = 0; i < std::size(uplinkFlaps); ++i) {
        for (const bool ar : { true, false }) {
            auto c = base(++seed, 8, 4 * 60 * kNsPerSec, samples[(i + ar) % 3], (i + ar) % 2 == 0);
            c.faults = { parseFaultSpec("flap:leaf-spine:leaf=" + std::to_string(i % 8) + ":spine="
                + std::to_string((i + 1) % 4) + ":at=150s:for=" + uplinkFlaps[i] + ":ar=" + (ar ? "on" : "off"))
                             .value() };
            out.push_back({ std::string("leaf-spine ") + uplinkFlaps[i] + (ar ? " AR" : " no AR"), c });
        }
    }
    // Adaptive routing on/off x host-leaf / leaf-spine x outages of 0.3 s to 60 s, with collectives long
    // enough (2 GB buckets, ~45 % of each step on the wire) that flaps land inside a data phase, repeated so
    // that several do. A host's own link has no other path: AR changes nothing there.
    const char* gridOutages[] = { "300ms", "1s", "2s", "5s", "20s", "45s", "60s" };
    for (std::size_t i = 0; i < std::size(gridOutages); ++i) {
        const TimeNs outage = *parseDuration(gridOutages[i]);
        for (const bool leafSpine : { false, true }) {
            for (const bool ar : { true, false }) {
                const bool crashes = outage > 30 * kNsPerSec && (!leafSpine || (!ar && outage > 5 * kNsPerSec));
                auto c = base(++seed, 8, (crashes ? 14 : 5) * 60 * kNsPerSec, samples[(i + ar) % 3], (i + ar) % 2 == 0);
                c.bucketBytes = 2ULL << 30;
                c.smRerouteNs = (i % 2 ? 3 : 9) * kNsPerSec;
                const std::string every = crashes ? "" : ":every=" + std::to_string(outage / kNsPerSec + 67) + "s";
                const std::string spec = leafSpine ? "flap:leaf-spine:leaf=" + std::to_string((i * 3) % 8) + ":spine="
                        + std::to_string(i % 4) + ":at=70s:for=" + gridOutages[i] + every + ":ar=" + (ar ? "on" : "off")
                                                   : "flap:host-leaf:rank=" + std::to_string((i * 11 + 3) % 64)
                        + ":at=70s:for=" + gridOutages[i] + every;
                c.faults = { parseFaultSpec(spec).value() };
                out.push_back({ std::string(leafSpine ? "leaf-spine " : "host-leaf ") + gridOutages[i]
                        + (ar ? " AR" : " no AR") + (crashes ? "" : " repeated"),
                    c });
            }
        }
    }
    // Links that retrain without going down (link_error_recovery only, no link_downed, no SM event): each
    // retrain inside a data phase costs an ACK timeout. Pauses of 10 ms to 1 s, bursts of 3 to 8.
    const char* pauses[] = { "10ms", "100ms", "300ms", "1s", "50ms", "500ms" };
    for (std::size_t i = 0; i < std::size(pauses); ++i) {
        auto c = base(++seed, 8, 5 * 60 * kNsPerSec, samples[i % 3], i % 2 == 0);
        c.bucketBytes = 2ULL << 30;
        const std::string where = i % 2 ? "leaf-spine:leaf=" + std::to_string(i) + ":spine=" + std::to_string(i % 4)
                                        : "host-leaf:rank=" + std::to_string(i * 9 + 1);
        const std::string spec = "errors:" + where + ":at=60s:count=" + std::to_string(3 + i)
            + ":gap=" + std::to_string(c.counterIntervalNs / kNsPerSec * 2 + 5) + "s:pause=" + pauses[i];
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ spec, c });
    }
    // The same host flap under other timeout policies (under and over budget).
    for (const int t : { 16, 18, 22 }) {
        auto c = base(++seed, 8, 14 * 60 * kNsPerSec, kNsPerSec, true);
        c.policy.ncclIbTimeout = t;
        c.faults = { parseFaultSpec("flap:host-leaf:rank=20:at=150s:for=5s").value() };
        out.push_back({ "host-leaf 5s, NCCL_IB_TIMEOUT=" + std::to_string(t), c });
    }
    // RoCE adapters with adaptive retransmission (NVIDIA's ADP profile instead of the fixed ACK timeout): the
    // stall is the first retransmission of the schedule after the path is back, a crash past its end.
    for (const char* spec : { "flap:host-leaf:rank=21:at=150s:for=2s:every=70s",
             "flap:host-leaf:rank=30:at=150s:for=40s", "flap:leaf-spine:leaf=3:spine=2:at=150s:for=10s:ar=off" }) {
        const bool long_ = std::string(spec).find("for=40s") != std::string::npos;
        auto c = base(++seed, 8, (long_ ? 14 : 5) * 60 * kNsPerSec, kNsPerSec, true);
        c.bucketBytes = 2ULL << 30;
        std::string error;
        c.policy.adaptive = *parseAdaptiveRetransmission("init=10..13,ranges=13..17x2,18..20x3", error);
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ std::string("adaptive retransmission ") + spec, c });
    }
    // Three tiers (pods of rail leaves and spines, core switches between pods): spine-core flaps with and
    // without AR, a leaf-spine flap inside one pod, and a host link, at 256 ranks in 4 pods.
    for (const char* spec : { "flap:spine-core:pod=1:spine=1:core=0:at=70s:for=3s:ar=off",
             "flap:spine-core:pod=3:spine=0:core=1:at=70s:for=20s:ar=off",
             "flap:spine-core:pod=2:spine=1:core=1:at=70s:for=40s:every=77s:ar=on",
             "flap:spine-core:pod=0:spine=0:core=0:at=70s:for=300ms:every=31s:ar=off",
             "flap:spine-core:pod=0:spine=1:core=0:at=70s:for=300ms:every=31s:ar=on",
             "flap:spine-core:pod=1:spine=0:core=0:at=70s:for=3s:every=29s:ar=on",
             "flap:spine-core:pod=2:spine=0:core=1:at=70s:for=60s:ar=off",
             "flap:spine-core:pod=3:spine=1:core=0:at=70s:for=60s:every=90s:ar=on",
             "flap:leaf-spine:pod=2:leaf=5:spine=1:at=70s:for=10s:ar=off", "flap:host-leaf:rank=201:at=70s:for=2s",
             "errors:spine-core:pod=1:spine=0:core=1:at=70s:count=4:gap=25s:pause=100ms" }) {
        ++seed;
        auto c = base(seed, 32, 4 * 60 * kNsPerSec, kNsPerSec, seed % 2 == 0);
        c.pods = 4;
        c.spines = 2;
        c.cores = 2;
        c.bucketBytes = 2ULL << 30;
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ std::string("three tiers ") + spec, c });
    }
    // Pod groups (hybrid sharding: every other collective in a group per pod, the rest global) on the same
    // fabric, timed so that flaps land in pod-local collectives too: a pod's link stalls its pod's group (and
    // holds the other pods in the next global collective); a core link only ever stalls the global group.
    for (const char* spec : { "flap:leaf-spine:pod=2:leaf=5:spine=1:at=70500ms:for=2s:every=37s:ar=on",
             "flap:leaf-spine:pod=2:leaf=5:spine=1:at=70500ms:for=60s:ar=off",
             "flap:host-leaf:rank=100:at=70700ms:for=45s", "flap:host-leaf:rank=100:at=70500ms:for=2s:every=41s",
             "errors:leaf-spine:pod=1:leaf=2:spine=0:at=70500ms:count=4:gap=25s:pause=100ms",
             "flap:spine-core:pod=3:spine=0:core=1:at=70500ms:for=3s:every=33s:ar=off" }) {
        ++seed;
        const bool crash = std::string(spec).find("for=45s") != std::string::npos
            || std::string(spec).find("for=60s") != std::string::npos;
        auto c = base(seed, 32, (crash ? 14 : 5) * 60 * kNsPerSec, kNsPerSec, seed % 2 == 0);
        c.pods = 4;
        c.spines = 2;
        c.cores = 2;
        c.podGroups = true;
        c.bucketBytes = 2ULL << 30;
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ std::string("pod groups ") + spec, c });
    }
    // 16,384 ranks in 8 pods of 256 hosts, 8 spines per pod, 8 cores: a core-link flap.
    {
        auto c = base(++seed, 2048, 100 * kNsPerSec, kNsPerSec, true);
        c.pods = 8;
        c.spines = 8;
        c.cores = 8;
        c.faults = { parseFaultSpec("flap:spine-core:pod=5:spine=3:core=6:at=50s:for=5s:ar=off").value() };
        out.push_back({ "16384 ranks, three tiers, spine-core flap", c });
    }
    // 1,024 ranks: fewer cases, to keep the suite fast.
    for (const char* spec :
        { "flap:host-leaf:rank=777:at=60s:for=2s", "flap:leaf-spine:leaf=5:spine=6:at=60s:for=5s:ar=off" }) {
        auto c = base(++seed, 128, 150 * kNsPerSec, kNsPerSec, true);
        c.spines = 8;
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ std::string("1024 ranks ") + spec, c });
    }
    return out;
}

std::vector<Scenario> rankScenarios()
{
    std::vector<Scenario> out;
    std::uint64_t seed = 500;
    for (const char* spec : { "dead-rank:rank=21:at=90s", "dead-rank:rank=63:at=200s", "dead-rank:rank=0:at=31s" }) {
        auto c = base(++seed, 8, 15 * 60 * kNsPerSec, kNsPerSec, true);
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ spec, c });
    }
    for (const char* spec : { "slow-rank:rank=9:at=30s:factor=1.3", "slow-rank:rank=50:at=60s:factor=1.1",
             "slow-rank:rank=2:at=10s:factor=2" }) {
        auto c = base(++seed, 8, 4 * 60 * kNsPerSec, 10 * kNsPerSec, true);
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ spec, c });
    }
    {
        auto c = base(++seed, 128, 150 * kNsPerSec, kNsPerSec, true);
        c.spines = 8;
        c.faults = { parseFaultSpec("dead-rank:rank=600:at=60s").value() };
        out.push_back({ "1024 ranks dead-rank:rank=600", c });
    }
    // A rank of pod 2 dies inside its pod's group: the other pods time out in the next global collective, which
    // is the same incident (not a second hang), with every live rank held.
    {
        auto c = base(++seed, 32, 14 * 60 * kNsPerSec, kNsPerSec, true);
        c.pods = 4;
        c.spines = 2;
        c.cores = 2;
        c.podGroups = true;
        c.bucketBytes = 2ULL << 30;
        c.faults = { parseFaultSpec("dead-rank:rank=140:at=70500ms").value() };
        out.push_back({ "pod groups dead-rank:rank=140", c });
    }
    return out;
}

std::vector<Scenario> degradedScenarios()
{
    std::vector<Scenario> out;
    std::uint64_t seed = 700;
    for (const char* spec : { "degraded:host-leaf:rank=13:width=1x", "degraded:leaf-spine:leaf=2:spine=3:width=1x",
             "degraded:leaf-spine:leaf=6:spine=0:width=2x", "degraded:host-leaf:rank=40:width=4x:speed=HDR",
             "degraded:leaf-spine:leaf=1:spine=1:width=4x:speed=EDR" }) {
        auto c = base(++seed, 8, 2 * 60 * kNsPerSec, kNsPerSec, true);
        c.faults = { parseFaultSpec(spec).value() };
        out.push_back({ spec, c });
    }
    return out;
}

const Incident* matching(const AnalysisResult& r, const SimStall& s, TimeNs tol)
{
    for (const auto& inc : r.incidents) {
        if (std::llabs(inc.startNs - s.startNs) <= tol) {
            return &inc;
        }
    }
    return nullptr;
}

// The recovery the analysis states must be the one the simulator applied; "unknown" is allowed.
void checkRecovery(const SimResult& sim, const SimStall& s, const Incident& inc, int& stated)
{
    if (!inc.culprit || !inc.culprit->recovery || s.crashed) {
        return;
    }
    const SimOutage* outage = nullptr;
    for (const auto& o : sim.outages) {
        if (o.downNs <= s.startNs + 10 * kNsPerSec && o.upNs >= s.startNs - 10 * kNsPerSec) {
            outage = &o;
        }
    }
    REQUIRE(outage != nullptr);
    ++stated;
    const auto said = *inc.culprit->recovery;
    INFO("analysis: " << toString(said) << ", truth: " << toString(outage->recovery) << "; "
                      << inc.culprit->recoveryText);
    const TimeNs period = sim.snapshot->policy.retryPeriodNs();
    if (s.retries <= 1 && outage->recovery != Recovery::LinkUp) {
        // Within one ACK timeout AR and an SM faster than it cost the same; the SM's log may show both.
        CHECK(said != Recovery::LinkUp);
    } else {
        CHECK(said == outage->recovery);
    }
    if (said == Recovery::SubnetManager && outage->recovery == Recovery::SubnetManager) {
        // The reroute time: measured from the SM's log when there is one, else within the stated window.
        const TimeNs truth = outage->trafficUpNs - outage->downNs;
        const bool fromLog = !sim.snapshot->routeUpdates.empty();
        CHECK(std::llabs(inc.culprit->rerouteNs - truth) <= (fromLog ? 100 * kNsPerMs : period));
    }
}

} // namespace

TEST_CASE("analysis names the flapped link, its bounds and its cost", "[core][analysis][accuracy]")
{
    const auto scenarios = flapScenarios();
    REQUIRE(scenarios.size() + rankScenarios().size() + degradedScenarios().size() >= 60);
    int stalls = 0, named = 0, innocent = 0, recoveries = 0;
    std::ostringstream misses;
    for (const auto& sc : scenarios) {
        INFO(sc.name);
        const auto sim = simulateOrFail(sc.config);
        const auto& snap = *sim.snapshot;
        const auto result = analyze(snap);
        const TimeNs tol = std::max(sc.config.counterIntervalNs, 10 * kNsPerMs);
        for (const auto& s : sim.stalls) {
            ++stalls;
            const auto* inc = matching(result, s, tol);
            REQUIRE(inc != nullptr);
            CHECK(std::llabs(inc->endNs - s.endNs) <= tol);
            const double truthGpuSeconds = double(s.endNs - s.startNs) / 1e9 * s.ranksAffected;
            CHECK(std::abs(inc->gpuSecondsLost - truthGpuSeconds) <= 0.05 * truthGpuSeconds);
            CHECK(inc->jobCrashed == s.crashed);
            const auto& link = snap.topology.link(sim.outages.at(0).link);
            const auto guidA = snap.topology.node(link.a.node).guid;
            if (inc->culprit && inc->culprit->a.guid == guidA && inc->culprit->a.port == link.a.port) {
                ++named;
                checkRecovery(sim, s, *inc, recoveries);
            } else {
                misses << sc.name << "; ";
                innocent += inc->culprit.has_value();
            }
        }
        // Every incident is a real stall: nothing invented.
        for (const auto& inc : result.incidents) {
            bool real = false;
            for (const auto& s : sim.stalls) {
                real = real || std::llabs(inc.startNs - s.startNs) <= tol;
            }
            CHECK(real);
        }
    }
    INFO("culprit named in " << named << " of " << stalls << " stalls; missed: " << misses.str());
    UNSCOPED_INFO(scenarios.size() << " flap scenarios, " << stalls << " stalls");
    CHECK(stalls >= 60);
    CHECK(double(named) >= 0.98 * double(stalls));
    CHECK(innocent == 0);
    CHECK(recoveries >= stalls / 2); // the verdict is stated, not only never wrong
}

TEST_CASE("analysis never blames a link for a dead or slow rank", "[core][analysis][accuracy]")
{
    for (const auto& sc : rankScenarios()) {
        INFO(sc.name);
        const auto sim = simulateOrFail(sc.config);
        const auto result = analyze(*sim.snapshot);
        REQUIRE_FALSE(result.incidents.empty());
        const auto& fault = sc.config.faults[0];
        for (const auto& inc : result.incidents) {
            CHECK_FALSE(inc.culprit.has_value());
            CHECK(inc.kind != IncidentKind::LinkFlap);
            REQUIRE_FALSE(inc.suspectRanks.empty());
            CHECK(inc.suspectRanks.front() == fault.rank);
        }
        if (fault.kind == FaultKind::DeadRank) {
            REQUIRE(result.incidents.size() == 1);
            const auto& inc = result.incidents[0];
            REQUIRE(sim.stalls.size() == 1);
            CHECK(inc.jobCrashed);
            CHECK(std::llabs(inc.startNs - sim.stalls[0].startNs) <= sc.config.counterIntervalNs);
            const double truthGpuSeconds
                = double(sim.stalls[0].endNs - sim.stalls[0].startNs) / 1e9 * sim.stalls[0].ranksAffected;
            CHECK(std::abs(inc.gpuSecondsLost - truthGpuSeconds) <= 0.05 * truthGpuSeconds);
        } else {
            for (const auto& inc : result.incidents) {
                CHECK(inc.kind == IncidentKind::Straggler);
            }
        }
    }
}

TEST_CASE("analysis names a link trained below its tier's rate, and nothing else", "[core][analysis][accuracy]")
{
    for (const auto& sc : degradedScenarios()) {
        INFO(sc.name);
        const auto sim = simulateOrFail(sc.config);
        const auto& snap = *sim.snapshot;
        REQUIRE(sim.degradedLinks.size() == 1);
        CHECK(sim.slowdown > 1.9);
        const auto result = analyze(snap);
        // A persistent slowdown on every rank: no stall, no straggler, no link blamed for an incident.
        for (const auto& inc : result.incidents) {
            CHECK_FALSE(inc.culprit.has_value());
        }
        REQUIRE(result.degradedLinks.size() == 1); // 0 innocent links
        const auto& d = result.degradedLinks[0];
        const auto& truth = snap.topology.link(sim.degradedLinks[0].second);
        CHECK(d.link == sim.degradedLinks[0].second);
        CHECK(d.a.guid == snap.topology.node(truth.a.node).guid);
        CHECK(d.usualGbps == Approx(400.0));
        CHECK(d.gbps == Approx(400.0 / sim.slowdown));
        CHECK(d.jobCrosses);
        // The job's measured bus bandwidth shows the deficit: the simulated 45 GB/s, divided by the slowdown.
        INFO(d.impact);
        CHECK(d.impact.find("crosses it") != std::string::npos);
        const auto pct = d.impact.find(" % of its 400 Gb/s host links");
        REQUIRE(pct != std::string::npos);
        const double measured = std::stod(d.impact.substr(d.impact.rfind(", ", pct) + 2));
        CHECK(measured == Approx(100.0 * 45e9 * 8 / 400e9 / sim.slowdown).margin(2.0));
    }
}
