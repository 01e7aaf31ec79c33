// SPDX-License-Identifier: MIT
#include "import/infiniband/fabric_tools.h"
#include "core/parse_number.h"
#include "import/common/text_lines.h"

#include "import/common/sample_stamp.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

namespace stallscope {

namespace {

std::string trim(const std::string& s)
{
    const auto a = s.find_first_not_of(" \t");
    const auto b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

} // namespace

bool looksLikeIblinkinfo(const std::string& text)
{
    return text.find(")==>") != std::string::npos && text.find("==(") != std::string::npos;
}

bool looksLikePerfquery(const std::string& text)
{
    return text.find("# Port counters:") != std::string::npos
        || text.find("# Port extended counters:") != std::string::npos;
}

namespace {

// One port line of iblinkinfo, before the nodes are declared (the -l form names no node kinds).
struct LinkinfoLine
{
    std::uint64_t guid = 0; // switch GUID or CA port GUID
    std::string desc;
    NodeKind kind = NodeKind::Switch;
    bool kindKnown = false; // from a "Switch:" / "CA:" header
    std::uint32_t lid = 0;
    int port = 0;
    bool up = false;
    std::optional<std::uint64_t> remoteGuid; // -l form only
    std::uint32_t remoteLid = 0;
    int remotePort = 0;
    std::string remoteDesc, width, speed;
};

} // namespace

Result<IblinkinfoSnapshot> readIblinkinfo(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings)
{
    static const std::regex switchHeader(R"(^Switch:\s+0x([0-9a-fA-F]+)\s+(.*):\s*$)");
    static const std::regex caHeader(R"(^CA:\s+(.*):\s*$)");
    // [0x<guid>] ["<desc>"] <lid> <port>[ext] ==( <width speed> <state>/ <phys>)==> [0x<rguid>] [<rlid> <rport>][ext]
    // "<rdesc>"
    static const std::regex portLine(
        R"re(^\s*(?:0x([0-9a-fA-F]+)\s+)?(?:"\s*([^"]*)"\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s+==\(\s*(.*?)\s*(\w+)/\s*(\w+)\s*\)==>\s+(?:0x([0-9a-fA-F]+)\s+)?(?:(\d+)\s+(\d+))?\s*\[[^\]]*\]\s+"([^"]*)")re");
    static const std::regex widthSpeed(R"((\d+)X\s+([\d.]+ Gbps))");
    IblinkinfoSnapshot snap;
    std::vector<LinkinfoLine> lines;
    LinkinfoLine node; // the current header's node
    bool haveHeader = false;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            std::smatch m;
            if (trim(line).empty()) {
                return std::nullopt;
            }
            if (auto t = parseSampleStamp(line)) {
                snap.stampNs = snap.stampNs == kNoTime ? *t : snap.stampNs;
                return std::nullopt;
            }
            if (std::regex_match(line, m, switchHeader)) {
                node = LinkinfoLine {};
                node.guid = toNumber<std::uint64_t>(m[1].str(), 16);
                node.desc = trim(m[2]);
                node.kind = NodeKind::Switch;
                node.kindKnown = true;
                haveHeader = true;
                return std::nullopt;
            }
            if (std::regex_match(line, m, caHeader)) {
                node = LinkinfoLine {};
                node.desc = trim(m[1]);
                node.kind = NodeKind::Hca;
                node.kindKnown = true;
                haveHeader = true;
                return std::nullopt;
            }
            if (!std::regex_search(line, m, portLine)) {
                if (line[0] != '#') {
                    warnings.push_back({ file, lineNo, -1, "unrecognised line skipped: " + line.substr(0, 80) });
                }
                return std::nullopt;
            }
            LinkinfoLine l = haveHeader ? node : LinkinfoLine {};
            if (m[1].matched) {
                l.guid = toNumber<std::uint64_t>(m[1].str(), 16); // a CA's port GUID, or the -l form's node GUID
            }
            if (m[2].matched) {
                l.desc = trim(m[2]);
            }
            if (l.guid == 0) {
                warnings.push_back({ file, lineNo, -1, "a port line without its node's GUID: skipped" });
                return std::nullopt;
            }
            l.lid = toNumber<std::uint32_t>(m[3].str());
            l.port = toNumber<std::uint16_t>(m[4].str());
            l.up = m[6] == "Active" || m[6] == "Armed";
            if (m[8].matched) {
                l.remoteGuid = toNumber<std::uint64_t>(m[8].str(), 16);
            }
            if (m[9].matched) {
                l.remoteLid = toNumber<std::uint32_t>(m[9].str());
                l.remotePort = toNumber<std::uint16_t>(m[10].str());
            }
            l.remoteDesc = m[11];
            std::smatch w;
            const std::string inner = m[5];
            if (std::regex_search(inner, w, widthSpeed)) {
                l.width = w[1].str() + "x";
                l.speed = w[2].str();
            }
            lines.push_back(std::move(l));
            return std::nullopt;
        });
    if (stopped) {
        return *stopped;
    }
    if (lines.empty()) {
        return LoadIssue { file, 0, -1, "no port lines found: expected iblinkinfo output" };
    }
    // -l form: a node listing more than two ports is a switch (HCAs have one or two).
    std::map<std::uint64_t, int> portsOf;
    for (const auto& l : lines) {
        ++portsOf[l.guid];
    }
    std::map<std::uint64_t, std::uint64_t> canonicalOf;
    for (auto& l : lines) {
        if (!l.kindKnown) { // -l names no kinds: more than two ports make a switch, else the description says
            l.kind = portsOf[l.guid] > 2 ? NodeKind::Switch : guessKindFromDescription(l.desc);
        }
        const auto guid = fabric.node(l.kind, l.guid, l.desc, 0, l.kindKnown);
        canonicalOf[l.guid] = guid;
        fabric.lid(l.lid, guid);
        snap.ports.push_back({ guid, static_cast<std::uint16_t>(l.port), l.up });
    }
    for (const auto& l : lines) {
        if (!l.up || l.remoteDesc.empty()) {
            continue;
        }
        std::optional<std::uint64_t> remote;
        if (l.remoteGuid && canonicalOf.count(*l.remoteGuid)) {
            remote = canonicalOf[*l.remoteGuid];
        }
        if (!remote) {
            remote = fabric.guidOfHca(l.remoteDesc);
        }
        if (!remote && l.remoteLid) {
            remote = fabric.guidOfLid(l.remoteLid);
        }
        if (!remote) {
            warnings.push_back({ file, 0, -1,
                "the peer of " + formatGuid(l.guid) + " port " + std::to_string(l.port) + " (LID "
                    + std::to_string(l.remoteLid) + ", \"" + l.remoteDesc + "\") is not described: link skipped" });
            continue;
        }
        fabric.link(canonicalOf[l.guid], l.port, *remote, l.remotePort, l.width, l.speed);
        ++snap.links;
    }
    return snap;
}

Result<std::vector<PerfquerySample>> readPerfquery(
    const std::string& file, const std::string& text, std::vector<LoadIssue>& warnings)
{
    static const std::regex header(R"(^# Port (extended )?counters:\s*Lid (\d+) port (\d+))");
    std::vector<PerfquerySample> out;
    TimeNs stamp = kNoTime;
    bool inBlock = false, extended = false;
    std::uint32_t lid = 0;
    std::uint16_t port = 0;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            std::smatch m;
            if (std::regex_search(line, m, header)) {
                inBlock = false; // until the header's numbers read
                extended = m[1].matched;
                lid = toNumber<std::uint32_t>(m[2].str());
                port = toNumber<std::uint16_t>(m[3].str());
                inBlock = port != 255; // -a: all ports summed, not one port
                if (!inBlock) {
                    warnings.push_back(
                        { file, lineNo, -1, "aggregated counters (perfquery -a) name no port: skipped" });
                }
                return std::nullopt;
            }
            if (auto t = parseSampleStamp(line)) {
                stamp = *t;
                inBlock = false;
                return std::nullopt;
            }
            const auto colon = line.find(':');
            if (!inBlock || colon == std::string::npos) {
                return std::nullopt;
            }
            std::string name = line.substr(0, colon);
            const auto kind = counterKindFromPerfName(name);
            if (!kind) {
                return std::nullopt; // PortSelect, CounterSelect, QP1Dropped, ...
            }
            const auto valueStart = line.find_first_not_of('.', colon + 1);
            const std::string value = valueStart == std::string::npos ? std::string() : trim(line.substr(valueStart));
            const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
            if (const auto v = parseNumber<std::uint64_t>(value, hex ? 16 : 10)) {
                out.push_back({ lid, port, extended, *kind, stamp, *v, lineNo });
            } else {
                warnings.push_back({ file, lineNo, -1,
                    name + ": expected a counter value, got \"" + value.substr(0, 40) + "\": skipped" });
            }
            return std::nullopt;
        });
    if (stopped) {
        return *stopped;
    }
    if (out.empty()) {
        return LoadIssue { file, 0, -1, "no counter values found: expected perfquery output" };
    }
    return out;
}

} // namespace stallscope
