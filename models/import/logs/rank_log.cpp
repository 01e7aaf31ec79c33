// SPDX-License-Identifier: MIT
// Reading one rank's log, a line at a time, with LineScan (docs/formats.md §2: the prefixes in §2a, PyTorch's
// and NCCL's messages in §2b). Each message reader looks for its anchor text ("Got completion from peer",
// "Watchdog caught", ...) and then reads the fields after it in order; what a version adds or renames around them
// is skipped over, which is how one reader takes every wording in the §2b table.
#include "import/logs/rank_log.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"
#include "import/logs/log_prefix.h"
#include "import/logs/rank_log_messages.h"

#include "core/time_format.h"

#include <algorithm>
#include <array>

namespace stallscope {

bool looksLikeRankLog(const std::string& text)
{
    for (const char* mark : { "NCCL INFO", "NCCL WARN", "[rank", "ProcessGroupNCCL", "Watchdog caught collective",
             "ib_mlx5_log.c:", "pml_ucx.c:", "Detected mismatch between collectives" }) {
        if (findText(text, mark) != std::string::npos) {
            return true;
        }
    }
    return false;
}

namespace {

using namespace logs; // the prefixes and the message readers

// "162555850" (9 digits) or "162555" (6) → ns
TimeNs fraction(std::string_view digits)
{
    std::string d(digits.substr(0, 9));
    d.resize(9, '0');
    return toNumber<TimeNs>(d);
}

// c10's prefix at the cursor: "[E0709 17:05:38.162555850 file.cpp:632] " or "[E321 …]" (time) or
// "[E file.cpp:583] " (older, none). Returns the time, kNoTime without one; nullopt when there is no c10 prefix.
std::optional<TimeNs> c10PrefixAt(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    if (!s.lit("[") || std::string_view("IWEF").find(s.peek()) == std::string_view::npos || s.atEnd()) {
        s.seek(start);
        return std::nullopt;
    }
    s.seek(s.pos() + 1);
    std::array<std::optional<int>, 5> f;
    // The month is not zero-padded in PyTorch 2.3+ ("[E321 02:07:08.408271257 …]" is March 21); glog pads it.
    const auto monthDay = s.digits(4);
    if (monthDay.size() >= 3) {
        const auto m = monthDay.size() - 2;
        f[0] = toNumber<int>(monthDay.substr(0, m));
        f[1] = toNumber<int>(monthDay.substr(m));
    }
    if (f[0] && f[1] && s.lit(" ") && (f[2] = s.fixed(2)) && s.lit(":") && (f[3] = s.fixed(2)) && s.lit(":")
        && (f[4] = s.fixed(2)) && s.lit(".")) {
        const auto frac = s.digits(12);
        if (!frac.empty() && s.lit(" ")) {
            s.until("]");
            s.lit("] ");
            return logTimeNs(clock, clock.year, *f[0], *f[1], *f[2], *f[3], *f[4], fraction(frac));
        }
    } else if (s.lit(" ")) { // "[E ProcessGroupNCCL.cpp:583] ": no time
        const auto file = s.until("] ");
        if (file.find(':') != std::string_view::npos && s.lit("] ")) {
            return kNoTime;
        }
    }
    s.seek(start);
    return std::nullopt;
}

// A rank's log, read a physical line at a time. Keeps what a message needs across lines: the message hard-wrapped
// onto the next line, and the "terminate called" whose what() follows.
class RankLogReader
{
public:
    RankLogReader(const std::string& file, const LogClock& clock, RankLogFacts& f)
        : m_file(file)
        , m_clock(clock)
        , m_f(f)
    {
    }

    // One physical line: the segments a progress bar's carriage returns glued together are read one by one.
    void physical(const std::string& raw, std::int64_t lineNo)
    {
        std::string_view rest(raw);
        while (true) {
            const auto cr = rest.find('\r');
            const auto seg = rest.substr(0, cr);
            if (!seg.empty()) {
                segment(seg, lineNo);
            }
            if (cr == std::string_view::npos) {
                break;
            }
            rest.remove_prefix(cr + 1);
        }
    }

    // A message still waiting for the rest of its words at the end of the file.
    void finish() { flushPending(); }

    std::optional<std::uint32_t> rankFromLines() const { return m_msg.commRank ? m_msg.commRank : m_pgRank; }

private:
    struct Pending
    {
        std::string text;
        std::int64_t line = 0;
        std::optional<LogEvent> best; // what the first half already says, kept when no second half comes
    };

    void segment(std::string_view seg, std::int64_t lineNo)
    {
        if (m_pending) {
            if (!startsRecord(seg)) {
                // A wrapper that split inside a word lost nothing; one that split at a blank may have dropped it.
                for (const char* sep : { "", " " }) {
                    const std::string joined = m_pending->text + sep + std::string(seg);
                    if (read(joined, m_pending->line) == Read::Done) {
                        m_pending.reset();
                        return;
                    }
                }
            }
            flushPending();
        }
        if (read(seg, lineNo) == Read::Partial) {
            m_pending = Pending { std::string(seg), lineNo, m_msg.best };
        }
    }

    void flushPending()
    {
        if (!m_pending) {
            return;
        }
        if (m_pending->best) {
            m_f.events.push_back(*m_pending->best);
        } else {
            m_f.warnings.push_back({ m_file, m_pending->line, -1,
                "a transport error, port event or watchdog line that does not read to its end (cut in half?): "
                "skipped" });
        }
        m_pending.reset();
    }

    // A line that begins a log record of its own (so it cannot be the second half of the one before).
    static bool startsRecord(std::string_view seg)
    {
        const auto at = afterLauncherPrefix(seg);
        if (at > 0 || seg.empty() || seg.front() == '[') {
            return true;
        }
        LineScan s(seg);
        LogClock none;
        return ncclPrefixAt(s, none).has_value();
    }

    Read read(std::string_view line, std::int64_t lineNo)
    {
        m_msg.best.reset();
        LineScan s(line, afterLauncherPrefix(line));
        LogEvent e;
        e.line = lineNo;
        if (const auto p = s.pos(); s.lit("[rank")) {
            const auto r = s.number<std::uint32_t>();
            if (r && s.lit("]:")) {
                noteRank(*r, lineNo);
            } else {
                s.seek(p);
            }
        }
        if (const auto t = c10PrefixAt(s, m_clock)) {
            e.timeNs = *t;
        }
        m_msg.ncclLine = false;
        if (const auto p = ncclPrefixAt(s, m_clock)) {
            m_msg.ncclLine = true;
            if (p->when != kNoTime) {
                e.timeNs = p->when;
            }
            if (m_f.host.empty()) {
                m_f.host = std::string(p->host);
                m_f.cudaDev = p->dev;
            }
        }
        if (e.timeNs != kNoTime) {
            m_f.firstNs = m_f.firstNs == kNoTime ? e.timeNs : std::min(m_f.firstNs, e.timeNs);
            m_f.lastNs = m_f.lastNs == kNoTime ? e.timeNs : std::max(m_f.lastNs, e.timeNs);
        }
        readPgPrefix(line, e);
        const auto body = line.substr(s.pos());
        // The mismatch first: PyTorch raises it as the watchdog's exception and as an abort's what().
        for (auto reader : { collectiveMismatch, commInit, usingList, netChoice, whatLine, watchdogException, completion,
                 asyncEvent, watchdogTimeout, watchdogFailure, heartbeat, terminate, socketError, ucxCompletion,
                 ompiUcxError }) {
            if (const auto r = reader(body, e, m_msg); r != Read::Nothing) {
                return r;
            }
        }
        return ncclWarning(line, e);
    }

    // Any other "NCCL WARN" line is kept as a warning fact with its text (the subsystem, "NET/IB", leads it): a
    // version's new wording of a failure is then shown, not dropped.
    Read ncclWarning(std::string_view line, LogEvent& e)
    {
        const auto at = line.find("NCCL WARN ");
        if (at == std::string_view::npos || !m_msg.ncclLine) {
            return Read::Nothing;
        }
        e.kind = LogEventKind::NcclWarning;
        e.text = clipped(line.substr(at + 10), " ", 240);
        m_f.events.push_back(e);
        return Read::Done;
    }

    void noteRank(std::uint32_t r, std::int64_t lineNo)
    {
        if (m_f.rank && *m_f.rank != r) {
            m_f.warnings.push_back({ m_file, lineNo, -1,
                "lines of rank " + std::to_string(r) + " in the log of rank " + std::to_string(*m_f.rank) });
        } else {
            m_f.rank = r;
        }
    }

    // The process group a message's prefix names: "[PG ID 3 PG GUID 7(desc) Rank 5]" (newest), "[PG 3 Rank 5]"
    // (older), or "[Rank 5]" (most releases, no group: the default group). A rank in the default group (id 0) is
    // the global rank — a hint used when nothing better says it.
    void readPgPrefix(std::string_view line, LogEvent& e)
    {
        std::optional<std::uint32_t> rank;
        if (auto at = line.find("[PG ID "); at != std::string_view::npos) {
            LineScan s(line, at + 7);
            e.pg = std::string(s.digits());
            if (s.skipPast(" Rank ")) {
                rank = s.number<std::uint32_t>();
            }
        } else if (at = line.find("[PG "); at != std::string_view::npos) {
            // "[PG 3 Rank 5]", and "[PG 0 (default_pg) Rank 3]" with the group's description
            LineScan s(line, at + 4);
            e.pg = std::string(s.digits());
            if (s.lit(" (")) {
                s.until(")");
                s.lit(")");
            }
            if (s.lit(" Rank ")) {
                rank = s.number<std::uint32_t>();
            }
        } else if (at = line.find("[Rank "); at != std::string_view::npos) {
            LineScan s(line, at + 6);
            rank = s.number<std::uint32_t>();
            rank = rank && s.lit("]") ? rank : std::nullopt;
        }
        if (rank && (e.pg.empty() || e.pg == "0") && !m_pgRank) {
            m_pgRank = rank;
        }
    }

    const std::string& m_file;
    const LogClock& m_clock;
    RankLogFacts& m_f;
    MessageState m_msg { m_f, std::nullopt, false, 0, std::nullopt };
    std::optional<std::uint32_t> m_pgRank;
    std::optional<Pending> m_pending;
};

} // namespace

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock)
{
    RankLogFacts f;
    RankLogReader reader(file, clock, f);
    std::int64_t lastLine = 0;
    readLines(text, file, f.warnings, [&](const std::string& raw, std::int64_t lineNo) {
        lastLine = lineNo;
        reader.physical(raw, lineNo);
    });
    reader.finish();
    if (!text.empty() && text.back() != '\n' && lastLine > 0) {
        f.warnings.push_back({ file, lastLine, -1, "the file ends inside this line (cut off while written?)" });
    }
    if (!f.rank) {
        f.rank = reader.rankFromLines();
    }
    if (!f.rank && f.host.empty() && f.events.empty()) {
        return LoadIssue { file, 0, -1, "no PyTorch or NCCL log lines found" };
    }
    return f;
}

} // namespace stallscope
