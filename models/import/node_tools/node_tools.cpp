// SPDX-License-Identifier: MIT
// The node-tools reader (node_tools.h): each line stripped of its wrappers — a pdsh prefix, a dshbak header, a
// shell prompt, indentation — then offered to the tool block it is in, or to the header of a new block.
#include "import/node_tools/node_tools.h"
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace stallscope {

namespace node_tools {

void Sink::sawTool(std::string_view tool)
{
    if (std::find(out.tools.begin(), out.tools.end(), tool) == out.tools.end()) {
        out.tools.emplace_back(tool);
    }
}

void Sink::openDevice(Cursor& c, std::string_view tool, std::string_view device)
{
    c = Cursor {};
    c.tool = std::string(tool);
    c.device = std::string(device.substr(0, 64));
    sawTool(tool);
}

HostPort& Sink::openPort(Cursor& c, std::uint16_t port, std::int64_t line)
{
    HostPort p;
    p.host = host;
    p.device = c.device;
    p.port = port;
    p.fw = c.fw;
    p.nodeGuid = c.nodeGuid;
    p.source = c.tool;
    p.file = file;
    p.line = line;
    c.port = out.ports.size();
    out.ports.push_back(std::move(p));
    return out.ports.back();
}

std::vector<std::string_view> words(std::string_view line, std::size_t most)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size() && out.size() < most) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const auto start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            out.push_back(line.substr(start, i - start));
        }
    }
    return out;
}

std::optional<std::uint64_t> parseGuidText(std::string_view text)
{
    // With its "0x" a GUID may come without leading zeros (sminfo prints "%#" PRIx64: "0x2c9030037a2f1"); bare, it is
    // sixteen digits, colons or not, so a decimal number is never taken for one.
    const bool prefixed = text.starts_with("0x") || text.starts_with("0X");
    if (prefixed) {
        text.remove_prefix(2);
    }
    std::string hex;
    for (const char ch : text) {
        if (ch != ':') {
            hex += ch;
        }
    }
    if (hex.size() != 16 && !(prefixed && !hex.empty() && hex.size() < 16 && text.find(':') == std::string_view::npos)) {
        return std::nullopt;
    }
    return parseNumber<std::uint64_t>(hex, 16);
}

std::optional<std::uint32_t> parseLidText(std::string_view text)
{
    const bool hex = text.starts_with("0x") || text.starts_with("0X");
    const auto v = parseNumber<std::uint32_t>(text, hex ? 16 : 10);
    if (!v || *v > 0xffff) {
        return std::nullopt;
    }
    return v;
}

std::string_view beforeParen(std::string_view text)
{
    text = text.substr(0, text.find('('));
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

} // namespace node_tools

namespace {

using namespace node_tools;

// pdsh's "gpu-b005: <line>": a host-like word (with a digit, '-' or '.', which no tool's key has) then ": ".
std::optional<std::string_view> pdshHost(std::string_view line)
{
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos || colon == 0 || colon > 64) {
        return std::nullopt;
    }
    const auto word = line.substr(0, colon);
    // '_' is left out: ibv_devinfo -v has keys like "port_cap_flags2" that a host name would not be.
    if (!std::all_of(word.begin(), word.end(), [](char ch) { return hostNameChar(ch) && ch != '_'; })) {
        return std::nullopt;
    }
    const bool hosty = std::any_of(word.begin(), word.end(),
        [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.'; });
    // topo -m's NIC legend ("NIC0: mlx5_0") has the shape of a prefix.
    const bool nicLegend = word.starts_with("NIC") && word.size() > 3
        && std::all_of(word.begin() + 3, word.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
    if (!hosty || nicLegend) {
        return std::nullopt;
    }
    return word;
}

// The commands whose output this reader knows, as a shell prompt line names them.
constexpr std::string_view kTools[] = { "ibstat", "ibstatus", "ibv_devinfo", "ibv_devices", "rdma", "sminfo", "smpquery",
    "ibswinfo", "nvidia-smi" };

// "$ ibstat", "[root@gpu-b005 ~]# ibstat -v", "user@gpu-b005:~$ sudo rdma link show": the host (when the
// prompt names one) and the tool; nullopt when the line is not a prompt.
struct Prompt
{
    std::string host;
    std::string tool; // "" when the command is none of kTools
};

std::optional<Prompt> promptOf(std::string_view line)
{
    for (std::size_t i = 0; i < line.size() && i < 80; ++i) {
        const char ch = line[i];
        if ((ch != '$' && ch != '#') || (i + 1 < line.size() && line[i + 1] != ' ')) {
            continue; // a prompt's sign is followed by a blank, or ends the line (the prompt left without a command)
        }
        const auto before = line.substr(0, i);
        if (before.find(' ') != std::string_view::npos && !(before.starts_with("[") && before.ends_with("]"))) {
            return std::nullopt;
        }
        // "$ …", "[root@h ~]# …", "user@h:~$ …": nothing before the sign, or a user@host, or a bracketed prompt
        // (not ibqueryerrors' "## Summary: …").
        if (!before.empty() && before.find('@') == std::string_view::npos && !before.ends_with("]")) {
            return std::nullopt;
        }
        auto cmd = trimmed(line.substr(std::min(i + 2, line.size())));
        if (cmd.starts_with("sudo ")) {
            cmd = trimmed(cmd.substr(5));
        }
        const auto name = cmd.substr(0, cmd.find(' '));
        const auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
        Prompt p;
        for (const auto tool : kTools) {
            if (base == tool) {
                // nvidia-smi's output tells topo -m from nvlink by itself; its other subcommands stay unread.
                p.tool = base == "rdma" ? "rdma link" : base == "nvidia-smi" ? "" : std::string(base);
            }
        }
        if (const auto at = before.find('@'); at != std::string_view::npos) {
            auto host = before.substr(at + 1);
            host = host.substr(0, std::min(host.find(' '), host.find(':')));
            while (!host.empty() && !hostNameChar(host.back())) {
                host.remove_suffix(1);
            }
            p.host = std::string(host.substr(0, 64));
        }
        if (p.tool.empty() && p.host.empty() && before.empty() && ch == '#') {
            return std::nullopt; // a comment line "# ..."
        }
        return p;
    }
    return std::nullopt;
}

// ibstat's panic and warning for a device it could not stat, ibstatus' and ibv_devinfo's for one not found:
// the device's name, or nullopt.
std::optional<std::string_view> goneDevice(std::string_view line)
{
    const bool ibstat = line.starts_with("ibpanic: ") || line.starts_with("ibwarn: ");
    for (std::string_view mark :
        { "stat of IB device '", "' IB device can't be found", "Fatal error:  device '", "IB device '" }) {
        const auto at = line.find(mark);
        if (at == std::string_view::npos) {
            continue;
        }
        if (mark.starts_with("'")) { // the name comes before: "main: 'mlx5_9' IB device can't be found"
            const auto open = line.rfind('\'', at - 1);
            return open == std::string_view::npos ? std::nullopt : std::optional(line.substr(open + 1, at - open - 1));
        }
        if (mark == "IB device '" && line.find("' wasn't found") == std::string_view::npos) {
            continue;
        }
        if (mark == "stat of IB device '" && !ibstat) {
            continue;
        }
        const auto rest = line.substr(at + mark.size());
        const auto close = rest.find('\'');
        return close == std::string_view::npos ? std::nullopt : std::optional(rest.substr(0, close));
    }
    return std::nullopt;
}

class Reader
{
public:
    Reader(const std::string& file, const std::string& fileHost, NodeToolsFile& out)
        : m_sink { out, file, fileHost, {} }
        , m_fileHost(fileHost)
    {
        noteHost(fileHost);
    }

    void line(std::string_view raw, std::int64_t lineNo)
    {
        auto line = trimmed(raw);
        while (line.starts_with(">")) { // a mail's or a markdown reply's quote ("> ", "> > ")
            line = trimmed(line.substr(1));
        }
        if (line.empty()) {
            return;
        }
        if (dshbak(line)) {
            return;
        }
        if (const auto host = pdshHost(line)) {
            m_sink.host = std::string(*host);
            noteHost(m_sink.host);
            line = trimmed(line.substr(host->size() + 1));
        } else if (!m_dshbakHost.empty()) {
            m_sink.host = m_dshbakHost;
        }
        auto& c = m_cursors[m_sink.host];
        if (const auto p = promptOf(line)) {
            if (!p->host.empty()) {
                m_sink.host = p->host;
                m_fileHost = p->host; // the lines after the prompt are this host's
                noteHost(p->host);
            }
            Cursor fresh {};
            fresh.tool = p->tool;
            m_cursors[m_sink.host] = fresh;
            return;
        }
        if (!read(line, c, lineNo)) {
            ++m_sink.out.unknownLines;
            if (m_sink.out.unknown.size() < NodeToolsFile::kKeptUnknown) {
                m_sink.out.unknown.emplace_back(lineNo, std::string(line.substr(0, 200)));
            }
        }
        if (!m_dshbakHost.empty() || m_sink.host != m_fileHost) {
            m_sink.host = m_fileHost; // a pdsh prefix covers its own line only
        }
    }

    void finish()
    {
        resolveNicLegend(m_sink);
        noDevicesListed(m_sink);
    }

private:
    // dshbak's "----------------" / "gpu-b005" / "----------------" header: the lines after are that host's.
    bool dshbak(std::string_view line)
    {
        const bool dashes = line.size() >= 4 && line.find_first_not_of('-') == std::string_view::npos;
        if (dashes) {
            m_dashes = m_dashes == 1 && !m_pendingHost.empty() ? 2 : 1;
            if (m_dashes == 2) {
                m_dshbakHost = m_pendingHost;
                noteHost(m_dshbakHost);
                m_dashes = 0;
            }
            m_pendingHost.clear();
            return true;
        }
        if (m_dashes == 1 && m_pendingHost.empty() && std::all_of(line.begin(), line.end(), hostNameChar)) {
            m_pendingHost = std::string(line.substr(0, 64));
            return true;
        }
        m_dashes = 0;
        return false;
    }

    bool read(std::string_view line, Cursor& c, std::int64_t lineNo)
    {
        if (const auto dev = goneDevice(line)) {
            m_sink.out.gone.push_back({ m_sink.host, std::string(dev->substr(0, 64)),
                line.starts_with("ib") ? "ibstat" : c.tool, m_sink.file, lineNo, std::string(line.substr(0, 200)) });
            return true;
        }
        if (ibswinfoLine(line, c, m_sink, lineNo) || topoLine(line, c, m_sink, lineNo)
            || nvlinkLine(line, c, m_sink, lineNo) || devicesLine(line, c, m_sink, lineNo)) {
            return true;
        }
        if (ibstatHeader(line, c, m_sink, lineNo) || ibstatusHeader(line, c, m_sink, lineNo)
            || rdmaLinkLine(line, c, m_sink, lineNo) || queryErrorsLine(line, c, m_sink, lineNo)
            || sminfoLine(line, m_sink, lineNo) || smpqueryHeader(line, c, m_sink, lineNo)) {
            return true;
        }
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            // ibv_devinfo -v lists capability flags one to a line under device_cap_flags.
            return c.tool == "ibv_devinfo" && std::all_of(line.begin(), line.end(), [](char ch) {
                return std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch))
                    || ch == '_' || ch == ' ';
            });
        }
        const auto key = trimmed(line.substr(0, colon));
        const auto value = trimmed(line.substr(colon + 1));
        if (devinfoHeader(key, value, c, m_sink, lineNo)) {
            return true;
        }
        if (c.tool == "ibstat") {
            return ibstatField(key, value, c, m_sink, lineNo);
        }
        if (c.tool == "ibstatus") {
            return ibstatusField(key, value, c, m_sink, lineNo);
        }
        if (c.tool == "ibv_devinfo") {
            return devinfoField(key, value, c, m_sink, lineNo);
        }
        if (c.tool == "smpquery") {
            return smpqueryField(key, value, c, m_sink, lineNo);
        }
        return c.tool == "rdma link" && key == "caps"; // rdma link -d's capability line under each port
    }

    void noteHost(const std::string& host)
    {
        auto& hosts = m_sink.out.hosts;
        if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end() && hosts.size() < 4096) {
            hosts.push_back(host);
        }
    }

    Sink m_sink;
    std::string m_fileHost;
    std::map<std::string, Cursor> m_cursors; // per host: pdsh interleaves several hosts' outputs line by line
    int m_dashes = 0;
    std::string m_pendingHost;
    std::string m_dshbakHost;
};

// A few lines of each shape, for the recogniser: enough of the block to tell it from a log quoting one line.
bool ibstatBlock(const std::string& text)
{
    const auto at = findText(text, "CA '");
    const auto colonAt = findText(text, "CA: '");
    const auto from = std::min(at, colonAt);
    if (from == std::string::npos) {
        return false;
    }
    const auto window = std::string_view(text).substr(from, 2000);
    return window.find("Number of ports:") != std::string_view::npos
        || (window.find("State:") != std::string_view::npos
            && window.find("Physical state:") != std::string_view::npos);
}

} // namespace

bool looksLikeNodeTools(const std::string& text)
{
    if (ibstatBlock(text) || looksLikeNvidiaSmi(text)) {
        return true;
    }
    // ibv_devices: "device                 node GUID" over a rule of dashes.
    if (const auto at = findText(text, "node GUID"); at != std::string::npos) {
        const auto from = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
        const auto head = words(std::string_view(text).substr(from, at + 9 - from), 4);
        const auto next = text.find('\n', at);
        const auto rule = next == std::string::npos ? std::string_view() : trimmed(std::string_view(text).substr(next + 1, 40));
        if (head.size() == 3 && head[0] == "device" && rule.starts_with("------")) {
            return true;
        }
    }
    if (const auto at = findText(text, "Infiniband device '"); at != std::string::npos
        && findText(text, "' port ", at) != std::string::npos && findText(text, " status:", at) != std::string::npos) {
        return true;
    }
    if (const auto at = findText(text, "hca_id:"); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 1000);
        if (window.find("transport:") != std::string_view::npos || window.find("fw_ver:") != std::string_view::npos
            || window.find("phys_port_cnt:") != std::string_view::npos) {
            return true;
        }
    }
    if (findText(text, "stat of IB device '") != std::string::npos
        && (findText(text, "ibpanic: ") != std::string::npos || findText(text, "ibwarn: ") != std::string::npos)) {
        return true;
    }
    if (const auto at = findText(text, "Errors for "); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 2000);
        if (window.find("GUID 0x") != std::string_view::npos && window.find(" port ") != std::string_view::npos
            && window.find(" == ") != std::string_view::npos) {
            return true;
        }
    }
    if (const auto at = findText(text, "PSU0 status "); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 3000);
        if (window.find("temperature (C) ") != std::string_view::npos
            && window.find("warn threshold (C) ") != std::string_view::npos) {
            return true; // ibswinfo's table
        }
    }
    if (const auto at = findText(text, "cur.temp (C) "); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 200);
        if (window.find("max.temp (C) ") != std::string_view::npos) {
            return true; // ibswinfo -o vitals
        }
    }
    if (findText(text, "psu0.status ") != std::string::npos && findText(text, "fans ") != std::string::npos) {
        return true; // ibswinfo -o status
    }
    if (const auto at = findText(text, "# Port info: "); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 3000);
        if (window.find("LinkState:.") != std::string_view::npos
            && window.find("PhysLinkState:.") != std::string_view::npos) {
            return true;
        }
    }
    if (const auto at = findText(text, "sminfo: "); at != std::string::npos) {
        const auto window = std::string_view(text).substr(at, 200);
        if ((window.find("sm lid ") != std::string_view::npos && window.find(" sm guid ") != std::string_view::npos)
            || window.starts_with("sminfo: iberror: ")) {
            return true;
        }
    }
    // rdma link: a "link <dev>/<port> ... state" line among the first lines.
    std::size_t pos = 0;
    for (int n = 0; n < 200 && pos < text.size(); ++n) {
        const auto end = std::min(text.find('\n', pos), text.size());
        auto line = trimmed(std::string_view(text).substr(pos, end - pos));
        if (const auto host = pdshHost(line)) {
            line = trimmed(line.substr(host->size() + 1));
        }
        if (isRdmaLinkLine(line)) {
            return true;
        }
        pos = end + 1;
    }
    return false;
}

Result<NodeToolsFile> parseNodeTools(const std::string& file, const std::string& text, const std::string& fileHost)
{
    NodeToolsFile out;
    Reader reader(file, fileHost, out);
    readLines(
        text, file, out.warnings, [&](const std::string& line, std::int64_t lineNo) { reader.line(line, lineNo); });
    reader.finish();
    // A "=====" line of another command's output opens an ibswinfo table that then holds nothing.
    std::erase_if(out.switches, [](const SwitchVitals& v) {
        return !v.temperature && !v.maxTemperature && v.statuses.empty() && v.fanRpm.empty() && v.moduleTemps.empty();
    });
    std::erase_if(out.nvlinks, [](const GpuNvlinks& g) { return g.links.empty() && g.counterReadings == 0; }); // nvidia-smi -L
    if (out.ports.empty() && out.gone.empty() && out.errors.empty() && out.subnetManagers.empty()
        && out.switches.empty() && out.gpuPaths.empty() && out.nvlinks.empty()) {
        return LoadIssue { file, 0, -1,
            "no HCA port found: no ibstat, ibstatus, ibv_devinfo or rdma link port block, no ibpanic line, no "
            "ibqueryerrors port, no sminfo line, no smpquery portinfo, no ibswinfo, no nvidia-smi topo -m matrix or "
            "nvlink list" };
    }
    return out;
}

} // namespace stallscope
