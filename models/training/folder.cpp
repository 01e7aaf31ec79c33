// SPDX-License-Identifier: MIT
#include "training/folder.h"

#include "core/atomic_file.h"
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
    return j.dump(1) + "\n";
}

Result<ExerciseSheet, std::string> parseSheet(const std::string& text, const std::string& file)
{
    try {
        const auto j = nlohmann::json::parse(text);
        if (!j.is_object() || j.value("format", "") != "stallscope-exercise") {
            return file + ": not an exercise sheet (expected \"format\": \"stallscope-exercise\")";
        }
        ExerciseSheet s;
        s.id = j.at("id").get<std::string>();
        s.title = j.value("title", "");
        s.level = j.value("level", 1);
        s.seed = j.at("seed").get<std::uint64_t>();
        s.libraryVersion = j.value("library_version", 0);
        s.briefing = j.value("briefing", "");
        s.hints = j.value("hints", std::size_t(0));
        for (const auto& w : j.value("withheld", nlohmann::json::array())) {
            for (auto src : { Source::Counters, Source::SmLog, Source::RankLogs, Source::Topology, Source::HostLogs }) {
                if (w.is_string() && w.get<std::string>() == toString(src)) {
                    s.withheld.push_back(src);
                }
            }
        }
        return s;
    } catch (const nlohmann::json::exception& e) {
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
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return path + ": cannot read (is " + dir + " a folder made by `stallscope exercise new`?)";
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return parseSheet(ss.str(), path);
}

} // namespace stallscope::training
