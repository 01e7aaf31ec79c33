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
    std::string rate; // "40 Gb/sec (4X QDR)"
    std::vector<std::pair<CounterKind, std::uint64_t>> counters;
    std::vector<int> bits; // per counter: 64 for counters_ext, 0 = the counter's standard width
};

struct SysfsTree
{
    std::string root; // .../class/infiniband
    std::string host; // the folder that holds the sys/ copy
    TimeNs timeNs = 0; // newest modification time among the files read: when the copy was taken
    std::vector<SysfsPortReading> ports;
};

// Is `dir` a class/infiniband folder (a device folder with ports/<n>/ below it)?
bool isSysfsInfinibandRoot(const std::filesystem::path& dir);

// Reads the tree. Files that cannot be read or parsed become warnings naming them; never throws.
SysfsTree readSysfsTree(const std::filesystem::path& root, std::vector<LoadIssue>& warnings);

} // namespace stallscope
