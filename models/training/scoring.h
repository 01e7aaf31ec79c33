// SPDX-License-Identifier: MIT
#pragma once

// The reference answer of a generated exercise (from the simulator's truth, never from the analysis: the
// analysis is what the exercise trains people to check) and the score of a trainee's answer against it, with one
// sentence per part saying why it is right or wrong.

#include "sim/simulator.h"
#include "training/answer.h"
#include "training/exercise.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope::training {

struct Reference
{
    Verdict verdict = Verdict::Stretched;
    std::vector<LinkId> links; // culprit links (link faults among the culprits)
    std::vector<std::uint32_t> ranks; // culprit ranks (rank faults among the culprits)
    bool provable = true;
    std::optional<double> costGpuSeconds; // one occurrence, when the exercise asks for it (fabric stalls)
    std::optional<double> periodSeconds; // when the exercise asks for it
    TimeNs firstStallNs = kNoTime; // the culprit's first stall, for the walk-through
    std::vector<std::string> facts; // what really happened, one sentence each (shown after Check)
};

Reference referenceFor(const Exercise& e, const SimConfig& c, const SimResult& truth);

struct ScorePart
{
    std::string part; // "verdict", "culprit", "cost", "period", "hints"
    double got = 0;
    double max = 0;
    std::string why; // one or more sentences
};

struct Score
{
    std::vector<ScorePart> parts;
    double points() const;
    double maxPoints() const;
    int percent() const;
};

inline constexpr double kVerdictPoints = 30;
inline constexpr double kCulpritPoints = 40;
inline constexpr double kCostPoints = 20;
inline constexpr double kPeriodPoints = 10;
inline constexpr double kInnocentPenalty = 15; // per innocent link or rank named

Score scoreAnswer(
    const Exercise& e, const SimConfig& c, const SimResult& truth, const Reference& ref, const TraineeAnswer& answer);

std::string scoreToText(const Exercise& e, const Reference& ref, const Score& s);
std::string scoreToJson(const Exercise& e, const SimResult& truth, const Reference& ref, const Score& s);

} // namespace stallscope::training
