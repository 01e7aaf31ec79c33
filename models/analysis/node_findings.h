// SPDX-License-Identifier: MIT
#pragma once

// What is wrong with each node, from its HCA ports as node tools and sysfs copies showed them
// (JobSnapshot::hostPorts, goneHcas; docs/analysis-format.md "Node findings"): a port Down with its physical
// link Polling (the cable or the peer is not training) told apart from one Disabled (turned off on purpose); a
// port trained but never activated with SM LID 0 (no subnet manager); an HCA that vanished; rails of one host at
// different rates or link layers, or one trained below its siblings; a port whose link_downed counter is not
// zero; a port that changed state between two readings; and from the hosts' kernel and Fabric Manager logs, a GPU
// off the bus, NVSwitch errors, NVLinks down or untrained, PCIe errors and link downs, segfaults inside NCCL or
// CUDA, nvidia-peermem errors; from nvidia-smi, NVLinks inactive or counting errors and a GPU bonded to its peers
// over fewer NVLinks than the rest (analysis/gpu_links.h). Each finding carries the line that shows it.
// Pure functions of a snapshot; safe on any thread.

#include "core/job_snapshot.h"

#include <string>
#include <vector>

namespace stallscope {

struct NodeFinding
{
    std::string host;
    std::string port; // "mlx5_1/1", or "mlx5_3" for a device; "" for a finding about the host's rails together
    std::string kind; // "port down", "port disabled", "no subnet manager", "HCA vanished", "mixed rates", ...
    std::string text; // readable: "mlx5_1 port 1 is Down, physical state Polling: the cable or the peer ..."
    std::string evidence; // "ibstat.txt:23: State: Down, Physical state: Polling"
    bool portDown = false; // the port, or a GPU, NVSwitch or NVLink, carries no traffic now (down, disabled, vanished)
};

// Sorted by host, then port; the worst kinds of a host first (down before mixed rates).
std::vector<NodeFinding> findNodeProblems(const JobSnapshot& snap);

std::string nodeFindingsText(const std::vector<NodeFinding>& findings);

} // namespace stallscope
