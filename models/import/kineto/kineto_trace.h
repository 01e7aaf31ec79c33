// SPDX-License-Identifier: MIT
#pragma once

// PyTorch profiler (Kineto) Chrome traces (docs/formats.md §3): NCCL kernels carrying their collective's args
// (Collective name, In msg nelems, dtype, Process Group Name, Seq), microsecond ts/dur relative to
// baseTimeNanoseconds (absolute epoch µs when it is missing), distributedInfo.rank. Each NCCL kernel becomes a
// completed collective record: arrival = the CPU record_param_comms op with the same External id (else the
// kernel start), start/end = the kernel. A collective still hung when the trace was flushed has no kernel
// record (CUPTI emits it on completion), so profiler traces show the run-up to a stall, not the stall.
// Parsed with simdjson On-Demand: traces are hundreds of MB.

#include "import/common/rank_records.h"

#include <optional>
#include <string>

namespace stallscope {

struct KinetoTrace
{
    std::optional<std::uint32_t> rank; // distributedInfo.rank
    std::uint32_t worldSize = 0;
    RankRecords collectives; // as a Flight Recorder dump would hold them (version "kineto")
    std::size_t kernels = 0; // NCCL kernels seen (with and without collective args)
};

bool looksLikeKinetoTrace(const std::string& text);
// A rank in a trace's file name, for traces without distributedInfo: "rank-3.json.gz", "rank3_trace.json",
// "sampled_rank_12.pt.trace.json" (the last "rank" followed by digits, case-insensitive).
std::optional<std::uint32_t> rankFromTraceFileName(const std::string& path);
// `text` must have at least 64 bytes of spare capacity (simdjson reads past the end; see import/common/file_bytes.h).
Result<KinetoTrace> parseKinetoTrace(const std::string& file, const std::string& text);

} // namespace stallscope
