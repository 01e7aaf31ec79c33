// SPDX-License-Identifier: MIT
// `stallscope exercise list|new|hint|check`: training exercises for a class (docs/training.md). An instructor
// hands out folders made by `new` (raw files, no answer) and grades answers with `check`, which regenerates the
// incident from the folder's exercise id and seed.
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "core/document_file.h"
#include "core/json_text.h"

#include "analysis/analysis.h"
#include "core/printable.h"
#include "core/progress.h"
#include "import/open_job.h"
#include "training/answer.h"
#include "training/folder.h"
#include "training/scoring.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <fstream>
#include <ostream>
#include <sstream>

namespace stallscope::cli {

namespace {

using namespace training;

const std::vector<OptionSpec> kSpecs = {
    { "library", true, "an exercise library (JSON, docs/training.md) instead of the built-in one" },
    { "out", true, "new: the folder to create (must not exist, or be empty)" },
    { "seed", true, "new: a variant of the exercise (noise, and the faulty rank or link moved); default: its own" },
    { "answer", true, "check: the trainee's answer.json" },
    { "json", false, "list, check: print JSON" },
};

std::string usage()
{
    return "Usage: stallscope exercise list [--json]\n"
           "       stallscope exercise new NAME --out DIR [--seed N]\n"
           "       stallscope exercise hint DIR [N]\n"
           "       stallscope exercise check DIR --answer answer.json [--json]\n"
           "Training exercises: simulated incidents with a hidden answer. `new` writes the folder of raw files a\n"
           "cluster would have left behind (some sources withheld, as the exercise says) and exercise.json (the\n"
           "briefing); open it in the window (Training menu) or with any command. `check` scores an answer and\n"
           "explains each part, then shows what the analysis finds in the folder.\n\n"
           "Options:\n"
        + formatOptions(kSpecs)
        + "\nanswer.json: {\"verdict\": \"stretched|crashed|no_fabric_fault|slowed\", \"links\": [\"leaf-r5 port "
          "3\"],\n"
          "              \"ranks\": [33], \"culprit_unprovable\": false, \"cost_gpu_seconds\": 275,\n"
          "              \"period_seconds\": 3600, \"hints_used\": 0}\n"
          "\nExit codes: 0 ok, 1 bad input, 2 usage error.\n";
}

Result<ExerciseLibrary, std::string> library(const ParsedArgs& a)
{
    if (const auto* path = a.find("library")) {
        const auto text = readDocument(*path, kSmallDocumentBytes, "exercise library");
        if (!text) {
            return text.error().format();
        }
        return parseExerciseLibrary(text.value(), *path);
    }
    return builtinExercises();
}

std::string levelName(int level)
{
    static const char* names[] = { "first day", "beginner", "intermediate", "advanced", "expert" };
    return names[std::clamp(level, 1, 5) - 1];
}

int list(const ExerciseLibrary& lib, const ParsedArgs& a, std::ostream& out)
{
    if (a.has("json")) {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& e : lib.exercises) {
            j.push_back({ { "id", e.id }, { "title", e.title }, { "level", e.level }, { "hints", e.hints.size() } });
        }
        out << jsonText(j, 1) << "\n";
        return kExitOk;
    }
    out << "Exercises (" << lib.origin << ", version " << lib.version << ")\n";
    for (const auto& e : lib.exercises) {
        std::string id = e.id;
        id.resize(std::max<std::size_t>(id.size() + 1, 15), ' ');
        std::string level = "level " + std::to_string(e.level) + " (" + levelName(e.level) + ")";
        level.resize(std::max<std::size_t>(level.size() + 1, 24), ' ');
        out << "  " << id << level << e.title << "\n";
    }
    out << "\nstallscope exercise new NAME --out DIR   makes one; open DIR in the window or with analyze.\n";
    return kExitOk;
}

int makeNew(const ExerciseLibrary& lib, const ParsedArgs& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 2 || !a.has("out")) {
        err << "stallscope exercise new: expected NAME and --out DIR\n" << usage();
        return kExitUsage;
    }
    const auto* e = lib.find(a.positional[1]);
    if (!e) {
        err << "stallscope exercise new: no exercise \"" << a.positional[1] << "\" (stallscope exercise list)\n";
        return kExitUsage;
    }
    std::uint64_t seed = e->sim.seed;
    if (const auto* s = a.find("seed")) {
        const auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), seed);
        if (ec != std::errc {} || p != s->data() + s->size()) {
            err << "stallscope exercise new: --seed: expected a whole number\n";
            return kExitUsage;
        }
    }
    NullProgress progress;
    const auto dir = a.last("out");
    auto made = writeExerciseFolder(lib, *e, seed, dir, progress);
    if (!made) {
        err << "stallscope exercise new: " << made.error() << "\n";
        return kExitBadInput;
    }
    out << "Wrote exercise " << e->id << " (" << e->title << ", seed " << seed << ") to " << dir << "\n\n"
        << e->briefing << "\n\nOpen it: stallscope " << dir
        << "   (the window hides the analysis until Check; hints: stallscope exercise hint " << dir << ")\n";
    return kExitOk;
}

Result<std::pair<ExerciseSheet, const Exercise*>, std::string> sheetAndExercise(
    const ExerciseLibrary& lib, const std::string& dir)
{
    auto sheet = readExerciseFolder(dir);
    if (!sheet) {
        return sheet.error();
    }
    const auto* e = lib.find(sheet.value().id);
    if (!e) {
        return dir + ": exercise \"" + sheet.value().id + "\" is not in the library (" + lib.origin
            + "): pass the one it came from with --library";
    }
    return std::pair { sheet.value(), e };
}

int hint(const ExerciseLibrary& lib, const ParsedArgs& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() < 2 || a.positional.size() > 3) {
        err << "stallscope exercise hint: expected DIR [N]\n";
        return kExitUsage;
    }
    auto found = sheetAndExercise(lib, a.positional[1]);
    if (!found) {
        err << "stallscope exercise hint: " << found.error() << "\n";
        return kExitBadInput;
    }
    const auto* e = found.value().second;
    std::size_t n = 1;
    if (a.positional.size() == 3) {
        const auto& s = a.positional[2];
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        if (ec != std::errc {} || p != s.data() + s.size() || n < 1) {
            err << "stallscope exercise hint: N: expected 1, 2, ...\n";
            return kExitUsage;
        }
    }
    if (n > e->hints.size()) {
        out << "No hint " << n << ": this exercise has " << e->hints.size() << ".\n";
        return kExitOk;
    }
    out << "Hint " << n << " of " << e->hints.size() << " (costs " << kHintCost
        << " points: count it in \"hints_used\"): " << e->hints[n - 1] << "\n";
    return kExitOk;
}

// What the analysis finds in the trainee's folder: the walk-through after the score.
std::string analysisOfFolder(const std::string& dir)
{
    NullProgress progress;
    auto job = openJob(dir, progress);
    if (!job) {
        return "  (the folder could not be opened: " + job.error().message + ")\n";
    }
    const auto result = analyze(*job.value().snapshot);
    if (result.incidents.empty() && result.degradedLinks.empty()) {
        return "  no incident found\n";
    }
    std::string s;
    for (const auto& inc : result.incidents) {
        s += incidentText(*job.value().snapshot, inc) + "\n";
    }
    for (const auto& d : result.degradedLinks) {
        s += "  degraded link " + d.a.node + " port " + std::to_string(d.a.port) + " <-> " + d.b.node + " port "
            + std::to_string(d.b.port) + ": " + d.rate + " (" + d.why + ")\n";
    }
    return s;
}

int check(const ExerciseLibrary& lib, const ParsedArgs& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 2 || !a.has("answer")) {
        err << "stallscope exercise check: expected DIR and --answer answer.json\n" << usage();
        return kExitUsage;
    }
    const auto& dir = a.positional[1];
    auto found = sheetAndExercise(lib, dir);
    if (!found) {
        err << "stallscope exercise check: " << found.error() << "\n";
        return kExitBadInput;
    }
    const auto& [sheet, e] = found.value();
    const auto answerPath = a.last("answer");
    const auto answerText = readDocument(answerPath, kSmallDocumentBytes, "trainee's answer");
    if (!answerText) {
        err << "stallscope exercise check: " << answerText.error().format() << "\n";
        return kExitBadInput;
    }
    auto answer = parseAnswer(answerText.value(), answerPath);
    if (!answer) {
        err << "stallscope exercise check: " << answer.error() << "\n";
        return kExitBadInput;
    }
    if (sheet.libraryVersion != lib.version) {
        err << "stallscope exercise check: warning: the folder was made with library version " << sheet.libraryVersion
            << ", this is version " << lib.version << "\n";
    }
    const auto config = simConfigFor(*e, sheet.seed);
    NullProgress progress;
    auto truth = simulate(config, progress);
    if (!truth) {
        err << "stallscope exercise check: " << truth.error() << "\n";
        return kExitBadInput;
    }
    const auto ref = referenceFor(*e, config, truth.value());
    const auto score = scoreAnswer(*e, config, truth.value(), ref, answer.value());
    if (a.has("json")) {
        out << scoreToJson(*e, truth.value(), ref, score);
        return kExitOk;
    }
    out << scoreToText(*e, ref, score) << "\nWhat the analysis finds in " << printable(dir) << "\n"
        << printable(analysisOfFolder(dir), true);
    return kExitOk;
}

} // namespace

int runExercise(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    if (!parsed.error.empty() || parsed.positional.empty()) {
        err << "stallscope exercise: " << (parsed.error.empty() ? "expected list, new, hint or check" : parsed.error)
            << "\n"
            << usage();
        return kExitUsage;
    }
    auto lib = library(parsed);
    if (!lib) {
        err << "stallscope exercise: " << lib.error() << "\n";
        return kExitBadInput;
    }
    const auto& verb = parsed.positional[0];
    if (verb == "list") {
        return list(lib.value(), parsed, out);
    }
    if (verb == "new") {
        return makeNew(lib.value(), parsed, out, err);
    }
    if (verb == "hint") {
        return hint(lib.value(), parsed, out, err);
    }
    if (verb == "check") {
        return check(lib.value(), parsed, out, err);
    }
    err << "stallscope exercise: unknown action \"" << verb << "\" (list, new, hint, check)\n";
    return kExitUsage;
}

} // namespace stallscope::cli
