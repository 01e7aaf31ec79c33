// SPDX-License-Identifier: MIT
#pragma once

// What nvidia-smi's topo -m and nvlink lists say about a host's GPUs (JobSnapshot::gpuPaths, nvlinks): the path
// from a GPU to a NIC, and the findings — NVLinks listed inactive, NVLink error counters, and on a host whose other
// GPUs are bonded alike (an NVSwitch box), a GPU reaching its peers over PCIe or over fewer links. Used by
// findNodeProblems and the host inventory. Pure functions of a snapshot; safe on any thread.

#include "analysis/node_findings.h"

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace stallscope {

// Every GPU's path to every NIC in topo -m, by (host, GPU, NIC): built once, looked up per rank.
using NicPaths = std::map<std::tuple<std::string, std::uint16_t, std::string>, GpuPathCell>;
NicPaths nicPaths(const JobSnapshot& snap);

void gpuLinkFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out);

} // namespace stallscope
