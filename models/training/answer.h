// SPDX-License-Identifier: MIT
#pragma once

// A trainee's answer to an exercise (docs/training.md "answer.json"), and its score. The answer names links as
// a person reads them off the views ("gpu-a002 mlx5_5", "leaf-r5 port 3", "leaf-r5:3", "0xfc6a1c0300e40500:3");
// scoring resolves them against the exercise's fabric.

#include "core/job_snapshot.h"
#include "core/result.h"
#include "training/exercise.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope::training {

struct TraineeAnswer
{
    std::optional<Verdict> verdict;
    std::vector<std::string> links; // culprit link(s), by either end
    std::vector<std::uint32_t> ranks; // culprit rank(s), when a rank is at fault
    bool culpritUnprovable = false; // "the files cannot prove which link"
    std::optional<double> costGpuSeconds; // what one occurrence cost (GPU-seconds)
    std::optional<double> periodSeconds; // how often it recurs
    int hintsUsed = 0;
};

// answer.json ⇄ TraineeAnswer. Errors name the file and the field.
Result<TraineeAnswer, std::string> parseAnswer(const std::string& json, const std::string& file);
std::string answerToJson(const TraineeAnswer& a);

// A link named by one of its ends: "NODE", "NODE port P", "NODE pP", "NODE:P"; NODE is a node description
// (case-insensitive) or a GUID ("0x…"). The port may be left out for a node with one linked port (an HCA).
// Returns the link or a message saying what did not match.
Result<LinkId, std::string> resolveLinkName(const JobSnapshot& snap, const std::string& name);
// "gpu-a002 mlx5_5 port 1 <-> leaf-r5 port 3"
std::string linkName(const JobSnapshot& snap, LinkId link);

} // namespace stallscope::training
