// SPDX-License-Identifier: MIT
#include "import/infiniband/ibnetdiscover.h"
#include "core/parse_number.h"
#include "import/common/text_lines.h"

#include <regex>
#include <sstream>

namespace stallscope {

bool looksLikeIbsimNet(const std::string& text)
{
    return text.rfind("Hca\t", 0) == 0 || text.find("\nHca\t") != std::string::npos;
}

bool looksLikeIbnetdiscover(const std::string& text)
{
    return text.find("\nSwitch\t") != std::string::npos || text.rfind("Switch\t", 0) == 0
        || text.find("# Topology file") != std::string::npos
        || ((text.rfind("SW ", 0) == 0 || text.rfind("CA ", 0) == 0) && text.find(" - ") != std::string::npos);
}

namespace {

// "4xNDR" or "4x NDR" → ("4x", "NDR")
std::pair<std::string, std::string> widthSpeed(const std::string& tail)
{
    static const std::regex re(R"((\d+)x\s*(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR|\?\?\?))");
    std::smatch m;
    if (std::regex_search(tail, m, re)) {
        return { m[1].str() + "x", m[2].str() };
    }
    return {};
}

std::uint64_t hex(const std::string& s)
{
    return toNumber<std::uint64_t>(s, 16);
}

} // namespace

Result<std::size_t> readIbnetdiscover(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings)
{
    // Plain format: node headers, then port lines; `-p`: one line per port with both ends.
    static const std::regex header(
        R"re(^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(?:.*\blid (\d+))?)re");
    static const std::regex port(
        R"re(^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*#(.*)$)re");
    static const std::regex portsReport(
        R"re(^(SW|CA|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+(\d+x)\s+(\S+)\s+-\s+(SW|CA|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+\(\s*'([^']*)'\s+-\s+'([^']*)'\s*\))re");
    static const std::regex caLid(R"re(^\s*lid (\d+))re");
    std::uint64_t current = 0;
    bool haveCurrent = false;
    NodeKind currentKind = NodeKind::Switch;
    std::size_t lines = 0;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            std::smatch m;
            if (line.empty() || line[0] == '#' || line.rfind("vendid", 0) == 0 || line.rfind("devid", 0) == 0
                || line.rfind("sysimgguid", 0) == 0 || line.rfind("switchguid", 0) == 0 || line.rfind("caguid", 0) == 0
                || line.rfind("rtguid", 0) == 0) {
                return std::nullopt;
            }
            if (std::regex_search(line, m, header)) {
                currentKind = m[1] == "Switch" ? NodeKind::Switch : NodeKind::Hca;
                current = fabric.node(currentKind, hex(m[4]), m[5], toNumber<int>(m[2].str()), true, false);
                if (m[6].matched) {
                    fabric.lid(toNumber<std::uint32_t>(m[6].str()), current);
                }
                haveCurrent = true;
                ++lines;
                return std::nullopt;
            }
            if (std::regex_search(line, m, port)) {
                if (!haveCurrent) {
                    return LoadIssue { file, lineNo, -1, "a port line before any Switch/Ca header" };
                }
                if (m[2].matched) {
                    fabric.alias(hex(m[2]), current); // a CA's own port GUID
                }
                const auto remote = hex(m[4]);
                if (m[6].matched) {
                    fabric.alias(hex(m[6]), remote); // the remote CA's port GUID
                }
                const std::string tail = m[7];
                std::smatch lm;
                if (currentKind == NodeKind::Hca && std::regex_search(tail, lm, caLid)) {
                    fabric.lid(toNumber<std::uint32_t>(lm[1].str()), current);
                }
                const auto [width, speed] = widthSpeed(tail);
                fabric.link(current, toNumber<int>(m[1].str()), remote, toNumber<int>(m[5].str()), width, speed);
                ++lines;
                return std::nullopt;
            }
            if (std::regex_search(line, m, portsReport)) {
                // The ports report names port GUIDs; a CA is joined to its node by description.
                const auto a = fabric.node(m[1] == "SW" ? NodeKind::Switch : NodeKind::Hca, hex(m[4]), m[11]);
                const auto b = fabric.node(m[7] == "SW" ? NodeKind::Switch : NodeKind::Hca, hex(m[10]), m[12]);
                fabric.lid(toNumber<std::uint32_t>(m[2].str()), a);
                fabric.lid(toNumber<std::uint32_t>(m[8].str()), b);
                fabric.link(a, toNumber<int>(m[3].str()), b, toNumber<int>(m[9].str()), m[5], m[6]);
                ++lines;
                return std::nullopt;
            }
            if (line.rfind("SW ", 0) == 0 || line.rfind("CA ", 0) == 0) {
                return std::nullopt; // -p: an unconnected port (only the local description)
            }
            warnings.push_back({ file, lineNo, -1, "unrecognised line skipped: " + line.substr(0, 80) });
            return std::nullopt;
        });
    if (stopped) {
        return *stopped;
    }
    if (lines == 0) {
        return LoadIssue { file, 0, -1, "no Switch/Ca nodes found: expected ibnetdiscover output" };
    }
    return lines;
}

Result<ImportedTopology> parseIbnetdiscover(const std::string& file, const std::string& text, StringPool& strings)
{
    FabricBuilder fabric;
    ImportedTopology out;
    auto r = readIbnetdiscover(file, text, fabric, out.warnings);
    if (!r) {
        return r.error();
    }
    out.topology = fabric.build(strings, file, out.warnings);
    return out;
}

} // namespace stallscope
