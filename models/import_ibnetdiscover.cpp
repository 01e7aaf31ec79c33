// SPDX-License-Identifier: MIT
#include "import_ibnetdiscover.h"

#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace stallscope {

namespace {

struct RawNode
{
    NodeKind kind = NodeKind::Switch;
    std::uint64_t guid = 0;
    std::string desc;
    int ports = 0;
};

struct RawLink
{
    std::uint64_t guidA = 0;
    int portA = 0;
    std::uint64_t guidB = 0;
    int portB = 0;
    std::string width, speed;
};

// "4xNDR" or "4x NDR" → ("4x", "NDR")
void widthSpeed(const std::string& tail, RawLink& l)
{
    static const std::regex re(R"((\d+)x\s*(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR|\?\?\?))");
    std::smatch m;
    if (std::regex_search(tail, m, re)) {
        l.width = m[1].str() + "x";
        l.speed = m[2].str();
    }
}

} // namespace

Result<ImportedTopology> parseIbnetdiscover(const std::string& file, const std::string& text, StringPool& strings)
{
    // Plain format: node headers, then port lines; `-p`: one line per port with both ends.
    static const std::regex header(R"re(^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)")re");
    static const std::regex port(
        R"re(^\[(\d+)\](?:\[ext \d+\])?(?:\([0-9a-fA-F]+\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*#(.*)$)re");
    static const std::regex portsReport(
        R"re(^(SW|CA|RT)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s+(\d+x)\s+(\S+)\s+-\s+(SW|CA|RT)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s+\(\s*'([^']*)'\s+-\s+'([^']*)'\s*\))re");
    ImportedTopology out;
    std::map<std::uint64_t, RawNode> nodes;
    std::map<std::tuple<std::uint64_t, int, std::uint64_t, int>, RawLink> links;
    std::uint64_t current = 0;
    bool haveCurrent = false;
    std::istringstream in(text);
    std::string line;
    std::int64_t lineNo = 0;
    auto addLink = [&](RawLink l) {
        if (std::tie(l.guidB, l.portB) < std::tie(l.guidA, l.portA)) {
            std::swap(l.guidA, l.guidB);
            std::swap(l.portA, l.portB);
        }
        links.try_emplace({ l.guidA, l.portA, l.guidB, l.portB }, l);
    };
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        std::smatch m;
        if (line.empty() || line[0] == '#' || line.rfind("vendid", 0) == 0 || line.rfind("devid", 0) == 0
            || line.rfind("sysimgguid", 0) == 0 || line.rfind("switchguid", 0) == 0 || line.rfind("caguid", 0) == 0
            || line.rfind("rtguid", 0) == 0) {
            continue;
        }
        if (std::regex_search(line, m, header)) {
            RawNode n;
            n.kind = m[1] == "Switch" ? NodeKind::Switch : NodeKind::Hca;
            n.ports = std::stoi(m[2]);
            n.guid = std::stoull(m[4], nullptr, 16);
            n.desc = m[5];
            nodes[n.guid] = n;
            current = n.guid;
            haveCurrent = true;
            continue;
        }
        if (std::regex_search(line, m, port)) {
            if (!haveCurrent) {
                return LoadIssue { file, lineNo, -1, "a port line before any Switch/Ca header" };
            }
            RawLink l;
            l.guidA = current;
            l.portA = std::stoi(m[1]);
            l.guidB = std::stoull(m[3], nullptr, 16);
            l.portB = std::stoi(m[4]);
            widthSpeed(m[5], l);
            addLink(l);
            continue;
        }
        if (std::regex_search(line, m, portsReport)) {
            RawLink l;
            l.portA = std::stoi(m[2]);
            l.guidA = std::stoull(m[3], nullptr, 16);
            l.width = m[4];
            l.speed = m[5];
            l.portB = std::stoi(m[7]);
            l.guidB = std::stoull(m[8], nullptr, 16);
            // The ports report names port GUIDs; keep them as node identities (one port per CA in practice).
            for (const auto& [guid, kind, desc] :
                { std::tuple { l.guidA, m[1].str(), m[9].str() }, std::tuple { l.guidB, m[6].str(), m[10].str() } }) {
                auto& n = nodes[guid];
                n.guid = guid;
                n.kind = kind == "SW" ? NodeKind::Switch : NodeKind::Hca;
                n.desc = desc;
            }
            addLink(l);
            continue;
        }
        out.warnings.push_back({ file, lineNo, -1, "unrecognised line skipped: " + line.substr(0, 80) });
    }
    if (nodes.empty()) {
        return LoadIssue { file, 0, -1, "no Switch/Ca nodes found: expected ibnetdiscover output" };
    }
    // Tiers: a switch next to a CA is a leaf; other switches are spines.
    std::set<std::uint64_t> leaves;
    for (const auto& [key, l] : links) {
        const auto a = nodes.find(l.guidA), b = nodes.find(l.guidB);
        if (a != nodes.end() && b != nodes.end()) {
            if (a->second.kind == NodeKind::Switch && b->second.kind == NodeKind::Hca) {
                leaves.insert(a->first);
            }
            if (b->second.kind == NodeKind::Switch && a->second.kind == NodeKind::Hca) {
                leaves.insert(b->first);
            }
        }
    }
    for (const auto& [guid, n] : nodes) {
        FabricNode fn;
        fn.kind = n.kind;
        fn.guid = guid;
        fn.description = strings.intern(n.desc);
        fn.portCount = static_cast<std::uint16_t>(n.ports);
        if (n.kind == NodeKind::Hca) {
            const auto space = n.desc.rfind(' ');
            fn.host = strings.intern(space == std::string::npos ? n.desc : n.desc.substr(0, space));
            fn.hcaName = strings.intern(space == std::string::npos ? std::string() : n.desc.substr(space + 1));
            fn.tier = 0;
        } else {
            fn.tier = leaves.count(guid) ? 1 : 2;
        }
        out.topology.addNode(fn);
    }
    for (const auto& [key, l] : links) {
        const auto a = out.topology.findNodeByGuid(l.guidA);
        const auto b = out.topology.findNodeByGuid(l.guidB);
        if (!a || !b) {
            out.warnings.push_back({ file, 0, -1,
                "a link names a node that has no header (GUID " + formatGuid(!a ? l.guidA : l.guidB) + ")" });
            continue;
        }
        FabricLink fl;
        // Lower tier first, as the bundle format has it.
        const bool swap = out.topology.node(*a).tier > out.topology.node(*b).tier;
        fl.a = { swap ? *b : *a, static_cast<std::uint16_t>(swap ? l.portB : l.portA) };
        fl.b = { swap ? *a : *b, static_cast<std::uint16_t>(swap ? l.portA : l.portB) };
        fl.width = static_cast<std::uint8_t>(l.width.empty() ? 4 : std::stoi(l.width));
        fl.speed = strings.intern(l.speed);
        out.topology.addLink(fl);
    }
    return out;
}

} // namespace stallscope
