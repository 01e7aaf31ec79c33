// SPDX-License-Identifier: MIT
// ibqueryerrors (rdma-core infiniband-diags/ibqueryerrors.c; docs/formats.md §5f):
//   Errors for 0x2c903006e29b0 "leaf-r3"           (a switch: GUID printed with %llx, no zero padding)
//   Errors for "gpu042 mlx5_0"                      (an HCA: its description alone)
//      GUID 0x2c903006e29b0 port ALL: [LinkDownedCounter == 48] ...
//      GUID 0x2c903006e29b0 port 5: [SymbolErrorCounter == 65535] [LinkDownedCounter == 2]
//   ## Summary: 4 nodes checked, 4 bad nodes found   (and more "## " lines)
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

namespace {

constexpr std::size_t kMaxCountersPerPort = 64; // a port line names about twenty counters at most

// " [SymbolErrorCounter == 65535] [PortXmitData == 1234 (4.6MB)]" → name, value pairs.
void readCounters(std::string_view rest, PortErrorReport& r)
{
    while (r.counters.size() < kMaxCountersPerPort) {
        const auto open = rest.find('[');
        const auto close = rest.find(']', open == std::string_view::npos ? 0 : open);
        if (open == std::string_view::npos || close == std::string_view::npos) {
            return;
        }
        const auto item = rest.substr(open + 1, close - open - 1);
        rest.remove_prefix(close + 1);
        const auto eq = item.find(" == ");
        if (eq == std::string_view::npos) {
            continue;
        }
        auto value = item.substr(eq + 4);
        value = value.substr(0, value.find(' ')); // "1234 (4.6MB)" with --data
        if (const auto v = parseNumber<std::uint64_t>(value)) {
            r.counters.emplace_back(std::string(item.substr(0, std::min<std::size_t>(eq, 64))), *v);
        }
    }
}

} // namespace

bool queryErrorsLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    if (line.starts_with("Errors for ")) {
        auto rest = line.substr(11);
        const auto quote = rest.find('"');
        if (quote == std::string_view::npos || !rest.ends_with("\"") || rest.size() < quote + 2) {
            return false;
        }
        s.openDevice(c, "ibqueryerrors", rest.substr(quote + 1, rest.size() - quote - 2));
        c.nodeGuid = quote > 0 ? parseNumber<std::uint64_t>(rest.substr(0, quote - 1), 16).value_or(0) : 0;
        return true;
    }
    if (c.tool != "ibqueryerrors") {
        return false;
    }
    if (line.starts_with("## ")) {
        return true; // the summary
    }
    if (!line.starts_with("GUID ")) {
        return false;
    }
    const auto portAt = line.find(" port ");
    const auto colon = line.find(':', portAt == std::string_view::npos ? 0 : portAt);
    if (portAt == std::string_view::npos || colon == std::string_view::npos) {
        return false;
    }
    PortErrorReport r;
    r.node = c.device;
    r.switchNode = c.nodeGuid != 0;
    r.guid = parseNumber<std::uint64_t>(line.substr(5, portAt - 5), 16).value_or(c.nodeGuid);
    const auto port = line.substr(portAt + 6, colon - portAt - 6);
    if (port != "ALL") {
        r.port = parseNumber<std::uint16_t>(port);
        if (!r.port) {
            return false;
        }
    }
    readCounters(line.substr(colon + 1), r);
    r.file = s.file;
    r.line = lineNo;
    r.evidence = std::string(line.substr(0, 300));
    s.out.errors.push_back(std::move(r));
    return true;
}

} // namespace stallscope::node_tools
