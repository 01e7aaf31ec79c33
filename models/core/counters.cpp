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
    { "link_downed", 8, 0, "node_infiniband_link_downed_total", "link_downed" },
    { "link_error_recovery", 8, 0, "node_infiniband_link_error_recovery_total", "link_error_recovery" },
    { "symbol_error", 16, 0, "node_infiniband_symbol_error_total", "symbol_error" },
    { "port_rcv_errors", 16, 0, "node_infiniband_port_errors_received_total", "receive_errors" },
    { "port_xmit_discards", 16, 0, "node_infiniband_port_discards_transmitted_total", "transmit_discards" },
    { "port_xmit_wait", 32, 0, "node_infiniband_port_transmit_wait_total", "transmit_wait" },
    { "port_xmit_data", 64, 4, "node_infiniband_port_data_transmitted_bytes_total", "transmit_data_bytes" },
    { "port_rcv_data", 64, 4, "node_infiniband_port_data_received_bytes_total", "receive_data_bytes" },
    { "port_xmit_packets", 64, 0, "node_infiniband_port_packets_transmitted_total", "transmit_packets" },
    { "port_rcv_packets", 64, 0, "node_infiniband_port_packets_received_total", "receive_packets" },
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
