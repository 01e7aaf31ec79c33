// SPDX-License-Identifier: MIT
// Splitting a log that holds several processes' lines into one text per process (rank_log.h).
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"
#include "import/logs/log_prefix.h"
#include "import/logs/rank_log.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_set>

namespace stallscope {

namespace {

// Digits at `s[i]`, as a number; `i` moves past them. nullopt (i unchanged) when there are none or too many.
std::optional<std::uint32_t> digitsAt(std::string_view s, std::size_t& i)
{
    auto j = i;
    while (j < s.size() && j - i < 10 && std::isdigit(static_cast<unsigned char>(s[j]))) {
        ++j;
    }
    auto v = j > i ? parseNumber<std::uint32_t>(s.substr(i, j - i)) : std::nullopt;
    if (v) {
        i = j;
    }
    return v;
}

struct Prefix
{
    std::string process;
    std::optional<std::uint32_t> rank;
    bool srunTask = false;
};

// What a line's launcher prefix names: "[rank12]:" and "[1,12]<stdout>:" a global rank; "12: " (srun --label) a
// global rank too, unless torchrun's "[default5]:" follows — then a task and a local rank.
std::optional<Prefix> linePrefix(std::string_view line)
{
    std::size_t i = 0;
    if (const auto stamp = logs::ompiTimestampLength(line); stamp > 0) {
        line.remove_prefix(stamp); // Open MPI's --timestamp-output stamp before its "[1,12]<stdout>:" tag
    }
    if (line.substr(0, 5) == "[rank") {
        i = 5;
        const auto r = digitsAt(line, i);
        return r && line.substr(i, 2) == "]:" ? std::optional<Prefix>({ "rank " + std::to_string(*r), r })
                                              : std::nullopt;
    }
    if (line.substr(0, 1) == "[") {
        i = 1;
        if (digitsAt(line, i) && line.substr(i, 1) == ",") {
            ++i;
            const auto r = digitsAt(line, i);
            if (r && (line.substr(i, 10) == "]<stdout>:" || line.substr(i, 10) == "]<stderr>:")) {
                return Prefix { "rank " + std::to_string(*r), r };
            }
        }
        return std::nullopt;
    }
    while (i < line.size() && i < 8 && line[i] == ' ') { // srun's labels padded to the widest task id: " 7: "
        ++i;
    }
    const auto task = digitsAt(line, i);
    if (!task || line.substr(i, 2) != ": ") {
        return std::nullopt;
    }
    i += 2;
    if (line.substr(i, 8) == "[default") {
        i += 8;
        if (const auto local = digitsAt(line, i)) {
            return Prefix { "task " + std::to_string(*task) + ", local rank " + std::to_string(*local), std::nullopt };
        }
    }
    return Prefix { "rank " + std::to_string(*task), task, true };
}

std::vector<RankLines> sorted(std::map<std::string, RankLines>& parts)
{
    std::vector<RankLines> out;
    if (parts.size() >= 2) {
        for (auto& [process, p] : parts) {
            out.push_back(std::move(p));
        }
        std::stable_sort(out.begin(), out.end(), [](const RankLines& a, const RankLines& b) {
            return std::pair(!a.rank, a.rank.value_or(0)) < std::pair(!b.rank, b.rank.value_or(0));
        });
    }
    return out;
}

std::vector<RankLines> splitByLauncher(const std::string& text)
{
    std::map<std::string, RankLines> parts;
    RankLines* current = nullptr;
    std::vector<LoadIssue> ignored; // the parse of each part reports cut lines
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t lineNo) {
        if (auto p = linePrefix(line)) {
            current = &parts[p->process];
            current->process = std::move(p->process);
            current->rank = p->rank;
            current->srunTask = p->srunTask;
        }
        if (current) {
            current->text.append(line).push_back('\n');
            current->lineNumbers.push_back(lineNo);
        }
    });
    return sorted(parts);
}

// "gpu-a017 pid 48211 GPU 2": NCCL_DEBUG output names the process and the device of each line. One process per
// GPU is PyTorch's way; nccl-tests' -g N drives N GPUs (N ranks) from one process, hence the device in the key.
// Written into `out`, whose buffer is reused line after line (a new string per line was a tenth of a log's time).
void processOf(const logs::NcclPrefix& p, std::string& out)
{
    out.assign(p.host).append(" pid ").append(p.pid).append(" GPU ").append(std::to_string(p.dev));
}

std::string processOf(const logs::NcclPrefix& p)
{
    std::string out;
    processOf(p, out);
    return out;
}

// The host names seen at the start of a line, found as the longest one a run of host characters ends in: one pass
// back over the run with a rolling hash, one exact comparison per hit. (A set lookup for each known length was
// quadratic in the run: a log naming hosts of 2,000 lengths took 44 s for 3 MB.)
class HostSuffixes
{
public:
    explicit HostSuffixes(const std::set<std::string, std::less<>>& hosts)
        : m_hosts(hosts)
    {
        for (const auto& h : hosts) {
            std::uint64_t hash = 0;
            for (auto c = h.rbegin(); c != h.rend(); ++c) {
                hash = step(hash, *c);
            }
            m_hashes.insert(key(hash, h.size()));
            m_longest = std::max(m_longest, h.size());
        }
    }

    // The length of the longest known host `run` ends with, 0 when none does.
    std::size_t longestEndingIn(std::string_view run) const
    {
        std::uint64_t hash = 0;
        m_hits.clear();
        const auto most = std::min(run.size(), m_longest);
        for (std::size_t len = 1; len <= most; ++len) {
            hash = step(hash, run[run.size() - len]);
            if (m_hashes.count(key(hash, len))) {
                m_hits.push_back(len);
            }
        }
        for (auto len = m_hits.rbegin(); len != m_hits.rend(); ++len) {
            if (m_hosts.count(run.substr(run.size() - *len))) { // a hash can collide; the name cannot
                return *len;
            }
        }
        return 0;
    }

private:
    static std::uint64_t step(std::uint64_t hash, char c)
    {
        return hash * 1099511628211ULL + static_cast<unsigned char>(c) + 1;
    }
    static std::uint64_t key(std::uint64_t hash, std::size_t len)
    {
        return hash ^ (static_cast<std::uint64_t>(len) * 0x9E3779B97F4A7C15ULL);
    }

    const std::set<std::string, std::less<>>& m_hosts;
    std::unordered_set<std::uint64_t> m_hashes;
    std::size_t m_longest = 0;
    mutable std::vector<std::size_t> m_hits; // reused from run to run
};

// NCCL_DEBUG output of several processes in one file, split by NCCL's "host:pid:tid [dev] " prefix. Processes that
// wrote to one file at once interleave inside a physical line ("... nranks ljm:803563:803603 [0] NCCL INFO comm"):
// a line is also cut where a prefix of a host seen at the start of some line begins.
std::vector<RankLines> splitByNcclPrefix(const std::string& text)
{
    const LogClock none;
    std::set<std::string, std::less<>> hosts;
    std::set<std::string> processes;
    std::vector<LoadIssue> ignored;
    std::string last; // the previous prefix's host, pid and device: most lines follow one of their own process
    int lastDev = -1;
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t) {
        LineScan s(line, logs::afterLauncherPrefix(line));
        if (const auto p = logs::ncclPrefixAt(s, none)) {
            if (p->dev == lastDev && last.size() == p->host.size() + 1 + p->pid.size()
                && std::string_view(last).substr(0, p->host.size()) == p->host
                && std::string_view(last).substr(p->host.size() + 1) == p->pid) {
                return;
            }
            last.assign(p->host).append(" ").append(p->pid);
            lastDev = p->dev;
            hosts.emplace(p->host);
            processes.insert(processOf(*p));
        }
    });
    if (processes.size() < 2) {
        return {};
    }
    std::map<std::string, RankLines> parts;
    std::map<std::string, std::string> pidOf; // part → "host pid"
    std::map<std::string, std::pair<std::string, std::int64_t>> usingLine; // "host pid" → its NET/IB Using line
    RankLines* current = nullptr;
    std::string key; // the line's process, its buffer reused
    auto add = [&](std::string_view piece, std::int64_t lineNo) {
        LineScan s(piece, logs::afterLauncherPrefix(piece));
        if (const auto p = logs::ncclPrefixAt(s, none)) {
            processOf(*p, key);
            if (!current || current->process != key) { // most lines follow one of their own process
                current = &parts[key];
                current->process = key;
                pidOf[key] = std::string(p->host) + " " + std::string(p->pid);
            }
            if (piece.find("NET/IB : Using ") != std::string_view::npos) {
                const auto& pid = pidOf[key];
                if (!usingLine.count(pid)) {
                    usingLine[pid] = { std::string(piece), lineNo };
                }
            }
        }
        if (current) {
            current->text.append(piece).push_back('\n');
            current->lineNumbers.push_back(lineNo);
        }
    };
    const HostSuffixes known(hosts);
    // Where, after the piece's own prefix, another process's prefix begins: at a ':' whose run of host characters
    // ends in a known host name (the text before may be glued to it: "cudaDev 0ljm:803564:..."). The prefix's host
    // is the run's longest known suffix: what follows the ':' decides alone whether it is a prefix. Never inside the
    // piece's own prefix: with hosts "gpu-a1" and "a1", "gpu-a1:12:12 [0] ..." is not "gpu-" then a line of "a1";
    // and a piece cut off at a prefix is not cut again inside it (every byte is looked at a bounded number of times).
    auto nextCut = [&](std::string_view rest) {
        LineScan own(rest, logs::afterLauncherPrefix(rest));
        const std::size_t from = logs::ncclPrefixAt(own, none) ? own.pos() : 1;
        for (auto colon = rest.find(':', from); colon != std::string_view::npos; colon = rest.find(':', colon + 1)) {
            auto run = colon;
            while (run > from && hostNameChar(rest[run - 1])) {
                --run;
            }
            const auto len = known.longestEndingIn(rest.substr(run, colon - run));
            if (len == 0) {
                continue;
            }
            LineScan s(rest, colon - len);
            if (logs::ncclPrefixAt(s, none)) {
                return colon - len;
            }
        }
        return std::string_view::npos;
    };
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t lineNo) {
        std::string_view rest(line);
        for (auto cut = nextCut(rest); cut != std::string_view::npos; cut = nextCut(rest)) {
            add(rest.substr(0, cut), lineNo);
            rest.remove_prefix(cut);
        }
        add(rest, lineNo);
    });
    // NCCL picks its HCAs once per process and says so on one thread: a process driving several GPUs prints the
    // list once, for all its ranks. Each rank's share gets it.
    for (auto& [process, part] : parts) {
        const auto u = usingLine.find(pidOf[process]);
        if (u != usingLine.end() && part.text.find("NET/IB : Using ") == std::string::npos) {
            // After the part's first line, which says the rank's own device.
            const auto firstEnd = part.text.find('\n') + 1;
            part.text.insert(firstEnd, u->second.first + "\n");
            part.lineNumbers.insert(part.lineNumbers.begin() + 1, u->second.second);
        }
    }
    return sorted(parts);
}

// The global rank a PyTorch message names: "[Rank 3]" (older releases, the default group) or the default group's
// "[PG 0 Rank 3]" / "[PG 0 (default_pg) Rank 3]" / "[PG ID 0 PG GUID 0(default_pg) Rank 3]". Another group's rank
// is its place in that group, not the global rank: nullopt.
std::optional<std::uint32_t> messageRank(std::string_view line)
{
    // One search per line for "Rank ", then what opens its bracket: most lines have none.
    for (auto at = line.find("Rank "); at != std::string_view::npos; at = line.find("Rank ", at + 5)) {
        const auto open = at > 0 ? line.rfind('[', at - 1) : std::string_view::npos;
        if (open == std::string_view::npos || line.find(']', open) < at) {
            continue;
        }
        const auto head = line.substr(open, at - open);
        if (head != "[" && head.substr(0, 6) != "[PG 0 " && head.substr(0, 9) != "[PG ID 0 ") {
            continue; // another group's rank is its place in that group
        }
        std::size_t i = at + 5;
        const auto r = digitsAt(line, i);
        if (r && line.substr(i, 1) == "]") {
            return r;
        }
    }
    return std::nullopt;
}

// Several processes' PyTorch messages in one file with no launcher prefix ("[E ProcessGroupNCCL.cpp:737] [Rank 3]
// Watchdog caught …", a console or a thread that gathered them): split by the rank each message names. Lines that
// name none (a what(), "terminate called …") follow the line before.
std::vector<RankLines> splitByMessageRank(const std::string& text)
{
    std::map<std::string, RankLines> parts;
    RankLines* current = nullptr;
    std::vector<LoadIssue> ignored;
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t lineNo) {
        if (const auto r = messageRank(line)) {
            const auto process = "rank " + std::to_string(*r);
            current = &parts[process];
            current->process = process;
            current->rank = r;
        }
        if (current) {
            current->text.append(line).push_back('\n');
            current->lineNumbers.push_back(lineNo);
        }
    });
    return sorted(parts);
}

// UCX's own prefix names the process: "[gpu-c012:4242:0:4250]" (older; the pid may be padded, "[ast1815:6807 :0:…]")
// or "[1700000000.123456] [gpu-c012:4242:0]". "host pid", or empty when the line has none at its start.
std::string ucxProcess(std::string_view line)
{
    std::size_t i = 0;
    if (line.substr(0, 1) == "[" && line.size() > 1 && std::isdigit(static_cast<unsigned char>(line[1]))) {
        const auto close = line.find("] [");
        if (close == std::string_view::npos || close > 24) {
            return {};
        }
        i = close + 2; // past UCX's time
    }
    if (line.substr(i, 1) != "[") {
        return {};
    }
    ++i;
    const auto start = i;
    while (i < line.size() && i - start < 64 && hostNameChar(line[i])) {
        ++i;
    }
    if (i == start || line.substr(i, 1) != ":") {
        return {};
    }
    const auto host = line.substr(start, i - start);
    ++i;
    const auto pidAt = i;
    const auto pid = digitsAt(line, i);
    while (i < line.size() && line[i] == ' ') {
        ++i;
    }
    if (!pid || (line.substr(i, 1) != ":" && line.substr(i, 1) != "]")) {
        return {};
    }
    return std::string(host) + " pid " + std::string(line.substr(pidAt, i - pidAt));
}

// UCX lines of several processes in one file (a launcher's output without labels): split by UCX's prefix.
std::vector<RankLines> splitByUcxPrefix(const std::string& text)
{
    if (findText(text, "ib_mlx5_log.c:") == std::string::npos) {
        return {};
    }
    std::map<std::string, RankLines> parts;
    RankLines* current = nullptr;
    std::vector<LoadIssue> ignored;
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t lineNo) {
        if (auto process = ucxProcess(line); !process.empty()) {
            current = &parts[process];
            current->process = std::move(process);
        }
        if (current) {
            current->text.append(line).push_back('\n');
            current->lineNumbers.push_back(lineNo);
        }
    });
    return sorted(parts);
}

} // namespace

std::vector<RankLines> splitByRankPrefix(const std::string& text)
{
    auto parts = splitByLauncher(text);
    if (parts.empty()) {
        parts = splitByNcclPrefix(text);
    }
    if (parts.empty()) {
        parts = splitByMessageRank(text);
    }
    return parts.empty() ? splitByUcxPrefix(text) : parts;
}

void restoreLineNumbers(RankLogFacts& facts, const std::string& file, const std::vector<std::int64_t>& lineNumbers)
{
    auto fileLine = [&](std::int64_t n) {
        return n >= 1 && static_cast<std::size_t>(n) <= lineNumbers.size() ? lineNumbers[n - 1] : n;
    };
    for (auto& e : facts.events) {
        e.line = fileLine(e.line);
    }
    for (auto& w : facts.warnings) {
        if (w.file == file) {
            w.line = fileLine(w.line);
        }
    }
}

} // namespace stallscope
