// SPDX-License-Identifier: MIT
#include "import/infiniband/ibnetdiscover.h"
#include "core/parse_number.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include <cctype>

namespace stallscope {

bool looksLikeIbsimNet(const std::string& text)
{
    return text.rfind("Hca\t", 0) == 0 || findText(text, "\nHca\t") != std::string::npos;
}

bool looksLikeIbnetdiscover(const std::string& text)
{
    return findText(text, "\nSwitch\t") != std::string::npos || text.rfind("Switch\t", 0) == 0
        || findText(text, "# Topology file") != std::string::npos
        || ((text.rfind("SW ", 0) == 0 || text.rfind("CA ", 0) == 0) && findText(text, " - ") != std::string::npos);
}

namespace {

// At least one space or tab (ibnetdiscover separates fields with both).
bool spaces(LineScan& s)
{
    const auto at = s.pos();
    s.skipSpaces();
    return s.pos() > at;
}

std::uint64_t hex(std::string_view s)
{
    return toNumber<std::uint64_t>(s, 16);
}

// "4xNDR" or "4x NDR" anywhere in a port line's comment → ("4x", "NDR"): the first run of digits followed by
// 'x', optional blanks and a speed.
std::pair<std::string, std::string> widthSpeed(std::string_view tail)
{
    static constexpr std::string_view speeds[]
        = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR", "???" };
    for (std::size_t i = 0; i < tail.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(tail[i]))
            || (i > 0 && std::isdigit(static_cast<unsigned char>(tail[i - 1])))) {
            continue;
        }
        LineScan s(tail, i);
        const auto lanes = s.digits(64);
        if (!s.lit("x")) {
            continue;
        }
        s.skipSpaces();
        for (const auto sp : speeds) {
            if (s.rest().starts_with(sp)) {
                return { std::string(lanes) + "x", std::string(sp) };
            }
        }
    }
    return {};
}

// The number after the last "lid " that starts a word ("... enhanced port 0 lid 17 lmc 0" → 17).
std::optional<std::uint32_t> lastLid(std::string_view text)
{
    for (auto at = text.rfind("lid "); at != std::string_view::npos;
         at = at == 0 ? std::string_view::npos : text.rfind("lid ", at - 1)) {
        const bool wordStart
            = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
        LineScan s(text, at + 4);
        if (wordStart && !s.digits().empty()) {
            s.seek(at + 4);
            return s.number<std::uint32_t>();
        }
    }
    return std::nullopt;
}

// `"S-fc6a1c0300e4f000"`: the node's kind letter and GUID.
std::optional<std::pair<char, std::uint64_t>> quotedGuid(LineScan& s)
{
    if (!s.lit("\"")) {
        return std::nullopt;
    }
    const char kind = s.peek();
    if (kind != 'S' && kind != 'H' && kind != 'R') {
        return std::nullopt;
    }
    s.seek(s.pos() + 1);
    if (!s.lit("-")) {
        return std::nullopt;
    }
    const auto g = s.hexDigits(64);
    if (g.empty() || !s.lit("\"")) {
        return std::nullopt;
    }
    return std::pair { kind, hex(g) };
}

// "(c42a10300a1b2c4)": a CA port's own GUID, optional.
std::optional<std::uint64_t> parenGuid(LineScan& s)
{
    const auto at = s.pos();
    if (!s.lit("(")) {
        return std::nullopt;
    }
    const auto g = s.hexDigits(64);
    if (g.empty() || !s.lit(")")) {
        s.seek(at);
        return std::nullopt;
    }
    return hex(g);
}

struct Header
{
    NodeKind kind = NodeKind::Switch;
    int ports = 0;
    std::uint64_t guid = 0;
    std::string description;
    std::optional<std::uint32_t> lid;
};

// `Switch	64 "S-fc6a1c0300e4f000"		# "leaf-07 Quantum-2" enhanced port 0 lid 17 lmc 0`
std::optional<Header> header(std::string_view line)
{
    LineScan s(line);
    Header h;
    if (s.lit("Switch")) {
        h.kind = NodeKind::Switch;
    } else if (s.lit("Ca") || s.lit("Rt")) {
        h.kind = NodeKind::Hca;
    } else {
        return std::nullopt;
    }
    if (!spaces(s)) {
        return std::nullopt;
    }
    const auto ports = s.digits(64);
    if (ports.empty() || !spaces(s)) {
        return std::nullopt;
    }
    const auto g = quotedGuid(s);
    s.skipSpaces();
    if (!g || !s.lit("#")) {
        return std::nullopt;
    }
    s.skipSpaces();
    if (!s.lit("\"")) {
        return std::nullopt;
    }
    const auto desc = s.until("\"");
    if (!s.lit("\"")) {
        return std::nullopt;
    }
    h.ports = toNumber<int>(ports);
    h.guid = g->second;
    h.description = std::string(desc);
    h.lid = lastLid(s.rest());
    return h;
}

struct PortLine
{
    int port = 0;
    std::optional<std::uint64_t> ownGuid; // a CA's own port GUID
    std::uint64_t remote = 0;
    int remotePort = 0;
    std::optional<std::uint64_t> remoteGuid; // the remote CA's port GUID
    std::string_view tail; // after '#'
};

// `[1](c42a10300a1b2c4) 	"S-fc6a1c0300e4f000"[1]		# lid 3 lmc 0 "leaf-07 Quantum-2" lid 17 4xNDR`
std::optional<PortLine> portLine(std::string_view line)
{
    LineScan s(line);
    PortLine p;
    if (!s.lit("[")) {
        return std::nullopt;
    }
    const auto port = s.digits(64);
    if (port.empty() || !s.lit("]")) {
        return std::nullopt;
    }
    if (const auto at = s.pos(); s.lit("[ext ")) {
        if (s.digits(64).empty() || !s.lit("]")) {
            s.seek(at);
        }
    }
    p.ownGuid = parenGuid(s);
    if (!spaces(s)) {
        return std::nullopt;
    }
    const auto remote = quotedGuid(s);
    if (!remote || !s.lit("[")) {
        return std::nullopt;
    }
    const auto remotePort = s.digits(64);
    if (remotePort.empty() || !s.lit("]")) {
        return std::nullopt;
    }
    p.remoteGuid = parenGuid(s);
    s.skipSpaces();
    if (!s.lit("#")) {
        return std::nullopt;
    }
    p.port = toNumber<int>(port);
    p.remote = remote->second;
    p.remotePort = toNumber<int>(remotePort);
    p.tail = s.rest();
    return p;
}

// `ibnetdiscover -p`: `SW    17 33 0xfc6a1c0300e4f000 4x NDR - SW     5 12 0xfc6a1c0300e5a000 ( 'leaf-07 …' - 'spine-02
// …' )`
struct PortsReportEnd
{
    NodeKind kind = NodeKind::Switch;
    std::uint32_t lid = 0;
    int port = 0;
    std::uint64_t guid = 0;
};

std::optional<PortsReportEnd> reportEnd(LineScan& s)
{
    PortsReportEnd e;
    if (s.lit("SW")) {
        e.kind = NodeKind::Switch;
    } else if (s.lit("CA") || s.lit("RT")) {
        e.kind = NodeKind::Hca;
    } else {
        return std::nullopt;
    }
    if (!spaces(s)) {
        return std::nullopt;
    }
    const auto lid = s.digits(64);
    if (lid.empty() || !spaces(s)) {
        return std::nullopt;
    }
    const auto port = s.digits(64);
    if (port.empty() || !spaces(s) || !s.lit("0x")) {
        return std::nullopt;
    }
    const auto guid = s.hexDigits(64);
    if (guid.empty() || !spaces(s)) {
        return std::nullopt;
    }
    e.lid = toNumber<std::uint32_t>(lid);
    e.port = toNumber<int>(port);
    e.guid = hex(guid);
    return e;
}

std::optional<std::string_view> quoted(LineScan& s)
{
    if (!s.lit("'")) {
        return std::nullopt;
    }
    const auto q = s.until("'");
    if (!s.lit("'")) {
        return std::nullopt;
    }
    return q;
}

struct PortsReport
{
    PortsReportEnd a, b;
    std::string width, speed, descA, descB;
};

std::optional<PortsReport> portsReport(std::string_view line)
{
    LineScan s(line);
    PortsReport r;
    const auto a = reportEnd(s);
    if (!a) {
        return std::nullopt;
    }
    const auto width = s.digits(64);
    if (width.empty() || !s.lit("x") || !spaces(s)) {
        return std::nullopt;
    }
    const auto speed = s.until(" \t");
    if (speed.empty() || !spaces(s) || !s.lit("-") || !spaces(s)) {
        return std::nullopt;
    }
    const auto b = reportEnd(s);
    if (!b || !s.lit("(")) {
        return std::nullopt;
    }
    s.skipSpaces();
    const auto descA = quoted(s);
    if (!descA || !spaces(s) || !s.lit("-") || !spaces(s)) {
        return std::nullopt;
    }
    const auto descB = quoted(s);
    s.skipSpaces();
    if (!descB || !s.lit(")")) {
        return std::nullopt;
    }
    r.a = *a;
    r.b = *b;
    r.width = std::string(width) + "x";
    r.speed = std::string(speed);
    r.descA = std::string(*descA);
    r.descB = std::string(*descB);
    return r;
}

} // namespace

Result<std::size_t> readIbnetdiscover(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings)
{
    // Plain format: node headers, then port lines; `-p`: one line per port with both ends.
    std::uint64_t current = 0;
    bool haveCurrent = false;
    NodeKind currentKind = NodeKind::Switch;
    std::size_t lines = 0;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            if (line.empty() || line[0] == '#' || line.rfind("vendid", 0) == 0 || line.rfind("devid", 0) == 0
                || line.rfind("sysimgguid", 0) == 0 || line.rfind("switchguid", 0) == 0 || line.rfind("caguid", 0) == 0
                || line.rfind("rtguid", 0) == 0) {
                return std::nullopt;
            }
            if (const auto h = header(line)) {
                currentKind = h->kind;
                current = fabric.node(currentKind, h->guid, h->description, h->ports, true, false);
                if (h->lid) {
                    fabric.lid(*h->lid, current);
                }
                haveCurrent = true;
                ++lines;
                return std::nullopt;
            }
            if (const auto p = portLine(line)) {
                if (!haveCurrent) {
                    return LoadIssue { file, lineNo, -1, "a port line before any Switch/Ca header" };
                }
                if (p->ownGuid) {
                    fabric.alias(*p->ownGuid, current); // a CA's own port GUID
                }
                if (p->remoteGuid) {
                    fabric.alias(*p->remoteGuid, p->remote); // the remote CA's port GUID
                }
                LineScan tail(p->tail);
                tail.skipSpaces();
                if (currentKind == NodeKind::Hca && tail.lit("lid ")) {
                    if (const auto lid = tail.number<std::uint32_t>()) {
                        fabric.lid(*lid, current);
                    }
                }
                const auto [width, speed] = widthSpeed(p->tail);
                fabric.link(current, p->port, p->remote, p->remotePort, width, speed);
                ++lines;
                return std::nullopt;
            }
            if (const auto r = portsReport(line)) {
                // The ports report names port GUIDs; a CA is joined to its node by description.
                const auto a = fabric.node(r->a.kind, r->a.guid, r->descA);
                const auto b = fabric.node(r->b.kind, r->b.guid, r->descB);
                fabric.lid(r->a.lid, a);
                fabric.lid(r->b.lid, b);
                fabric.link(a, r->a.port, b, r->b.port, r->width, r->speed);
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
