// SPDX-License-Identifier: MIT
#include "import/infiniband/fabric_tools.h"
#include "core/parse_number.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include "import/common/sample_stamp.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <tuple>

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
    return findText(text, ")==>") != std::string::npos && findText(text, "==(") != std::string::npos;
}

bool looksLikePerfquery(const std::string& text)
{
    // The header, its '#' perhaps lost to a web page or a quoting comment, then the dotted PortSelect field that
    // every block starts with: a log naming "Port counters:" is not enough.
    for (const std::string_view header : { "Port counters: Lid ", "Port extended counters: Lid " }) {
        if (const auto at = findText(text, header); at != std::string::npos
            && std::string_view(text).substr(at, 400).find("PortSelect:....") != std::string_view::npos) {
            return true;
        }
    }
    return findText(text, "# Port counters:") != std::string::npos
        || findText(text, "# Port extended counters:") != std::string::npos;
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

namespace {

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// At least one blank.
bool blanks(LineScan& s)
{
    const auto at = s.pos();
    while (!s.atEnd() && isBlank(s.peek())) {
        s.seek(s.pos() + 1);
    }
    return s.pos() > at;
}

void optionalBlanks(LineScan& s)
{
    blanks(s);
}

// "[  ]" or "[ext 3]": a bracketed field, its content ignored.
bool bracketed(LineScan& s)
{
    if (!s.lit("[")) {
        return false;
    }
    s.until("]");
    return s.lit("]");
}

// "Switch: 0x0000000000200001 spine-02:" → (guid, "spine-02"); "CA: gpu-a003 mlx5_1:" → (nullopt, "gpu-a003 mlx5_1").
// The description runs to the last ':' that only blanks follow.
std::optional<std::pair<std::optional<std::uint64_t>, std::string>> linkinfoHeader(std::string_view line)
{
    LineScan s(line);
    const bool isSwitch = s.lit("Switch:");
    if (!isSwitch && !s.lit("CA:")) {
        return std::nullopt;
    }
    if (!blanks(s)) {
        return std::nullopt;
    }
    std::optional<std::uint64_t> guid;
    if (isSwitch) {
        const auto at = s.pos();
        const auto hex = s.lit("0x") ? s.hexDigits(64) : std::string_view();
        if (hex.empty() || !blanks(s)) {
            s.seek(at);
            return std::nullopt;
        }
        guid = toNumber<std::uint64_t>(hex, 16);
    }
    auto rest = s.rest();
    while (!rest.empty() && isBlank(rest.back())) {
        rest.remove_suffix(1);
    }
    if (rest.empty() || rest.back() != ':') {
        return std::nullopt;
    }
    return std::pair { guid, trim(std::string(rest.substr(0, rest.size() - 1))) };
}

struct LinkinfoPort
{
    std::optional<std::uint64_t> guid, remoteGuid;
    std::optional<std::string> desc;
    std::uint32_t lid = 0, remoteLid = 0;
    std::uint16_t port = 0, remotePort = 0;
    bool remoteNumbers = false;
    std::string inner, state, remoteDesc;
};

// `[0x<guid>] ["<desc>"] <lid> <port>[..] ==( <width speed> <state>/ <phys>)==> [0x<rguid>] [<rlid> <rport>][..]
// "<rdesc>"`
std::optional<LinkinfoPort> linkinfoPort(std::string_view line)
{
    LineScan s(line);
    LinkinfoPort p;
    optionalBlanks(s);
    if (const auto at = s.pos(); s.lit("0x")) {
        const auto hex = s.hexDigits(64);
        if (!hex.empty() && blanks(s)) {
            p.guid = toNumber<std::uint64_t>(hex, 16);
        } else {
            s.seek(at);
        }
    }
    if (const auto at = s.pos(); s.lit("\"")) {
        optionalBlanks(s);
        const auto desc = s.until("\"");
        if (s.lit("\"") && blanks(s)) {
            p.desc = std::string(desc);
        } else {
            s.seek(at);
        }
    }
    const auto lid = s.digits(64);
    if (lid.empty() || !blanks(s)) {
        return std::nullopt;
    }
    const auto port = s.digits(64);
    if (port.empty() || !bracketed(s) || !blanks(s) || !s.lit("==(")) {
        return std::nullopt;
    }
    // "( 4X  2.5 Gbps Active/  LinkUp)==>": the state is the word before the first '/', the physical state the
    // word before ")==>".
    const auto open = s.pos();
    const auto close = line.find(")==>", open);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    auto inside = line.substr(open, close - open);
    while (!inside.empty() && isBlank(inside.back())) {
        inside.remove_suffix(1);
    }
    std::size_t physStart = inside.size();
    while (physStart > 0 && isWordChar(inside[physStart - 1])) {
        --physStart;
    }
    auto beforePhys = inside.substr(0, physStart);
    while (!beforePhys.empty() && isBlank(beforePhys.back())) {
        beforePhys.remove_suffix(1);
    }
    if (physStart == inside.size() || beforePhys.empty() || beforePhys.back() != '/') {
        return std::nullopt;
    }
    beforePhys.remove_suffix(1);
    std::size_t stateStart = beforePhys.size();
    while (stateStart > 0 && isWordChar(beforePhys[stateStart - 1])) {
        --stateStart;
    }
    if (stateStart == beforePhys.size()) {
        return std::nullopt;
    }
    p.state = std::string(beforePhys.substr(stateStart));
    auto inner = beforePhys.substr(0, stateStart);
    while (!inner.empty() && isBlank(inner.front())) {
        inner.remove_prefix(1);
    }
    while (!inner.empty() && isBlank(inner.back())) {
        inner.remove_suffix(1);
    }
    p.inner = std::string(inner);
    s.seek(close + 4);
    if (!blanks(s)) {
        return std::nullopt;
    }
    if (const auto at = s.pos(); s.lit("0x")) {
        const auto hex = s.hexDigits(64);
        if (!hex.empty() && blanks(s)) {
            p.remoteGuid = toNumber<std::uint64_t>(hex, 16);
        } else {
            s.seek(at);
        }
    }
    if (const auto at = s.pos(); !s.digits(64).empty()) {
        s.seek(at);
        const auto rlid = s.digits(64);
        const bool sep = blanks(s);
        const auto rport = s.digits(64);
        if (sep && !rport.empty()) {
            p.remoteLid = toNumber<std::uint32_t>(rlid);
            p.remotePort = toNumber<std::uint16_t>(rport);
            p.remoteNumbers = true;
        } else {
            s.seek(at);
        }
    }
    optionalBlanks(s);
    if (!bracketed(s) || !blanks(s) || !s.lit("\"")) {
        return std::nullopt;
    }
    const auto rdesc = s.until("\"");
    if (!s.lit("\"")) {
        return std::nullopt;
    }
    p.remoteDesc = std::string(rdesc);
    p.lid = toNumber<std::uint32_t>(lid);
    p.port = toNumber<std::uint16_t>(port);
    return p;
}

// "4X           2.5 Gbps" → ("4x", "2.5 Gbps"): the first run of digits followed by 'X', blanks and a rate.
std::pair<std::string, std::string> linkinfoWidthSpeed(std::string_view inner)
{
    for (std::size_t i = 0; i < inner.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(inner[i]))
            || (i > 0 && std::isdigit(static_cast<unsigned char>(inner[i - 1])))) {
            continue;
        }
        LineScan s(inner, i);
        const auto lanes = s.digits(64);
        if (!s.lit("X") || !blanks(s)) {
            continue;
        }
        const auto rateStart = s.pos();
        while (!s.atEnd() && (std::isdigit(static_cast<unsigned char>(s.peek())) || s.peek() == '.')) {
            s.seek(s.pos() + 1);
        }
        const auto rateEnd = s.pos();
        if (rateEnd > rateStart && s.lit(" Gbps")) {
            return { std::string(lanes) + "x", std::string(inner.substr(rateStart, s.pos() - rateStart)) };
        }
    }
    return {};
}

} // namespace

Result<IblinkinfoSnapshot> readIblinkinfo(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings)
{
    IblinkinfoSnapshot snap;
    std::vector<LinkinfoLine> lines;
    LinkinfoLine node; // the current header's node
    bool haveHeader = false;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            if (trim(line).empty()) {
                return std::nullopt;
            }
            if (auto t = parseSampleStamp(line)) {
                snap.stampNs = snap.stampNs == kNoTime ? *t : snap.stampNs;
                return std::nullopt;
            }
            if (const auto h = linkinfoHeader(line)) {
                node = LinkinfoLine {};
                node.guid = h->first.value_or(0);
                node.desc = h->second;
                node.kind = h->first ? NodeKind::Switch : NodeKind::Hca;
                node.kindKnown = true;
                haveHeader = true;
                return std::nullopt;
            }
            const auto m = linkinfoPort(line);
            if (!m) {
                if (line[0] != '#') {
                    warnings.push_back({ file, lineNo, -1, "unrecognised line skipped: " + line.substr(0, 80) });
                }
                return std::nullopt;
            }
            LinkinfoLine l = haveHeader ? node : LinkinfoLine {};
            if (m->guid) {
                l.guid = *m->guid; // a CA's port GUID, or the -l form's node GUID
            }
            if (m->desc) {
                l.desc = trim(*m->desc);
            }
            if (l.guid == 0) {
                warnings.push_back({ file, lineNo, -1, "a port line without its node's GUID: skipped" });
                return std::nullopt;
            }
            l.lid = m->lid;
            l.port = m->port;
            l.up = m->state == "Active" || m->state == "Armed";
            l.remoteGuid = m->remoteGuid;
            if (m->remoteNumbers) {
                l.remoteLid = m->remoteLid;
                l.remotePort = m->remotePort;
            }
            l.remoteDesc = m->remoteDesc;
            std::tie(l.width, l.speed) = linkinfoWidthSpeed(m->inner);
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

namespace {

// A perfquery line as people quote it: a mail archive's "&nbsp;" before and "<br>" after, a C or shell comment's
// "// " or "> " before, indentation.
std::string_view unwrappedPerfLine(std::string_view line)
{
    for (bool again = true; again;) {
        again = false;
        for (const std::string_view lead : { " ", "\t", "&nbsp;", "//", "> ", "<p>", "<pre>", "<code>" }) {
            if (line.starts_with(lead)) {
                line.remove_prefix(lead.size());
                again = true;
            }
        }
    }
    for (const std::string_view tail : { "<br>", "<br/>", "<br />", "\r", " ", "`" }) {
        while (line.ends_with(tail)) {
            line.remove_suffix(tail.size());
        }
    }
    return line;
}

// "# Port counters: Lid 3 port 1" / "# Port extended counters: Lid 3 port 1 (CapMask: 0x5A00)"; the '#' may be lost.
std::optional<std::tuple<bool, std::uint32_t, std::uint16_t>> perfqueryHeader(std::string_view line)
{
    LineScan s(line);
    s.lit("# ");
    if (!s.lit("Port ")) {
        return std::nullopt;
    }
    const bool extended = s.lit("extended ");
    if (!s.lit("counters:")) {
        return std::nullopt;
    }
    optionalBlanks(s);
    if (!s.lit("Lid ")) {
        return std::nullopt;
    }
    const auto lid = s.digits(64);
    if (lid.empty() || !s.lit(" port ")) {
        return std::nullopt;
    }
    const auto port = s.digits(64);
    if (port.empty()) {
        return std::nullopt;
    }
    return std::tuple { extended, toNumber<std::uint32_t>(lid), toNumber<std::uint16_t>(port) };
}

} // namespace

Result<std::vector<PerfquerySample>> readPerfquery(
    const std::string& file, const std::string& text, std::vector<LoadIssue>& warnings)
{
    std::vector<PerfquerySample> out;
    TimeNs stamp = kNoTime;
    bool inBlock = false, extended = false;
    std::uint32_t lid = 0;
    std::uint16_t port = 0;
    const auto stopped = readLines(
        text, file, warnings, [&](const std::string& whole, std::int64_t lineNo) -> std::optional<LoadIssue> {
            std::string line(unwrappedPerfLine(whole));
            // A header inside a program's string ("out = `# Port counters: …"): read from its '#'.
            if (const auto hash = line.find("# Port "); hash != std::string::npos && hash > 0) {
                line.erase(0, hash);
            }
            if (const auto h = perfqueryHeader(line)) {
                inBlock = false; // until the header's numbers read
                std::tie(extended, lid, port) = *h;
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
