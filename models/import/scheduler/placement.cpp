// SPDX-License-Identifier: MIT
// Hostfiles and Slurm node lists (placement.h).
#include "import/scheduler/placement.h"

#include "core/parse_number.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include <algorithm>
#include <cctype>

namespace stallscope {

namespace {

bool hostWord(std::string_view w)
{
    return !w.empty() && w.size() <= 253 && std::all_of(w.begin(), w.end(), hostNameChar);
}

// "gpu-r301 slots=8", "user@10.0.0.2 slots=2 max_slots=4" (Open MPI, DeepSpeed), "gpu-r301:8" (MPICH): host, slots.
std::optional<RankPlacement::Host> hostfileLine(std::string_view line)
{
    const auto space = line.find_first_of(" \t");
    auto host = line.substr(0, space);
    if (const auto at = host.find('@'); at != std::string_view::npos) {
        host = host.substr(at + 1);
    }
    if (space != std::string_view::npos) {
        const auto rest = trimmed(line.substr(space));
        if (!rest.starts_with("slots=") || !hostWord(host)) {
            return std::nullopt;
        }
        const auto n = parseNumber<std::uint32_t>(rest.substr(6, rest.find_first_of(" \t", 6) - 6));
        return n && *n <= 65536 ? std::optional(RankPlacement::Host { std::string(host), *n }) : std::nullopt;
    }
    const auto colon = host.rfind(':');
    if (colon == std::string_view::npos || !hostWord(host.substr(0, colon))) {
        return std::nullopt;
    }
    const auto n = parseNumber<std::uint32_t>(host.substr(colon + 1));
    return n && *n <= 65536 ? std::optional(RankPlacement::Host { std::string(host.substr(0, colon)), *n })
                            : std::nullopt;
}

// "KEY=value" anywhere among a line's space-separated tokens (scontrol's "NodeList=gpu[1-2] BatchHost=gpu1").
std::optional<std::string_view> token(std::string_view line, std::string_view key)
{
    for (std::size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        if (at > 0 && line[at - 1] != ' ' && line[at - 1] != '\t') {
            continue; // "ReqNodeList=", "ExcNodeList="
        }
        const auto value = line.substr(at + key.size());
        return value.substr(0, value.find_first_of(" \t"));
    }
    return std::nullopt;
}

// "8(x4),4" → 8, 8, 8, 8, 4.
std::vector<std::uint32_t> tasksPerNode(std::string_view text)
{
    std::vector<std::uint32_t> out;
    while (!text.empty() && out.size() < (1 << 20)) {
        const auto comma = text.find(',');
        const auto item = text.substr(0, comma);
        const auto paren = item.find("(x");
        const auto n = parseNumber<std::uint32_t>(item.substr(0, paren));
        const auto times = paren == std::string_view::npos
            ? std::optional<std::uint32_t>(1)
            : parseNumber<std::uint32_t>(item.substr(paren + 2, item.size() - paren - 3));
        if (!n || !times || *times > (1 << 20) - out.size()) {
            return {};
        }
        out.insert(out.end(), *times, *n);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return out;
}

struct Reader
{
    const std::string& file;
    RankPlacement hostfile, slurm, scontrol, hostnames;
    std::optional<std::uint32_t> numTasks, numNodes;
    std::vector<std::uint32_t> perNode;
    bool inHostnames = false;

    void line(std::string_view raw, std::int64_t lineNo)
    {
        auto line = trimmed(raw);
        if (line.starts_with("export ")) {
            line = trimmed(line.substr(7));
        }
        if (line.find("scontrol show hostnames") != std::string_view::npos) {
            inHostnames = true;
            hostnames.line = lineNo + 1;
            return;
        }
        if (inHostnames) {
            if (hostWord(line) && hostnames.hosts.size() < (1 << 20)) {
                hostnames.hosts.push_back({ std::string(line), 0 });
                return;
            }
            inHostnames = false;
        }
        if (line.empty() || line.starts_with("#") || line.starts_with("```")) {
            return;
        }
        if (const auto h = hostfileLine(line); h && hostfile.hosts.size() < (1 << 20)) {
            hostfile.line = hostfile.hosts.empty() ? lineNo : hostfile.line;
            hostfile.hosts.push_back(*h);
            return;
        }
        for (const std::string_view key : { "SLURM_JOB_NODELIST=", "SLURM_NODELIST=" }) {
            if (line.starts_with(key) && slurm.hosts.empty()) {
                list(line.substr(key.size()), slurm, lineNo);
            }
        }
        if (line.starts_with("SLURM_TASKS_PER_NODE=")) {
            perNode = tasksPerNode(line.substr(21));
        } else if (line.starts_with("SLURM_NTASKS_PER_NODE=")) {
            if (const auto n = parseNumber<std::uint32_t>(line.substr(22))) {
                perNode.assign(1, *n);
            }
        } else if (line.starts_with("SLURM_NTASKS=")) {
            numTasks = parseNumber<std::uint32_t>(line.substr(13));
        }
        if (const auto v = token(line, "NodeList="); v && *v != "(null)" && scontrol.hosts.empty()) {
            list(*v, scontrol, lineNo);
        }
        if (const auto v = token(line, "NumNodes=")) {
            numNodes = parseNumber<std::uint32_t>(v->substr(0, v->find('-')));
        }
        if (const auto v = token(line, "NumTasks=")) {
            numTasks = parseNumber<std::uint32_t>(*v);
        }
    }

    void list(std::string_view expr, RankPlacement& into, std::int64_t lineNo)
    {
        expr = trimmed(expr);
        if (expr.size() >= 2 && (expr.front() == '"' || expr.front() == '\'')) {
            expr = expr.substr(1, expr.size() - 2);
        }
        if (auto hosts = expandHostlist(expr)) {
            for (auto& h : *hosts) {
                into.hosts.push_back({ std::move(h), 0 });
            }
            into.line = lineNo;
        } else {
            into.warnings.push_back({ file, lineNo, -1,
                "expected a Slurm hostlist (\"gpu[001-004,010]\"), got \"" + std::string(expr.substr(0, 80)) + "\"" });
        }
    }

    // Slots for a node list: SLURM_TASKS_PER_NODE's counts, else tasks ÷ nodes when it divides.
    void slots(RankPlacement& p) const
    {
        if (perNode.size() == p.hosts.size()) {
            for (std::size_t i = 0; i < p.hosts.size(); ++i) {
                p.hosts[i].slots = perNode[i];
            }
        } else if (perNode.size() == 1) {
            for (auto& h : p.hosts) {
                h.slots = perNode[0];
            }
        } else if (numTasks && !p.hosts.empty() && *numTasks % p.hosts.size() == 0) {
            for (auto& h : p.hosts) {
                h.slots = static_cast<std::uint32_t>(*numTasks / p.hosts.size());
            }
        }
    }
};

} // namespace

std::string RankPlacement::hostOf(std::uint32_t rank, std::uint32_t world) const
{
    if (hosts.empty()) {
        return {};
    }
    const bool counted = std::all_of(hosts.begin(), hosts.end(), [](const Host& h) { return h.slots > 0; });
    if (!counted) {
        const auto per = (std::uint64_t { world } + hosts.size() - 1) / hosts.size();
        const auto i = per == 0 ? hosts.size() : rank / per;
        return i < hosts.size() ? hosts[i].name : std::string();
    }
    std::uint64_t first = 0;
    for (const auto& h : hosts) {
        if (rank < first + h.slots) {
            return h.name;
        }
        first += h.slots;
    }
    return {};
}

bool looksLikeRankPlacement(const std::string& text)
{
    const std::string_view head = std::string_view(text).substr(0, 65536);
    if (head.find("scontrol show hostnames") != std::string_view::npos) {
        return true;
    }
    for (const std::string_view key : { "SLURM_JOB_NODELIST=", "SLURM_NODELIST=" }) {
        const auto at = head.find(key);
        if (at != std::string_view::npos && (at == 0 || head[at - 1] == '\n' || head[at - 1] == ' ')) {
            return true;
        }
    }
    if ((head.find("JobId=") != std::string_view::npos || head.find("JobID=") != std::string_view::npos)
        && head.find("NodeList=") != std::string_view::npos) {
        return true;
    }
    // A hostfile: its host lines are most of its lines, two at least (or one in a file of three lines or fewer).
    std::size_t hostLines = 0, lines = 0, pos = 0;
    while (pos < head.size() && lines < 200) {
        const auto end = std::min(head.find('\n', pos), head.size());
        const auto line = trimmed(head.substr(pos, end - pos));
        pos = end + 1;
        if (line.empty() || line.starts_with("#") || line.starts_with("```")) {
            continue;
        }
        ++lines;
        hostLines += hostfileLine(line) ? 1 : 0;
    }
    return hostLines * 2 > lines && (hostLines >= 2 || lines <= 3) && hostLines > 0;
}

Result<RankPlacement> parseRankPlacement(const std::string& file, const std::string& text)
{
    Reader r { file, {}, {}, {}, {}, {}, {}, {}, false };
    std::vector<LoadIssue> warnings;
    readLines(text, file, warnings, [&](const std::string& line, std::int64_t lineNo) { r.line(line, lineNo); });
    r.slots(r.slurm);
    r.slots(r.scontrol);
    r.slots(r.hostnames);
    r.hostfile.source = "hostfile";
    r.slurm.source = "SLURM_JOB_NODELIST";
    r.scontrol.source = "scontrol show job";
    r.hostnames.source = "scontrol show hostnames";
    // The list that says most: a hostfile's slots, then Slurm's variables, scontrol's job, expanded hostnames.
    for (auto* p : { &r.hostfile, &r.slurm, &r.scontrol, &r.hostnames }) {
        if (!p->hosts.empty()) {
            RankPlacement out = std::move(*p);
            out.warnings.insert(out.warnings.begin(), warnings.begin(), warnings.end());
            for (auto* q : { &r.slurm, &r.scontrol }) {
                out.warnings.insert(out.warnings.end(), q->warnings.begin(), q->warnings.end());
            }
            return out;
        }
    }
    if (!r.slurm.warnings.empty()) {
        return r.slurm.warnings.front();
    }
    return r.scontrol.warnings.empty()
        ? Result<RankPlacement>(LoadIssue { file, 0, -1,
            "no host list: expected hostfile lines (\"gpu-r301 slots=8\"), SLURM_JOB_NODELIST=, scontrol's NodeList= "
            "or scontrol show hostnames" })
        : Result<RankPlacement>(r.scontrol.warnings.front());
}

} // namespace stallscope
