// SPDX-License-Identifier: MIT
#pragma once

// The node InfiniBand tools people paste first: `ibstat`, `ibstatus`, `ibv_devinfo [-v]`, `rdma link [show]`, and
// `ibqueryerrors` (ports above their error thresholds), `sminfo` (the subnet manager's state),
// `smpquery portinfo`, `ibswinfo` (an unmanaged switch's temperatures, PSUs and fans) (docs/formats.md §5f), and
// nvidia-smi's `topo -m` and `nvlink --status` / `-e` (which HCA is nearest each GPU, each GPU's NVLinks; §5g). Recognised by their structure, whatever the file is called; one file may hold several
// tools' outputs one after another, behind shell prompts ("[root@gpu-b005 ~]# ibstat"), pdsh prefixes
// ("gpu-b005: State: Active") or dshbak headers, with tabs turned into spaces or indentation stripped. Each port
// becomes a HostPort (core/host_port.h); a device a tool could not reach ("ibpanic: ... stat of IB device
// 'mlx5_8' failed") a GoneHca. Lines no tool explains are counted and the first few kept, never an error.
// Pure functions; safe on any thread.

#include "core/host_gpu.h"
#include "core/host_port.h"
#include "core/result.h"
#include "import/common/host_file.h" // hostOfNodeFile

#include <string>
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

// True when `text` holds the output of one of the tools: a "CA 'mlx5_0'" header with ibstat's fields under it,
// an "Infiniband device 'mlx5_0' port 1 status:" block, an "hca_id:" block with ibv_devinfo's fields, a
// "link mlx5_0/1 ... state ACTIVE" line, ibstat's ibpanic line, nvidia-smi topo -m's matrix or nvlink's GPU list.
bool looksLikeNodeTools(const std::string& text);

// Reads every block. `fileHost`: the host the file's path names ("" when none); prompts and pdsh prefixes
// override it for the lines they cover. An error when no port, no vanished device, no error report and no GPU was
// found.
Result<NodeToolsFile> parseNodeTools(const std::string& file, const std::string& text, const std::string& fileHost);


} // namespace stallscope
