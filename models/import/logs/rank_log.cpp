// SPDX-License-Identifier: MIT
// Reading one rank's log, a line at a time, with LineScan (docs/formats.md §2: the prefixes in §2a, PyTorch's
// messages in §2b, NCCL's in §2c). Each message reader looks for its anchor text ("Got completion from peer",
// "Watchdog caught", ...) and then reads the fields after it in order; what a version adds or renames around them
// is skipped over, which is how one reader takes every wording in the §2c tables.
#include "import/logs/rank_log.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"
#include "import/logs/log_prefix.h"

#include "core/time_format.h"

#include <algorithm>
#include <array>

namespace stallscope {

bool looksLikeRankLog(const std::string& text)
{
    for (const char* mark : { "NCCL INFO", "NCCL WARN", "[rank", "ProcessGroupNCCL", "Watchdog caught collective" }) {
        if (text.find(mark) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string_view toString(LogEventKind k)
{
    switch (k) {
    case LogEventKind::CompletionError:
        return "completion error";
    case LogEventKind::PortError:
        return "port error";
    case LogEventKind::PortActive:
        return "port active";
    case LogEventKind::WatchdogTimeout:
        return "watchdog timeout";
    case LogEventKind::DeviceFatal:
        return "HCA fatal error";
    case LogEventKind::WatchdogFailure:
        return "watchdog failure";
    case LogEventKind::HeartbeatTimeout:
        return "watchdog stuck";
    case LogEventKind::WatchdogException:
        return "watchdog exception";
    case LogEventKind::Terminated:
        return "terminated";
    case LogEventKind::SocketError:
        return "socket error";
    }
    return "event";
}

namespace {

using logs::afterLauncherPrefix;
using logs::ncclPrefixAt;

constexpr std::uint32_t kMaxHcasPerHost = 64;
constexpr std::size_t kMaxText = 240; // messages kept as text are cut here (what() of a long exception)

// "162555850" (9 digits) or "162555" (6) → ns
TimeNs fraction(std::string_view digits)
{
    std::string d(digits.substr(0, 9));
    d.resize(9, '0');
    return toNumber<TimeNs>(d);
}

std::string clipped(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '.')) {
        s.remove_suffix(1);
    }
    return std::string(s.substr(0, kMaxText));
}

// c10's prefix at the cursor: "[E0709 17:05:38.162555850 file.cpp:632] " (time) or "[E file.cpp:583] " (older,
// none). Returns the time, kNoTime without one; nullopt when there is no c10 prefix.
std::optional<TimeNs> c10PrefixAt(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    if (!s.lit("[") || std::string_view("IWEF").find(s.peek()) == std::string_view::npos || s.atEnd()) {
        s.seek(start);
        return std::nullopt;
    }
    s.seek(s.pos() + 1);
    std::array<std::optional<int>, 5> f;
    if ((f[0] = s.fixed(2)) && (f[1] = s.fixed(2)) && s.lit(" ") && (f[2] = s.fixed(2)) && s.lit(":")
        && (f[3] = s.fixed(2)) && s.lit(":") && (f[4] = s.fixed(2)) && s.lit(".")) {
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

    std::optional<std::uint32_t> rankFromLines() const { return m_commRank ? m_commRank : m_pgRank; }

private:
    enum class Read { Nothing, Done, Partial };

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
            m_pending = Pending { std::string(seg), lineNo, m_best };
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
        m_best.reset();
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
        m_ncclLine = false;
        if (const auto p = ncclPrefixAt(s, m_clock)) {
            m_ncclLine = true;
            if (p->when != kNoTime) {
                e.timeNs = p->when;
            }
            if (m_f.host.empty()) {
                m_f.host = std::string(p->host);
                m_f.cudaDev = p->dev;
            }
        }
        readPgPrefix(line, e);
        const auto body = line.substr(s.pos());
        for (auto reader : { &RankLogReader::commInit, &RankLogReader::usingList, &RankLogReader::whatLine,
                 &RankLogReader::watchdogException, &RankLogReader::completion, &RankLogReader::asyncEvent,
                 &RankLogReader::watchdogTimeout, &RankLogReader::watchdogFailure, &RankLogReader::heartbeat,
                 &RankLogReader::terminate, &RankLogReader::socketError }) {
            if (const auto r = (this->*reader)(body, e); r != Read::Nothing) {
                return r;
            }
        }
        return Read::Nothing;
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
            LineScan s(line, at + 4);
            e.pg = std::string(s.digits());
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

    // "comm 0x55d0 rank 3 nranks 1024 cudaDev 3 ...": the communicator with the most ranks is the world, and its
    // rank the global rank (used when no "[rankN]" prefix says it). "nRanks 2 nNodes" lines are not this one.
    Read commInit(std::string_view body, LogEvent&)
    {
        for (auto at = body.find(" rank "); at != std::string_view::npos; at = body.find(" rank ", at + 1)) {
            LineScan s(body, at + 6);
            const auto r = s.number<std::uint32_t>();
            if (!r || !s.lit(" nranks ")) {
                continue;
            }
            const auto n = s.number<std::uint32_t>();
            if (!n) {
                continue;
            }
            if (*n > m_worldSeen) {
                m_worldSeen = *n;
                m_commRank = *r;
            }
            if (s.lit(" cudaDev ") && !m_f.cudaDev) {
                m_f.cudaDev = s.number<int>();
            }
            return Read::Done;
        }
        return Read::Nothing;
    }

    // "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.5<0>"
    Read usingList(std::string_view body, LogEvent&)
    {
        LineScan s(body);
        if (!(s.skipPast("NET/IB : Using ") || (s.seek(0), s.skipPast("NET/IB: Using ")))) {
            return Read::Nothing;
        }
        if (!m_f.hcas.empty()) {
            return Read::Done;
        }
        while (s.skipPast("[")) {
            const auto idx = s.number<std::uint32_t>();
            if (!idx || !s.lit("]")) {
                continue;
            }
            // NCCL numbers the HCAs it uses from 0; a host has a few dozen at most. A larger index is a damaged
            // line, not a reason to allocate.
            if (*idx >= kMaxHcasPerHost) {
                throw BadNumber("HCA index " + std::to_string(*idx)
                    + " in NCCL's \"Using\" list: a host has fewer than " + std::to_string(kMaxHcasPerHost) + " HCAs");
            }
            const auto name = s.word();
            if (name.empty() || !s.lit(":") || s.digits().empty() || !(s.lit("/IB") || s.lit("/RoCE"))) {
                continue;
            }
            if (m_f.hcas.size() <= *idx) {
                m_f.hcas.resize(*idx + 1);
            }
            m_f.hcas[*idx] = std::string(name);
        }
        return Read::Done;
    }

    // "NET/IB : Got completion from peer 10.0.1.12<48133> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
    // and every later wording (status=12 / status=IBV_WC_RETRY_EXC_ERR(12), vendor_err=129, req_type=Recv,
    // hca mlx5_3, localGid/remoteGids). A line is whole when it reaches the vendor error, which every version prints.
    Read completion(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("Got completion from peer ")) {
            return Read::Nothing;
        }
        const auto peerEnd = body.find(" with ", s.pos());
        if (peerEnd == std::string_view::npos) {
            return Read::Partial;
        }
        e.kind = LogEventKind::CompletionError;
        e.peer = std::string(body.substr(s.pos(), peerEnd - s.pos()));
        s.seek(peerEnd + 6);
        std::optional<std::int64_t> status;
        if (s.lit("error ")) {
            status = s.number<int>();
        } else if (s.lit("status=")) {
            const auto v = s.until(" ,");
            const auto paren = v.find('(');
            status = firstNumberIn(paren == std::string_view::npos ? v : v.substr(paren));
        }
        if (!status || *status < 0 || *status > 255) {
            return Read::Partial;
        }
        e.status = static_cast<int>(*status);
        const auto afterStatus = s.pos();
        if (s.skipPast("vendor err ") || (s.seek(afterStatus), s.skipPast("vendor_err="))) {
            if (const auto v = s.number<int>()) {
                e.vendorErr = *v;
            }
        }
        if (s.seek(afterStatus); s.skipPast(" hca ")) {
            e.hca = std::string(s.word());
        }
        for (const char* type : { "Recv", "Send", "Flush" }) {
            if (body.find(std::string("(") + type + ")") != std::string_view::npos
                || body.find(std::string("req_type=") + type) != std::string_view::npos) {
                e.text = type;
            }
        }
        if (e.vendorErr < 0) {
            m_best = e;
            return Read::Partial;
        }
        // PyTorch repeats NCCL's last WARN after "Last error:" without NCCL's prefix: the same peer and status
        // already read is that copy, not a second failure.
        if (!m_ncclLine && std::any_of(m_f.events.begin(), m_f.events.end(), [&](const LogEvent& o) {
                return o.kind == LogEventKind::CompletionError && o.peer == e.peer && o.status == e.status;
            })) {
            return Read::Done;
        }
        m_f.events.push_back(e);
        return Read::Done;
    }

    // "NET/IB : Got async event : port error", "NET/IB : mlx5_3:1 Got async error event: port error",
    // "... Got non-fatal async event: port error(10)", "... Got async event : local catastrophic error".
    Read asyncEvent(std::string_view body, LogEvent& e)
    {
        std::size_t at = std::string_view::npos;
        std::size_t len = 0;
        for (std::string_view mark :
            { "Got async event", "Got async error event", "Got non-fatal async event", "Got fatal async event" }) {
            if (at = body.find(mark); at != std::string_view::npos) {
                len = mark.size();
                break;
            }
        }
        if (at == std::string_view::npos) {
            return Read::Nothing;
        }
        LineScan s(body, at + len);
        s.skipSpaces();
        s.lit(":");
        s.skipSpaces();
        const auto what = s.until("(");
        if (what.empty()) {
            return Read::Partial;
        }
        if (what.starts_with("port error")) {
            e.kind = LogEventKind::PortError;
        } else if (what.starts_with("port active")) {
            e.kind = LogEventKind::PortActive;
        } else if (what.starts_with("local catastrophic error")) {
            e.kind = LogEventKind::DeviceFatal;
        } else {
            return Read::Done; // LID change, SM change, client reregistration: nothing to act on
        }
        // The HCA is the "mlx5_3:1" just before "Got" (NCCL ≥ 2.20); older versions name none.
        auto before = body.substr(0, at);
        while (!before.empty() && before.back() == ' ') {
            before.remove_suffix(1);
        }
        const auto token = before.substr(before.rfind(' ') == std::string_view::npos ? 0 : before.rfind(' ') + 1);
        if (const auto colon = token.find(':'); colon != std::string_view::npos && colon > 0) {
            e.hca = std::string(token.substr(0, colon));
        }
        m_f.events.push_back(e);
        return Read::Done;
    }

    // "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1842, OpType=ALLREDUCE, NumelIn=...,
    // Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
    Read watchdogTimeout(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("Watchdog caught collective operation timeout")) {
            return Read::Nothing;
        }
        e.kind = LogEventKind::WatchdogTimeout;
        if (!s.skipPast("SeqNum=")) {
            return Read::Partial;
        }
        const auto seq = s.number<std::uint32_t>();
        if (!seq || !s.lit(", OpType=")) {
            return Read::Partial;
        }
        e.seq = *seq;
        e.op = std::string(s.word());
        if (s.peek() != ',' && s.peek() != ')') {
            return Read::Partial; // the operation's name may go on in the next line
        }
        if (const auto p = s.pos(); s.skipPast("Timeout(ms)=")) {
            e.timeoutMs = s.number<std::int64_t>().value_or(-1);
        } else {
            s.seek(p);
        }
        if (s.skipPast("ran for ")) {
            const auto ms = s.number<std::int64_t>();
            if (ms && s.lit(" milliseconds")) {
                e.ranForMs = *ms;
                m_f.events.push_back(e);
                return Read::Done;
            }
        }
        m_best = e;
        return Read::Partial;
    }

    // "failure detected by watchdog at work sequence id: 1842 PG status: last enqueued work: 1843, last completed
    // work: 1841"
    Read watchdogFailure(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("failure detected by watchdog at work sequence id: ")) {
            return Read::Nothing;
        }
        const auto seq = s.number<std::uint32_t>();
        if (!seq) {
            return Read::Partial;
        }
        e.kind = LogEventKind::WatchdogFailure;
        e.seq = *seq;
        if (s.skipPast("last enqueued work: ")) {
            e.lastEnqueued = s.number<std::int64_t>().value_or(-1);
        }
        if (s.skipPast("last completed work: ")) {
            if (const auto done = s.number<std::int64_t>()) {
                e.lastCompleted = *done;
                m_f.events.push_back(e);
                return Read::Done;
            }
        }
        m_best = e;
        return Read::Partial;
    }

    // "Heartbeat monitor timed out! Process will be terminated after dumping debug info." and "ProcessGroupNCCL's
    // watchdog got stuck for 480 seconds without making progress ..." — one fact, said in two lines.
    Read heartbeat(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        const bool monitor = s.skipPast("Heartbeat monitor timed out");
        s.seek(0);
        const bool stuck = s.skipPast("watchdog got stuck for ");
        if (!monitor && !stuck) {
            return Read::Nothing;
        }
        const auto seconds = stuck ? s.number<std::int64_t>().value_or(-1) : -1;
        if (!m_f.events.empty() && m_f.events.back().kind == LogEventKind::HeartbeatTimeout
            && (m_f.events.back().stuckSeconds < 0) == stuck) {
            m_f.events.back().stuckSeconds = std::max(m_f.events.back().stuckSeconds, seconds);
            return Read::Done;
        }
        e.kind = LogEventKind::HeartbeatTimeout;
        e.stuckSeconds = seconds;
        m_f.events.push_back(e);
        return Read::Done;
    }

    // "Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a
    // network error, NCCL version 2.20.5" (the message may repeat a watchdog timeout: this line is not a second one).
    Read watchdogException(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("watchdog thread terminated with exception: ")) {
            return Read::Nothing;
        }
        e.kind = LogEventKind::WatchdogException;
        e.text = clipped(s.rest());
        m_f.events.push_back(e);
        return Read::Done;
    }

    // "terminate called after throwing an instance of 'c10::DistBackendError'" — what() follows on a later line.
    Read terminate(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("terminate called after throwing an instance of '")) {
            return Read::Nothing;
        }
        e.kind = LogEventKind::Terminated;
        e.text = clipped(s.until("'"));
        m_f.events.push_back(e);
        return Read::Done;
    }

    // "  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: ..." completes the latest
    // "terminate called" (its text and the group its prefix names); it repeats an error already read, so nothing
    // else is taken from it.
    Read whatLine(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (!s.skipPast("what():")) {
            return Read::Nothing;
        }
        s.skipSpaces();
        for (auto it = m_f.events.rbegin(); it != m_f.events.rend(); ++it) {
            if (it->kind == LogEventKind::Terminated) {
                if (it->text.find(": ") == std::string::npos) {
                    it->text = clipped(it->text + ": " + std::string(s.rest()));
                    it->pg = e.pg;
                }
                break;
            }
        }
        return Read::Done;
    }

    // NCCL's sockets (bootstrap, proxy): "Call to recv from 10.0.0.5<43210> failed : Broken pipe", "Call to send to
    // ... failed : Connection reset by peer", "Connection closed by remote peer gpu-a003<51234>".
    Read socketError(std::string_view body, LogEvent& e)
    {
        LineScan s(body);
        if (s.skipPast("Call to recv from ") || (s.seek(0), s.skipPast("Call to send to "))) {
            const auto peer = s.until(" ");
            if (!s.lit(" failed")) {
                return Read::Partial;
            }
            s.skipSpaces();
            s.lit(":");
            s.skipSpaces();
            e.peer = std::string(peer);
            e.text = clipped(s.rest());
        } else if (s.seek(0); s.skipPast("Connection closed by remote peer ")) {
            e.peer = std::string(s.until(" "));
            e.text = "connection closed by remote peer";
        } else {
            return Read::Nothing;
        }
        e.kind = LogEventKind::SocketError;
        m_f.events.push_back(e);
        return Read::Done;
    }

    const std::string& m_file;
    const LogClock& m_clock;
    RankLogFacts& m_f;
    std::uint32_t m_worldSeen = 0;
    std::optional<std::uint32_t> m_commRank, m_pgRank;
    std::optional<Pending> m_pending;
    bool m_ncclLine = false; // the line being read carries NCCL's "host:pid:tid [dev]" prefix
    std::optional<LogEvent> m_best; // set by a message reader that returns Partial with something usable
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
