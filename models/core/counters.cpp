// SPDX-License-Identifier: MIT
#include "core/counters.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <array>

namespace stallscope {

namespace {
// keep in sync with CounterKind
constexpr std::array<CounterSemantics, kCounterKindCount> kSemantics = { {
    { "link_downed", 8, 0 },
    { "link_error_recovery", 8, 0 },
    { "symbol_error", 16, 0 },
    { "port_rcv_errors", 16, 0 },
    { "port_xmit_discards", 16, 0 },
    { "port_xmit_wait", 32, 0 },
    { "port_xmit_data", 64, 4 },
    { "port_rcv_data", 64, 4 },
    { "port_xmit_packets", 64, 0 },
    { "port_rcv_packets", 64, 0 },
} };
} // namespace

const CounterSemantics& semantics(CounterKind kind)
{
    return kSemantics.at(static_cast<std::size_t>(kind));
}

std::optional<CounterKind> parseCounterKind(std::string_view sysfsName)
{
    for (std::size_t i = 0; i < kSemantics.size(); ++i) {
        if (kSemantics[i].name == sysfsName) {
            return static_cast<CounterKind>(i);
        }
    }
    return std::nullopt;
}

CounterDelta counterDelta(std::uint64_t prev, std::uint64_t next, std::uint8_t bits)
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

std::uint8_t storageBytesFor(std::uint8_t bits)
{
    if (bits <= 8) {
        return 1;
    }
    if (bits <= 16) {
        return 2;
    }
    if (bits <= 32) {
        return 4;
    }
    return 8;
}

std::optional<CounterKind> counterKindFromPerfName(std::string name)
{
    static const std::map<std::string, CounterKind> kinds = {
        { "symbolerrorcounter", CounterKind::SymbolError },
        { "symbolerrors", CounterKind::SymbolError },
        { "linkerrorrecoverycounter", CounterKind::LinkErrorRecovery },
        { "linkrecovers", CounterKind::LinkErrorRecovery },
        { "linkdownedcounter", CounterKind::LinkDowned },
        { "linkdowned", CounterKind::LinkDowned },
        { "portrcverrors", CounterKind::PortRcvErrors },
        { "rcverrors", CounterKind::PortRcvErrors },
        { "portxmitdiscards", CounterKind::PortXmitDiscards },
        { "xmtdiscards", CounterKind::PortXmitDiscards },
        { "portxmitwait", CounterKind::PortXmitWait },
        { "xmtwait", CounterKind::PortXmitWait },
        { "portxmitdata", CounterKind::PortXmitData },
        { "xmtdata", CounterKind::PortXmitData },
        { "portrcvdata", CounterKind::PortRcvData },
        { "rcvdata", CounterKind::PortRcvData },
        { "portxmitpkts", CounterKind::PortXmitPackets },
        { "xmtpkts", CounterKind::PortXmitPackets },
        { "portrcvpkts", CounterKind::PortRcvPackets },
        { "rcvpkts", CounterKind::PortRcvPackets },
    };
    auto it = kinds.find((std::transform(name.begin(), name.end(), name.begin(),
                              [](unsigned char c) { return static_cast<char>(std::tolower(c)); }),
        name));
    return it == kinds.end() ? std::nullopt : std::optional<CounterKind>(it->second);
}

} // namespace stallscope
