// SPDX-License-Identifier: MIT
// The host a file of host facts names.
#include "import/common/host_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace stallscope {

std::string hostOfNodeFile(const std::string& path)
{
    const std::filesystem::path p(path);
    // A name is generic when it has no digit, or one of its words ("ibstat_out", "rdma-link") is a tool's or a
    // capture's: then the folder names the host. Whole words only: "node017" and "fib-3" are hosts.
    const auto generic = [](const std::string& name) {
        // Host names carry a number (gpu-b005, node017); "node", "captures", "tmp" do not.
        if (name.empty() || std::none_of(name.begin(), name.end(), [](char ch) {
                return std::isdigit(static_cast<unsigned char>(ch));
            })) {
            return true;
        }
        std::size_t start = 0;
        while (start <= name.size()) {
            const auto end = std::min(name.find_first_of("-_ ", start), name.size());
            const auto word = name.substr(start, end - start);
            for (const char* tool : { "ibstat", "ibstatus", "ibv", "devinfo", "rdma", "link", "output", "ib", "hca",
                     "info", "tools", "capture", "diag", "paste", "dmesg", "kern", "journal", "journalctl", "syslog",
                     "messages", "slurm", "srun", "fabricmanager", "nvidia", "smi", "topo", "nvlink", "dcgm", "metrics",
                     "perfquery", "job", "err", "out" }) {
                if (word == tool) {
                    return true;
                }
            }
            start = end + 1;
        }
        return false;
    };
    const auto name = p.filename().string();
    const auto first = name.substr(0, name.find('.'));
    if (!generic(first)) {
        return first;
    }
    const auto parent = p.parent_path().filename().string();
    return generic(parent) ? std::string() : parent;
}

} // namespace stallscope
