// SPDX-License-Identifier: MIT
#pragma once

// Training exercises (docs/training.md): a simulated incident with a hidden answer. An exercise names the
// simulator's settings and faults, what the trainee is told (the briefing) and given (some sources withheld),
// hints, and which of its faults is the culprit; the reference answer's figures (cost, period) are taken from
// the simulator's truth when the exercise is checked, so a library entry cannot drift from its incident.
// The library is JSON: the one shipped in the app (resources/exercises.json, compiled in) or an instructor's.

#include "core/result.h"
#include "sim/config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::training {

// What the trainee concludes about the incident as a whole.
enum class Verdict {
    Stretched, // a fabric fault stalled the job under NCCL's retry budget: no error, the collective stretched
    Crashed, // a fabric fault outlasted the retry budget: transport errors, the job died
    NoFabricFault, // the stall or slowdown came from a rank (dead, slow), not from a link
    Slowed, // a degraded link slows every collective: no stall band, a persistent straggler pattern
};
std::string_view toString(Verdict v); // "stretched", "crashed", "no_fabric_fault", "slowed"
std::optional<Verdict> verdictFromString(std::string_view s);
std::string_view describe(Verdict v); // one sentence for people

// Sources a raw incident folder holds; an exercise may withhold some to teach what each one shows.
enum class Source { Counters, SmLog, RankLogs, Topology, HostLogs };
std::string_view toString(Source s); // "counters", "sm_log", "rank_logs", "topology", "host_logs"

struct Exercise
{
    std::string id; // "first-flap": the name `exercise new` takes
    std::string title;
    int level = 1; // 1 first day .. 5 expert
    std::string briefing; // written like a page
    SimConfig sim; // preset + overrides + faults, with the exercise's default seed
    std::vector<Source> withheld;
    std::vector<std::string> hints; // in the order they are given; each one costs kHintCost points
    Verdict verdict = Verdict::Stretched;
    std::vector<std::uint32_t> culpritFaults; // indexes into sim.faults
    bool culpritProvable = true; // false: the files cannot prove which link (the right answer says so)
    bool askPeriod = false; // the trainee should give the flap period
    std::string lesson; // what the exercise teaches, shown after Check
    std::string analysisNote; // why the analysis deliberately disagrees with the answer, if it does
};

struct ExerciseLibrary
{
    int version = 0; // of the library's content; an exercise folder records it
    std::string origin; // "built-in" or the file it was read from
    std::vector<Exercise> exercises;

    const Exercise* find(const std::string& id) const;
};

inline constexpr int kHintCost = 5; // points

// Parses a library. Errors name the origin, the exercise and the field ("exercises[3] (dead-rank): simulate.faults[0]:
// unknown fault kind ...").
Result<ExerciseLibrary, std::string> parseExerciseLibrary(const std::string& json, const std::string& origin);

// The library shipped with the app.
const ExerciseLibrary& builtinExercises();

// The exercise's simulation for a seed. The exercise's own seed gives its reference incident; another seed
// gives a variant: different noise, and the faulty rank or link moved by a seed-derived offset (every fault by
// the same one, so two faults stay distinct), so a class cannot share answers.
SimConfig simConfigFor(const Exercise& e, std::uint64_t seed);

} // namespace stallscope::training
