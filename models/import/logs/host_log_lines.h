// SPDX-License-Identifier: MIT
#pragma once

// Internal to the host-log reader (host_log.cpp, host_log_nvidia.cpp): the NVIDIA, PCIe and Fabric Manager
// wordings, one function each. A function is handed a message (the line after its time prefix) and says whether
// it was its wording and what came of it; the reader owns the file-level state (which GPUs had an Xid, the record
// a Fabric Manager field line belongs to).

#include "import/logs/host_log.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::host_log {

enum class Read {
    No, // not this wording: the next reader tries
    Fact, // the event was filled: the reader keeps it
    Used, // this wording, read, but no fact of its own (an SXid's Data line, AER's recovery lines)
    Damaged, // this wording's anchor, but the line is cut before what the fact needs: a warning, not a fact
};

// "PCI:0000:c1:00", "0000:c1:00.0", "00000000:86:00.0" → "0000:c1:00.0": the driver drops the function, Fabric
// Manager pads the domain to 8 digits; one name per device lets the reader and the findings compare them.
std::string pciName(std::string_view text);

// "NVRM: GPU at PCI:0000:c1:00: GPU-1f2e3d4c-..." → { "0000:c1:00.0", "GPU-1f2e3d4c-..." }.
std::optional<std::pair<std::string, std::string>> gpuUuidLine(std::string_view body);
// "NVRM: GPU 0000:c1:00.0: GPU has fallen off the bus." (GpuOffBus; other "NVRM: GPU <pci>:" lines are Used).
Read gpuOffBus(std::string_view body, HostEvent& e);
// "nvidia-nvswitch2: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 32 ..." (the line that says the severity;
// the same SXid's "Severity …" line is Used) and "… 12028, Data {0x…}" (SxidUnknown: the reader drops it when the
// same switch's severity line for that SXid came before it).
Read sxid(std::string_view body, HostEvent& e);
// "pcieport 0000:00:01.1: AER: Corrected error received: …", "… AER: Uncorrected (Fatal) error received: …" and
// the newer "Correctable/Uncorrectable (…) error message received from …"; AER's "Surprise Down Error" detail.
Read pcieAer(std::string_view body, HostEvent& e);
// "pcieport 0000:00:03.0: pciehp: Slot(3): Link Down" / "Card not present" (Link Up, Card present: Used).
Read pciehp(std::string_view body, HostEvent& e);
// "python[1234]: segfault at 0 ip … error 4 in libnccl.so.2[7f…+…]": NCCL's and CUDA's libraries only.
Read libSegfault(std::string_view body, HostEvent& e);
// "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing".
Read peermem(std::string_view body, HostEvent& e);

// Fabric Manager: what a line of `level` ("ERROR", "WARNING", ...) saying `msg` is, into `e` (kind, code, device,
// text); false for a line that is no fact (INFO, DEBUG, a WARNING naming none of the failures). `level` "" is a
// journal's copy of the line, which says none: a fact when it names a failure or says it failed or erred.
bool fabricManagerFact(std::string_view level, std::string_view msg, HostEvent& e);
// A systemd message about Fabric Manager's unit ("nvidia-fabricmanager.service: …", "… NVIDIA fabric manager
// service."): namesFabricManagerUnit says it is one; fabricManagerUnit makes FmStopped of a failed start or an
// exit with a non-zero status, false for the unit's other lines (starting, started, stopped).
bool namesFabricManagerUnit(std::string_view msg);
bool fabricManagerUnit(std::string_view msg, HostEvent& e);
// A field line under "Fabric Manager detected GPU NVL Fatal error on :" ("gpuGuid : 0x…", "portNum : 4"):
// the fields that name the GPU and its port are added to the record's text.
void fabricManagerField(std::string_view line, HostEvent& record);

// torchrun's failure table, printed by its agent when a worker fails (ChildFailedError):
//   ============================================================
//   train.py FAILED
//   ------------------------------------------------------------
//   Failures:
//   [1]:
//     time      : 2026-11-02_03:14:15
//     host      : gpu-b003
//     rank      : 21 (local_rank: 5)
//     exitcode  : -6 (pid: 48121)
//     error_file: <N/A>
//     traceback : Signal 6 (SIGABRT) received by PID 48121
//   ------------------------------------------------------------
//   Root Cause (first observed failure):
//   [0]:
//     ...
//   ============================================================
// ("  <NO_OTHER_FAILURES>" when only the root cause failed). Fed one line at a time, after the reader's time
// prefix; srun labels ("3: "), "> " quote markers and indentation before a line are passed over. Each entry
// becomes a RankFailed or RankFailedFirst event once its last field is read (at the next entry, a rule or the
// file's end). Single-threaded, one per file.
class TorchrunTable
{
public:
    TorchrunTable(const std::string& file, const LogClock& clock, HostLogFacts& f)
        : m_file(file)
        , m_clock(clock)
        , m_f(f)
    {
    }
    // True when the line belongs to a table (an entry may have been finished into the facts); false leaves the
    // line to the other readers.
    bool line(std::string_view body, std::int64_t lineNo);
    void finish() { flush(); } // the entry still open when the file ends

private:
    enum class Section { None, Failures, RootCause };
    void flush();
    void field(std::string_view key, std::string_view value, std::string_view line, std::int64_t lineNo);

    const std::string& m_file;
    const LogClock& m_clock;
    HostLogFacts& m_f;
    Section m_section = Section::None;
    std::optional<HostEvent> m_entry; // the entry being read, from its "[N]:" line
    std::int64_t m_entryLine = 0;
    bool m_rank = false; // the entry's rank field was read: without one it is no fact
    bool m_rankWarned = false; // ... or read and refused, with a warning of its own
    std::int64_t m_localRank = -1, m_pid = -1;
    std::optional<std::int64_t> m_exitCode;
    std::string m_traceback; // the traceback field, or a Python traceback's last line (its exception)
    bool m_inTraceback = false; // the lines of a Python traceback follow "traceback : Traceback (most recent ..."
};

} // namespace stallscope::host_log
