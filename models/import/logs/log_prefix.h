// SPDX-License-Identifier: MIT
#pragma once

// Internal to the rank-log reader (rank_log.cpp, log_split.cpp): the prefixes a launcher and NCCL put before a
// log line (docs/formats.md §2a).

#include "import/common/line_scan.h"
#include "import/common/log_clock.h"

#include <array>
#include <cctype>
#include <optional>
#include <string_view>

namespace stallscope::logs {

// The length of Open MPI's `--timestamp-output` stamp before its "[1,12]<stdout>:" tag: ctime's fixed 24 characters
// "Mon Aug  5 12:50:21 2026", directly followed by "[". 0 when the line does not start so. The stamp is the launcher
// host's local time without a zone, so it is skipped, not read as a time.
inline std::size_t ompiTimestampLength(std::string_view line)
{
    constexpr std::string_view shape = "aaa aaa dd dd:dd:dd dddd[";
    if (line.size() < shape.size()) {
        return 0;
    }
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        // ASCII tests, not std::isalpha: a library call per line of every log.
        const bool ok = shape[i] == 'a' ? (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            : shape[i] == 'd'           ? (c >= '0' && c <= '9') || (i == 8 && c == ' ')
                                        : line[i] == shape[i];
        if (!ok) {
            return 0;
        }
    }
    return shape.size() - 1;
}

// Where the text after a launcher's prefix begins: srun -l "12: " (padded: " 7: "), torchrun --tee "[default5]:", Ray
// "(WorkerDict pid=3490362) " or "(RayTrainWorker pid=12, ip=10.0.0.5) ", Open MPI "[1,12]<stdout>:" (behind its
// --timestamp-output stamp).
inline std::size_t afterLauncherPrefix(std::string_view line)
{
    LineScan s(line, ompiTimestampLength(line));
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
