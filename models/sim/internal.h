// SPDX-License-Identifier: MIT
#pragma once

// Internals shared by the simulator's parts (fabric, collectives, counters). Not a public API.

#include "core/job_snapshot.h"
#include "sim/config.h"
#include "sim/simulator.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace stallscope::sim {

// Counter-based randomness: every draw is a pure function of (seed, what, who, when), so results do not
// depend on evaluation order and no std:: distribution (implementation-defined) is involved.
constexpr std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
constexpr std::uint64_t hash(
    std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0, std::uint64_t d = 0)
{
    return mix(mix(mix(mix(seed ^ a) ^ b) ^ c) ^ d);
}
inline double uniform(std::uint64_t h)
{
    return double(h >> 11) * 0x1.0p-53;
} // [0, 1)
// Approximately standard normal (Irwin–Hall with 4 terms, rescaled).
inline double gauss(std::uint64_t h)
{
    double s = 0;
    for (int i = 0; i < 4; ++i) {
        s += uniform(mix(h + std::uint64_t(i)));
    }
    return (s - 2.0) * 1.7320508;
}

// Draw purposes, so different uses of the same (rank, step) never correlate.
enum Purpose : std::uint64_t {
    kCompute = 1,
    kEndJitter,
    kSkew,
    kPortScale,
    kPortNoise,
    kSymbols,
    kWaitNoise,
    kPhase,
    kFaultJitter,
    kLoad
};

// Pods p = 0..pods-1 each hold hosts [p × hostsPerPod, (p+1) × hostsPerPod), one leaf per rail and `spines`
// spines; core switches join every spine (three tiers when cores > 0).
struct Fabric
{
    std::vector<LinkId> hcaLink; // per rank
    std::vector<LinkId> uplink; // [(pod × rails + rail) × spines + spine]
    std::vector<LinkId> coreLink; // [(pod × spines + spine) × cores + core]
    std::vector<NodeId> hcaNode; // per rank
    std::vector<NodeId> leafNode; // [pod × rails + rail]
    std::vector<NodeId> spineNode; // [pod × spines + spine]
    std::vector<NodeId> coreNode;
};

Fabric buildFabric(const SimConfig& c, JobSnapshot& snap);

// An interval in which the job's collectives move data, in true time; rate is bytes per ns per rank link.
struct Segment
{
    TimeNs a = 0;
    TimeNs b = 0;
    double bytesPerNs = 0;
};

struct CounterInputs
{
    const SimConfig& config;
    const Fabric& fabric;
    const std::vector<Segment>& segments; // the global group's data phases: sorted by time, non-overlapping
    // With pod groups (SimConfig::podGroups): per pod, the global data phases and that pod's own, merged (a pod's
    // ranks run one collective at a time, so they do not overlap either). Empty without pod groups.
    const std::vector<std::vector<Segment>>& podSegments;
    const std::vector<SimOutage>& outages;
    const std::vector<TimeNs>& hostSkew;
    const std::vector<std::pair<std::uint32_t, LinkId>>& noisyLinks; // (fault index, link)
};

// Adds counter ports and series (with their columns in `owned`) and link events to `snap`. With `values`, each
// series' values go to that file instead (in series order, padded to 8 bytes: bundle/writer.h's
// writeCountersFile) and the series are left without them; false when a write to it failed.
bool buildCounters(const CounterInputs& in, JobSnapshot& snap, OwnedColumns& owned,
    std::vector<std::uint32_t>& seriesTimeBlock, std::FILE* values = nullptr);

} // namespace stallscope::sim
