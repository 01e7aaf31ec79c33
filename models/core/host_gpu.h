// SPDX-License-Identifier: MIT
#pragma once

// A host's GPUs as nvidia-smi shows them (docs/formats.md §5g): how each GPU reaches the other GPUs and the NICs
// (`nvidia-smi topo -m`: NVLink, or PCIe through a switch, a host bridge or across CPUs), and each GPU's NVLinks
// (`nvidia-smi nvlink --status`: a speed per link or "<inactive>"; `nvlink -e`: error counters). The one home of
// the path names' order. Plain values; safe on any thread.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope {

// topo -m's connection types, nearest first (its legend): X self; NV# a bonded set of # NVLinks; PIX at most one
// PCIe bridge; PXB several PCIe bridges, no host bridge; PHB a PCIe host bridge (the CPU); NODE PCIe and the host
// bridges within one NUMA node; SYS PCIe and the interconnect between NUMA nodes (older drivers say SOC).
enum class GpuPathKind : std::uint8_t { Self, NvLink, Pix, Pxb, Phb, Node, Sys };

struct GpuPathCell
{
    GpuPathKind kind = GpuPathKind::Sys;
    std::uint16_t nvlinks = 0; // NV#'s #; 0 for the other kinds
};

// "X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC" (case as printed); nullopt for anything else.
std::optional<GpuPathCell> parseGpuPathCell(std::string_view cell);
std::string_view toString(GpuPathKind k); // "NV", "PIX", ... ("X" for Self)
std::string gpuPathText(const GpuPathCell& c); // "NV18", "PIX"

// One cell of a GPU's row in topo -m: how GPU `gpu` reaches `peer`.
struct GpuPath
{
    std::string host; // "" when nothing named it
    std::uint16_t gpu = 0; // nvidia-smi's index
    std::string peer; // another GPU ("GPU3") or a NIC by its device name ("mlx5_0", the NIC legend's name for "NIC0")
    bool peerIsGpu = false;
    GpuPathCell path;
    std::string file;
    std::int64_t line = 0; // of the GPU's row
};

// One GPU's NVLinks as `nvidia-smi nvlink --status` and `-e` listed them, or dcgm-exporter's NVLink error fields.
struct GpuNvlinks
{
    std::string host;
    std::uint16_t gpu = 0;
    std::string model; // "NVIDIA H100 80GB HBM3"
    std::string uuid; // "GPU-5c1e…"
    std::vector<std::pair<std::uint16_t, double>> links; // link number, GB/s as printed; 0 for "<inactive>"
    static constexpr std::uint16_t kAllLinks = 0xffff; // a counter summed over the GPU's links (dcgm-exporter)
    struct Errors
    {
        std::uint16_t link = 0; // kAllLinks: summed over the links
        std::string counter; // "Replay Errors", "CRC Errors" (nvlink -e); "CRC_FLIT_ERROR_COUNT_TOTAL" (DCGM)
        std::uint64_t value = 0;
    };
    std::vector<Errors> errors; // the counters above zero, in file order
    std::uint32_t counterReadings = 0; // nvlink -e counters read, zero or not
    std::string file;
    std::int64_t line = 0; // of the "GPU 0: …" line
    std::int64_t firstInactiveLine = 0; // 0 when every listed link has a speed
    std::string firstInactive; // that line as read: "Link 4: <inactive>"

    std::size_t inactive() const; // links listed "<inactive>"
};

// A GPU's nearest NIC: the NIC columns of its row with the nearest path (PIX before PXB before PHB …). `tied` when
// another NIC is as near: then no single HCA can be said to serve the GPU.
struct NearestNic
{
    std::string nic; // "mlx5_3" (the first of the nearest, in column order)
    GpuPathCell path;
    bool tied = false;
};

// (host, GPU index) → its nearest NIC, for every GPU whose topo -m row names a NIC.
std::map<std::pair<std::string, std::uint16_t>, NearestNic> nearestNics(const std::vector<GpuPath>& paths);

} // namespace stallscope
