// SPDX-License-Identifier: MIT
#pragma once

// One rank's stderr: PyTorch ProcessGroupNCCL lines and NCCL's own INFO/WARN lines, in the wording variants of
// docs/formats.md §2 across versions. Extracts what joins and what accuses: rank, host, the HCAs NCCL uses
// (`NET/IB : Using [0]mlx5_0:1/IB ...`), transport completion errors with their status and HCA (the EARLIEST
// ones point at the culprit), port error / active events, and watchdog timeouts with their sequence number. UCX's
// mlx5 completion errors (Open MPI, UCC) are read as completion errors too.
// Launcher prefixes (torchrun --tee, srun -l, Ray) are stripped first. Hand-written scanning (no regex): every line
// is read in time linear in its length. Lines glued behind a progress bar's carriage returns are read one by one;
// a message hard-wrapped onto the next physical line is joined back.

#include "core/log_facts.h"
#include "core/result.h"
#include "core/types.h"
#include "import/common/log_clock.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// What a line of a rank's log reports: LogEventKind (core/log_facts.h, docs/formats.md §2b, §2c). The first four feed
// the collectives and link events; the rest are facts the rank left about how it ended, shown as evidence.
struct LogEvent
{
    LogEventKind kind = LogEventKind::CompletionError;
    TimeNs timeNs = kNoTime; // when the line carries a time (NCCL WARN prefix or c10 prefix); older c10 lines do not
    std::string hca; // "mlx5_3" when the line names it
    int status = 0; // ibv_wc_status for completion errors (12 = retry exceeded)
    int vendorErr = -1; // completion errors: the HCA's vendor error (129 on a retry timeout), -1 when absent
    std::string peer; // completion and socket errors: "10.0.1.12<48133>", "fe80::1%ib0<5000>"
    std::uint32_t seq = 0; // watchdog timeouts and failures: SeqNum / work sequence id
    std::int64_t ranForMs = -1; // watchdog timeouts: "ran for N milliseconds" (-1 when absent)
    std::int64_t timeoutMs = -1; // watchdog timeouts: Timeout(ms)=N
    std::int64_t numelIn = -1, numelOut = -1; // watchdog timeouts: NumelIn / NumelOut (PyTorch 2.2+)
    std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1; // watchdog failures: the PG status
    std::int64_t nranks = -1; // init: the communicator's size
    std::int64_t stuckSeconds = -1; // heartbeat: "watchdog got stuck for N seconds"
    std::string pg; // the process group the line's prefix names ("0", "3"), empty when none
    std::string op; // watchdog timeouts: OpType; a collective mismatch: the named rank's OpType
    // A collective mismatch (PyTorch's desync check): the rank it names first, and the other rank and its OpType.
    std::int64_t namedRank = -1, peerRank = -1;
    std::string peerOp;
    std::string text; // exception type and what(), socket error reason, watchdog exception message
    std::int64_t line = 0;
};

struct RankLogFacts
{
    std::optional<std::uint32_t> rank;
    std::string host;
    std::optional<int> cudaDev;
    std::vector<std::string> hcas; // in NCCL's index order
    std::optional<std::uint32_t> nranks; // the largest communicator's size ("nranks M"): the job's world
    std::string busId; // the GPU's PCI bus id from the world communicator's init line
    std::string transport; // what NCCL's network chose: "IB", "RoCE", "Socket"; empty when no line says
    bool noIbDevice = false; // "NET/IB : No device found": NCCL fell back to sockets
    TimeNs firstNs = kNoTime, lastNs = kNoTime; // the first and last line that carries a time
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
    bool srunTask = false; // the prefix is srun's label: a rank with one task per GPU, a node under torchrun
    std::string text;
    std::vector<std::int64_t> lineNumbers;
};

// A combined log (Slurm `srun --label` "12: ", Open MPI "[1,12]<stdout>:", PyTorch "[rank12]:" on every line)
// split by the process each line's prefix names; lines without a prefix follow the line before (wrapped
// messages). An srun label followed by torchrun's "[default5]:" names a task (a node) and a local rank, not a global
// rank: that part's rank comes from its lines. Without launcher prefixes, NCCL_DEBUG output of several processes
// (or of one process driving several GPUs) is split by NCCL's own "host:pid:tid [dev]" prefix — also where two
// processes' writes interleave inside one physical line. Without either, PyTorch's messages of several processes
// ("[Rank 3] Watchdog caught …") are split by the global rank each names. Empty when the lines name fewer than two
// processes.
std::vector<RankLines> splitByRankPrefix(const std::string& text);
// Moves the line numbers of a part's facts (events, warnings) back to the file's.
void restoreLineNumbers(RankLogFacts& facts, const std::string& file, const std::vector<std::int64_t>& lineNumbers);

Result<RankLogFacts> parseRankLog(const std::string& file, const std::string& text, const LogClock& clock = {});

} // namespace stallscope
