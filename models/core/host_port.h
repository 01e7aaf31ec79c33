// SPDX-License-Identifier: MIT
#pragma once

// A host's HCA port as a node tool or a sysfs copy showed it when it was run (ibstat, ibstatus, ibv_devinfo,
// rdma link, /sys/class/infiniband; docs/formats.md §5f), and an HCA a tool could no longer reach. The one home
// of the state names: every tool's spelling of a state ("4: ACTIVE", "PORT_ACTIVE (4)", "Active", "ACTIVE")
// maps to one enum here. Plain values; safe on any thread.

#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope {

// The logical state (IBA 14.2.5.6, PortInfo:PortState); the numbers are the sysfs and verbs ones.
enum class PortState : std::uint8_t { Unknown = 0, Down = 1, Init = 2, Armed = 3, Active = 4, ActiveDefer = 5 };
// The physical state (PortInfo:PortPhysicalState); 0 is "No state change" / unknown.
enum class PhysState : std::uint8_t {
    Unknown = 0,
    Sleep = 1,
    Polling = 2,
    Disabled = 3,
    Training = 4, // PortConfigurationTraining
    LinkUp = 5,
    ErrorRecovery = 6,
    PhyTest = 7,
};

// Any tool's spelling: "4: ACTIVE" (sysfs, ibstatus), "PORT_ACTIVE (4)" (ibv_devinfo), "Active", "Initializing"
// (ibstat), "ACTIVE", "INIT" (rdma link), a bare number. nullopt when it is none of them.
std::optional<PortState> parsePortState(std::string_view text);
// "5: LinkUp", "LINK_UP (5)", "LinkUp", "LINK_UP", "Polling", "POLLING", "PORT_CONFIGURATION TRAINNING (4)", ...
std::optional<PhysState> parsePhysState(std::string_view text);
std::string_view toString(PortState s); // "Active", "Down", "Initializing", ... (ibstat's words)
std::string_view toString(PhysState s); // "LinkUp", "Polling", "Disabled", ...

// A rate as the tools print it: "200 Gb/sec (4X HDR)" (sysfs, ibstatus), "200" or "40 (FDR10)" (ibstat).
struct PortRate
{
    double gbps = 0; // the signalling rate the tool printed, Gb/s (0: not known)
    int width = 0; // lanes (0: not said)
    std::string speed; // "HDR", "NDR", ... ("" when not said)
};
std::optional<PortRate> parsePortRate(std::string_view text);
// A lane's speed name from its Gb/s as ibv_devinfo prints it ("50.0 Gbps (64)" → "HDR"); "" when unknown.
std::string speedOfLaneGbps(double laneGbps);

struct HostPort
{
    std::string host; // "" when nothing named it
    std::string device; // "mlx5_0"
    std::uint16_t port = 0; // 0: the device's ports were not listed (ibstat -s, a device header alone)
    PortState state = PortState::Unknown;
    PhysState phys = PhysState::Unknown;
    PortRate rate;
    std::optional<std::uint32_t> lid; // base LID (65535 or 0: none assigned)
    std::optional<std::uint32_t> smLid; // 0: no subnet manager has configured the port
    std::string linkLayer; // "InfiniBand", "Ethernet"
    std::string fw; // "20.41.1000"
    std::uint64_t nodeGuid = 0;
    std::uint64_t portGuid = 0;
    std::string netdev; // "ib0", from rdma link
    std::optional<std::uint64_t> linkDowned; // link_downed as one reading (a sysfs copy)
    std::string source; // "ibstat", "ibstatus", "ibv_devinfo", "rdma link", "sysfs"
    std::string file;
    std::int64_t line = 0; // of the port's state line (or its header); 0 for a sysfs copy
    std::string evidence; // that line as read ("State: Down"), or "state 1: DOWN, phys_state 2: Polling"

    bool infiniband() const { return linkLayer.empty() || linkLayer == "InfiniBand" || linkLayer == "IB"; }
};

// An HCA a tool was asked about and could not reach: "ibpanic: [1400444] main: stat of IB device 'mlx5_8'
// failed: No such file or directory" — it vanished from the host (fell off the PCIe bus, driver unloaded).
struct GoneHca
{
    std::string host;
    std::string device;
    std::string source; // "ibstat"
    std::string file;
    std::int64_t line = 0;
    std::string evidence;
};

// A port ibqueryerrors reported above its thresholds: "GUID 0x2c903006e29b0 port 5: [SymbolErrorCounter == 65535]
// [LinkDownedCounter == 2]" under "Errors for 0x2c903006e29b0 "leaf-r3"" (a switch) or "Errors for "gpu042
// mlx5_0"" (an HCA).
struct PortErrorReport
{
    std::string node; // the node description: "leaf-r3", "gpu042 mlx5_0"
    std::uint64_t guid = 0;
    std::optional<std::uint16_t> port; // nullopt: "port ALL", the switch's sum over its ports
    bool switchNode = false; // "Errors for 0x<guid> ..." names a switch; an HCA is named by description alone
    std::vector<std::pair<std::string, std::uint64_t>> counters; // as named: "SymbolErrorCounter", 65535
    std::string file;
    std::int64_t line = 0;
    std::string evidence; // the line as read
};

// The subnet manager as `sminfo` reported it (rdma-core infiniband-diags/sminfo.c): "sminfo: sm lid 1 sm guid
// 0x248a070300f1a2b0, activity count 512345 priority 14 state 3 SMINFO_MASTER", or that it could not query one
// ("sminfo: iberror: failed: query").
struct SmInfo
{
    std::string host; // where sminfo was run ("" when nothing named it)
    bool failed = false; // no SMInfo answer: no subnet manager reachable from the port
    std::uint32_t lid = 0;
    std::uint64_t guid = 0;
    std::uint32_t activity = 0;
    int priority = 0;
    int state = 0; // 0 NOTACTIVE, 1 DISCOVERING, 2 STANDBY, 3 MASTER
    std::string stateName; // as printed: "SMINFO_MASTER"
    std::string file;
    std::int64_t line = 0;
    std::string evidence; // the line as read

    bool master() const { return !failed && state == 3; }
};

// An unmanaged switch's vitals as ibswinfo (github.com/stanford-rc/ibswinfo) printed them: its default table
// ("PSU0 status        | OK", "temperature (C)    | 34", "warn threshold (C) | 95/105 (low/high)") or its targeted
// "-o vitals" and "-o status" lists ("cur.temp (C)       : 73", "psu1.status        : ERROR").
struct SwitchVitals
{
    std::string name; // the node description of the default table; else the host the file or a prompt names
    std::optional<int> temperature; // °C
    std::optional<int> maxTemperature; // °C, the highest since the switch started
    std::optional<int> warnLow; // °C, "warn threshold (C) | 95/105 (low/high)"
    std::optional<int> warnHigh;
    std::vector<std::pair<std::string, int>> moduleTemps; // "module#01" (or "QSFP#01"), °C
    struct Status
    {
        std::string part; // "PSU0", "PSU0 DC power", "PSU0 fan", "fans"
        std::string value; // "OK", "ERROR"
        std::int64_t line = 0;
    };
    std::vector<Status> statuses;
    std::vector<std::pair<std::string, int>> fanRpm; // "fan#1", rpm
    std::string file;
    std::int64_t line = 0; // of the block's first line
};

} // namespace stallscope
