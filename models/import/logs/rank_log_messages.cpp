// SPDX-License-Identifier: MIT
// The message readers of a rank's log; what a version adds or renames around the fields is skipped over, which is
// how one reader takes every wording in docs/formats.md §2b's table.
#include "import/logs/rank_log_messages.h"
#include "import/common/line_scan.h"

#include <algorithm>

namespace stallscope::logs {

namespace {

constexpr std::uint32_t kMaxHcasPerHost = 64;
constexpr std::size_t kMaxText = 240; // messages kept as text are cut here (what() of a long exception)

// PyTorch ends its messages with ". " or "."; neither is part of what we keep.
std::string clipped(std::string_view s)
{
    return stallscope::clipped(s, " .", kMaxText);
}

} // namespace

// "comm 0x55d0 rank 3 nranks 1024 cudaDev 3 ...": the communicator with the most ranks is the world, and its
// rank the global rank (used when no "[rankN]" prefix says it). "nRanks 2 nNodes" lines are not this one.
Read commInit(std::string_view body, LogEvent& e, MessageState& c)
{
    // findText: " rank " starts with a blank, on which std::string_view::find would stop every few bytes.
    for (auto at = findText(body, " rank "); at != std::string_view::npos; at = findText(body, " rank ", at + 1)) {
        LineScan s(body, at + 6);
        const auto r = s.number<std::uint32_t>();
        if (!r || !s.lit(" nranks ")) {
            continue;
        }
        const auto n = s.number<std::uint32_t>();
        if (!n) {
            continue;
        }
        const bool world = *n >= c.worldSeen;
        if (*n > c.worldSeen) {
            c.worldSeen = *n;
            c.commRank = *r;
            c.f.nranks = *n; // checked against the ranks seen before it sizes anything (import/folder/logs_job.cpp)
        }
        if (s.lit(" cudaDev ") && !c.f.cudaDev) {
            c.f.cudaDev = s.number<int>();
        }
        if (const auto p = s.pos(); world && s.skipPast("busId ")) {
            c.f.busId = std::string(s.word());
        } else {
            s.seek(p);
        }
        if (world && body.find("Init COMPLETE") != std::string_view::npos) {
            e.kind = LogEventKind::Init;
            e.nranks = *n;
            e.text = "rank " + std::to_string(*r) + " of " + std::to_string(*n)
                + (c.f.busId.empty() ? std::string() : ", busId " + c.f.busId);
            c.f.events.push_back(e);
        }
        return Read::Done;
    }
    return Read::Nothing;
}

// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.5<0>"
Read usingList(std::string_view body, LogEvent&, MessageState& c)
{
    LineScan s(body);
    if (!(s.skipPast("NET/IB : Using ") || (s.seek(0), s.skipPast("NET/IB: Using ")))) {
        return Read::Nothing;
    }
    if (!c.f.hcas.empty()) {
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
            throw BadNumber("HCA index " + std::to_string(*idx) + " in NCCL's \"Using\" list: a host has fewer than "
                + std::to_string(kMaxHcasPerHost) + " HCAs");
        }
        const auto name = s.word();
        if (name.empty() || !s.lit(":") || s.digits().empty() || !(s.lit("/IB") || s.lit("/RoCE"))) {
            continue;
        }
        if (c.f.transport.empty() || c.f.transport == "Socket") {
            c.f.transport = body.substr(s.pos() - 3, 3) == "/IB" ? "IB" : "RoCE";
        }
        if (c.f.hcas.size() <= *idx) {
            c.f.hcas.resize(*idx + 1);
        }
        c.f.hcas[*idx] = std::string(name);
    }
    return Read::Done;
}

// "NET/IB : No device found." then "NET/Socket : Using [0]eth0:10.0.0.5<0>": no usable HCA, so NCCL's traffic went
// over TCP sockets (the job runs, slowly). An IB or RoCE "Using" list read before or after wins.
Read netChoice(std::string_view body, LogEvent&, MessageState& c)
{
    if (body.find("NET/IB : No device found") != std::string_view::npos) {
        c.f.noIbDevice = true;
        return Read::Done;
    }
    if (body.find("NET/Socket : Using") != std::string_view::npos) {
        if (c.f.transport.empty()) {
            c.f.transport = "Socket";
        }
        return Read::Done;
    }
    return Read::Nothing;
}

// "NET/IB : Got completion from peer 10.0.1.12<48133> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
// and every later wording (status=12 / status=IBV_WC_RETRY_EXC_ERR(12), vendor_err=129, req_type=Recv,
// hca mlx5_3, localGid/remoteGids). A line is whole when it reaches the vendor error, which every version prints.
Read completion(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    if (s.skipPast("Got completion with ")) {
        // NCCL 2.4-2.8: "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129" (no peer).
        e.kind = LogEventKind::CompletionError;
    } else if (s.seek(0); s.skipPast("Got completion from peer ")) {
        const auto peerEnd = body.find(" with ", s.pos());
        if (peerEnd == std::string_view::npos) {
            return Read::Partial;
        }
        e.kind = LogEventKind::CompletionError;
        e.peer = std::string(body.substr(s.pos(), peerEnd - s.pos()));
        s.seek(peerEnd + 6);
    } else {
        return Read::Nothing;
    }
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
        c.best = e;
        return Read::Partial;
    }
    // PyTorch repeats NCCL's last WARN after "Last error:" without NCCL's prefix: the same peer and status
    // already read is that copy, not a second failure.
    if (!c.ncclLine && std::any_of(c.f.events.begin(), c.f.events.end(), [&](const LogEvent& o) {
            return o.kind == LogEventKind::CompletionError && o.peer == e.peer && o.status == e.status;
        })) {
        return Read::Done;
    }
    c.f.events.push_back(e);
    return Read::Done;
}

// "NET/IB : Got async event : port error", "NET/IB : mlx5_3:1 Got async error event: port error",
// "... Got non-fatal async event: port error(10)", "... Got async event : local catastrophic error".
// PyTorch's desync check (TORCH_DISTRIBUTED_DEBUG=DETAIL): "Detected mismatch between collectives on ranks. Rank 1 is
// running collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, …), but Rank 0 is running
// collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BARRIER, …)". The second half may be cut off or on the
// next line: without it the first rank's side is still a fact.
Read collectiveMismatch(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    if (!s.skipPast("Detected mismatch between collectives on ranks. Rank ")) {
        return Read::Nothing;
    }
    e.kind = LogEventKind::CollectiveMismatch;
    const auto side = [&](std::int64_t& rank, std::uint32_t& seq, std::string& op) {
        const auto r = s.number<std::uint32_t>();
        if (!r || !s.skipPast("SequenceNumber=")) {
            return false;
        }
        const auto n = s.number<std::uint32_t>();
        if (!n || !s.lit(", OpType=")) {
            return false;
        }
        rank = *r;
        seq = *n;
        op = std::string(s.word());
        return !op.empty();
    };
    if (!side(e.namedRank, e.seq, e.op)) {
        return Read::Partial;
    }
    std::uint32_t peerSeq = 0;
    if (!s.skipPast(", but Rank ") || !side(e.peerRank, peerSeq, e.peerOp)) {
        c.best = e;
        return Read::Partial;
    }
    c.f.events.push_back(e);
    return Read::Done;
}

Read asyncEvent(std::string_view body, LogEvent& e, MessageState& c)
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
    } else if (what.find("error") != std::string_view::npos || what.find("violation") != std::string_view::npos) {
        return Read::Nothing; // a queue pair's error ("local access violation work queue error"): a warning fact
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
    c.f.events.push_back(e);
    return Read::Done;
}

// "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1842, OpType=ALLREDUCE, NumelIn=...,
// Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
namespace {

// A watchdog timeout into the rank's facts, once per SeqNum: one that names its operation replaces one that does not
// (PyTorch 2.3+'s "Timeout at NCCL work: N" before or after the "Watchdog caught …" line of the same work).
void addTimeout(MessageState& c, const LogEvent& t)
{
    auto& events = c.f.events;
    const auto same = [&](const LogEvent& o) { return o.kind == LogEventKind::WatchdogTimeout && o.seq == t.seq; };
    if (t.op.empty()) {
        if (std::none_of(events.begin(), events.end(), same)) {
            events.push_back(t);
        }
        return;
    }
    std::erase_if(events, [&](const LogEvent& o) { return same(o) && o.op.empty(); });
    if (std::none_of(events.begin(), events.end(), same)) {
        events.push_back(t);
    }
}

// The fields of a watchdog timeout, wherever its text stands (its own line, or an abort's what()). Done when it
// reads to "ran for N milliseconds"; Partial when cut before (`usable` when past the operation's fields).
Read watchdogTimeoutFields(std::string_view body, LogEvent& e, bool& usable)
{
    usable = false;
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
    for (auto [name, field] : { std::pair { "NumelIn=", &e.numelIn }, std::pair { "NumelOut=", &e.numelOut } }) {
        if (const auto p = s.pos(); s.skipPast(name)) {
            *field = s.number<std::int64_t>().value_or(-1);
        } else {
            s.seek(p);
        }
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
            return Read::Done;
        }
    }
    usable = true;
    return Read::Partial;
}

} // namespace

Read watchdogTimeout(std::string_view body, LogEvent& e, MessageState& c)
{
    bool usable = false;
    const auto r = watchdogTimeoutFields(body, e, usable);
    if (r == Read::Done) {
        addTimeout(c, e);
    } else if (usable) {
        c.best = e;
    }
    return r;
}

// "failure detected by watchdog at work sequence id: 1842 PG status: last enqueued work: 1843, last completed
// work: 1841"
Read watchdogFailure(std::string_view body, LogEvent& e, MessageState& c)
{
    if (body.find("work") == std::string_view::npos) {
        return Read::Nothing; // every wording below reads a "work: N": most lines are passed over with one memchr
    }
    LineScan s(body);
    // Three generations of one fact: "failure detected by watchdog at work sequence id: N PG status: last enqueued
    // work: E, last completed work: C" (2.5+), "Exception (either an error or timeout) detected by watchdog at
    // work: N, last enqueued NCCL work: E, last completed NCCL work: C." and "Timeout at NCCL work: N, ..." (2.3+).
    bool found = false, timedOut = false;
    for (const char* anchor :
        { "failure detected by watchdog at work sequence id: ", "detected by watchdog at work: ", "Timeout at NCCL work: " }) {
        if (s.seek(0); s.skipPast(anchor)) {
            found = true;
            timedOut = std::string_view(anchor).starts_with("Timeout");
            break;
        }
    }
    // PyTorch 2.4+ on the ranks that did not time out themselves: "Received a dump signal due to a collective timeout
    // from  rank 13 and we will try our best to dump the debug info. Last enqueued NCCL work: 1261, last completed
    // NCCL work: 1259." The work this rank waits in is the one after its last completed.
    std::optional<std::uint32_t> seq;
    if (!found && (s.seek(0), s.skipPast("Received a dump signal due to a collective timeout from"))) {
        s.skipSpaces();
        s.lit("rank ");
        const auto from = s.number<std::uint32_t>();
        e.text = from ? "dump signal: rank " + std::to_string(*from) + " timed out" : "dump signal from another rank";
        const auto at = s.pos();
        if (s.skipPast("last completed NCCL work: ") || (s.seek(at), s.skipPast("Last completed NCCL work: "))) {
            if (const auto done = s.number<std::uint32_t>()) {
                seq = *done + 1;
            }
        }
        s.seek(at);
        found = seq.has_value();
    }
    if (!found) {
        return Read::Nothing;
    }
    if (!seq) {
        seq = s.number<std::uint32_t>();
    }
    if (!seq) {
        return Read::Partial;
    }
    e.kind = LogEventKind::WatchdogFailure;
    e.seq = *seq;
    if (s.skipPast("last enqueued ") || s.skipPast("Last enqueued ")) {
        s.lit("NCCL ");
        s.lit("work: ");
        e.lastEnqueued = s.number<std::int64_t>().value_or(-1);
    }
    if (const auto p = s.pos(); s.skipPast("last started ")) {
        s.lit("NCCL ");
        s.lit("work: ");
        e.lastStarted = s.number<std::int64_t>().value_or(-1);
    } else {
        s.seek(p);
    }
    if (s.skipPast("last completed ")) {
        s.lit("NCCL ");
        s.lit("work: ");
        if (const auto done = s.number<std::int64_t>()) {
            e.lastCompleted = *done;
            c.f.events.push_back(e);
            if (timedOut) { // the work timed out: a timeout of that SeqNum, its operation unnamed
                LogEvent t = e;
                t.kind = LogEventKind::WatchdogTimeout;
                addTimeout(c, t);
            }
            return Read::Done;
        }
    }
    c.best = e;
    return Read::Partial;
}

// "Heartbeat monitor timed out! Process will be terminated after dumping debug info." and "ProcessGroupNCCL's
// watchdog got stuck for 480 seconds without making progress ..." — one fact, said in two lines.
Read heartbeat(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    const bool monitor = s.skipPast("Heartbeat monitor timed out");
    s.seek(0);
    const bool stuck = s.skipPast("watchdog got stuck for ");
    if (!monitor && !stuck) {
        return Read::Nothing;
    }
    const auto seconds = stuck ? s.number<std::int64_t>().value_or(-1) : -1;
    if (!c.f.events.empty() && c.f.events.back().kind == LogEventKind::HeartbeatTimeout
        && (c.f.events.back().stuckSeconds < 0) == stuck) {
        c.f.events.back().stuckSeconds = std::max(c.f.events.back().stuckSeconds, seconds);
        return Read::Done;
    }
    e.kind = LogEventKind::HeartbeatTimeout;
    e.stuckSeconds = seconds;
    c.f.events.push_back(e);
    return Read::Done;
}

// "Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a
// network error, NCCL version 2.20.5" (the message may repeat a watchdog timeout: this line is not a second one).
// A message that repeats a whole watchdog timeout (an exception, an abort's what()) is that timeout when the
// original line is not in the log (the process died before flushing it, or the log holds only the abort).
void addRepeatedTimeout(std::string_view text, const LogEvent& e, MessageState& c)
{
    LogEvent timeout = e;
    bool usable = false;
    if (watchdogTimeoutFields(text, timeout, usable) == Read::Done) {
        addTimeout(c, timeout);
    }
}

Read watchdogException(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    if (!s.skipPast("watchdog thread terminated with exception: ")) {
        return Read::Nothing;
    }
    addRepeatedTimeout(s.rest(), e, c);
    e.kind = LogEventKind::WatchdogException;
    e.text = clipped(s.rest());
    c.f.events.push_back(e);
    return Read::Done;
}

// "terminate called after throwing an instance of 'c10::DistBackendError'" — what() follows on a later line.
Read terminate(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    if (!s.skipPast("terminate called after throwing an instance of '")) {
        return Read::Nothing;
    }
    e.kind = LogEventKind::Terminated;
    e.text = clipped(s.until("'"));
    c.f.events.push_back(e);
    return Read::Done;
}

// "  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: ..." completes the latest
// "terminate called" (its text and the group its prefix names); it repeats an error already read, so nothing
// else is taken from it.
Read whatLine(std::string_view body, LogEvent& e, MessageState& c)
{
    LineScan s(body);
    if (!s.skipPast("what():")) {
        return Read::Nothing;
    }
    s.skipSpaces();
    addRepeatedTimeout(s.rest(), e, c); // the full abort message repeats the timeout it reports
    for (auto it = c.f.events.rbegin(); it != c.f.events.rend(); ++it) {
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
Read socketError(std::string_view body, LogEvent& e, MessageState& c)
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
    c.f.events.push_back(e);
    return Read::Done;
}

} // namespace stallscope::logs
