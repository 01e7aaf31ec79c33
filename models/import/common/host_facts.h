// SPDX-License-Identifier: MIT
#pragma once

// What a host's own logs say happened to it — the scheduler's task fates, kernel link and GPU events, Fabric
// Manager's errors — as events (docs/formats.md §2d). The sink of this kind of fact: the logs' reader
// (import/logs/host_log.h) writes it, and so do formats whose files carry such events beside their own facts
// (dcgm-exporter's last Xid of a GPU, import/prometheus/dcgm.h); import/folder turns them into the snapshot's notes.

#include "core/result.h"
#include "core/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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

// Each file's host facts, by the file's path, in the order the files were added.
using HostLogFiles = std::vector<std::pair<std::string, HostLogFacts>>;

} // namespace stallscope
