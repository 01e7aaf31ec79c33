// SPDX-License-Identifier: MIT
#pragma once

// What loaded: the figures `stallscope info` prints and the GUI's summary shows.

#include "core/loaded_job.h"

#include <string>

namespace stallscope {

struct SnapshotSummary
{
    std::string path;
    std::string jobName;
    std::uint32_t ranks = 0;
    std::uint32_t hosts = 0; // named hosts the ranks are on
    std::uint32_t unplacedRanks = 0; // ranks no file names a host for
    std::uint32_t switches = 0;
    std::uint32_t hcas = 0;
    std::uint32_t links = 0;
    std::uint32_t processGroups = 0;
    std::uint32_t shapes = 0;
    std::uint64_t collectives = 0;
    std::uint32_t counterPorts = 0;
    std::uint32_t counterSeries = 0;
    std::uint64_t counterSamples = 0;
    std::uint32_t linkEvents = 0;
    TimeNs startNs = 0;
    TimeNs endNs = 0;
    TimeoutPolicy policy;
    std::uint64_t collectiveBytes = 0;
    std::uint64_t counterBytes = 0;
    std::uint64_t bytesOnDisk = 0;
    std::uint64_t residentBytes = 0; // whole process, from /proc/self/status (0 when unknown)
    double bytesPerCollective = 0;
    double loadSeconds = 0;
    std::vector<std::string> warnings; // grouped: one line per file and reason (core/issue_groups.h)
    std::size_t warningCount = 0; // before grouping
    std::vector<std::string> recognised;
    // What the logs said, per source ("rank logs", "slurm", "kernel", ...) and kind: the first few facts of each
    // kind with time, rank and host, then how many there are.
    struct FactKind
    {
        std::string source, kind;
        std::size_t count = 0;
        std::vector<std::string> first; // "2026-06-01 12:00:31.000 rank 3 gpu-a001: SeqNum 1580 ALLREDUCE, ..."
    };
    std::vector<FactKind> facts;
    std::size_t factCount = 0;
    std::vector<std::string> transports; // "rank 0 (gpu-a001): IB via mlx5_0"
};

SnapshotSummary summarize(const std::string& path, const LoadedJob& loaded);
std::string summaryText(const SnapshotSummary& s);
std::string summaryJson(const SnapshotSummary& s);

// Resident set size of this process in bytes (VmRSS), 0 when unavailable.
std::uint64_t residentBytes();

} // namespace stallscope
