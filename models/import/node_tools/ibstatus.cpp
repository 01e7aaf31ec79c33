// SPDX-License-Identifier: MIT
// ibstatus (rdma-core infiniband-diags/scripts/ibstatus: sysfs echoed; docs/formats.md §5f):
//   Infiniband device 'mlx5_0' port 1 status:
//   	default gid:	 fe80:0000:... / base lid:	 0x33bf / sm lid:		 0x1 / state:		 4: ACTIVE /
//   	phys state:	 5: LinkUp / rate:		 200 Gb/sec (4X HDR) / link_layer:	 InfiniBand
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

bool ibstatusHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    constexpr std::string_view kHead = "Infiniband device '";
    if (!line.starts_with(kHead) || !line.ends_with(" status:")) {
        return false;
    }
    const auto rest = line.substr(kHead.size());
    const auto quote = rest.find("' port ");
    if (quote == std::string_view::npos || quote == 0) {
        return false;
    }
    auto portText = rest.substr(quote + 7);
    portText = portText.substr(0, portText.find(' '));
    const auto port = parseNumber<std::uint16_t>(portText);
    if (!port) {
        return false;
    }
    if (c.tool != "ibstatus" || c.device != rest.substr(0, quote)) {
        s.openDevice(c, "ibstatus", rest.substr(0, quote));
    }
    auto& p = s.openPort(c, *port, lineNo);
    p.evidence = std::string(line);
    return true;
}

bool ibstatusField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo)
{
    auto* p = s.current(c);
    if (!p) {
        return false;
    }
    if (key == "state") {
        p->state = parsePortState(value).value_or(PortState::Unknown);
        p->line = lineNo;
        p->evidence = "state: " + std::string(value);
    } else if (key == "phys state") {
        p->phys = parsePhysState(value).value_or(PhysState::Unknown);
        p->evidence += ", phys state: " + std::string(value);
    } else if (key == "rate") {
        p->rate = parsePortRate(value).value_or(PortRate {});
    } else if (key == "base lid") {
        p->lid = parseLidText(value);
    } else if (key == "sm lid") {
        p->smLid = parseLidText(value);
    } else if (key == "link_layer") {
        p->linkLayer = value == "IB" ? "InfiniBand" : std::string(value);
    } else if (key != "default gid") {
        return false;
    }
    return true;
}

} // namespace stallscope::node_tools
