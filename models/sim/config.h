// SPDX-License-Identifier: MIT
#pragma once

// Configuration of the flap simulator: fabric shape, job shape, faults, timeout policy, presets.

#include "core/result.h"
#include "core/time_format.h"
#include "core/timeout_policy.h"
#include "core/types.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// ErrorBurst: a link that retrains (link error recovery) without going down, `count` times `gapNs` apart,
// each pausing it for `durationNs` (docs/formats.md §6b).
// Degraded: a link that trained at a lower width or speed for the whole job (docs/formats.md §5e).
// Noisy: a marginal cable whose receivers count symbol errors at a steady rate (corrected, no packet lost, never
// down): loud in the counters and harmless to the job — the red herring of training exercises.
enum class FaultKind { LinkFlap, DeadRank, SlowRank, ErrorBurst, Degraded, Noisy };
constexpr bool isLinkFault(FaultKind k)
{
    return k == FaultKind::LinkFlap || k == FaultKind::ErrorBurst || k == FaultKind::Degraded || k == FaultKind::Noisy;
}
enum class LinkTier { HostLeaf, LeafSpine, SpineCore };
std::string_view toString(LinkTier t); // "host-leaf", "leaf-spine", "spine-core"

struct FaultSpec
{
    FaultKind kind = FaultKind::LinkFlap;
    LinkTier tier = LinkTier::HostLeaf;
    std::uint32_t rank = 0; // host-leaf flap: the rank whose HCA link flaps; rank faults: the rank
    std::uint32_t pod = 0; // leaf-spine, spine-core: the scalable unit (0 in a two-tier fabric)
    std::uint32_t leaf = 0; // leaf-spine: leaf (= rail) index within the pod
    std::uint32_t spine = 0; // leaf-spine, spine-core: spine index within the pod
    std::uint32_t core = 0; // spine-core: core switch index
    bool adaptiveRouting = true; // leaf-spine flap: the switch reroutes in hardware
    TimeNs atNs = 0; // offset from job start
    TimeNs durationNs = 2 * kNsPerSec; // flap: outage length; error burst: each retrain's pause
    TimeNs everyNs = 0; // flap, error burst: repeat period (0 = once)
    TimeNs jitterNs = 0; // flap, error burst with a period: each occurrence moves by up to ± this (uniform)
    std::uint32_t count = 1; // error burst: retrains per burst
    // Error burst: the link retrains (link_error_recovery) each time; off: it stays up and never retrains, but a
    // burst of symbol errors corrupts packets the receiver drops (port_rcv_errors), and one lost at a message's
    // tail is recovered only by the sender's ACK timeout: the collective stalls as for a retrain.
    bool retrain = true;
    TimeNs gapNs = 10 * kNsPerSec; // error burst: time between its retrains
    double slowFactor = 1.3; // slow rank: compute time multiplier
    std::uint8_t width = 1; // degraded: lanes it trained at (of 4)
    std::string speed = "NDR"; // degraded: lane speed it trained at
    double symbolErrorsPerMin = 600; // noisy: symbol errors each end counts per minute, from atNs
};

struct SimConfig
{
    std::string preset = "small";
    std::string jobName = "sim-small";
    std::uint64_t seed = 1;
    std::uint32_t hosts = 8;
    std::uint32_t gpusPerHost = 8; // = HCAs per host = rails = leaves
    std::uint32_t spines = 4; // per pod
    // Three tiers (scalable units): `pods` pods of hosts / pods hosts, each with its own rail leaves and
    // spines; `cores` core switches joined to every spine. pods = 1, cores = 0: a two-tier fabric.
    std::uint32_t pods = 1;
    std::uint32_t cores = 0;
    TimeNs startNs = 1'793'491'200LL * kNsPerSec; // 2026-11-01T00:00:00Z: fixed so output is reproducible
    TimeNs durationNs = 600 * kNsPerSec;
    TimeNs stepNs = kNsPerSec; // nominal step length (compute + collectives)
    std::uint32_t collectivesPerStep = 5;
    std::uint64_t bucketBytes = 100ULL << 20; // payload per collective per rank
    bool fsdp = false; // alternate all_gather / reduce_scatter instead of all_reduce
    // Hybrid parallelism over pods (docs/formats.md §6b): every other collective of a step — the even ones
    // before the last — runs in a process group per pod (as hybrid sharding's shard group), the others in the
    // global group. Pod-local traffic never crosses the core switches; the global collectives do. Needs pods > 1.
    bool podGroups = false;
    double busBandwidthBytesPerSec = 45e9; // per rank link
    double jitter = 0.01; // relative std-dev of per-rank compute time
    TimeNs clockSkewNs = 3 * kNsPerMs; // per-host clock offset, uniform in ±this
    TimeNs counterIntervalNs = kNsPerSec;
    std::uint8_t dataCounterBits = 64; // 32 = old adapters whose data counters saturate
    // How long until a failed uplink's route moves to a sibling uplink (docs/formats.md §6b): adaptive routing
    // in the switch (milliseconds), or without it the subnet manager's trap → sweep → new forwarding tables
    // (about a second on small fabrics, 10–20 s on the largest). Data already sent into the link is lost
    // either way and costs one ACK timeout.
    TimeNs arRerouteNs = 50 * kNsPerMs;
    TimeNs smRerouteNs = 5 * kNsPerSec;
    // No training job: the fabric alone over `durationNs` (a week of counters for the fabric team): topology,
    // counters of every port under a background load, the SM's events; no ranks, no collectives.
    bool fabricOnly = false;
    bool linkEvents
        = true; // write the subnet manager's link down/up events (off: counters are the only fabric evidence)
    TimeoutPolicy policy;
    std::vector<FaultSpec> faults;

    std::uint32_t worldSize() const { return hosts * gpusPerHost; }
    std::uint32_t hostsPerPod() const { return hosts / std::max<std::uint32_t>(pods, 1); }
};

// "small", "hourly-flap", "bench-hour"; nullopt for an unknown name.
std::optional<SimConfig> presetConfig(const std::string& name);
std::vector<std::string> presetNames();

// Parses a --fault argument, e.g. "flap:host-leaf:rank=37:at=5m:for=2s:every=1h",
// "flap:leaf-spine:leaf=3:spine=5:at=5m:for=2s:ar=off", "dead-rank:rank=17:at=5m",
// "slow-rank:rank=17:at=2m:factor=1.3", "errors:leaf-spine:leaf=3:spine=5:at=5m:count=6:gap=20s:pause=200ms"
// (":retrain=off": symbol-error bursts that drop packets, no retrain).
// "degraded:leaf-spine:leaf=3:spine=5:width=1x[:speed=HDR]", "flap:spine-core:pod=2:spine=5:core=1:at=5m:for=2s",
// "noisy:leaf-spine:leaf=1:spine=2:at=0s:rate=600" (symbol errors per minute).
// Returns the fault or an error message.
Result<FaultSpec, std::string> parseFaultSpec(const std::string& text);
std::string describeFault(const FaultSpec& f);

// Checks ranges (ranks, leaves, spines inside the fabric; positive durations). Empty string when valid.
std::string validateConfig(const SimConfig& c);

} // namespace stallscope
