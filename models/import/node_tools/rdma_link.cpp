// SPDX-License-Identifier: MIT
// rdma link [show] (iproute2 rdma/link.c; docs/formats.md §5f), one line per port:
//   link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 13247 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
//   link mlx5_2/1 state ACTIVE physical_state LINK_UP netdev ens1f0
// and the first releases' "1/1: mlx5_0/1: state ACTIVE physical_state LINK_UP netdev ib0".
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

#include <vector>

namespace stallscope::node_tools {

namespace {

// "mlx5_0/1" (or "mlx5_0/1:") → device, port; the index of the word after it.
struct LinkHead
{
    std::string_view device;
    std::uint16_t port = 0;
    std::size_t next = 0;
};

std::optional<LinkHead> linkHead(const std::vector<std::string_view>& w)
{
    std::size_t at = 0;
    if (!w.empty() && w[0] == "link") {
        at = 1;
    } else if (w.size() > 1 && w[0].ends_with(':') && w[0].find('/') != std::string_view::npos) {
        at = 1; // "1/1:" — the device and port index of the first releases
    } else {
        return std::nullopt;
    }
    if (at >= w.size()) {
        return std::nullopt;
    }
    auto name = w[at];
    if (name.ends_with(':')) {
        name.remove_suffix(1);
    }
    const auto slash = name.rfind('/');
    if (slash == std::string_view::npos || slash == 0) {
        return std::nullopt;
    }
    const auto port = parseNumber<std::uint16_t>(name.substr(slash + 1));
    if (!port) {
        return std::nullopt;
    }
    // A state must follow somewhere: "link" alone starts many other lines.
    for (std::size_t i = at + 1; i + 1 < w.size(); ++i) {
        if (w[i] == "state" || w[i] == "physical_state") {
            return LinkHead { name.substr(0, slash), *port, at + 1 };
        }
    }
    return std::nullopt;
}

} // namespace

bool isRdmaLinkLine(std::string_view line)
{
    return linkHead(words(line, 64)).has_value();
}

bool rdmaLinkLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    const auto w = words(line, 64);
    const auto head = linkHead(w);
    if (!head) {
        return false;
    }
    s.openDevice(c, "rdma link", head->device);
    auto& p = s.openPort(c, head->port, lineNo);
    p.evidence = std::string(line);
    for (std::size_t i = head->next; i + 1 < w.size(); ++i) {
        const auto key = w[i], value = w[i + 1];
        if (key == "state") {
            p.state = parsePortState(value).value_or(PortState::Unknown);
        } else if (key == "physical_state") {
            p.phys = parsePhysState(value).value_or(PhysState::Unknown);
        } else if (key == "lid") {
            p.lid = parseLidText(value);
        } else if (key == "sm_lid") {
            p.smLid = parseLidText(value);
        } else if (key == "netdev") {
            p.netdev = std::string(value.substr(0, 32));
        } else {
            continue;
        }
        ++i;
    }
    c.port.reset(); // one line, one port: the next line is not this port's
    return true;
}

} // namespace stallscope::node_tools
