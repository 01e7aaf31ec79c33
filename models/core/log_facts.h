// SPDX-License-Identifier: MIT
#pragma once

// What the ranks' own logs said, line by line (docs/formats.md §2): the kinds of fact a rank log gives, and one fact
// as the snapshot keeps it. The rank-log reader (import/logs/rank_log.h) produces them; the analysis reads a job's
// story from them when no Flight Recorder dump or profiler trace says it (analysis/log_story.cpp). Plain values;
// immutable once in a snapshot.

#include "core/string_pool.h"
#include "core/types.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope {

enum class LogEventKind : std::uint8_t {
    CompletionError, // NCCL: a work request failed on the wire (status 12 = transport retries exhausted)
    PortError, // NCCL async thread: the HCA's port went down (IBV_EVENT_PORT_ERR)
    PortActive, // ... and came back (IBV_EVENT_PORT_ACTIVE)
    WatchdogTimeout, // PyTorch: a collective ran past its timeout
    DeviceFatal, // NCCL async thread: "local catastrophic error" (IBV_EVENT_DEVICE_FATAL): the HCA is gone
    WatchdogFailure, // PyTorch: "failure detected by watchdog at work sequence id: N PG status: ..." and its kin
    HeartbeatTimeout, // PyTorch: the watchdog itself stopped making progress ("Heartbeat monitor timed out")
    WatchdogException, // PyTorch: "Process group watchdog thread terminated with exception: ..."
    Terminated, // "terminate called after throwing an instance of '...'" (then SIGABRT)
    SocketError, // NCCL's bootstrap/proxy socket: "Call to recv from ... failed", "Connection closed by remote peer"
    Init, // NCCL: "comm ... rank N nranks M cudaDev D busId B ... Init COMPLETE": the rank joined its communicator
    NcclWarning, // any other "NCCL WARN" line: kept with its text
    // What PyTorch's Flight Recorder analyzer (fr_trace) printed about a collective, read from its saved output
    // (import/logs/fr_trace_text.h): conclusions drawn from every rank's dump, not a line of the rank's own log.
    AnalyzerMissingRank, // this rank never joined collective SeqNum `seq` of group `pg` (one fact per missing rank)
    AnalyzerMismatch, // a culprit of a mismatched collective: text = the error type and its detail
    AnalyzerNoDump, // fr_trace had no dump from this rank, so it could not decide what went wrong
    // PyTorch's desync check (TORCH_DISTRIBUTED_DEBUG=DETAIL): two ranks run different collectives at one
    // SequenceNumber; seq and op are the first rank's, peerRank and peerOp the other's.
    CollectiveMismatch,
};
std::string_view toString(LogEventKind k); // "completion error", "port error", ...
// A conclusion of the Flight Recorder analyzer, not a line the rank logged.
inline bool isAnalyzerFinding(LogEventKind k)
{
    return k == LogEventKind::AnalyzerMissingRank || k == LogEventKind::AnalyzerMismatch
        || k == LogEventKind::AnalyzerNoDump;
}

// One fact of a rank's log, as the snapshot keeps it. Numbers a line did not give are -1.
struct LogFact
{
    LogEventKind kind = LogEventKind::NcclWarning;
    TimeNs timeNs = kNoTime; // kNoTime: the line carried no time (older c10 prefixes)
    std::uint32_t rank = 0xffffffffu; // global rank, kNoRank (job_snapshot.h) when the log does not say
    StringId host {};
    StringId hca {}; // "mlx5_3" when the line names it
    StringId peer {}; // "10.0.1.12<48133>"
    StringId pg {}; // the process group the line names ("0"), empty when none
    StringId op {}; // watchdog timeouts: OpType as PyTorch spells it ("ALLREDUCE"); fr_trace: "nccl:all_reduce"
    StringId text {}; // exception and what(), socket error reason, a warning's text
    StringId file {}; // the log it came from, as the folder names it
    std::int64_t line = 0;
    int status = -1; // completion errors: ibv_wc_status
    int vendorErr = -1;
    std::int64_t seq = -1; // watchdog timeouts and failures: SeqNum / work sequence id; fr_trace: its sequence number
    std::int64_t numelIn = -1, numelOut = -1; // watchdog timeouts: elements in and out (PyTorch 2.2+)
    std::int64_t ranForMs = -1, timeoutMs = -1;
    std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1; // the PG status a watchdog printed
    std::int64_t nranks = -1; // init: the communicator's size
    std::int64_t namedRank = -1, peerRank = -1; // a collective mismatch: the two ranks it names
    StringId peerOp {}; // ... and the second one's OpType
};

// What a fact says beyond its kind, for people: "SeqNum 1580 ALLREDUCE, NumelIn 4096, ran for 600060 ms",
// "status 12, vendor err 129, peer 10.0.1.12<48133>, mlx5_2".
std::string describe(const LogFact& f, const StringPool& strings);

} // namespace stallscope
