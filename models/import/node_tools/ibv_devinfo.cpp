// SPDX-License-Identifier: MIT
// ibv_devinfo [-v] (rdma-core libibverbs/examples/devinfo.c print_hca_cap; docs/formats.md §5f):
//   hca_id:	mlx5_0
//   	transport / fw_ver: 20.41.1000 / node_guid: 0c42:a103:00aa:0001 / ... / phys_port_cnt: 1
//   		port:	1
//   			state: PORT_ACTIVE (4) / max_mtu / active_mtu / sm_lid: 1 / port_lid: 13247 / port_lmc /
//   			link_layer: InfiniBand; with -v also active_width: 4X (2), active_speed: 50.0 Gbps (64),
//   			phys_state: LINK_UP (5), GID[  0]: ... and some forty capability lines (read past).
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

#include <algorithm>
#include <cctype>

namespace stallscope::node_tools {

namespace {

// -v prints capability lines of every kind ("max_qp_wr:", "GID[  0]:"): known by their shape, not listed here.
bool isDevinfoKey(std::string_view key)
{
    if (key.starts_with("GID[")) {
        return true;
    }
    return !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
        return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch))
            || ch == '_';
    });
}

// The rate from the lanes and a lane's speed, once both are known.
void completeRate(HostPort& p, int width, double laneGbps)
{
    if (width > 0) {
        p.rate.width = width;
    }
    if (laneGbps > 0) {
        p.rate.speed = speedOfLaneGbps(laneGbps);
        p.rate.gbps = laneGbps; // until the width is known
    }
    if (p.rate.width > 0 && !p.rate.speed.empty()) {
        p.rate.gbps = laneDataOf(p.rate.speed) * p.rate.width;
    }
}

// The code in parentheses: "(2)" → 2; -1 when absent.
int codeOf(std::string_view value)
{
    const auto open = value.rfind('(');
    const auto close = value.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return -1;
    }
    return parseNumber<int>(value.substr(open + 1, close - open - 1)).value_or(-1);
}

// "4X (2)" → 4; "invalid widthX (16)" (rdma-core before v22 for 2X) → 2 by the verbs code.
int widthOf(std::string_view value)
{
    switch (codeOf(value)) {
    case 1:
        return 1;
    case 2:
        return 4;
    case 4:
        return 8;
    case 8:
        return 12;
    case 16:
        return 2;
    default:
        return parseNumber<int>(value.substr(0, value.find('X'))).value_or(0);
    }
}

// "50.0 Gbps (64)" → 50; "invalid speed (64)" (HDR before rdma-core v22, NDR before v39) → 50 by the code.
double laneSpeedOf(std::string_view value)
{
    static constexpr std::pair<int, double> kCodes[] = { { 1, 2.5 }, { 2, 5 }, { 4, 10 }, { 8, 10 }, { 16, 14 },
        { 32, 25 }, { 64, 50 }, { 128, 100 }, { 256, 200 } };
    const int code = codeOf(value);
    for (const auto& [c, gbps] : kCodes) {
        if (c == code) {
            return gbps;
        }
    }
    return parseDouble(value.substr(0, value.find(' '))).value_or(0);
}

} // namespace

double laneDataOf(std::string_view speed)
{
    // The signalling rate ibv_devinfo names per lane (its "50.0 Gbps" for HDR), as ibstat's Rate counts it.
    static constexpr std::pair<std::string_view, double> kLanes[]
        = { { "SDR", 2.5 }, { "DDR", 5 }, { "QDR", 10 }, { "FDR", 14 }, { "EDR", 25 }, { "HDR", 50 }, { "NDR", 100 },
              { "XDR", 200 } };
    for (const auto& [name, gbps] : kLanes) {
        if (speed == name) {
            return gbps;
        }
    }
    return 0;
}

bool devinfoHeader(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t /*lineNo*/)
{
    if (key != "hca_id" || value.empty()) {
        return false;
    }
    s.openDevice(c, "ibv_devinfo", value);
    return true;
}

bool devinfoField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo)
{
    if (key == "port") {
        const auto n = parseNumber<std::uint16_t>(value);
        if (!n) {
            return false;
        }
        auto& p = s.openPort(c, *n, lineNo);
        p.evidence = "port: " + std::string(value);
        return true;
    }
    if (key == "fw_ver") {
        c.fw = std::string(value);
        return true;
    }
    if (key == "node_guid") {
        c.nodeGuid = parseGuidText(value).value_or(0);
        return true;
    }
    auto* p = s.current(c);
    if (!p) {
        return isDevinfoKey(key);
    }
    if (key == "state") {
        p->state = parsePortState(value).value_or(PortState::Unknown);
        p->line = lineNo;
        p->evidence = "state: " + std::string(value);
    } else if (key == "phys_state") {
        p->phys = parsePhysState(value).value_or(PhysState::Unknown);
        p->evidence += ", phys_state: " + std::string(value);
    } else if (key == "sm_lid") {
        p->smLid = parseLidText(value);
    } else if (key == "port_lid") {
        p->lid = parseLidText(value);
    } else if (key == "link_layer") {
        p->linkLayer = value == "IB" ? "InfiniBand" : std::string(value); // libibverbs 1.1 said "IB"
    } else if (key == "active_width") {
        completeRate(*p, widthOf(value), 0);
    } else if (key == "active_speed") {
        completeRate(*p, 0, laneSpeedOf(value));
    } else {
        return isDevinfoKey(key);
    }
    return true;
}

bool devicesLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    const auto w = words(line, 4);
    // The header "device                 node GUID" and its "------              ----------------" rule.
    if (w.size() == 3 && w[0] == "device" && w[1] == "node" && w[2] == "GUID") {
        s.openDevice(c, "ibv_devices", "");
        auto& listed = s.devicesListed[s.host];
        listed = { lineNo, listed.second };
        return true;
    }
    if (c.tool != "ibv_devices") {
        return false;
    }
    if (w.size() == 2 && w[0].find_first_not_of('-') == std::string_view::npos
        && w[1].find_first_not_of('-') == std::string_view::npos) {
        return true;
    }
    // "mlx5_0              b83fd20300c4a100": a device the verbs library sees, its ports not listed.
    const auto guid = w.size() == 2 ? parseGuidText(w[1]) : std::nullopt;
    if (!guid) {
        return false;
    }
    c.device = std::string(w[0].substr(0, 64));
    c.nodeGuid = *guid;
    auto& p = s.openPort(c, 0, lineNo);
    p.evidence = std::string(line.substr(0, 120));
    ++s.devicesListed[s.host].second;
    return true;
}

void noDevicesListed(Sink& s)
{
    for (const auto& [host, listed] : s.devicesListed) {
        if (listed.first > 0 && listed.second == 0) {
            s.out.gone.push_back({ host, "every RDMA device", "ibv_devices", s.file, listed.first,
                "ibv_devices listed no device under its header" });
        }
    }
}

} // namespace stallscope::node_tools
