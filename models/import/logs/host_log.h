// SPDX-License-Identifier: MIT
#pragma once

// What the scheduler and the hosts' kernels say about a job's end (docs/formats.md §2d): Slurm's per-task fates
// ("srun: error: gpu-b003: task 12: Killed"), step cancellations, the kernel log's mlx5 link and port-module events
// and NVIDIA Xid GPU faults — from `dmesg -T`, `journalctl -k -o short-iso[-precise]`, syslog files and plain
// `dmesg` (seconds since boot: no wall time, kept without one). Read by LineScan, linear in each line.

#include "core/result.h"
#include "core/types.h"
#include "import/common/log_clock.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

enum class HostEventKind {
    TaskSignal, // srun: a task killed by a signal (Killed = 9, Aborted = 6, Segmentation fault = 11, ...)
    TaskExit, // srun: a task exited with a non-zero code
    StepCancelled, // slurmstepd: "*** STEP 1234.0 ON host CANCELLED AT ... ***" (or JOB, with a reason)
    LinkDown, // kernel: "mlx5_core 0000:3b:00.0 ib0: Link down"
    LinkUp,
    PortModule, // kernel: mlx5 "Port module event[error]: module 0, Cable error, ..."
    GpuXid, // kernel: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus."
};
std::string_view toString(HostEventKind k); // "killed by signal", "exited", ...

struct HostEvent
{
    HostEventKind kind = HostEventKind::TaskSignal;
    TimeNs timeNs = kNoTime; // srun lines and plain dmesg carry none
    std::string host; // the host the line is about ("" when the line does not say: plain dmesg, dmesg -T)
    std::uint32_t firstTask = 0, lastTask = 0; // srun: the tasks the line names (a range "tasks 0-3")
    std::int64_t code = -1; // signal, exit code or Xid number
    std::string device; // kernel: "0000:3b:00.0 ib0", "PCI:0000:3b:00"
    std::string text; // the message as the line says it (cut at 240 characters)
    std::int64_t line = 0;
};

struct HostLogFacts
{
    std::vector<HostEvent> events;
    std::vector<LoadIssue> warnings;
};

// "srun: error:", "slurmstepd: error: ***", "mlx5_core" or "NVRM: Xid" anywhere in the text.
bool looksLikeHostLog(const std::string& text);

// The host's facts; `fileHost` names the host a file without host names is about (a dmesg copied from it:
// "gpu-b003.dmesg", "gpu-b003/dmesg.txt"), "" when unknown. An error when no line is one of these.
Result<HostLogFacts> parseHostLog(
    const std::string& file, const std::string& text, const LogClock& clock, const std::string& fileHost = {});

// Most tasks one srun line may name: a range past this is a damaged line, not a reason to allocate.
inline constexpr std::uint32_t kMaxTasksPerLine = 1u << 20;

} // namespace stallscope
