// SPDX-License-Identifier: MIT
#include "import/logs/rank_log.h"
#include "import/common/text_lines.h"

#include "core/time_format.h"

#include <ctime>
#include <regex>
#include <sstream>

namespace stallscope {

bool looksLikeRankLog(const std::string& text)
{
    return text.find("NCCL INFO") != std::string::npos || text.find("NCCL WARN") != std::string::npos
        || text.find("[rank") != std::string::npos;
}

namespace {

// "162555850" (9 digits) or "162555" (6) → ns
TimeNs fraction(const std::string& digits)
{
    std::string d = digits.substr(0, 9);
    d.resize(9, '0');
    return std::stoll(d);
}

std::string stripLauncherPrefix(const std::string& line)
{
    static const std::regex prefix(R"(^(?:\[default\d+\]:|\d+: |\(\w+ pid=\d+\) ))");
    return std::regex_replace(line, prefix, "", std::regex_constants::format_first_only);
}

} // namespace

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    static const std::regex rankRe(R"(\[rank(\d+)\])");
    static const std::regex c10Time(R"(\[[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d+) )");
    static const std::regex ncclPrefix(
        R"(^(?:\[(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\] )?([\w.\-]+):(\d+):(\d+) \[(\d+)\] )");
    static const std::regex using_(R"(NET/IB : Using (.*))");
    static const std::regex usingItem(R"(\[(\d+)\]([\w\-]+):(\d+)/(IB|RoCE))");
    static const std::regex completion(R"(Got completion from peer (\S+) with (?:error |status=)(?:\w+\()?(\d+))");
    static const std::regex hcaTail(R"( hca (\S+))");
    static const std::regex asyncEvent(
        R"(NET/IB ?: ?(?:([\w\-]+):(\d+) )?Got (?:async event|async error event|non-fatal async event) ?: ?(port error|port active))");
    static const std::regex commInit(R"(NCCL INFO comm \S+ rank (\d+) nranks (\d+) cudaDev (\d+))");
    static const std::regex watchdog(
        R"(Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+))");
    RankLogFacts f;
    unsigned long worldSeen = 0;
    std::optional<std::uint32_t> commRank;
    TextLines reader(text);
    std::string raw;
    while (reader.next(raw)) {
        const std::int64_t lineNo = reader.number();
        const std::string line = stripLauncherPrefix(raw);
        std::smatch m;
        TimeNs when = kNoTime;
        if (std::regex_search(line, m, rankRe)) {
            const auto r = static_cast<std::uint32_t>(std::stoul(m[1]));
            if (f.rank && *f.rank != r) {
                f.warnings.push_back({ file, lineNo, -1,
                    "lines of rank " + std::to_string(r) + " in the log of rank " + std::to_string(*f.rank) });
            } else {
                f.rank = r;
            }
        }
        if (std::regex_search(line, m, c10Time)) {
            when = logTimeNs(clock, clock.year, std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]),
                std::stoi(m[5]), fraction(m[6]));
        }
        if (std::regex_search(line, m, ncclPrefix)) {
            if (m[1].matched) {
                when = logTimeNs(clock, std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]),
                    std::stoi(m[5]), std::stoi(m[6]), 0);
            }
            if (f.host.empty()) {
                f.host = m[7];
                f.cudaDev = std::stoi(m[10]);
            }
        }
        if (line.find("nranks") != std::string::npos && std::regex_search(line, m, commInit)) {
            // The communicator with the most ranks is the world: its rank is the global rank, used when no
            // "[rankN]" prefix says it.
            const auto n = std::stoul(m[2]);
            if (n > worldSeen) {
                worldSeen = n;
                commRank = static_cast<std::uint32_t>(std::stoul(m[1]));
            }
            if (!f.cudaDev) {
                f.cudaDev = std::stoi(m[3]);
            }
            continue;
        }
        if (std::regex_search(line, m, using_) && f.hcas.empty()) {
            const std::string list = m[1];
            for (auto it = std::sregex_iterator(list.begin(), list.end(), usingItem); it != std::sregex_iterator();
                 ++it) {
                const auto idx = static_cast<std::size_t>(std::stoul((*it)[1]));
                if (f.hcas.size() <= idx) {
                    f.hcas.resize(idx + 1);
                }
                f.hcas[idx] = (*it)[2];
            }
            continue;
        }
        LogEvent e;
        e.timeNs = when;
        e.line = lineNo;
        if (std::regex_search(line, m, completion)) {
            e.kind = LogEventKind::CompletionError;
            e.status = std::stoi(m[2]);
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
            e.seq = static_cast<std::uint32_t>(std::stoul(m[1]));
            e.op = m[2];
            static const std::regex ranFor(R"(ran for (\d+) milliseconds)");
            if (std::smatch r; std::regex_search(line, r, ranFor)) {
                e.ranForMs = std::stoll(r[1]);
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
    if (auto cut = reader.cutWarning(file)) {
        f.warnings.push_back(*cut);
    }
    if (!text.empty() && text.back() != '\n' && reader.number() > 0) {
        f.warnings.push_back({ file, reader.number(), -1, "the file ends inside this line (cut off while written?)" });
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
