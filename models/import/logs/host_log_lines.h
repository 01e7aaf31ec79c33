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
// the same SXid's "Severity …" and "Data {…}" lines are Used).
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
// text); false for a line that is no fact (INFO, DEBUG, a WARNING naming none of the failures).
bool fabricManagerFact(std::string_view level, std::string_view msg, HostEvent& e);
// A field line under "Fabric Manager detected GPU NVL Fatal error on :" ("gpuGuid : 0x…", "portNum : 4"):
// the fields that name the GPU and its port are added to the record's text.
void fabricManagerField(std::string_view line, HostEvent& record);

} // namespace stallscope::host_log
