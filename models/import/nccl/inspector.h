// SPDX-License-Identifier: MIT
#pragma once

// NCCL Inspector (NCCL's profiler plugin, plugins/profiler/inspector, 2.23+): one file per process,
// `<hostname>-pid<pid>.log`, holding one compact JSON object per line and per completed collective (or p2p
// operation): the communicator (`header`: hash id, comm_name, rank within it, n_ranks, nnodes), the writer
// (`metadata`: format version, hostname, pid, dump_timestamp_us — when the line was written, epoch µs) and the
// operation (`coll_perf`: coll, coll_sn, message bytes, execution µs, timing source, bandwidths; with
// NCCL_INSPECTOR_DUMP_VERBOSE=1 also `event_trace_ts`, the collective's and each channel's kernel start and
// stop in epoch µs). docs/formats.md §7a. Parsed with simdjson On-Demand line by line: a file grows by
// 200–500 bytes per collective, so a long job's is hundreds of MB.

#include "core/collectives.h"
#include "core/result.h"

#include <string>
#include <vector>

namespace stallscope {

struct InspectorComm
{
    std::string id; // header.id: NCCL's communicator hash, "0x7f8c496ae9f661"
    std::string name; // header.comm_name ("unknown" when the application named none)
    std::uint32_t rank = 0; // this process's rank within the communicator
    std::uint32_t size = 0; // n_ranks
    std::uint32_t nodes = 0; // nnodes
};

struct InspectorRecord
{
    std::uint32_t comm = 0; // index into InspectorFile::comms
    CollectiveOp op = CollectiveOp::Other;
    std::uint64_t sn = 0; // NCCL's per-communicator, per-operation sequence number: (comm, op, sn) matches ranks
    std::uint64_t bytes = 0; // coll_msg_size_bytes
    std::int64_t execUs = -1; // coll_exec_time_us
    bool gpuTimed = true; // coll_timing_source "kernel_gpu" (absent before format v4: GPU)
    TimeNs dumpNs = kNoTime; // metadata.dump_timestamp_us: the line was written then, so it completed before
    // Verbose lines only (event_trace_ts): when the collective was issued, its first kernel started, its last
    // stopped (host clock, gettimeofday, as every rank's other timestamps).
    TimeNs enqueueNs = kNoTime, startNs = kNoTime, endNs = kNoTime;
};

struct InspectorFile
{
    std::string version; // inspector_output_format_version, "v4.0"
    std::string host; // metadata.hostname
    std::int64_t pid = -1;
    std::vector<InspectorComm> comms; // in order of first appearance
    std::vector<InspectorRecord> records; // collectives, in file order
    std::size_t p2p = 0; // p2p_perf lines: counted, not records
    std::size_t verbose = 0; // records carrying event_trace_ts
    std::vector<LoadIssue> warnings; // bad lines (cut mid-write, not JSON, fields missing), grouped
};

// A line starting "{\"header\":" and the format's version key within the first lines.
bool looksLikeNcclInspector(const std::string& text);

// Every line of the file; lines that are not Inspector records are warnings (grouped: the count and the first
// line), the rest still read. An error only when no line is one. `text` must carry simdjson's padding
// (import/common/file_bytes.h).
Result<InspectorFile> parseNcclInspector(const std::string& file, const std::string& text);

} // namespace stallscope
