// SPDX-License-Identifier: MIT
// ibstat (infiniband-diags, rdma-core infiniband-diags/ibstat.c ca_dump/port_dump; docs/formats.md §5f):
//   CA 'mlx5_0'                 ("CA: 'mlx5_0'" when one port was asked for; "Switch '...'" for a switch)
//   	CA type: MT4123 / Number of ports / Firmware version / Hardware version / Node GUID: 0x... / System image GUID
//   	Port 1:
//   		State: Active / Physical state: LinkUp / Rate: 200 / Base lid / LMC / SM lid / Capability mask /
//   		Port GUID: 0x... / Link layer: InfiniBand
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

bool ibstatHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t /*lineNo*/)
{
    for (std::string_view type : { "CA", "Switch", "Router", "iWARP RNIC" }) {
        if (!line.starts_with(type)) {
            continue;
        }
        auto rest = line.substr(type.size());
        if (rest.starts_with(":")) {
            rest.remove_prefix(1);
        }
        if (!rest.starts_with(" '") || !rest.ends_with("'") || rest.size() < 4) {
            continue;
        }
        s.openDevice(c, "ibstat", rest.substr(2, rest.size() - 3));
        return true;
    }
    return false;
}

bool ibstatField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo)
{
    if (key.starts_with("Port ") && value.empty()) {
        const auto n = parseNumber<std::uint16_t>(key.substr(5));
        if (!n) {
            return false;
        }
        auto& p = s.openPort(c, *n, lineNo);
        p.evidence = std::string(key) + ":";
        return true;
    }
    if (key == "Firmware version") {
        c.fw = std::string(value);
        return true;
    }
    if (key == "Node GUID") {
        c.nodeGuid = parseGuidText(value).value_or(0);
        return true;
    }
    for (std::string_view known : { "CA type", "Switch type", "Router type", "Number of ports", "Hardware version",
             "System image GUID", "LMC", "Capability mask", "Effective speed" }) {
        if (key == known) {
            return true;
        }
    }
    auto* p = s.current(c);
    if (!p) {
        return false;
    }
    if (key == "State") {
        p->state = parsePortState(value).value_or(PortState::Unknown);
        p->line = lineNo;
        p->evidence = "State: " + std::string(value);
    } else if (key == "Physical state") {
        p->phys = parsePhysState(value).value_or(PhysState::Unknown);
        p->evidence += ", Physical state: " + std::string(value);
    } else if (key == "Rate") {
        p->rate = parsePortRate(value).value_or(PortRate {});
    } else if (key == "Base lid") {
        p->lid = parseLidText(value);
    } else if (key == "SM lid") {
        p->smLid = parseLidText(value);
    } else if (key == "Port GUID") {
        p->portGuid = parseGuidText(value).value_or(0);
    } else if (key == "Link layer") {
        p->linkLayer = std::string(value);
    } else {
        return false;
    }
    return true;
}

} // namespace stallscope::node_tools
