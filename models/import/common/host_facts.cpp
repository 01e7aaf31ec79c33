// SPDX-License-Identifier: MIT
#include "import/common/host_facts.h"

namespace stallscope {

std::string_view toString(HostEventKind k)
{
    switch (k) {
    case HostEventKind::TaskSignal:
        return "killed by signal";
    case HostEventKind::TaskExit:
        return "exited";
    case HostEventKind::StepCancelled:
        return "cancelled";
    case HostEventKind::RankFailed:
        return "failed";
    case HostEventKind::RankFailedFirst:
        return "first observed failure";
    case HostEventKind::LinkDown:
        return "link down";
    case HostEventKind::LinkUp:
        return "link up";
    case HostEventKind::PortModule:
        return "port module event";
    case HostEventKind::GpuXid:
        return "GPU Xid";
    case HostEventKind::GpuOffBus:
        return "GPU off the bus";
    case HostEventKind::SxidFatal:
        return "NVSwitch SXid fatal";
    case HostEventKind::SxidNonFatal:
        return "NVSwitch SXid non-fatal";
    case HostEventKind::SxidUnknown:
        return "NVSwitch SXid, severity not logged";
    case HostEventKind::PcieCorrected:
        return "PCIe corrected error";
    case HostEventKind::PcieUncorrected:
        return "PCIe uncorrected error";
    case HostEventKind::PcieLinkDown:
        return "PCIe link down";
    case HostEventKind::LibSegfault:
        return "segfault in a GPU library";
    case HostEventKind::PeermemError:
        return "nvidia-peermem error";
    case HostEventKind::FmNvSwitchFatal:
        return "NVSwitch fatal error";
    case HostEventKind::FmNvSwitchNonFatal:
        return "NVSwitch non-fatal error";
    case HostEventKind::FmGpuNvlink:
        return "GPU NVLink error";
    case HostEventKind::FmNvlinkTraining:
        return "NVLink training failed";
    case HostEventKind::FmNvlinkDown:
        return "NVLink down";
    case HostEventKind::FmTrunkLink:
        return "trunk link failure";
    case HostEventKind::FmStopped:
        return "Fabric Manager stopped";
    case HostEventKind::FmError:
        return "Fabric Manager error";
    }
    return "event";
}

bool isFabricManager(HostEventKind k)
{
    return k >= HostEventKind::FmNvSwitchFatal && k <= HostEventKind::FmError;
}

} // namespace stallscope
