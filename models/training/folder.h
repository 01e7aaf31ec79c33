// SPDX-License-Identifier: MIT
#pragma once

// An exercise handed out as a folder (docs/training.md): the raw files a cluster would have left behind, minus
// the sources the exercise withholds, and exercise.json — which exercise, which seed, the briefing — with no
// answer in it. `exercise check` regenerates the incident from the id and seed to score an answer.

#include "core/progress.h"
#include "core/result.h"
#include "sim/simulator.h"
#include "training/exercise.h"

#include <string>

namespace stallscope::training {

inline constexpr const char* kExerciseSheet = "exercise.json";

struct ExerciseSheet
{
    std::string id;
    std::string title;
    int level = 1;
    std::uint64_t seed = 0;
    int libraryVersion = 0;
    std::string briefing;
    std::vector<Source> withheld;
    std::size_t hints = 0; // how many the exercise offers
};

std::string sheetToJson(const ExerciseSheet& s);
Result<ExerciseSheet, std::string> parseSheet(const std::string& json, const std::string& file);
ExerciseSheet sheetFor(const ExerciseLibrary& lib, const Exercise& e, std::uint64_t seed);

// Simulates the exercise (seed as simConfigFor takes it) and writes its folder. `dir` must not exist or be
// empty; the folder is built beside it and renamed into place, so a failure leaves nothing half-written.
// Returns the simulation (for the caller's reference answer) or an error naming the path.
Result<SimResult, std::string> writeExerciseFolder(
    const ExerciseLibrary& lib, const Exercise& e, std::uint64_t seed, const std::string& dir, Progress& progress);

// Reads DIR/exercise.json.
Result<ExerciseSheet, std::string> readExerciseFolder(const std::string& dir);

} // namespace stallscope::training
