// SPDX-License-Identifier: MIT
#pragma once

// Which host a file of host facts is about, from its path alone.

#include <string>

namespace stallscope {

// The host a node file's path names: "gpu-b005.ibstat.txt" → "gpu-b005", "gpu-b005/ibstat.txt" → "gpu-b005";
// "" when neither the file's first name part nor its folder looks like a host (a name with a digit and no
// tool's or capture's word in it: "node", "ibstat_out", "slurm-8812" and "captures" do not). The rule for every file
// of host facts: node tools, kernel and Fabric Manager logs, exporters' scrapes.
std::string hostOfNodeFile(const std::string& path);

} // namespace stallscope
