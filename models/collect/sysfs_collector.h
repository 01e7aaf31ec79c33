// SPDX-License-Identifier: MIT
#pragma once

// Samples /sys/class/infiniband/*/ports/*/counters (and hw_counters where present) into CSV files: the
// continuous per-port counters that find an intermittent link fault. One row per port per sample:
//
//   t_ns,host,device,port,state,<counter>,...          (header names every column; values are raw readings)
//
// Values are written exactly as the kernel prints them (cumulative, saturating, data in 4-byte words);
// "N/A (no PMA)" or unreadable files become empty fields. Files rotate: counters-<UTC start>.csv, a new one
// every `rotateNs`. Cheap: one small read per file per interval, no allocation per sample after the first.

#include "core/types.h"

#include <functional>
#include <string>
#include <vector>

namespace stallscope {

struct CollectorOptions
{
    std::string sysfsRoot = "/sys/class/infiniband";
    std::string outDir;
    std::string host; // written into every row; default: this machine's host name
    TimeNs intervalNs = kNsPerSec;
    TimeNs rotateNs = 3600 * kNsPerSec;
    std::uint64_t samples = 0; // stop after this many samples (0 = run until stopped)
};

struct CollectorPort
{
    std::string device; // "mlx5_3"
    std::string port; // "1"
    std::string dir; // .../mlx5_3/ports/1
    std::vector<std::string> counters; // file names under counters/
    std::vector<std::string> hwCounters; // file names under hw_counters/
};

// The ports and counter files found under the sysfs root (sorted, stable column order).
std::vector<CollectorPort> discoverPorts(const std::string& sysfsRoot);

// Runs the sampling loop; `stop` is polled between samples (return true to stop). Returns an empty string
// or the reason it failed (no ports, output not writable).
std::string runCollector(const CollectorOptions& options, const std::function<bool()>& stop);

} // namespace stallscope
