// SPDX-License-Identifier: MIT
#include "sim/config.h"

#include "core/topology.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace stallscope {

std::optional<SimConfig> presetConfig(const std::string& name)
{
    SimConfig c;
    c.preset = name;
    if (name == "small") {
        c.jobName = "sim-small";
        c.hosts = 8;
        c.spines = 4;
        c.durationNs = 600 * kNsPerSec;
        FaultSpec f;
        f.rank = 37;
        f.atNs = 120 * kNsPerSec;
        f.durationNs = 2 * kNsPerSec;
        c.faults = { f };
    } else if (name == "hourly-flap") {
        c.jobName = "llm-pretrain-1024";
        c.hosts = 128;
        c.spines = 8;
        c.durationNs = 70 * 60 * kNsPerSec;
        FaultSpec f;
        f.rank = 8 * 17 + 3; // gpu-a017 mlx5_3
        f.atNs = 5 * 60 * kNsPerSec;
        f.durationNs = 2 * kNsPerSec;
        f.everyNs = 3600 * kNsPerSec;
        c.faults = { f };
    } else if (name == "bench-hour") {
        c.jobName = "bench-hour";
        c.hosts = 128;
        c.spines = 8;
        c.durationNs = 3600 * kNsPerSec;
        c.collectivesPerStep = 10;
        c.bucketBytes = 25ULL << 20;
        FaultSpec f;
        f.rank = 8 * 17 + 3;
        f.atNs = 5 * 60 * kNsPerSec;
        f.durationNs = 2 * kNsPerSec;
        c.faults = { f };
    } else if (name == "three-tier") {
        // 16,384 GPUs, the size of the largest published training runs, in 8 scalable units of 256 hosts:
        // a core link (no adaptive routing) flaps for 2 s at 00:05:00.
        c.jobName = "llm-pretrain-16k";
        c.hosts = 2048;
        c.pods = 8;
        c.spines = 8;
        c.cores = 8;
        c.durationNs = 10 * 60 * kNsPerSec;
        FaultSpec f;
        f.tier = LinkTier::SpineCore;
        f.pod = 5;
        f.spine = 3;
        f.core = 6;
        f.adaptiveRouting = false;
        f.atNs = 5 * 60 * kNsPerSec;
        f.durationNs = 2 * kNsPerSec;
        c.faults = { f };
    } else if (name == "fabric-week") {
        // The fabric team's view: a week of a 2,048-port fabric (120 hosts × 8 rails, 8 spines) with no job,
        // counters every minute. One uplink flaps every hour (± 3 s), one every 6 hours, a host link once,
        // and one uplink retrains in bursts without ever going down.
        c.jobName = "fabric-week";
        c.fabricOnly = true;
        c.hosts = 120;
        c.spines = 8;
        c.durationNs = 7 * 86400 * kNsPerSec;
        c.counterIntervalNs = 60 * kNsPerSec;
        FaultSpec hourly;
        hourly.tier = LinkTier::LeafSpine;
        hourly.leaf = 3;
        hourly.spine = 5;
        hourly.atNs = 9 * 3600 * kNsPerSec + 17 * 60 * kNsPerSec;
        hourly.everyNs = 3600 * kNsPerSec + 2 * kNsPerSec;
        hourly.jitterNs = 3 * kNsPerSec;
        FaultSpec sixHourly = hourly;
        sixHourly.leaf = 6;
        sixHourly.spine = 1;
        sixHourly.atNs = 26 * 3600 * kNsPerSec;
        sixHourly.everyNs = 6 * 3600 * kNsPerSec;
        sixHourly.jitterNs = 10 * 60 * kNsPerSec;
        sixHourly.durationNs = 20 * kNsPerSec;
        FaultSpec once;
        once.rank = 8 * 41 + 2;
        once.atNs = 3 * 86400 * kNsPerSec + 4 * 3600 * kNsPerSec;
        FaultSpec burst;
        burst.kind = FaultKind::ErrorBurst;
        burst.tier = LinkTier::LeafSpine;
        burst.leaf = 1;
        burst.spine = 2;
        burst.atNs = 2 * 86400 * kNsPerSec;
        burst.count = 6;
        burst.gapNs = 20 * kNsPerSec;
        burst.durationNs = 200 * kNsPerMs;
        burst.everyNs = 86400 * kNsPerSec;
        c.faults = { hourly, sixHourly, once, burst };
    } else {
        return std::nullopt;
    }
    return c;
}

std::vector<std::string> presetNames()
{
    return { "small", "hourly-flap", "bench-hour", "three-tier", "fabric-week" };
}

namespace {

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, sep)) {
        out.push_back(part);
    }
    return out;
}

bool parseUInt(const std::string& s, std::uint32_t& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc {} && p == s.data() + s.size();
}

} // namespace

Result<FaultSpec, std::string> parseFaultSpec(const std::string& text)
{
    const auto parts = split(text, ':');
    FaultSpec f;
    std::size_t first = 1;
    if (parts.empty()) {
        return std::string("empty fault");
    }
    if (parts[0] == "flap" || parts[0] == "errors" || parts[0] == "degraded" || parts[0] == "noisy") {
        f.kind = parts[0] == "flap" ? FaultKind::LinkFlap
            : parts[0] == "errors"  ? FaultKind::ErrorBurst
            : parts[0] == "noisy"   ? FaultKind::Noisy
                                    : FaultKind::Degraded;
        if (parts.size() < 2 || (parts[1] != "host-leaf" && parts[1] != "leaf-spine" && parts[1] != "spine-core")) {
            return "a link fault names its link tier: " + parts[0] + ":host-leaf:..., " + parts[0]
                + ":leaf-spine:... or " + parts[0] + ":spine-core:...";
        }
        if (f.kind == FaultKind::ErrorBurst) {
            f.durationNs = 200 * kNsPerMs;
            f.count = 5;
        }
        f.tier = parts[1] == "host-leaf" ? LinkTier::HostLeaf
            : parts[1] == "leaf-spine"   ? LinkTier::LeafSpine
                                         : LinkTier::SpineCore;
        first = 2;
    } else if (parts[0] == "dead-rank") {
        f.kind = FaultKind::DeadRank;
    } else if (parts[0] == "slow-rank") {
        f.kind = FaultKind::SlowRank;
    } else {
        return "unknown fault kind \"" + parts[0]
            + "\" (expected flap, errors, degraded, noisy, dead-rank or slow-rank)";
    }
    for (std::size_t i = first; i < parts.size(); ++i) {
        const auto eq = parts[i].find('=');
        if (eq == std::string::npos) {
            return "expected key=value, got \"" + parts[i] + "\"";
        }
        const auto key = parts[i].substr(0, eq);
        const auto val = parts[i].substr(eq + 1);
        bool ok = true;
        if (key == "rank") {
            ok = parseUInt(val, f.rank);
        } else if (key == "pod") {
            ok = parseUInt(val, f.pod);
        } else if (key == "core") {
            ok = parseUInt(val, f.core);
        } else if (key == "leaf") {
            ok = parseUInt(val, f.leaf);
        } else if (key == "spine") {
            ok = parseUInt(val, f.spine);
        } else if (key == "at" || key == "for" || key == "every" || key == "gap" || key == "pause" || key == "jitter") {
            auto d = parseDuration(val);
            ok = d.has_value();
            if (ok) {
                (key == "at"              ? f.atNs
                        : key == "every"  ? f.everyNs
                        : key == "gap"    ? f.gapNs
                        : key == "jitter" ? f.jitterNs
                                          : f.durationNs)
                    = *d;
            }
        } else if (key == "width") {
            const auto digits = val.substr(0, val.find_first_not_of("0123456789"));
            std::uint32_t w = 0;
            ok = parseUInt(digits, w) && (w == 1 || w == 2 || w == 4) && (digits == val || val == digits + "x");
            f.width = static_cast<std::uint8_t>(w);
        } else if (key == "speed") {
            ok = laneDataGbps(val) > 0 && laneDataGbps(val) <= laneDataGbps("NDR");
            f.speed = val;
        } else if (key == "count") {
            ok = parseUInt(val, f.count) && f.count >= 1 && f.count <= 10000;
        } else if (key == "retrain") {
            ok = val == "on" || val == "off";
            f.retrain = val == "on";
        } else if (key == "ar") {
            ok = val == "on" || val == "off";
            f.adaptiveRouting = val == "on";
        } else if (key == "rate") {
            try {
                f.symbolErrorsPerMin = std::stod(val);
            } catch (...) {
                ok = false;
            }
            ok = ok && f.symbolErrorsPerMin > 0 && f.symbolErrorsPerMin <= 1e6;
        } else if (key == "factor") {
            try {
                f.slowFactor = std::stod(val);
            } catch (...) {
                ok = false;
            }
            ok = ok && f.slowFactor >= 1.0 && f.slowFactor <= 100.0;
        } else {
            return "unknown fault key \"" + key + "\"";
        }
        if (!ok) {
            return "bad value for \"" + key + "\": \"" + val + "\"";
        }
    }
    return f;
}

std::string_view toString(LinkTier t)
{
    switch (t) {
    case LinkTier::LeafSpine:
        return "leaf-spine";
    case LinkTier::SpineCore:
        return "spine-core";
    case LinkTier::HostLeaf:
        break;
    }
    return "host-leaf";
}

namespace {

// "rank 37's HCA link", "leaf 3 - spine 5", "pod 2 spine 5 - core 1".
std::string linkName(const FaultSpec& f)
{
    const std::string pod = f.pod > 0 ? "pod " + std::to_string(f.pod) + " " : "";
    switch (f.tier) {
    case LinkTier::HostLeaf:
        return "rank " + std::to_string(f.rank) + "'s HCA link";
    case LinkTier::LeafSpine:
        return pod + "leaf " + std::to_string(f.leaf) + " - spine " + std::to_string(f.spine);
    case LinkTier::SpineCore:
        return "pod " + std::to_string(f.pod) + " spine " + std::to_string(f.spine) + " - core "
            + std::to_string(f.core);
    }
    return {};
}

// ", every 1h ± 5m" for a fault that repeats; "" for one that happens once.
std::string repeats(const FaultSpec& f)
{
    std::string s;
    if (f.everyNs > 0) {
        s += ", every " + formatDuration(f.everyNs);
    }
    if (f.jitterNs > 0) {
        s += " ± " + formatDuration(f.jitterNs);
    }
    return s;
}

} // namespace

std::string describeFault(const FaultSpec& f)
{
    std::string s;
    switch (f.kind) {
    case FaultKind::LinkFlap:
        s = std::string(toString(f.tier)) + " flap (" + linkName(f)
            + (f.tier == LinkTier::HostLeaf ? std::string(")")
                    : f.adaptiveRouting     ? ", adaptive routing)"
                                            : ", no adaptive routing)");
        s += " at +" + formatDuration(f.atNs) + " for " + formatDuration(f.durationNs);
        return s + repeats(f);
    case FaultKind::ErrorBurst:
        s = "error burst on " + linkName(f);
        s += ": " + std::to_string(f.count) + (f.retrain ? " retrains of " : " symbol-error bursts dropping packets, ")
            + formatDuration(f.durationNs) + ", "
            + formatDuration(f.gapNs) + " apart, from +" + formatDuration(f.atNs);
        return s + repeats(f);
    case FaultKind::Degraded:
        s = "degraded link " + linkName(f);
        return s + ": trained at " + std::to_string(f.width) + "x" + f.speed + " instead of 4xNDR";
    case FaultKind::Noisy:
        return "noisy link " + linkName(f) + ": " + std::to_string(static_cast<long long>(f.symbolErrorsPerMin))
            + " symbol errors per minute from +" + formatDuration(f.atNs) + ", never down";
    case FaultKind::DeadRank:
        return "dead rank " + std::to_string(f.rank) + " at +" + formatDuration(f.atNs);
    case FaultKind::SlowRank:
        return "slow rank " + std::to_string(f.rank) + " (x" + std::to_string(f.slowFactor).substr(0, 4) + ") from +"
            + formatDuration(f.atNs);
    }
    return s;
}

std::string validateConfig(const SimConfig& c)
{
    if (c.hosts < 2 || c.hosts > 16384 || c.gpusPerHost < 1 || c.gpusPerHost > 16 || c.spines < 1 || c.spines > 64) {
        return "fabric out of range: 2..16384 hosts, 1..16 GPUs per host, 1..64 spines";
    }
    if (c.pods < 1 || c.pods > 16 || c.hosts % c.pods != 0 || c.hostsPerPod() < 2 || c.cores > 64
        || (c.pods > 1 && c.cores < 1) || c.pods * c.spines > 256) {
        return "pods out of range: 1..16 pods of equal size (hosts divisible by pods, 2 hosts each at least), "
               "1..64 core switches when there are several pods, pods x spines <= 256";
    }
    if (c.podGroups && (c.pods < 2 || c.collectivesPerStep < 2 || c.fabricOnly)) {
        return "pod groups need a job over at least two pods and two collectives per step";
    }
    if (c.durationNs <= 0 || c.stepNs < 10 * kNsPerMs || c.collectivesPerStep < 1 || c.collectivesPerStep > 1000) {
        return "job shape out of range: positive duration, step >= 10ms, 1..1000 collectives per step";
    }
    if (c.counterIntervalNs < 10 * kNsPerMs || c.durationNs / c.counterIntervalNs > 20'000'000) {
        return "counter interval must be at least 10ms and give at most 20,000,000 samples per counter";
    }
    if (c.dataCounterBits != 32 && c.dataCounterBits != 64) {
        return "data counter width must be 32 or 64 bits";
    }
    if (c.arRerouteNs < 0 || c.smRerouteNs < 0 || c.arRerouteNs > 600 * kNsPerSec || c.smRerouteNs > 600 * kNsPerSec) {
        return "reroute times must be between 0 and 10m";
    }
    for (const auto& f : c.faults) {
        if (c.fabricOnly && !isLinkFault(f.kind)) {
            return "a fabric without a job has no ranks: only link faults (flap, errors, degraded) apply";
        }
        if ((!isLinkFault(f.kind) || f.tier == LinkTier::HostLeaf) && f.rank >= c.worldSize()) {
            return c.fabricOnly ? "fault names HCA " + std::to_string(f.rank) + " but the fabric has "
                    + std::to_string(c.worldSize()) + " HCAs"
                                : "fault names rank " + std::to_string(f.rank) + " but the job has "
                    + std::to_string(c.worldSize()) + " ranks";
        }
        if (isLinkFault(f.kind) && f.tier != LinkTier::HostLeaf
            && (f.pod >= c.pods || f.spine >= c.spines || (f.tier == LinkTier::LeafSpine && f.leaf >= c.gpusPerHost)
                || (f.tier == LinkTier::SpineCore && f.core >= c.cores))) {
            return "fault names pod " + std::to_string(f.pod) + " / leaf " + std::to_string(f.leaf) + " / spine "
                + std::to_string(f.spine) + " / core " + std::to_string(f.core) + " outside the fabric";
        }
        if (f.kind == FaultKind::LinkFlap && (f.durationNs <= 0 || (f.everyNs > 0 && f.everyNs <= f.durationNs))) {
            return "a flap needs a positive duration shorter than its period";
        }
        if (f.jitterNs > 0 && (f.everyNs <= 0 || f.jitterNs * 4 > f.everyNs)) {
            return "jitter needs a period (every=) at least four times as long";
        }
        if (f.kind == FaultKind::Degraded && f.width == 4 && f.speed == "NDR") {
            return "a degraded link needs a width below 4x or a speed below NDR";
        }
        if (f.kind == FaultKind::ErrorBurst
            && (f.durationNs <= 0 || f.durationNs > 10 * kNsPerSec || f.gapNs <= f.durationNs
                || (f.everyNs > 0 && f.everyNs <= TimeNs(f.count) * f.gapNs))) {
            return "an error burst needs pauses of 0..10s, a gap longer than a pause, and a period longer than "
                   "the burst";
        }
    }
    return {};
}

} // namespace stallscope
