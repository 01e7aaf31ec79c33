// SPDX-License-Identifier: MIT
#pragma once

// An inventory per host: its ranks and the GPU (index and PCI address) and HCA each uses, its HCA ports as every node
// tool and sysfs copy showed them (one row per device and port, the readings merged), the HCAs a tool could no longer
// reach, its GPUs as nvidia-smi showed them (nearest NIC, NVLinks), and its node findings. The sources are checked
// against each other: two tools that disagree on a port's firmware, rate, link layer or LID, a rank whose NCCL uses an
// HCA port that a tool shows down or gone, a rank whose NCCL uses an HCA farther from its GPU than the one topo -m puts
// nearest, and a rank on a GPU the kernel reports an Xid for or off the bus, are listed as conflicts. The Hosts panel shows it; a pure function
// of a snapshot and its findings, safe on any thread.

#include "analysis/node_findings.h"
#include "core/job_snapshot.h"

#include <string>
#include <vector>

namespace stallscope {

struct InventoryPort
{
    HostPort port; // the last reading's fields, with what an earlier reading had and this one left out
    std::vector<std::string> sources; // "ibstat", "sysfs", ... in the order they were read, each once
};

struct InventoryRank
{
    std::uint32_t rank = 0;
    std::uint16_t localGpu = 0;
    std::string hca; // "mlx5_3/1"; "" when nothing said which HCA it uses
    std::string gpuPci; // "0000:41:00.0", from the busId of NCCL's init line; "" when no line said it
    std::string nearestNic; // the NIC topo -m puts nearest the rank's GPU ("mlx5_3"); "" when none or tied
};

// A GPU as nvidia-smi showed it (topo -m, nvlink): its nearest NIC and its NVLinks.
struct InventoryGpu
{
    std::uint16_t index = 0;
    std::string model; // "NVIDIA H100 80GB HBM3" ("" when only topo -m named it)
    std::string nearestNic; // "mlx5_3"; "" when topo -m listed no NIC
    std::string nearestPath; // "PIX", "PXB", ...; "PIX, tied with mlx5_4" when two are as near
    std::size_t nvlinks = 0, inactiveNvlinks = 0; // as nvlink --status listed them (0, 0: not listed)
    double nvlinkGBps = 0; // the fastest listed link's speed
};

struct HostInventory
{
    std::string host;
    std::vector<InventoryRank> ranks; // by rank
    std::vector<InventoryPort> ports; // by device, then port
    std::vector<GoneHca> goneHcas;
    std::vector<InventoryGpu> gpus; // by index: those nvidia-smi showed
    std::vector<std::string> conflicts; // readable: "mlx5_0/1: firmware 28.39.1002 (ibstat) but 28.37.1014 (sysfs)"
    std::vector<NodeFinding> findings; // as findNodeProblems ordered them
    std::size_t notes = 0; // kernel, Fabric Manager and scheduler lines about the host (JobSnapshot::notes)

    bool portDown() const; // a finding says a port, GPU or link of the host carries no traffic
};

// Hosts with findings first (those with a port down before the others), then by name. Every host that a rank,
// a node tool, a finding or a note names has a row.
std::vector<HostInventory> hostInventory(const JobSnapshot& snap, const std::vector<NodeFinding>& findings);

// "mlx5_0/1" for a port (the device alone for port 0: its ports were not listed).
std::string inventoryPortName(const HostPort& p);

// NCCL's busId ("41000", "0000:41:00.0"; its int64 printed in hex: domain, bus, device, function) as the kernel
// names the GPU: "0000:41:00.0". "" when it is not one.
std::string pciOfNcclBusId(std::string_view busId);

} // namespace stallscope
