// SPDX-License-Identifier: MIT
#include "training/folder.h"
#include "core/json_depth.h"
#include "core/json_text.h"

#include "core/atomic_file.h"
#include "core/document_file.h"
#include "sim/raw_writer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace stallscope::training {

namespace fs = std::filesystem;

namespace {

// The files of a raw folder (sim/raw_writer.h) each source is made of.
bool belongsTo(Source s, const std::string& name)
{
    switch (s) {
    case Source::Counters:
        return name.starts_with("counters-") || name == "switch-counters.prom";
    case Source::SmLog:
        return name == "opensm.log";
    case Source::RankLogs:
        return name.starts_with("rank") && name.ends_with(".log");
    case Source::Topology:
        return name == "ibnetdiscover.txt";
    case Source::HostLogs:
        return name == "slurm-job.out" || name.starts_with("kern");
    }
    return false;
}

} // namespace

ExerciseSheet sheetFor(const ExerciseLibrary& lib, const Exercise& e, std::uint64_t seed)
{
    return { e.id, e.title, e.level, seed, lib.version, e.briefing, e.withheld, e.hints.size() };
}

std::string sheetToJson(const ExerciseSheet& s)
{
    nlohmann::ordered_json j;
    j["format"] = "stallscope-exercise";
    j["version"] = 1;
    j["id"] = s.id;
    j["title"] = s.title;
    j["level"] = s.level;
    j["seed"] = s.seed;
    j["library_version"] = s.libraryVersion;
    j["briefing"] = s.briefing;
    j["withheld"] = nlohmann::ordered_json::array();
    for (const auto w : s.withheld) {
        j["withheld"].push_back(std::string(toString(w)));
    }
    j["hints"] = s.hints;
    return jsonText(j, 1) + "\n";
}

Result<ExerciseSheet, std::string> parseSheet(const std::string& text, const std::string& file)
{
    try {
        const auto j = parseJsonFile(text);
        if (!j.is_object() || !j.contains("format") || j.at("format") != "stallscope-exercise") {
            return file + ": not an exercise sheet (expected \"format\": \"stallscope-exercise\")";
        }
        // Whole numbers only: nlohmann converts a float to an integer with a plain cast, undefined when it is out
        // of range, so every number is checked for its kind and range before it is taken.
        auto whole = [&](const char* key, std::uint64_t max, bool required) -> std::optional<std::uint64_t> {
            if (!j.contains(key)) {
                if (required) {
                    throw std::runtime_error(std::string(key) + ": missing");
                }
                return std::nullopt;
            }
            const auto& v = j.at(key);
            if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max) {
                throw std::runtime_error(std::string(key) + ": expected a whole number up to " + std::to_string(max));
            }
            return v.get<std::uint64_t>();
        };
        auto text = [&](const char* key) {
            if (j.contains(key) && !j.at(key).is_string()) {
                throw std::runtime_error(std::string(key) + ": expected a string");
            }
            return j.contains(key) ? j.at(key).get<std::string>() : std::string();
        };
        ExerciseSheet s;
        s.id = text("id");
        if (s.id.empty()) {
            throw std::runtime_error("id: missing");
        }
        s.title = text("title");
        s.briefing = text("briefing");
        s.seed = *whole("seed", std::uint64_t(1) << 63, true);
        s.level = static_cast<int>(whole("level", 5, false).value_or(1));
        s.libraryVersion = static_cast<int>(whole("library_version", 1'000'000, false).value_or(0));
        s.hints = whole("hints", 1000, false).value_or(0);
        if (j.contains("withheld") && j.at("withheld").is_array()) {
            for (const auto& w : j.at("withheld")) {
                for (auto src :
                    { Source::Counters, Source::SmLog, Source::RankLogs, Source::Topology, Source::HostLogs }) {
                    if (w.is_string() && w.get<std::string>() == toString(src)) {
                        s.withheld.push_back(src);
                    }
                }
            }
        }
        return s;
    } catch (const nlohmann::json::exception& e) {
        return file + ": " + e.what();
    } catch (const std::runtime_error& e) {
        return file + ": " + e.what();
    }
}

Result<SimResult, std::string> writeExerciseFolder(
    const ExerciseLibrary& lib, const Exercise& e, std::uint64_t seed, const std::string& dirName, Progress& progress)
{
    const fs::path dir(dirName);
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
        return dirName + ": exists and is not empty (an exercise goes into a new folder)";
    }
    const auto config = simConfigFor(e, seed);
    auto sim = simulate(config, progress);
    if (!sim) {
        return "exercise " + e.id + ": " + sim.error();
    }
    const fs::path staging = dir.parent_path() / (dir.filename().string() + ".partial-" + std::to_string(::getpid()));
    fs::remove_all(staging, ec);
    auto fail = [&](const std::string& why) -> Result<SimResult, std::string> {
        fs::remove_all(staging, ec);
        return why;
    };
    RawWriteOptions raw;
    if (auto err = writeRawFolder(*sim->snapshot, staging.string(), raw); !err.empty()) {
        return fail(err);
    }
    // The simulator's net file is its input, not something a cluster leaves behind.
    fs::remove(staging / "fabric.net", ec);
    for (const auto& entry : fs::directory_iterator(staging, ec)) {
        const auto name = entry.path().filename().string();
        for (const auto s : e.withheld) {
            if (belongsTo(s, name)) {
                fs::remove(entry.path(), ec);
            }
        }
    }
    if (auto err = writeFileAtomic((staging / kExerciseSheet).string(), sheetToJson(sheetFor(lib, e, seed)));
        !err.empty()) {
        return fail(err);
    }
    if (fs::exists(dir)) {
        fs::remove(dir, ec); // empty, checked above
    }
    fs::rename(staging, dir, ec);
    if (ec) {
        return fail(dirName + ": cannot move the exercise into place: " + ec.message());
    }
    return std::move(sim.value());
}

Result<ExerciseSheet, std::string> readExerciseFolder(const std::string& dir)
{
    const auto path = (fs::path(dir) / kExerciseSheet).string();
    if (auto bad = notAPlainFile(path)) {
        return bad->format() + " (is " + dir + " a folder made by `stallscope exercise new`?)";
    }
    auto text = readDocument(path, kSmallDocumentBytes, "exercise sheet");
    if (!text) {
        return text.error().format();
    }
    return parseSheet(text.value(), path);
}

} // namespace stallscope::training
