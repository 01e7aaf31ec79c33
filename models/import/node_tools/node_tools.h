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

#include "core/result.h"
#include "import/common/host_file.h" // hostOfNodeFile
#include "import/common/node_facts.h"

#include <string>
#include <vector>

namespace stallscope {

// True when `text` holds the output of one of the tools: a "CA 'mlx5_0'" header with ibstat's fields under it,
// an "Infiniband device 'mlx5_0' port 1 status:" block, an "hca_id:" block with ibv_devinfo's fields, a
// "link mlx5_0/1 ... state ACTIVE" line, ibstat's ibpanic line, nvidia-smi topo -m's matrix or nvlink's GPU list.
bool looksLikeNodeTools(const std::string& text);

// Reads every block. `fileHost`: the host the file's path names ("" when none); prompts and pdsh prefixes
// override it for the lines they cover. An error when no port, no vanished device, no error report and no GPU was
// found.
Result<NodeToolsFile> parseNodeTools(const std::string& file, const std::string& text, const std::string& fileHost);


} // namespace stallscope
