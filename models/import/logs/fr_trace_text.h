// SPDX-License-Identifier: MIT
#pragma once

// What PyTorch's Flight Recorder analyzer printed, saved to a file (docs/formats.md §2f): the output of
// `python -m torch.distributed.flight_recorder.fr_trace <dumps>` or `torchfrtrace` (and of the older
// tools/flight_recorder/fr_trace.py). It matches every rank's dump and says which ranks never joined a collective,
// which rank's collective disagrees with the others' (the culprit and the error type), where all-to-all sizes do
// not add up, and which ranks it had no dump from. Each record is an anchor line ("Not all ranks joining
// collective, sequence number: 57") followed by field lines ("group info: 0:default_pg", "missing ranks: {3, 5}").
// Lines may carry a logging prefix ("INFO:Flight Recorder:", a timestamp), indentation or "> " quote markers: keys
// are found where they start a word. Hand-written scanning (no regex), linear in each line.

#include "core/log_facts.h"
#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// One conclusion of the analyzer about one rank (or about no rank in particular: an all-to-all size mismatch).
struct FrTraceFact
{
    LogEventKind kind = LogEventKind::AnalyzerMissingRank; // one of the Analyzer kinds (core/log_facts.h)
    std::uint32_t rank = 0xffffffffu; // global rank; kNoRank (job_snapshot.h) when the record names none
    std::int64_t seq = -1; // the collective's sequence number, -1 when the wording gives none
    std::string pg; // "group info" as printed: "0:default_pg", or the group's name alone
    std::string op; // the collective as Flight Recorder names it: "nccl:all_reduce"
    std::string text; // what was wrong: the error type and its detail, the sizes, the state
    std::int64_t line = 0; // the line that names the rank (the anchor when none does)
};

struct FrTraceText
{
    std::vector<FrTraceFact> facts;
    std::vector<LoadIssue> warnings;
    // The highest global rank the output names (missing, culprit and expected ranks): the job has at least this
    // many plus one ranks. Ranks at or past JobInfo::kMaxWorldSize are warned about and left out.
    std::optional<std::uint32_t> topRank;
};

// An anchor line of the analyzer ("Not all ranks joining collective", "Collective sequence number: N has errors",
// "Input/output mismatch in the collective ...") followed within a few lines by one of its field lines, the
// oldest one-line form with "Missing ranks are {...}", or its "We cannot decide ... missed FR dumps from ranks" line.
bool looksLikeFrTraceText(const std::string& text);

// The analyzer's findings; an error naming the file when the text holds none of its records.
Result<FrTraceText> parseFrTraceText(const std::string& file, const std::string& text);

} // namespace stallscope
