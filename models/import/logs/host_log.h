// SPDX-License-Identifier: MIT
#pragma once

// What the scheduler, the launcher, the hosts' kernels and NVIDIA Fabric Manager say about a job's end
// (docs/formats.md §2d): Slurm's per-task fates ("srun: error: gpu-b003: task 12: Killed"), step cancellations,
// torchrun's failure table (each failed rank, and the first observed failure), the kernel log's mlx5 link
// and port-module events, NVIDIA Xid GPU faults, NVSwitch SXids, GPUs off the bus, PCIe AER and hotplug link
// events, segfaults inside NCCL/CUDA libraries and nvidia-peermem errors — from `dmesg -T`, `dmesg --time-format
// iso`, `journalctl -k -o short-iso[-precise]`, syslog files and plain `dmesg` (seconds since boot: no wall time,
// kept without one) — and the error lines of /var/log/fabricmanager.log, or of Fabric Manager's journal
// (`journalctl -u nvidia-fabricmanager`). Read by LineScan, linear in each line.

#include "core/result.h"
#include "core/types.h"
#include "import/common/host_facts.h"
#include "import/common/log_clock.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// "srun: error:", "slurmstepd: error: ***", "Root Cause (first observed failure):", "mlx5_core", "NVRM: Xid", "NVRM:
// GPU ", "SXid (", "AER: ", "pciehp", "segfault at " or "nvidia-peermem" anywhere in the text, or one of its first
// lines shaped as Fabric Manager's "[Dec 04 2026 03:04:55] [ERROR] [tid 12] ...", or a journal line of Fabric
// Manager or its unit ("Dec 05 10:21:33 gpu-f031 nv-fabricmanager[2311]: ...") anywhere.
bool looksLikeHostLog(const std::string& text);

// The host's facts; `fileHost` names the host a file without host names is about (a dmesg copied from it:
// "gpu-b003.dmesg", "gpu-b003/dmesg.txt"), "" when unknown. An error when no line is one of these.
Result<HostLogFacts> parseHostLog(
    const std::string& file, const std::string& text, const LogClock& clock, const std::string& fileHost = {});

// torchrun's exitcode is any integer (negative: the signal): an entry that does not say one has this.
inline constexpr std::int64_t kNoExitCode = std::numeric_limits<std::int64_t>::min();

// Most tasks one srun line may name: a range past this is a damaged line, not a reason to allocate.
inline constexpr std::uint32_t kMaxTasksPerLine = 1u << 20;

} // namespace stallscope
