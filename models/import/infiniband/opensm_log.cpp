// SPDX-License-Identifier: MIT
// OpenSM's log (docs/formats.md §5d), read with LineScan: the time at the start of a line
// ("Jun 01 12:00:31 123456 [tid] 0x02 -> ..."), then what the line's anchor says — a port removed or discovered
// (with its GUID and node), a link-state trap (LID) and its notice (the switch's GUID), "SUBNET UP".
#include "import/infiniband/opensm_log.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include <array>

namespace stallscope {

bool looksLikeOpensmLog(const std::string& text)
{
    return findText(text, "drop_mgr_remove_port") != std::string::npos
        || findText(text, "log_trap_info") != std::string::npos
        || findText(text, "state_mgr_report_new_ports") != std::string::npos
        || findText(text, "SUBNET UP") != std::string::npos;
}

namespace {

// "Jun  1 12:00:31 123456 " at the start of the line: the time, kNoTime when it is not a date; nullopt without
// such a stamp.
std::optional<TimeNs> stampOf(std::string_view line, const LogClock& clock)
{
    LineScan s(line);
    const int month = monthFromAbbreviation(line.substr(0, 3));
    s.seek(3);
    if (month == 0 || s.peek() != ' ') {
        return std::nullopt;
    }
    s.skipSpaces();
    const auto day = s.digits(2);
    std::array<std::optional<int>, 3> hms;
    if (day.empty() || !s.lit(" ") || !(hms[0] = s.fixed(2)) || !s.lit(":") || !(hms[1] = s.fixed(2)) || !s.lit(":")
        || !(hms[2] = s.fixed(2)) || !s.lit(" ")) {
        return std::nullopt;
    }
    const auto micros = s.digits(6);
    if (micros.size() != 6 || !s.lit(" ")) {
        return std::nullopt;
    }
    return logTimeNs(
        clock, clock.year, month, toNumber<int>(day), *hms[0], *hms[1], *hms[2], toNumber<TimeNs>(micros) * kNsPerUs);
}

// The hexadecimal number right after `anchor` ("GUID:0x"), or nullopt.
std::optional<std::uint64_t> hexAfter(std::string_view line, std::string_view anchor, std::size_t& end)
{
    LineScan s(line);
    if (!s.skipPast(anchor)) {
        return std::nullopt;
    }
    const auto hex = s.hexDigits(64); // the whole run: toNumber refuses one too large for 64 bits
    if (hex.empty()) {
        return std::nullopt;
    }
    end = s.pos();
    return toNumber<std::uint64_t>(hex, 16);
}

class OpensmReader
{
public:
    OpensmReader(const std::string& file, const LogClock& clock, OpensmLog& log)
        : m_file(file)
        , m_clock(clock)
        , m_log(log)
    {
    }

    void line(std::string_view line, std::int64_t lineNo)
    {
        if (line.find("-> SUBNET UP") != std::string_view::npos) {
            if (const auto t = stampOf(line, m_clock); t && *t != kNoTime) {
                m_log.subnetUp.push_back(*t);
            }
        } else if (line.find("Link state change") != std::string_view::npos) {
            linkStateChange(line, lineNo);
        } else {
            portEvent(line, lineNo);
        }
    }

private:
    // "log_trap_info: Received Generic Notice type:1 num:128 (Link state change) ... from LID:1 TID:..." and its
    // notice "Reporting Urgent Notice "Link state change" from switch LID 1, GUID 0x0000000000200000".
    void linkStateChange(std::string_view line, std::int64_t lineNo)
    {
        LineScan s(line);
        if (line.find("log_trap_info") != std::string_view::npos && s.skipPast("from LID:")) {
            const auto lid = s.number<std::uint32_t>();
            const auto t = stampOf(line, m_clock);
            if (!lid || !t) {
                return;
            }
            if (*t == kNoTime) {
                throw BadNumber("a time that is no date (" + std::string(line.substr(0, 22)) + ")");
            }
            ++m_log.linkStateTraps;
            m_log.traps.push_back({ *t, *lid, 0, lineNo });
            return;
        }
        s.seek(0);
        if (!s.skipPast("from switch LID ")) {
            return;
        }
        const auto lid = s.number<std::uint32_t>();
        std::size_t end = 0;
        const auto guid = lid && s.lit(", ") ? hexAfter(s.rest(), "GUID 0x", end) : std::nullopt;
        if (!guid) {
            return;
        }
        // The notice follows its trap, but the SM's threads interleave traps of several switches: the latest
        // trap of the same LID still without a GUID is this notice's.
        for (auto it = m_log.traps.rbegin(); it != m_log.traps.rend(); ++it) {
            if (it->lid == *lid && it->guid == 0) {
                it->guid = *guid;
                break;
            }
        }
    }

    // "drop_mgr_remove_port: Removed port with GUID:0x... LID range [1, 1] of node: gpu-a001 mlx5_1" and
    // "state_mgr_report_new_ports: Discovered new port with GUID:0x... of node: ...".
    void portEvent(std::string_view line, std::int64_t lineNo)
    {
        std::size_t end = 0;
        auto guid = hexAfter(line, "drop_mgr_remove_port: Removed port with GUID:0x", end);
        const bool down = guid.has_value();
        if (!down) {
            guid = hexAfter(line, "state_mgr_report_new_ports: Discovered new port with GUID:0x", end);
        }
        if (!guid) {
            return;
        }
        const auto of = line.rfind("of node:");
        if (of == std::string_view::npos || of < end) {
            return;
        }
        auto node = line.substr(of + 8);
        while (!node.empty() && (node.front() == ' ' || node.front() == '\t')) {
            node.remove_prefix(1);
        }
        while (!node.empty() && (node.back() == ' ' || node.back() == '\t')) {
            node.remove_suffix(1);
        }
        if (node.empty()) {
            return;
        }
        const auto t = stampOf(line, m_clock);
        if (!t) {
            m_log.warnings.push_back(
                { m_file, lineNo, -1, "expected a time like \"Jun 01 12:00:31 123456\" at the start: line skipped" });
            return;
        }
        if (*t == kNoTime) {
            throw BadNumber("a time that is no date (" + std::string(line.substr(0, 22)) + ")");
        }
        OpensmPortEvent e;
        e.timeNs = *t;
        e.portGuid = *guid;
        e.nodeDescription = std::string(node);
        e.up = !down;
        e.line = lineNo;
        m_log.events.push_back(std::move(e));
    }

    const std::string& m_file;
    const LogClock& m_clock;
    OpensmLog& m_log;
};

} // namespace

Result<OpensmLog> parseOpensmLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    OpensmLog log;
    OpensmReader reader(file, clock, log);
    const auto stopped = readLines(
        text, file, log.warnings, [&](const std::string& line, std::int64_t lineNo) -> std::optional<LoadIssue> {
            reader.line(line, lineNo);
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
