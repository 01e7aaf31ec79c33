// SPDX-License-Identifier: MIT
#include "import_flight_recorder.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace stallscope {

CollectiveOp opFromProfilingName(const std::string& name)
{
    std::string op = name.substr(name.find(':') == std::string::npos ? 0 : name.find(':') + 1);
    if (op.find("all_reduce") != std::string::npos || op.find("allreduce") != std::string::npos) {
        return CollectiveOp::AllReduce;
    }
    if (op.find("all_gather") != std::string::npos || op.find("allgather") != std::string::npos) {
        return CollectiveOp::AllGather;
    }
    if (op.find("reduce_scatter") != std::string::npos) {
        return CollectiveOp::ReduceScatter;
    }
    if (op.find("broadcast") != std::string::npos) {
        return CollectiveOp::Broadcast;
    }
    if (op.find("all_to_all") != std::string::npos || op.find("alltoall") != std::string::npos) {
        return CollectiveOp::AllToAll;
    }
    if (op.find("barrier") != std::string::npos) {
        return CollectiveOp::Barrier;
    }
    if (op.rfind("reduce", 0) == 0) {
        return CollectiveOp::Reduce;
    }
    return CollectiveOp::Other;
}

std::size_t dtypeBytes(const std::string& d)
{
    static const std::map<std::string, std::size_t> sizes = { { "Float", 4 }, { "BFloat16", 2 }, { "Half", 2 },
        { "Double", 8 }, { "Long", 8 }, { "Int", 4 }, { "Short", 2 }, { "Byte", 1 }, { "Char", 1 }, { "Bool", 1 },
        { "Float8_e4m3fn", 1 }, { "Float8_e5m2", 1 } };
    auto it = sizes.find(d);
    return it == sizes.end() ? 0 : it->second;
}

std::optional<std::uint32_t> rankFromFileName(const std::string& path)
{
    const std::string name = std::filesystem::path(path).filename().string();
    std::size_t i = name.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) {
        --i;
    }
    if (i == name.size() || name.size() - i > 9) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(std::stoul(name.substr(i)));
}

namespace {

// Times: an int (ns), or 0 / null when not observed.
TimeNs optTime(const nlohmann::json& e, const char* key)
{
    if (!e.contains(key) || e[key].is_null()) {
        return kNoTime;
    }
    const auto v = e[key].get<std::int64_t>();
    return v == 0 ? kNoTime : v;
}

std::vector<std::uint32_t> parseRanks(const std::string& s)
{
    // "[0, 1, 2, 3]" or "[0,1,2,3]" (Python literal in a string)
    std::vector<std::uint32_t> out;
    std::string digits;
    for (char c : s + ",") {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits += c;
        } else if (!digits.empty()) {
            out.push_back(static_cast<std::uint32_t>(std::stoul(digits)));
            digits.clear();
        }
    }
    return out;
}

} // namespace

Result<FrDump> parseFlightRecorderJson(const std::string& file, const std::string& text)
{
    FrDump d;
    d.rank = rankFromFileName(file);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(e.byte), std::string("invalid JSON: ") + e.what() };
    }
    if (!j.is_object() || !j.contains("version")) {
        return LoadIssue { file, 0, -1, "expected a Flight Recorder dump: an object with \"version\"" };
    }
    try {
        d.version = j["version"].get<std::string>();
        const auto pgConfig = j.value("pg_config", nlohmann::json::object()); // a copy: items() must not dangle
        for (const auto& [name, g] : pgConfig.items()) {
            FrGroup group;
            group.desc = g.value("desc", std::string());
            group.ranks = parseRanks(g.value("ranks", std::string()));
            d.groups[name] = std::move(group);
        }
        const auto entries = j.value("entries", nlohmann::json::array());
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const auto& e = entries[i];
            if (e.value("is_p2p", false)) {
                ++d.p2pSkipped;
                continue;
            }
            FrEntry fe;
            const auto& pg = e.at("process_group");
            fe.pg = pg.is_array() && !pg.empty() ? pg[0].get<std::string>() : std::to_string(e.value("pg_id", 0));
            fe.seq = e.at("collective_seq_id").get<std::uint32_t>();
            fe.op = opFromProfilingName(e.value("profiling_name", std::string()));
            const auto sizes = e.value("input_sizes", nlohmann::json::array());
            const auto dtypes = e.value("input_dtypes", nlohmann::json::array());
            if (!sizes.empty()) {
                std::uint64_t elems = 1;
                for (const auto& dim : sizes[0]) {
                    elems *= dim.get<std::uint64_t>();
                }
                const auto width = dtypes.empty() ? 0 : dtypeBytes(dtypes[0].get<std::string>());
                if (width == 0 && !dtypes.empty()) {
                    d.warnings.push_back({ file, 0, -1,
                        "entry " + std::to_string(i) + ": unknown dtype " + dtypes[0].get<std::string>()
                            + ", bytes counted as elements" });
                }
                fe.bytes = elems * (width == 0 ? 1 : width);
            }
            fe.enqueueNs = optTime(e, "time_created_ns");
            fe.startNs = optTime(e, "time_discovered_started_ns");
            fe.endNs = optTime(e, "time_discovered_completed_ns");
            const auto state = e.value("state", std::string("scheduled"));
            fe.state = state == "completed" ? CollectiveState::Completed
                : state == "started"        ? CollectiveState::Started
                                            : CollectiveState::Scheduled;
            if (fe.state != CollectiveState::Completed && e.value("retired", false)) {
                fe.state = CollectiveState::TimedOut; // retired but not completed = timed out (formats.md §1b)
            }
            if (fe.enqueueNs == kNoTime) {
                d.warnings.push_back(
                    { file, 0, -1, "entry " + std::to_string(i) + " has no time_created_ns: skipped" });
                continue;
            }
            d.entries.push_back(fe);
        }
    } catch (const std::exception& e) {
        return LoadIssue { file, 0, -1, std::string("unexpected content in a Flight Recorder dump: ") + e.what() };
    }
    return d;
}

} // namespace stallscope
