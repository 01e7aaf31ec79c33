// SPDX-License-Identifier: MIT
#pragma once

// The message readers of a rank's log (docs/formats.md §2b), one per kind of line, used by rank_log.cpp's
// RankLogReader. Each looks for its anchor text in the line's body (after every prefix) and reads the fields after
// it in order. Internal to the rank-log reader; not a public interface.

#include "import/logs/rank_log.h"

#include <optional>
#include <string_view>

namespace stallscope::logs {

// What a message reader found: not its line, the whole message, or the first half of one hard-wrapped onto the next.
enum class Read { Nothing, Done, Partial };

// State the readers share across the lines of one log. Single-threaded, like the reader that owns it.
struct MessageState
{
    RankLogFacts& f;
    std::optional<LogEvent> best; // set by a reader that returns Partial with something usable
    bool ncclLine = false; // the line being read carries NCCL's "host:pid:tid [dev]" prefix
    std::uint32_t worldSeen = 0; // the largest communicator seen, whose rank is the global rank
    std::optional<std::uint32_t> commRank;
};

Read commInit(std::string_view body, LogEvent& e, MessageState& c);
Read usingList(std::string_view body, LogEvent& e, MessageState& c);
Read netChoice(std::string_view body, LogEvent& e, MessageState& c);
Read completion(std::string_view body, LogEvent& e, MessageState& c);
Read asyncEvent(std::string_view body, LogEvent& e, MessageState& c);
Read collectiveMismatch(std::string_view body, LogEvent& e, MessageState& c);
Read watchdogTimeout(std::string_view body, LogEvent& e, MessageState& c);
Read watchdogFailure(std::string_view body, LogEvent& e, MessageState& c);
Read heartbeat(std::string_view body, LogEvent& e, MessageState& c);
Read watchdogException(std::string_view body, LogEvent& e, MessageState& c);
Read terminate(std::string_view body, LogEvent& e, MessageState& c);
Read whatLine(std::string_view body, LogEvent& e, MessageState& c);
Read socketError(std::string_view body, LogEvent& e, MessageState& c);
Read ucxCompletion(std::string_view body, LogEvent& e, MessageState& c); // rank_log_ucx.cpp
Read ompiUcxError(std::string_view body, LogEvent& e, MessageState& c); // rank_log_ucx.cpp

} // namespace stallscope::logs
