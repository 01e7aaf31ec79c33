// SPDX-License-Identifier: MIT
#include "import/infiniband/opensm_log.h"
#include "core/parse_number.h"
#include "import/common/text_lines.h"

#include <ctime>
#include <map>
#include <regex>
#include <sstream>

namespace stallscope {

bool looksLikeOpensmLog(const std::string& text)
{
    return text.find("drop_mgr_remove_port") != std::string::npos || text.find("log_trap_info") != std::string::npos
        || text.find("state_mgr_report_new_ports") != std::string::npos || text.find("SUBNET UP") != std::string::npos;
}

Result<OpensmLog> parseOpensmLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    static const std::map<std::string, int> months
        = { { "Jan", 1 }, { "Feb", 2 }, { "Mar", 3 }, { "Apr", 4 }, { "May", 5 }, { "Jun", 6 }, { "Jul", 7 },
              { "Aug", 8 }, { "Sep", 9 }, { "Oct", 10 }, { "Nov", 11 }, { "Dec", 12 } };
    static const std::regex stamp(R"(^(\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{6}) )");
    static const std::regex removed(
        R"(drop_mgr_remove_port: Removed port with GUID:0x([0-9a-fA-F]+).*of node:\s*(.+?)\s*$)");
    static const std::regex discovered(
        R"(state_mgr_report_new_ports: Discovered new port with GUID:0x([0-9a-fA-F]+).*of node:\s*(.+?)\s*$)");
    OpensmLog log;
    const auto stopped = readLines(
        text, file, log.warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            std::smatch m, s;
            if (line.find("-> SUBNET UP") != std::string::npos && std::regex_search(line, s, stamp)
                && months.count(s[1])) {
                const auto t = logTimeNs(clock, clock.year, months.at(s[1]), toNumber<int>(s[2].str()),
                    toNumber<int>(s[3].str()), toNumber<int>(s[4].str()), toNumber<int>(s[5].str()),
                    toNumber<TimeNs>(s[6].str()) * kNsPerUs);
                if (t != kNoTime) {
                    log.subnetUp.push_back(t);
                }
                return std::nullopt;
            }
            if (line.find("Link state change") != std::string::npos) {
                static const std::regex trapLid(R"(from LID:(\d+))");
                static const std::regex noticeGuid(R"(from switch LID (\d+), GUID 0x([0-9a-fA-F]+))");
                if (line.find("log_trap_info") != std::string::npos && std::regex_search(line, m, trapLid)
                    && std::regex_search(line, s, stamp) && months.count(s[1])) {
                    ++log.linkStateTraps;
                    OpensmTrap t;
                    t.timeNs = logTimeNs(clock, clock.year, months.at(s[1]), toNumber<int>(s[2].str()),
                        toNumber<int>(s[3].str()), toNumber<int>(s[4].str()), toNumber<int>(s[5].str()),
                        toNumber<TimeNs>(s[6].str()) * kNsPerUs);
                    if (t.timeNs == kNoTime) {
                        throw BadNumber("a time that is no date (" + s[0].str() + ")");
                    }
                    t.lid = toNumber<std::uint32_t>(m[1].str());
                    t.line = lineNo;
                    log.traps.push_back(t);
                } else if (std::regex_search(line, m, noticeGuid)) {
                    // The notice follows its trap, but the SM's threads interleave traps of several switches:
                    // the latest trap of the same LID still without a GUID is this notice's.
                    const auto lid = toNumber<std::uint32_t>(m[1].str());
                    for (auto it = log.traps.rbegin(); it != log.traps.rend(); ++it) {
                        if (it->lid == lid && it->guid == 0) {
                            it->guid = toNumber<std::uint64_t>(m[2].str(), 16);
                            break;
                        }
                    }
                }
                return std::nullopt;
            }
            const bool down = std::regex_search(line, m, removed);
            if (!down && !std::regex_search(line, m, discovered)) {
                return std::nullopt;
            }
            if (!std::regex_search(line, s, stamp) || !months.count(s[1])) {
                log.warnings.push_back(
                    { file, lineNo, -1, "expected a time like \"Jun 01 12:00:31 123456\" at the start: line skipped" });
                return std::nullopt;
            }
            OpensmPortEvent e;
            e.timeNs
                = logTimeNs(clock, clock.year, months.at(s[1]), toNumber<int>(s[2].str()), toNumber<int>(s[3].str()),
                    toNumber<int>(s[4].str()), toNumber<int>(s[5].str()), toNumber<TimeNs>(s[6].str()) * kNsPerUs);
            if (e.timeNs == kNoTime) {
                throw BadNumber("a time that is no date (" + s[0].str() + ")");
            }
            e.portGuid = toNumber<std::uint64_t>(m[1].str(), 16);
            e.nodeDescription = m[2];
            e.up = !down;
            e.line = lineNo;
            log.events.push_back(std::move(e));
            return std::nullopt;
        });
    if (stopped) {
        return *stopped;
    }
    if (log.events.empty() && log.linkStateTraps == 0 && !looksLikeOpensmLog(text)) {
        return LoadIssue { file, 0, -1, "no OpenSM log lines found" };
    }
    return log;
}

} // namespace stallscope
