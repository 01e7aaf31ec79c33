// SPDX-License-Identifier: MIT
// Profiler traces into a raw folder's facts.
#include "import/kineto/kineto_glue.h"

#include "core/job_snapshot.h"
#include "import/kineto/kineto_trace.h"

#include <algorithm>

namespace stallscope {

std::any parseTrace(const std::string& file, const std::string& text, const WarningHold& hold)
{
    auto t = parseKinetoTrace(file, text);
    if (t) {
        hold(t->collectives.warnings, file);
    }
    return t;
}

std::optional<LoadIssue> addTrace(
    FileInput& in, FolderSink& sink, std::vector<std::pair<std::string, RankRecords>>& traces, std::uint32_t& worldHint)
{
    auto& t = std::any_cast<Result<KinetoTrace>&>(in.parsed);
    if (!t) {
        return t.error();
    }
    const bool named = !t->rank;
    if (!t->rank) {
        t->rank = rankFromTraceFileName(in.path.string()); // rank-3.json.gz, rank3_trace.json, ...
        t->collectives.rank = t->rank;
    }
    if (!t->rank) {
        sink.warnings.push_back({ in.path.string(), 0, -1,
            "profiler trace without distributedInfo.rank and without a rank in its name: skipped" });
        return std::nullopt;
    }
    if (const auto bad = outsideAnyJob(*t->rank, in.path.string())) {
        return bad;
    }
    if (t->worldSize > JobInfo::kMaxWorldSize) {
        sink.warnings.push_back({ in.path.string(), 0, -1,
            "distributedInfo.world_size " + std::to_string(t->worldSize) + " is more ranks than any job has (over "
                + std::to_string(JobInfo::kMaxWorldSize) + "): not used" });
        t->worldSize = 0;
    }
    sink.warn(t->collectives.warnings);
    warnNothingJoinable(in.path.string(), *t->rank, t->collectives, t->kernels, true, sink.warnings);
    sink.note(in.path, "profiler trace",
        "rank " + std::to_string(*t->rank) + (named ? " (from the file name)" : "") + ", "
            + std::to_string(t->collectives.entries.size()) + " collectives from " + std::to_string(t->kernels)
            + " NCCL kernels"
            + (t->collectives.p2pSkipped ? ", " + std::to_string(t->collectives.p2pSkipped) + " send/recv skipped"
                                         : std::string())
            + (t->collectives.seqFromOrder ? ", matched by order (no Seq)" : ""));
    worldHint = std::max(worldHint, t->worldSize);
    traces.emplace_back(in.path.string(), std::move(t->collectives));
    return std::nullopt;
}

} // namespace stallscope
