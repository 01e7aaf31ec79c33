// SPDX-License-Identifier: MIT
#pragma once

// Internal to the rank-log reader (rank_log.cpp, log_split.cpp): the prefixes a launcher and NCCL put before a
// log line (docs/formats.md §2a, §2c).

#include "import/common/line_scan.h"
#include "import/common/log_clock.h"

#include <array>
#include <optional>
#include <string_view>

namespace stallscope::logs {

// Where the text after a launcher's prefix begins: srun -l "12: " (padded: " 7: "), torchrun --tee "[default5]:", Ray
// "(WorkerDict pid=3490362) " or "(RayTrainWorker pid=12, ip=10.0.0.5) ", Open MPI "[1,12]<stdout>:".
inline std::size_t afterLauncherPrefix(std::string_view line)
{
    LineScan s(line);
    // srun pads its labels to the widest task id (" 7: " among 64 tasks, Slurm's "%*d: ").
    if (const auto p = s.pos(); (s.skipSpaces(), s.digits(10).empty()) || !s.lit(": ")) {
        s.seek(p);
    }
    const auto p = s.pos();
    if (s.lit("[default")) {
        if (!s.digits(10).empty() && s.lit("]:")) {
            return s.pos();
        }
    } else if (s.lit("(")) {
        s.word();
        if (s.lit(" pid=") && !s.digits(10).empty()) {
            s.until(")");
            if (s.lit(") ")) {
                return s.pos();
            }
        }
    } else if (s.lit("[")) {
        if (!s.digits(10).empty() && s.lit(",") && !s.digits(10).empty()
            && (s.lit("]<stdout>:") || s.lit("]<stderr>:"))) {
            s.lit(" ");
            return s.pos();
        }
    }
    return p;
}

// NCCL's prefix: "[2025-06-01 12:00:31] " (optional) then "host:pid:tid [dev] ".
struct NcclPrefix
{
    std::string_view host;
    std::string_view pid;
    int dev = 0;
    TimeNs when = kNoTime;
};

// NCCL's prefix at the cursor (the cursor moves past it), or nullopt with the cursor unchanged.
inline std::optional<NcclPrefix> ncclPrefixAt(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    NcclPrefix p;
    if (s.lit("[")) {
        const auto y = s.fixed(4);
        std::array<std::optional<int>, 5> f;
        if (y && s.lit("-") && (f[0] = s.fixed(2)) && s.lit("-") && (f[1] = s.fixed(2)) && s.lit(" ")
            && (f[2] = s.fixed(2)) && s.lit(":") && (f[3] = s.fixed(2)) && s.lit(":") && (f[4] = s.fixed(2))
            && s.lit("] ")) {
            p.when = logTimeNs(clock, *y, *f[0], *f[1], *f[2], *f[3], *f[4], 0);
        } else {
            s.seek(start);
        }
    }
    p.host = s.word();
    if (!p.host.empty() && s.lit(":")) {
        p.pid = s.digits();
        if (!p.pid.empty() && s.lit(":") && !s.digits().empty() && s.lit(" [")) {
            if (const auto dev = s.number<int>(); dev && s.lit("] ")) {
                p.dev = *dev;
                return p;
            }
        }
    }
    s.seek(start);
    return std::nullopt;
}

} // namespace stallscope::logs
