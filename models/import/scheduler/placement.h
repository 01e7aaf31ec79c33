// SPDX-License-Identifier: MIT
#pragma once

// Where a job's ranks ran, as the launcher was told (docs/formats.md §2h): an MPI or DeepSpeed hostfile
// (`gpu-r301 slots=8`, `gpu-r301:8`), Slurm's node list (`SLURM_JOB_NODELIST=gpu-r[301-304]` with
// `SLURM_TASKS_PER_NODE=8(x4)`, `scontrol show job`'s `NodeList=` with `NumNodes=`/`NumTasks=`), or
// `scontrol show hostnames` output. Ranks fill the hosts in order, each host's slots before the next (Open MPI's
// and DeepSpeed's default mapping by slot, Slurm's block distribution, torchrun's node ranks). Pure functions;
// safe on any thread.

#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct RankPlacement
{
    struct Host
    {
        std::string name;
        std::uint32_t slots = 0; // ranks on this host; 0: not said (then every host holds world / hosts)
    };
    std::vector<Host> hosts; // in the launcher's order
    std::string source; // "hostfile", "SLURM_JOB_NODELIST", "scontrol show job", "scontrol show hostnames"
    std::int64_t line = 0; // of the list (the first host line of a hostfile)
    std::vector<LoadIssue> warnings;

    // The host of `rank` in a job of `world` ranks; "" when the list does not reach it.
    std::string hostOf(std::uint32_t rank, std::uint32_t world) const;
};

// A hostfile (lines of `host slots=N` or `host:N`, two at least, or one among few other lines), Slurm's node list
// variable, `scontrol show job` output with a NodeList, or `scontrol show hostnames` behind its prompt.
bool looksLikeRankPlacement(const std::string& text);
Result<RankPlacement> parseRankPlacement(const std::string& file, const std::string& text);

// Slurm's hostlist expression: "gpu-r[301-303,310],cpu7" → gpu-r301, gpu-r302, gpu-r303, gpu-r310, cpu7 (zero
// padding kept, several bracket groups multiplied out). nullopt when malformed or past `most` hosts.
std::optional<std::vector<std::string>> expandHostlist(std::string_view expr, std::size_t most = 1 << 20);

} // namespace stallscope
