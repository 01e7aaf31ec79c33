// SPDX-License-Identifier: MIT
#pragma once

// A scrape of NVIDIA's dcgm-exporter (docs/formats.md §5h): Prometheus exposition text whose series are DCGM fields
// (`DCGM_FI_DEV_XID_ERRORS{gpu="3",Hostname="gpu-k014",pci_bus_id="00000000:41:00.0"} 79`). Two kinds of fact are
// taken from it: each GPU's last Xid (the field's value; 0 is none) and each GPU's NVLink error counters (the
// `DCGM_FI_DEV_NVLINK_*` fields that count errors, recoveries or discards, summed over links or per link when a
// `link` label says which). The other fields (clocks, utilisation, memory) are counted, not kept. Pure functions;
// safe on any thread.

#include "core/host_gpu.h"
#include "core/result.h"

#include <string>
#include <vector>

namespace stallscope {

struct DcgmXid
{
    std::string host;
    std::uint16_t gpu = 0;
    std::string pci; // "0000:41:00.0" (DCGM's eight-digit domain cut to the kernel's four); "" when not labelled
    std::int64_t code = 0; // the Xid
    std::int64_t line = 0;
    std::string evidence; // the series by its identifying labels and the value: DCGM_FI_DEV_XID_ERRORS{gpu="2",…} 79
};

struct DcgmScrape
{
    std::vector<GpuNvlinks> nvlinks; // one per GPU named (model, UUID), its NVLink error counters above zero kept
    std::vector<DcgmXid> xids;
    std::vector<std::string> hosts; // the Hostname labels, in order of first appearance
    std::size_t gpus = 0; // distinct (host, GPU) series seen
    std::size_t samples = 0; // DCGM sample lines read
    std::vector<LoadIssue> warnings;
};

// A sample line of a DCGM field with a `gpu` label among the text's first 64 KiB, or a `# TYPE DCGM_FI_` line.
bool looksLikeDcgmScrape(const std::string& text);

// `fileHost`: the host the file's path names ("" when none); a series' Hostname label overrides it. An error when
// no DCGM sample line was read.
Result<DcgmScrape> parseDcgmScrape(const std::string& file, const std::string& text, const std::string& fileHost);

} // namespace stallscope
