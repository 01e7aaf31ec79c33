// SPDX-License-Identifier: MIT
// ibhosts / ibswitches / ibrouters lines (ib_node_list.h): rdma-core infiniband-diags/scripts/ibhosts.in and
// ibswitches.in print ibnetdiscover's node lines as `<Type>\t: <guid> ports <n> "<desc>"` plus, for switches,
// `<base|enhanced> port 0 lid <lid> lmc <lmc>`.
#include "import/infiniband/ib_node_list.h"

#include "core/parse_number.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

namespace stallscope {

namespace {

struct NodeLine
{
    NodeKind kind = NodeKind::Hca;
    std::uint64_t guid = 0;
    int ports = 0;
    std::string desc;
    std::optional<std::uint32_t> lid;
};

// Where a node line starts in `line`: "Ca", "Switch" or "Router", blanks, ':', blanks, "0x"; npos when none.
std::size_t nodeLineAt(std::string_view line, NodeKind& kind)
{
    struct Type
    {
        std::string_view word;
        NodeKind kind;
    };
    static constexpr Type kTypes[] = { { "Switch", NodeKind::Switch }, { "Ca", NodeKind::Hca },
        { "Router", NodeKind::Switch } };
    for (const auto& t : kTypes) {
        for (auto at = line.find(t.word); at != std::string_view::npos; at = line.find(t.word, at + 1)) {
            auto i = at + t.word.size();
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
                ++i;
            }
            if (i >= line.size() || line[i] != ':') {
                continue;
            }
            ++i;
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
                ++i;
            }
            if (line.substr(i, 2) == "0x") {
                kind = t.kind;
                return at;
            }
        }
    }
    return std::string_view::npos;
}

std::optional<NodeLine> parseNodeLine(std::string_view line)
{
    NodeLine n;
    const auto at = nodeLineAt(line, n.kind);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    LineScan s(line.substr(line.find("0x", at)));
    const auto guid = s.until(" \t");
    const auto g = parseNumber<std::uint64_t>(guid, 16);
    if (!g || *g == 0 || !s.skipPast(" ports ")) {
        return std::nullopt;
    }
    const auto ports = s.digits(4);
    if (ports.empty() || !s.skipPast("\"")) {
        return std::nullopt;
    }
    const auto desc = s.until("\"");
    if (!s.lit("\"")) {
        return std::nullopt;
    }
    n.guid = *g;
    n.ports = toNumber<int>(ports);
    n.desc = std::string(desc.substr(0, 256));
    if (s.skipPast(" lid ")) {
        n.lid = parseNumber<std::uint32_t>(s.digits(6));
    }
    return n;
}

} // namespace

bool looksLikeIbNodeList(const std::string& text)
{
    // Two node lines among the first 200 lines, or one when it is a switch's with its LID: a single "Ca : 0x…"
    // quoted in a log is not a list.
    int found = 0;
    std::size_t pos = 0;
    for (int n = 0; n < 200 && pos < text.size(); ++n) {
        const auto end = std::min(text.find('\n', pos), text.size());
        if (const auto l = parseNodeLine(std::string_view(text).substr(pos, end - pos))) {
            if (++found >= 2 || (l->kind == NodeKind::Switch && l->lid)) {
                return true;
            }
        }
        pos = end + 1;
    }
    return false;
}

Result<IbNodeList> readIbNodeList(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings)
{
    IbNodeList out;
    readLines(text, file, warnings, [&](const std::string& line, std::int64_t lineNo) {
        NodeKind kind {};
        if (nodeLineAt(line, kind) == std::string_view::npos) {
            return;
        }
        const auto n = parseNodeLine(line);
        if (!n) {
            warnings.push_back({ file, lineNo, -1,
                "expected a node line `<Type> : 0x<guid> ports <n> \"<description>\"`, got \""
                    + line.substr(0, 80) + "\": skipped" });
            return;
        }
        const auto guid = fabric.node(n->kind, n->guid, n->desc, n->ports, true, false);
        if (n->lid && *n->lid > 0 && *n->lid < 0xc000) {
            fabric.lid(*n->lid, guid);
        }
        (n->kind == NodeKind::Hca ? out.cas : line.find("Router") != std::string::npos ? out.routers : out.switches)++;
    });
    if (out.cas + out.switches + out.routers == 0) {
        return LoadIssue { file, 0, -1, "no node line read: expected ibhosts' or ibswitches' `Ca : 0x… ports N \"…\"`" };
    }
    return out;
}

} // namespace stallscope
