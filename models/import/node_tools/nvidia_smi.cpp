// SPDX-License-Identifier: MIT
// nvidia-smi's `topo -m` matrix and `nvlink --status` / `-e` lists (tool_block.h; docs/formats.md §5g).
#include "import/common/line_scan.h"
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

#include <algorithm>
#include <cctype>

namespace stallscope::node_tools {

namespace {

constexpr std::string_view kTopo = "nvidia-smi topo -m";
constexpr std::string_view kNvlink = "nvidia-smi nvlink";

// A header whose separators were lost ("GPU0GPU1GPU2mlx5_0"): split where a letter follows a digit, which no
// device name holds ("mlx5_0", "bnxt_re0").
std::vector<std::string_view> splitRunTogether(std::string_view w)
{
    std::vector<std::string_view> out;
    std::size_t from = 0;
    for (std::size_t i = 1; i < w.size() && out.size() < 256; ++i) {
        if (std::isdigit(static_cast<unsigned char>(w[i - 1])) && std::isalpha(static_cast<unsigned char>(w[i]))) {
            out.push_back(w.substr(from, i - from));
            from = i;
        }
    }
    out.push_back(w.substr(from));
    return out;
}

// A matrix quoted as comments or in a reply: "#GPU0 …", "#        GPU0 …", "// GPU0 …", "> GPU0 …".
std::string_view uncommented(std::string_view line)
{
    while (!line.empty() && (line.front() == '#' || line.front() == '/' || line.front() == '>' || line.front() == ' '
               || line.front() == '\t')) {
        line.remove_prefix(1);
    }
    return line;
}

// "GPU3" → 3; nullopt for anything else.
std::optional<std::uint16_t> gpuIndexOf(std::string_view name)
{
    if (!name.starts_with("GPU") || name.size() > 8) {
        return std::nullopt;
    }
    return parseNumber<std::uint16_t>(name.substr(3));
}

// A column of the matrix: "GPU0", "NIC0", or an RDMA device as older drivers named the column ("mlx5_0",
// "bnxt_re0", "irdma1"): a letter first, then letters, digits and '_', ending in a digit. "CPU" and "Affinity",
// which follow the devices in the header, are not.
bool deviceColumn(std::string_view w)
{
    if (w.empty() || w.size() > 32 || !std::isalpha(static_cast<unsigned char>(w.front()))
        || !std::isdigit(static_cast<unsigned char>(w.back()))) {
        return false;
    }
    return std::all_of(w.begin(), w.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

// The header: "GPU0 GPU1 … NIC0 … CPU Affinity NUMA Affinity GPU NUMA ID", the devices up to the first word that
// is not one. Two devices at least, the first GPU0: a row ("GPU0 X NV12 …") has a path in its second place.
std::optional<std::vector<std::string>> topoHeader(std::vector<std::string_view> w)
{
    if (!w.empty() && w[0].starts_with("GPU0GPU")) {
        auto split = splitRunTogether(w[0]);
        split.insert(split.end(), w.begin() + 1, w.end());
        w = std::move(split);
    }
    if (w.size() < 2 || w[0] != "GPU0" || !deviceColumn(w[1]) || parseGpuPathCell(w[1])) {
        return std::nullopt;
    }
    std::vector<std::string> columns;
    for (const auto word : w) {
        if (!deviceColumn(word) || columns.size() >= 256) {
            break;
        }
        columns.emplace_back(word);
    }
    return columns;
}

bool legendLine(std::string_view line, const std::vector<std::string_view>& w)
{
    if (line == "Legend:" || line == "NIC Legend:") {
        return true;
    }
    // "X    = Self", "NV#  = Connection traversing a bonded set of # NVLinks", "SOC  = …"
    return w.size() >= 2 && w[1] == "=" && (w[0] == "NV#" || parseGpuPathCell(w[0]));
}

void topoRow(const std::vector<std::string_view>& w, const Cursor& c, Sink& s, std::int64_t lineNo)
{
    const auto gpu = gpuIndexOf(w[0]);
    if (!gpu) {
        return; // a NIC's row: the same paths seen from the NIC
    }
    for (std::size_t j = 0; j < c.topoColumns.size() && j + 1 < w.size(); ++j) {
        const auto cell = parseGpuPathCell(w[j + 1]);
        if (!cell) {
            break;
        }
        if (cell->kind == GpuPathKind::Self || s.out.gpuPaths.size() >= NodeToolsFile::kMaxGpuPaths) {
            continue;
        }
        const auto& peer = c.topoColumns[j];
        s.out.gpuPaths.push_back({ s.host, *gpu, peer, gpuIndexOf(peer).has_value(), *cell, s.file, lineNo });
    }
}

} // namespace

bool topoLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    line = uncommented(line);
    const auto w = words(line, 512);
    if (w.empty()) {
        return false;
    }
    if (auto columns = topoHeader(w)) {
        s.openDevice(c, kTopo, "");
        c.topoColumns = std::move(*columns);
        return true;
    }
    if (c.tool != kTopo) {
        return false;
    }
    if (std::find(c.topoColumns.begin(), c.topoColumns.end(), w[0]) != c.topoColumns.end() && w.size() > 1
        && parseGpuPathCell(w[1])) {
        topoRow(w, c, s, lineNo);
        return true;
    }
    if (legendLine(line, w)) {
        return true;
    }
    // The NIC legend: "NIC0: mlx5_0".
    if (w.size() == 2 && w[0].starts_with("NIC") && w[0].ends_with(":") && deviceColumn(w[1])) {
        auto& names = s.nicLegend[s.host];
        if (names.size() < 256) {
            names[std::string(w[0].substr(0, w[0].size() - 1))] = std::string(w[1]);
        }
        return true;
    }
    return false;
}

bool nvlinkLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    line = uncommented(line);
    // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5c1e…)": nvlink's (and nvidia-smi -L's) GPU header.
    if (line.starts_with("GPU ")) {
        const auto colon = line.find(": ");
        const auto uuidAt = line.find(" (UUID: ");
        const auto gpu = colon == std::string_view::npos ? std::nullopt : parseNumber<std::uint16_t>(line.substr(4, colon - 4));
        if (!gpu || uuidAt == std::string_view::npos || uuidAt < colon) {
            return false;
        }
        s.openDevice(c, kNvlink, "");
        GpuNvlinks g;
        g.host = s.host;
        g.gpu = *gpu;
        g.model = std::string(line.substr(colon + 2, std::min<std::size_t>(uuidAt - colon - 2, 80)));
        const auto uuid = line.substr(uuidAt + 8);
        g.uuid = std::string(uuid.substr(0, std::min<std::size_t>(uuid.find(')'), 80)));
        g.file = s.file;
        g.line = lineNo;
        if (s.out.nvlinks.size() < NodeToolsFile::kMaxGpus) {
            c.gpu = s.out.nvlinks.size();
            s.out.nvlinks.push_back(std::move(g));
        }
        return true;
    }
    if (c.tool != kNvlink) {
        return false;
    }
    if (line.starts_with("NVML: ")) {
        return true; // "NVML: Unable to retrieve NVLink information as all links are inActive"
    }
    const auto colon = line.find(": ");
    if (!line.starts_with("Link ") || colon == std::string_view::npos || !c.gpu) {
        return false;
    }
    const auto link = parseNumber<std::uint16_t>(line.substr(5, colon - 5));
    if (!link) {
        return false;
    }
    auto& g = s.out.nvlinks[*c.gpu];
    const auto value = line.substr(colon + 2);
    if (value.starts_with("<inactive>") || value == "inactive") {
        if (g.firstInactiveLine == 0) {
            g.firstInactiveLine = lineNo;
            g.firstInactive = std::string(line.substr(0, 120));
        }
        if (g.links.size() < NodeToolsFile::kMaxNvlinks) {
            g.links.emplace_back(*link, 0.0);
        }
        return true;
    }
    if (value.ends_with(" GB/s")) {
        const auto gbps = parseDouble(value.substr(0, value.size() - 5));
        if (gbps && *gbps > 0 && g.links.size() < NodeToolsFile::kMaxNvlinks) {
            g.links.emplace_back(*link, *gbps);
        }
        return gbps.has_value();
    }
    // nvlink -e: "Replay Errors: 0", "CRC Errors: 3"; newer drivers "Tx packets: …" and the like, read as known.
    const auto last = value.rfind(": ");
    if (last == std::string_view::npos) {
        return false;
    }
    const auto n = parseNumber<std::uint64_t>(value.substr(last + 2));
    g.counterReadings += n ? 1 : 0;
    if (n && *n > 0 && value.substr(0, last).ends_with("Errors") && g.errors.size() < NodeToolsFile::kMaxNvlinks * 4) {
        g.errors.push_back({ *link, std::string(value.substr(0, std::min<std::size_t>(last, 40))), *n });
    }
    return n.has_value();
}

void resolveNicLegend(Sink& s)
{
    for (auto& p : s.out.gpuPaths) {
        const auto names = s.nicLegend.find(p.host);
        if (p.peerIsGpu || names == s.nicLegend.end()) {
            continue;
        }
        if (const auto name = names->second.find(p.peer); name != names->second.end()) {
            p.peer = name->second;
        }
    }
}

bool looksLikeNvidiaSmi(std::string_view text)
{
    // topo -m: a header from GPU0 then a row "GPU0 X …".
    // Bounded: at most 64 header candidates, each looking 20 KB ahead for its row (a log full of "GPU0 GPU1" lines
    // must not make this quadratic).
    int candidates = 0;
    for (std::size_t at = findText(text, "GPU0"); at != std::string_view::npos && candidates < 64;
         at = findText(text, "GPU0", at + 4)) {
        const auto w = words(text.substr(at, std::min<std::size_t>(text.find('\n', at), text.size()) - at), 512);
        if (topoHeader(w)) {
            ++candidates;
            for (auto row = findText(text, "GPU0", at + 4); row != std::string_view::npos && row < at + 20000;
                 row = findText(text, "GPU0", row + 4)) {
                const auto r = words(text.substr(row, 16), 4);
                if (r.size() >= 2 && r[1] == "X") {
                    return true;
                }
            }
        }
        if (at > 1000000) {
            break;
        }
    }
    // nvlink --status or -e: "GPU 0: … (UUID: GPU-…)" (the UUID perhaps elided) then "Link <n>: ".
    for (auto at = findText(text, " (UUID: "); at != std::string_view::npos; at = findText(text, " (UUID: ", at + 8)) {
        const auto window = text.substr(at, 400);
        for (auto link = window.find("Link "); link != std::string_view::npos; link = window.find("Link ", link + 5)) {
            const auto after = window.substr(link + 5, 4);
            if (!after.empty() && std::isdigit(static_cast<unsigned char>(after.front()))
                && after.find(':') != std::string_view::npos) {
                return true;
            }
        }
        if (at > 1000000) {
            break;
        }
    }
    return false;
}

} // namespace stallscope::node_tools
