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
#include "import/common/log_clock.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

enum class HostEventKind {
    TaskSignal, // srun: a task killed by a signal (Killed = 9, Aborted = 6, Segmentation fault = 11, ...)
    TaskExit, // srun: a task exited with a non-zero code
    StepCancelled, // slurmstepd: "*** STEP 1234.0 ON host CANCELLED AT ... ***" (or JOB, with a reason)
    // torchrun's failure table (ChildFailedError): a worker that failed (firstTask: its global rank, code: its
    // exitcode, negative for a signal), and the one torchrun names as the root cause (first observed failure).
    RankFailed,
    RankFailedFirst,
    LinkDown, // kernel: "mlx5_core 0000:3b:00.0 ib0: Link down"
    LinkUp,
    PortModule, // kernel: mlx5 "Port module event[error]: module 0, Cable error, ..."
    GpuXid, // kernel: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus."
    GpuOffBus, // kernel: "NVRM: GPU 0000:c1:00.0: GPU has fallen off the bus." with no Xid 79 for that GPU before it
    SxidFatal, // kernel: "nvidia-nvswitch2: SXid (PCI:0000:86:00.0): 20034, Fatal, Link 32 ..." (code: the SXid)
    SxidNonFatal, // kernel: "nvidia-nvswitch2: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 32 ..."
    // kernel: "nvidia-nvswitch2: SXid (PCI:0000:86:00.0): 12028, Data {0x…}" with no severity line before it (a
    // grep or a paste that kept only this line): the SXid, whether it was fatal unknown.
    SxidUnknown,
    PcieCorrected, // kernel: "pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0"
    PcieUncorrected, // kernel: "... AER: Uncorrected (Fatal) error received: ..." (code 1 fatal, 0 non-fatal)
    PcieLinkDown, // kernel: pciehp "Slot(3): Link Down" / "Card not present", AER's "Surprise Down Error"
    LibSegfault, // kernel: "python[1234]: segfault at 0 ip ... error 4 in libnccl.so.2[7f...+...]" (NCCL, CUDA)
    PeermemError, // kernel: "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, ..."
    // Fabric Manager's kinds stay together, from FmNvSwitchFatal to FmError: isFabricManager compares the range.
    FmNvSwitchFatal, // Fabric Manager: "detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id ..."
    FmNvSwitchNonFatal, // Fabric Manager: "detected NVSwitch non-fatal error 12028 on fid 0 ..."
    FmGpuNvlink, // Fabric Manager: "Fabric Manager detected GPU NVL Fatal error on :" and its field lines
    FmNvlinkTraining, // Fabric Manager: an error line saying NVLink training failed
    FmNvlinkDown, // Fabric Manager: an error line saying a GPU's NVLink or a port is down
    FmTrunkLink, // Fabric Manager: a trunk link or trunk port failure (NVSwitch to NVSwitch)
    FmStopped, // Fabric Manager: an error line saying it is exiting or terminating
    FmError, // Fabric Manager: any other ERROR or FATAL line
};
std::string_view toString(HostEventKind k); // "killed by signal", "exited", ...
bool isFabricManager(HostEventKind k); // one of the Fm kinds: its source is Fabric Manager, not the kernel

struct HostEvent
{
    HostEventKind kind = HostEventKind::TaskSignal;
    TimeNs timeNs = kNoTime; // srun lines and plain dmesg carry none
    std::string host; // the host the line is about ("" when the line does not say: plain dmesg, dmesg -T)
    std::uint32_t firstTask = 0, lastTask = 0; // srun: the tasks the line names (a range "tasks 0-3")
    std::int64_t code = -1; // signal, exit code or Xid number; torchrun's exitcode (kNoExitCode: not said)
    std::string device; // kernel: "0000:3b:00.0 ib0", "PCI:0000:3b:00"
    std::string text; // the message as the line says it (cut at 240 characters)
    std::string evidence; // the whole line as read (cut at 240 characters): what a finding shows as its evidence
    std::int64_t line = 0;
};

struct HostLogFacts
{
    std::vector<HostEvent> events;
    std::vector<LoadIssue> warnings;
    // Non-blank lines no reader explains (other kernel messages, a comment): counted, the first kKeptUnknown kept.
    // Lines a reader uses without making a fact of them (Fabric Manager's INFO lines and the field lines of its
    // records, "NVRM: GPU at PCI:..." naming a GPU's UUID) are not among them.
    std::size_t unknownLines = 0;
    std::vector<std::pair<std::int64_t, std::string>> unknown; // line, text (cut at 240 characters)
    static constexpr std::size_t kKeptUnknown = 20;
};

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
