// SPDX-License-Identifier: MIT
#include "core/log_facts.h"

namespace stallscope {

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
    case LogEventKind::Init:
        return "init";
    case LogEventKind::NcclWarning:
        return "NCCL warning";
    case LogEventKind::AnalyzerMissingRank:
        return "fr_trace missing rank";
    case LogEventKind::AnalyzerMismatch:
        return "fr_trace mismatch";
    case LogEventKind::AnalyzerNoDump:
        return "fr_trace no dump";
    case LogEventKind::CollectiveMismatch:
        return "collective mismatch";
    }
    return "event";
}

namespace {

void add(std::string& s, const std::string& part)
{
    if (!part.empty()) {
        s += (s.empty() ? "" : ", ") + part;
    }
}

std::string num(const char* name, std::int64_t v)
{
    return v < 0 ? std::string() : std::string(name) + std::to_string(v);
}

} // namespace

std::string describe(const LogFact& f, const StringPool& strings)
{
    std::string s;
    switch (f.kind) {
    case LogEventKind::WatchdogTimeout:
        add(s, "SeqNum " + std::to_string(f.seq) + " " + strings.str(f.op));
        add(s, num("NumelIn ", f.numelIn));
        add(s, num("NumelOut ", f.numelOut));
        add(s, f.ranForMs < 0 ? std::string() : "ran for " + std::to_string(f.ranForMs) + " ms");
        add(s, num("Timeout(ms) ", f.timeoutMs));
        break;
    case LogEventKind::WatchdogFailure:
        add(s, "work " + std::to_string(f.seq));
        add(s, num("last enqueued ", f.lastEnqueued));
        add(s, num("last started ", f.lastStarted));
        add(s, num("last completed ", f.lastCompleted));
        break;
    case LogEventKind::CollectiveMismatch:
        add(s, "SequenceNumber " + std::to_string(f.seq) + ": rank " + std::to_string(f.namedRank) + " "
                + strings.str(f.op)
                + (f.peerRank >= 0 ? " but rank " + std::to_string(f.peerRank) + " " + strings.str(f.peerOp)
                                   : std::string()));
        break;
    case LogEventKind::AnalyzerMissingRank:
    case LogEventKind::AnalyzerMismatch:
        add(s, (f.seq < 0 ? std::string("collective") : "SeqNum " + std::to_string(f.seq)) + " " + strings.str(f.op));
        add(s, strings.str(f.text));
        break;
    case LogEventKind::CompletionError:
        add(s, num("status ", f.status));
        add(s, num("vendor err ", f.vendorErr));
        add(s, strings.str(f.peer).empty() ? std::string() : "peer " + strings.str(f.peer));
        add(s, strings.str(f.text));
        break;
    default:
        add(s, strings.str(f.text));
        add(s, strings.str(f.peer).empty() ? std::string() : "peer " + strings.str(f.peer));
    }
    add(s, strings.str(f.hca));
    add(s, strings.str(f.pg).empty() ? std::string() : "group " + strings.str(f.pg));
    return s;
}

} // namespace stallscope
