// SPDX-License-Identifier: MIT
#pragma once

// A copy of a host's /sys/class/infiniband (a support bundle, an sosreport, a test fixture): one reading of
// every port's counters and state. Layout (Linux kernel, drivers/infiniband/core/sysfs.c):
//   <device>/node_guid                 "0a7f:bc12:45ef:d23b" (optional in copies)
//   <device>/ports/<n>/state           "4: ACTIVE" (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE)
//   <device>/ports/<n>/phys_state      "5: LinkUp"
//   <device>/ports/<n>/rate            "40 Gb/sec (4X QDR)"
//   <device>/ports/<n>/counters/<name> decimal; "N/A (no PMA)" where the port has none
//   <device>/ports/<n>/counters_ext/port_{xmit,rcv}_{data,packets}_64   (mlx4: 64-bit data counters)

#include "core/counters.h"
#include "core/host_port.h"
#include "core/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct SysfsPortReading
{
    std::string device; // "mlx5_0"
    std::uint16_t port = 1;
    std::optional<std::uint64_t> nodeGuid;
    std::optional<bool> active; // state file: ACTIVE or not; unset when absent or unreadable
    PortState state = PortState::Unknown; // the state file as read ("1: DOWN")
    PhysState phys = PhysState::Unknown; // phys_state ("2: Polling")
    std::string stateText, physText; // as read, for evidence
    std::string linkLayer; // link_layer: "InfiniBand", "Ethernet"
    std::string fw; // <device>/fw_ver
    std::string rate; // "40 Gb/sec (4X QDR)"
    std::vector<std::pair<CounterKind, std::uint64_t>> counters;
    std::vector<int> bits; // per counter: 64 for counters_ext, 0 = the counter's standard width
};

struct SysfsTree
{
    std::string root; // .../class/infiniband, or any folder holding <device>/ports/<n>/
    std::string host; // from the path: the folder holding sys/class/infiniband, else the nearest not-generic name
    TimeNs timeNs = 0; // newest modification time among the files read: when the copy was taken
    std::vector<SysfsPortReading> ports;
};

// Is `dir` a copy of class/infiniband, by its structure whatever it is called: a device folder holding
// ports/<n>/ with a state, phys_state or rate file or a counters/ folder in it?
bool isSysfsInfinibandRoot(const std::filesystem::path& dir);

// The host a copy found at `root` belongs to: the first folder name above it that is not part of sysfs' own path
// (infiniband, class, sys, sysfs) — "gpu-b005/sys/class/infiniband" → "gpu-b005", "gpu-b005/ib" → "gpu-b005" — no
// higher than `top` (the folder opened; its own name when nothing below it names a host).
std::string hostOfSysfsCopy(const std::filesystem::path& root, const std::filesystem::path& top);

// Reads the tree. Files that cannot be read or parsed become warnings naming them; never throws.
SysfsTree readSysfsTree(const std::filesystem::path& root, std::vector<LoadIssue>& warnings);

} // namespace stallscope
