// SPDX-License-Identifier: MIT
#pragma once

// Per-port link counter series: sample timestamps and RAW cumulative values exactly as the port reported
// them. Interpretation (deltas across saturation, resets, 4-byte data units) is done by readers through
// CounterSemantics, never by rewriting the stored values.

#include "core/topology.h"
#include "core/types.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stallscope {

enum class CounterKind : std::uint16_t {
    LinkDowned, // 8-bit, saturates at 255: the key flap counter
    LinkErrorRecovery, // 8-bit, saturates at 255
    SymbolError, // 16-bit, saturating
    PortRcvErrors, // 16-bit, saturating
    PortXmitDiscards, // 16-bit, saturating
    PortXmitWait, // 32-bit, saturating; ticks with data queued but not sent
    PortXmitData, // 64-bit (or 32-bit saturating on old adapters); unit = 4 bytes
    PortRcvData, // same as PortXmitData
    PortXmitPackets,
    PortRcvPackets,
};
inline constexpr int kCounterKindCount = 10;

struct CounterSemantics
{
    std::string_view name; // sysfs file name, e.g. "link_downed"
    std::uint8_t defaultBits; // width when the port does not say otherwise
    std::uint32_t unitBytes; // 4 for *_data (octets / 4), else 0 = not a byte counter
    // The exporters' names of the counter (docs/formats.md §4c, §4e); their data counters are in bytes.
    std::string_view nodeExporter; // node_exporter's series, e.g. "node_infiniband_link_downed_total"
    std::string_view treydock; // treydock/infiniband_exporter's, between "infiniband_switch_port_" and "_total"
};

const CounterSemantics& semantics(CounterKind kind);
std::optional<CounterKind> parseCounterKind(std::string_view sysfsName);

// The increase between two raw readings of a counter of `bits` width. IBA counters saturate (stick at all
// ones) and are cleared to 0 by tools: a decrease is a reset, so the increase is at least `next`.
// A reading stuck at the maximum hides any further increase; the caller learns that via `saturated`.
struct CounterDelta
{
    std::uint64_t increase = 0;
    bool reset = false;
    bool saturated = false; // `next` is at the counter's maximum: the true increase may be larger
};
// Inline: the analysis and the views call it for every sample of millions of series.
inline CounterDelta counterDelta(std::uint64_t prev, std::uint64_t next, std::uint8_t bits)
{
    const std::uint64_t max = bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
    CounterDelta d;
    if (next < prev) {
        d.reset = true;
        d.increase = next; // cleared to 0, then counted up to `next`
    } else {
        d.increase = next - prev;
    }
    d.saturated = next >= max;
    return d;
}

// A port as counters name it: the node GUID and port number (joined to Topology by GUID).
struct CounterPort
{
    std::uint64_t guid = 0;
    std::uint16_t port = 0;
    std::optional<NodeId> node; // resolved against the topology at load time
};

// One counter of one port. `values` is stored at `storageBytes` (1, 2, 4 or 8) per sample.
struct CounterSeries
{
    std::uint32_t port = 0; // index into JobSnapshot::counterPorts
    CounterKind kind = CounterKind::LinkDowned;
    std::uint8_t bits = 64; // counter width as the port reported it
    std::uint8_t storageBytes = 8;
    std::span<const TimeNs> timesNs; // sorted ascending; may be shared with other series of the same sampler
    const void* values = nullptr;

    std::size_t size() const { return timesNs.size(); }
    std::uint64_t value(std::size_t i) const
    {
        switch (storageBytes) {
        case 1:
            return static_cast<const std::uint8_t*>(values)[i];
        case 2:
            return static_cast<const std::uint16_t*>(values)[i];
        case 4:
            return static_cast<const std::uint32_t*>(values)[i];
        default:
            return static_cast<const std::uint64_t*>(values)[i];
        }
    }
};

std::uint8_t storageBytesFor(std::uint8_t bits);

// Calls fn(k) for each sample k >= 1 whose counterDelta from sample k - 1 has an increase: a reading that differs
// from the one before and is not a clear to 0. One compare per sample at the stored width, for scans of whole
// series where increases are rare (error counters). This form: the samples k in [from, to) only.
template <typename Fn> void forEachIncrease(const CounterSeries& s, std::size_t from, std::size_t to, Fn fn)
{
    to = std::min(to, s.size());
    const auto scan = [&](const auto* v) {
        for (std::size_t k = std::max<std::size_t>(from, 1); k < to; ++k) {
            if (v[k] != v[k - 1] && v[k] != 0) {
                fn(k);
            }
        }
    };
    switch (s.storageBytes) {
    case 1:
        return scan(static_cast<const std::uint8_t*>(s.values));
    case 2:
        return scan(static_cast<const std::uint16_t*>(s.values));
    case 4:
        return scan(static_cast<const std::uint32_t*>(s.values));
    default:
        return scan(static_cast<const std::uint64_t*>(s.values));
    }
}
template <typename Fn> void forEachIncrease(const CounterSeries& s, Fn fn)
{
    forEachIncrease(s, 1, s.size(), fn);
}

enum class LinkState : std::uint8_t { Down, Up };

// A link state change seen by some source (opensm trap, NCCL async event, simulator truth...).
struct LinkEvent
{
    TimeNs timeNs = 0;
    std::uint64_t guid = 0; // node whose port changed
    std::uint16_t port = 0;
    LinkState state = LinkState::Down;
    StringId source {}; // "opensm", "nccl", "sysfs", ...
};

// The subnet manager finished a sweep and programmed the switches' forwarding tables (OpenSM's
// "SUBNET UP" after a trap): from then on static routes avoid a link that went down before the sweep began.
struct RouteUpdate
{
    TimeNs timeNs = 0;
    StringId source {}; // "opensm"
};

// The port counters' PMA names as perfquery and ibqueryerrors print them (long and old short spellings, any
// case: "PortXmitWait", "XmtWait", "LinkDownedCounter") → kind; nullopt for counters Stallscope does not model.
std::optional<CounterKind> counterKindFromPerfName(std::string name);

} // namespace stallscope
