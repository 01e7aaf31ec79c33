// SPDX-License-Identifier: MIT
// The exercise library's JSON (docs/training.md): parsed strictly, every error naming where it is.
#include "training/exercise.h"
#include "core/json_depth.h"

#include <nlohmann/json.hpp>

#include <set>

namespace stallscope::training {

std::string_view toString(Verdict v)
{
    switch (v) {
    case Verdict::Stretched:
        return "stretched";
    case Verdict::Crashed:
        return "crashed";
    case Verdict::NoFabricFault:
        return "no_fabric_fault";
    case Verdict::Slowed:
        return "slowed";
    }
    return "stretched";
}

std::optional<Verdict> verdictFromString(std::string_view s)
{
    for (auto v : { Verdict::Stretched, Verdict::Crashed, Verdict::NoFabricFault, Verdict::Slowed }) {
        if (s == toString(v)) {
            return v;
        }
    }
    return std::nullopt;
}

std::string_view describe(Verdict v)
{
    switch (v) {
    case Verdict::Stretched:
        return "a link fault stalled every rank, under NCCL's retry budget: the collective stretched, nothing "
               "errored";
    case Verdict::Crashed:
        return "a link fault outlasted NCCL's retry budget: transport errors, and the job died";
    case Verdict::NoFabricFault:
        return "no link is at fault: a rank stopped or slowed and the others waited for it";
    case Verdict::Slowed:
        return "a degraded link slows every collective that crosses it: no stall, a persistent slowdown";
    }
    return {};
}

std::string_view toString(Source s)
{
    switch (s) {
    case Source::Counters:
        return "counters";
    case Source::SmLog:
        return "sm_log";
    case Source::RankLogs:
        return "rank_logs";
    case Source::Topology:
        return "topology";
    case Source::HostLogs:
        return "host_logs";
    }
    return "counters";
}

const Exercise* ExerciseLibrary::find(const std::string& id) const
{
    for (const auto& e : exercises) {
        if (e.id == id) {
            return &e;
        }
    }
    return nullptr;
}

namespace {

using nlohmann::json;

// Thrown inside the parser with the path of the bad field; caught once at the top.
struct BadField
{
    std::string where, what;
};

std::string str(const json& j, const char* key, const std::string& where, bool required = true)
{
    if (!j.contains(key)) {
        if (required) {
            throw BadField { where + "." + key, "missing" };
        }
        return {};
    }
    if (!j.at(key).is_string()) {
        throw BadField { where + "." + key, "expected a string" };
    }
    return j.at(key).get<std::string>();
}

template <typename T> T integer(const json& j, const char* key, const std::string& where, T lo, T hi)
{
    const auto& v = j.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < std::int64_t(lo)
        || v.get<std::int64_t>() > std::int64_t(hi)) {
        throw BadField { where + "." + key,
            "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) };
    }
    return static_cast<T>(v.get<std::int64_t>());
}

TimeNs duration(const json& j, const char* key, const std::string& where)
{
    const auto text = str(j, key, where);
    const auto d = parseDuration(text);
    if (!d) {
        throw BadField { where + "." + key, "expected a duration like 8m, 2s or 500ms, got \"" + text + "\"" };
    }
    return *d;
}

SimConfig simulation(const json& s, const std::string& where)
{
    if (!s.is_object()) {
        throw BadField { where, "expected an object" };
    }
    const auto presetName = s.contains("preset") ? str(s, "preset", where) : std::string("small");
    auto c = presetConfig(presetName);
    if (!c) {
        throw BadField { where + ".preset", "unknown preset \"" + presetName + "\"" };
    }
    static const std::set<std::string> known = { "preset", "seed", "job_name", "hosts", "spines", "duration", "step",
        "collectives_per_step", "bucket_bytes", "counter_interval", "clock_skew", "data_counter_bits", "link_events",
        "collective_timeout", "nccl_ib_timeout", "faults" };
    for (const auto& [key, value] : s.items()) {
        if (!known.count(key)) {
            throw BadField { where + "." + key, "unknown setting" };
        }
    }
    if (s.contains("seed")) {
        c->seed = integer<std::uint64_t>(s, "seed", where, 0, 1ULL << 53);
    }
    if (s.contains("job_name")) {
        c->jobName = str(s, "job_name", where);
    }
    if (s.contains("hosts")) {
        c->hosts = integer<std::uint32_t>(s, "hosts", where, 2, 4096);
    }
    if (s.contains("spines")) {
        c->spines = integer<std::uint32_t>(s, "spines", where, 1, 64);
    }
    if (s.contains("collectives_per_step")) {
        c->collectivesPerStep = integer<std::uint32_t>(s, "collectives_per_step", where, 1, 1000);
    }
    if (s.contains("bucket_bytes")) {
        c->bucketBytes = integer<std::uint64_t>(s, "bucket_bytes", where, 1, 1ULL << 40);
    }
    if (s.contains("data_counter_bits")) {
        c->dataCounterBits = integer<std::uint8_t>(s, "data_counter_bits", where, 32, 64);
    }
    if (s.contains("nccl_ib_timeout")) {
        c->policy.ncclIbTimeout = integer<int>(s, "nccl_ib_timeout", where, 1, 31);
    }
    for (const auto& [key, field] : { std::pair { "duration", &c->durationNs }, std::pair { "step", &c->stepNs },
             std::pair { "counter_interval", &c->counterIntervalNs }, std::pair { "clock_skew", &c->clockSkewNs },
             std::pair { "collective_timeout", &c->policy.collectiveTimeoutNs } }) {
        if (s.contains(key)) {
            *field = duration(s, key, where);
        }
    }
    if (s.contains("link_events")) {
        if (!s.at("link_events").is_boolean()) {
            throw BadField { where + ".link_events", "expected true or false" };
        }
        c->linkEvents = s.at("link_events").get<bool>();
    }
    if (s.contains("faults")) {
        const auto& faults = s.at("faults");
        if (!faults.is_array()) {
            throw BadField { where + ".faults", "expected an array of fault strings" };
        }
        c->faults.clear();
        for (std::size_t i = 0; i < faults.size(); ++i) {
            const auto at = where + ".faults[" + std::to_string(i) + "]";
            if (!faults[i].is_string()) {
                throw BadField { at, "expected a fault string like \"flap:host-leaf:rank=21:at=4m:for=2s\"" };
            }
            auto f = parseFaultSpec(faults[i].get<std::string>());
            if (!f) {
                throw BadField { at, f.error() };
            }
            c->faults.push_back(f.value());
        }
    }
    if (auto bad = validateConfig(*c); !bad.empty()) {
        throw BadField { where, bad };
    }
    return *c;
}

std::vector<Source> sources(const json& j, const std::string& where)
{
    std::vector<Source> out;
    if (!j.is_array()) {
        throw BadField { where, "expected an array of source names" };
    }
    for (const auto& v : j) {
        bool found = false;
        for (auto s : { Source::Counters, Source::SmLog, Source::RankLogs, Source::Topology, Source::HostLogs }) {
            if (v.is_string() && v.get<std::string>() == toString(s)) {
                out.push_back(s);
                found = true;
            }
        }
        if (!found) {
            throw BadField { where, "expected counters, sm_log, rank_logs, topology or host_logs, got " + v.dump() };
        }
    }
    return out;
}

void answer(const json& a, const std::string& where, Exercise& e)
{
    if (!a.is_object()) {
        throw BadField { where, "expected an object" };
    }
    const auto verdict = str(a, "verdict", where);
    const auto v = verdictFromString(verdict);
    if (!v) {
        throw BadField { where + ".verdict",
            "expected stretched, crashed, no_fabric_fault or slowed, got \"" + verdict + "\"" };
    }
    e.verdict = *v;
    if (!a.contains("culprit_faults") || !a.at("culprit_faults").is_array() || a.at("culprit_faults").empty()) {
        throw BadField { where + ".culprit_faults", "expected a non-empty array of fault indexes" };
    }
    for (const auto& i : a.at("culprit_faults")) {
        if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= e.sim.faults.size()) {
            throw BadField { where + ".culprit_faults",
                "expected indexes into simulate.faults (0.." + std::to_string(e.sim.faults.size()) + "), got "
                    + i.dump() };
        }
        e.culpritFaults.push_back(i.get<std::uint32_t>());
    }
    if (a.contains("provable")) {
        if (!a.at("provable").is_boolean()) {
            throw BadField { where + ".provable", "expected true or false" };
        }
        e.culpritProvable = a.at("provable").get<bool>();
    }
    if (a.contains("ask_period")) {
        if (!a.at("ask_period").is_boolean()) {
            throw BadField { where + ".ask_period", "expected true or false" };
        }
        e.askPeriod = a.at("ask_period").get<bool>();
    }
}

Exercise exercise(const json& j, const std::string& where)
{
    if (!j.is_object()) {
        throw BadField { where, "expected an object" };
    }
    Exercise e;
    e.id = str(j, "id", where);
    const auto here = where + " (" + e.id + ")";
    if (e.id.empty() || e.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
        throw BadField { here + ".id", "expected lower-case letters, digits and '-'" };
    }
    e.title = str(j, "title", here);
    e.level = integer<int>(j, "level", here, 1, 5);
    e.briefing = str(j, "briefing", here);
    if (!j.contains("simulate")) {
        throw BadField { here + ".simulate", "missing" };
    }
    e.sim = simulation(j.at("simulate"), here + ".simulate");
    if (j.contains("withhold")) {
        e.withheld = sources(j.at("withhold"), here + ".withhold");
    }
    if (j.contains("hints")) {
        if (!j.at("hints").is_array()) {
            throw BadField { here + ".hints", "expected an array of strings" };
        }
        for (const auto& h : j.at("hints")) {
            if (!h.is_string()) {
                throw BadField { here + ".hints", "expected an array of strings" };
            }
            e.hints.push_back(h.get<std::string>());
        }
    }
    if (!j.contains("answer")) {
        throw BadField { here + ".answer", "missing" };
    }
    answer(j.at("answer"), here + ".answer", e);
    e.lesson = str(j, "lesson", here);
    e.analysisNote = str(j, "analysis_note", here, false);
    return e;
}

} // namespace

Result<ExerciseLibrary, std::string> parseExerciseLibrary(const std::string& text, const std::string& origin)
{
    json j;
    try {
        j = parseJsonFile(text);
    } catch (const json::parse_error& e) {
        return origin + ": not JSON at byte " + std::to_string(e.byte) + ": " + e.what();
    } catch (const json::exception& e) { // a number too large for a double, and the like
        return origin + ": not JSON: " + e.what();
    }
    ExerciseLibrary lib;
    lib.origin = origin;
    try {
        if (!j.is_object() || !j.contains("format") || j.at("format") != "stallscope-exercises") {
            throw BadField { "format", "expected \"stallscope-exercises\"" };
        }
        lib.version = integer<int>(j, "version", "", 1, 1'000'000);
        if (!j.contains("exercises") || !j.at("exercises").is_array()) {
            throw BadField { "exercises", "expected an array" };
        }
        std::set<std::string> ids;
        const auto& list = j.at("exercises");
        for (std::size_t i = 0; i < list.size(); ++i) {
            auto e = exercise(list[i], "exercises[" + std::to_string(i) + "]");
            if (!ids.insert(e.id).second) {
                throw BadField { "exercises[" + std::to_string(i) + "].id", "\"" + e.id + "\" is used twice" };
            }
            lib.exercises.push_back(std::move(e));
        }
    } catch (const BadField& b) {
        return origin + ": " + (b.where.empty() ? "" : b.where + ": ") + b.what;
    } catch (const json::exception& e) {
        return origin + ": " + e.what();
    }
    return lib;
}

SimConfig simConfigFor(const Exercise& e, std::uint64_t seed)
{
    SimConfig c = e.sim;
    if (seed == e.sim.seed) {
        return c;
    }
    c.seed = seed;
    // splitmix64: one offset per kind of position, the same for every fault.
    auto draw = [x = seed](std::uint64_t salt) mutable {
        std::uint64_t z = x + 0x9e3779b97f4a7c15ULL * (salt + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    const auto rankShift = static_cast<std::uint32_t>(draw(1) % c.worldSize());
    const auto leafShift = static_cast<std::uint32_t>(draw(2) % c.gpusPerHost);
    const auto spineShift = static_cast<std::uint32_t>(draw(3) % c.spines);
    for (auto& f : c.faults) {
        f.rank = (f.rank + rankShift) % c.worldSize();
        f.leaf = (f.leaf + leafShift) % c.gpusPerHost;
        f.spine = (f.spine + spineShift) % c.spines;
    }
    return c;
}

} // namespace stallscope::training
