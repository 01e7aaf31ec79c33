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

// One rank's share of a log that holds several ranks' lines: its lines, and each one's line number in the file.
struct RankLines
{
    std::optional<std::uint32_t> rank; // when the prefix names the global rank; else the lines say it
    std::string process; // what the prefix names: "rank 12", or "task 3, local rank 5" (srun over torchrun)
    std::string text;
    std::vector<std::int64_t> lineNumbers;
};

// A combined log (Slurm `srun --label` "12: ", Open MPI "[1,12]<stdout>:", PyTorch "[rank12]:" on every line)
// split by the process each line's prefix names; lines without a prefix follow the line before (wrapped
// messages). An srun label followed by torchrun's "[default5]:" names a task (a node) and a local rank, not a global
// rank: that part's rank comes from its lines. Empty when the lines name fewer than two processes.
std::vector<RankLines> splitByRankPrefix(const std::string& text);
// Moves the line numbers of a part's facts (events, warnings) back to the file's.
void restoreLineNumbers(RankLogFacts& facts, const std::string& file, const std::vector<std::int64_t>& lineNumbers);

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock = {});

} // namespace stallscope
