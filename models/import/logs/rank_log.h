// SPDX-License-Identifier: MIT
#pragma once

// One rank's stderr: PyTorch ProcessGroupNCCL lines and NCCL's own INFO/WARN lines, in the wording variants of
// docs/formats.md §2 across versions. Extracts what joins and what accuses: rank, host, the HCAs NCCL uses
// (`NET/IB : Using [0]mlx5_0:1/IB ...`), transport completion errors with their status and HCA (the EARLIEST
// ones point at the culprit), port error / active events, and watchdog timeouts with their sequence number.
// Launcher prefixes (torchrun --tee, srun -l, Ray) are stripped first.

#include "core/result.h"
#include "core/types.h"
#include "import/common/log_clock.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

enum class LogEventKind { CompletionError, PortError, PortActive, WatchdogTimeout };

struct LogEvent
{
    LogEventKind kind = LogEventKind::CompletionError;
    TimeNs timeNs = kNoTime; // when the line carries a time (NCCL WARN prefix or c10 prefix)
    std::string hca; // "mlx5_3" when the line names it
    int status = 0; // ibv_wc_status for completion errors (12 = retry exceeded)
    std::uint32_t seq = 0; // watchdog timeouts: SeqNum
    std::int64_t ranForMs = -1; // watchdog timeouts: "ran for N milliseconds" (-1 when absent)
    std::string op; // watchdog timeouts: OpType
    std::int64_t line = 0;
};

struct RankLogFacts
{
    std::optional<std::uint32_t> rank;
    std::string host;
    std::optional<int> cudaDev;
    std::vector<std::string> hcas; // in NCCL's index order
    std::vector<LogEvent> events;
    std::vector<LoadIssue> warnings;
};

// NCCL's "NCCL INFO" / "NCCL WARN" lines or PyTorch's "[rankN]" prefix anywhere in the text.
bool looksLikeRankLog(const std::string& text);

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock = {});

} // namespace stallscope
