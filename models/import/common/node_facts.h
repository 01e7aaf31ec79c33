// SPDX-License-Identifier: MIT
#pragma once

// What a host's tools say of its HCA ports, GPUs and NVLinks (docs/formats.md §5f, §5g): the sink of this kind of
// fact, one per file. The node tools' reader (import/node_tools/node_tools.h) fills every field; dcgm-exporter's
// scrapes (import/prometheus/dcgm.h) add the GPUs and NVLink counters they name. import/folder turns them into the
// snapshot's host ports, GPU paths and inventory.

#include "core/host_gpu.h"
#include "core/host_port.h"
#include "core/result.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

struct NodeToolsFile
{
    std::vector<HostPort> ports; // in file order; a port seen twice (two readings) is two entries
    std::vector<GoneHca> gone;
    std::vector<PortErrorReport> errors; // ibqueryerrors
    std::vector<SmInfo> subnetManagers; // sminfo's answers (or its failure), in file order
    std::vector<SwitchVitals> switches; // ibswinfo's tables and lists, in file order
    std::vector<GpuPath> gpuPaths; // topo -m: each GPU's row, NIC columns named by the NIC legend
    std::vector<GpuNvlinks> nvlinks; // nvlink --status / -e: one per GPU header, in file order
    std::vector<std::string> tools; // the tools found, in order of first appearance: "ibstat", "rdma link", ...
    std::vector<std::string> hosts; // the hosts named (prompts, pdsh prefixes, the file's name)
    std::size_t unknownLines = 0; // non-blank lines no tool explains (another command's output, a comment)
    std::vector<std::pair<std::int64_t, std::string>> unknown; // the first kKeptUnknown of them: line, text
    std::vector<LoadIssue> warnings;
    static constexpr std::size_t kKeptUnknown = 20;
    // Bounds on what one file adds, whatever its numbers say: a 16-GPU host with 16 NICs has 496 paths.
    static constexpr std::size_t kMaxGpuPaths = 1 << 20, kMaxGpus = 1 << 16, kMaxNvlinks = 64;
};

} // namespace stallscope
