// SPDX-License-Identifier: MIT
#include "import/logs/rank_log.h"
#include "import/common/text_lines.h"

#include "core/parse_number.h"
#include "core/time_format.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <regex>
#include <sstream>

namespace stallscope {

bool looksLikeRankLog(const std::string& text)
{
    return text.find("NCCL INFO") != std::string::npos || text.find("NCCL WARN") != std::string::npos
        || text.find("[rank") != std::string::npos;
}

namespace {

constexpr std::uint32_t kMaxHcasPerHost = 64;

// "162555850" (9 digits) or "162555" (6) → ns
TimeNs fraction(const std::string& digits)
{
    std::string d = digits.substr(0, 9);
    d.resize(9, '0');
    return toNumber<TimeNs>(d);
}

std::string stripLauncherPrefix(const std::string& line)
{
    static const std::regex prefix(
        R"(^(?:\d+: )?(?:\[default\d+\]:|\(\w+ pid=\d+\) |\[\d+,\d+\]<std(?:out|err)>: ?)?)");
    return std::regex_replace(line, prefix, "", std::regex_constants::format_first_only);
}

// The patterns of the lines a rank log may hold (docs/formats.md §2b); lines are at most 4 KiB (TextLines).
struct Patterns
{
    const std::regex rankRe { R"(\[rank(\d+)\])" };
    const std::regex c10Time { R"(\[[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d+) )" };
    const std::regex ncclPrefix {
        R"(^(?:\[(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\] )?([\w.\-]+):(\d+):(\d+) \[(\d+)\] )"
    };
    const std::regex using_ { R"(NET/IB : Using (.*))" };
    const std::regex usingItem { R"(\[(\d+)\]([\w\-]+):(\d+)/(IB|RoCE))" };
    const std::regex completion { R"(Got completion from peer (\S+) with (?:error |status=)(?:\w+\()?(\d+))" };
    const std::regex hcaTail { R"( hca (\S+))" };
    const std::regex asyncEvent {
        R"(NET/IB ?: ?(?:([\w\-]+):(\d+) )?Got (?:async event|async error event|non-fatal async event) ?: ?(port error|port active))"
    };
    const std::regex commInit { R"(NCCL INFO comm \S+ rank (\d+) nranks (\d+) cudaDev (\d+))" };
    const std::regex watchdog {
        R"(Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+))"
    };
};

const Patterns& patterns()
{
    static const Patterns p;
    return p;
}

// What one line of the log says, into `f`. Throws BadNumber when a number in it does not fit.
void readLogLine(const std::string& file, const std::string& raw, std::int64_t lineNo, const LogClock& clock,
    RankLogFacts& f, std::uint32_t& worldSeen, std::optional<std::uint32_t>& commRank)
{
    const auto& [rankRe, c10Time, ncclPrefix, using_, usingItem, completion, hcaTail, asyncEvent, commInit, watchdog]
        = patterns();
    const std::string line = stripLauncherPrefix(raw);
    std::smatch m;
    TimeNs when = kNoTime;
    if (std::regex_search(line, m, rankRe)) {
        const auto r = toNumber<std::uint32_t>(m[1].str());
        if (f.rank && *f.rank != r) {
            f.warnings.push_back({ file, lineNo, -1,
                "lines of rank " + std::to_string(r) + " in the log of rank " + std::to_string(*f.rank) });
        } else {
            f.rank = r;
        }
    }
    if (std::regex_search(line, m, c10Time)) {
        when = logTimeNs(clock, clock.year, toNumber<int>(m[1].str()), toNumber<int>(m[2].str()),
            toNumber<int>(m[3].str()), toNumber<int>(m[4].str()), toNumber<int>(m[5].str()), fraction(m[6]));
    }
    if (std::regex_search(line, m, ncclPrefix)) {
        if (m[1].matched) {
            when = logTimeNs(clock, toNumber<int>(m[1].str()), toNumber<int>(m[2].str()), toNumber<int>(m[3].str()),
                toNumber<int>(m[4].str()), toNumber<int>(m[5].str()), toNumber<int>(m[6].str()), 0);
        }
        if (f.host.empty()) {
            f.host = m[7];
            f.cudaDev = toNumber<int>(m[10].str());
        }
    }
    if (line.find("nranks") != std::string::npos && std::regex_search(line, m, commInit)) {
        // The communicator with the most ranks is the world: its rank is the global rank, used when no
        // "[rankN]" prefix says it.
        const auto n = toNumber<std::uint32_t>(m[2].str());
        if (n > worldSeen) {
            worldSeen = n;
            commRank = toNumber<std::uint32_t>(m[1].str());
        }
        if (!f.cudaDev) {
            f.cudaDev = toNumber<int>(m[3].str());
        }
        return;
    }
    if (std::regex_search(line, m, using_) && f.hcas.empty()) {
        const std::string list = m[1];
        for (auto it = std::sregex_iterator(list.begin(), list.end(), usingItem); it != std::sregex_iterator(); ++it) {
            // NCCL numbers the HCAs it uses from 0; a host has a few dozen at most. A larger index is a damaged
            // line, not a reason to allocate.
            const auto idx = toNumber<std::uint32_t>((*it)[1].str());
            if (idx >= kMaxHcasPerHost) {
                throw BadNumber("HCA index " + std::to_string(idx) + " in NCCL's \"Using\" list: a host has fewer than "
                    + std::to_string(kMaxHcasPerHost) + " HCAs");
            }
            if (f.hcas.size() <= idx) {
                f.hcas.resize(idx + 1);
            }
            f.hcas[idx] = (*it)[2];
        }
        return;
    }
    LogEvent e;
    e.timeNs = when;
    e.line = lineNo;
    if (std::regex_search(line, m, completion)) {
        e.kind = LogEventKind::CompletionError;
        e.status = toNumber<int>(m[2].str());
        std::smatch h;
        if (std::regex_search(line, h, hcaTail)) {
            e.hca = h[1];
        }
        f.events.push_back(e);
    } else if (std::regex_search(line, m, asyncEvent)) {
        e.kind = m[3] == "port error" ? LogEventKind::PortError : LogEventKind::PortActive;
        e.hca = m[1].matched ? m[1].str() : std::string();
        f.events.push_back(e);
    } else if (std::regex_search(line, m, watchdog)) {
        e.kind = LogEventKind::WatchdogTimeout;
        e.seq = toNumber<std::uint32_t>(m[1].str());
        e.op = m[2];
        static const std::regex ranFor(R"(ran for (\d+) milliseconds)");
        if (std::smatch r; std::regex_search(line, r, ranFor)) {
            e.ranForMs = toNumber<std::int64_t>(r[1].str());
        }
        f.events.push_back(e);
    } else if (line.find("Got completion from peer") != std::string::npos
        || line.find("Watchdog caught") != std::string::npos || line.find("Got async") != std::string::npos
        || line.find("Got non-fatal async") != std::string::npos) {
        // The start of a line the patterns above read, without its end.
        f.warnings.push_back({ file, lineNo, -1,
            "a transport error, port event or watchdog line that does not read to its end (cut in half?): "
            "skipped" });
    }
}

} // namespace

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
};

// What a line's launcher prefix names: "[rank12]:" and "[1,12]<stdout>:" a global rank; "12: " (srun --label) a
// global rank too, unless torchrun's "[default5]:" follows — then a task and a local rank.
std::optional<Prefix> linePrefix(std::string_view line)
{
    std::size_t i = 0;
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
    return Prefix { "rank " + std::to_string(*task), task };
}

} // namespace

std::vector<RankLines> splitByRankPrefix(const std::string& text)
{
    std::map<std::string, RankLines> parts;
    RankLines* current = nullptr;
    std::vector<LoadIssue> ignored; // the parse of each part reports cut lines
    readLines(text, "", ignored, [&](const std::string& line, std::int64_t lineNo) {
        if (auto p = linePrefix(line)) {
            current = &parts[p->process];
            current->process = std::move(p->process);
            current->rank = p->rank;
        }
        if (current) {
            current->text.append(line).push_back('\n');
            current->lineNumbers.push_back(lineNo);
        }
    });
    std::vector<RankLines> out;
    if (parts.size() >= 2) {
        for (auto& [process, p] : parts) {
            out.push_back(std::move(p));
        }
        std::sort(out.begin(), out.end(), [](const RankLines& a, const RankLines& b) {
            return std::pair(!a.rank, a.rank.value_or(0)) < std::pair(!b.rank, b.rank.value_or(0));
        });
    }
    return out;
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

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    RankLogFacts f;
    std::uint32_t worldSeen = 0;
    std::optional<std::uint32_t> commRank;
    std::int64_t lastLine = 0;
    readLines(text, file, f.warnings, [&](const std::string& raw, std::int64_t lineNo) {
        lastLine = lineNo;
        readLogLine(file, raw, lineNo, clock, f, worldSeen, commRank);
    });
    if (!text.empty() && text.back() != '\n' && lastLine > 0) {
        f.warnings.push_back({ file, lastLine, -1, "the file ends inside this line (cut off while written?)" });
    }
    if (!f.rank && commRank) {
        f.rank = commRank;
    }
    if (!f.rank && f.host.empty() && f.events.empty()) {
        return LoadIssue { file, 0, -1, "no PyTorch or NCCL log lines found" };
    }
    return f;
}

} // namespace stallscope
