// SPDX-License-Identifier: MIT
#include "import/folder/mapping.h"
#include "core/json_number.h"
#include "import/common/small_json.h"

#include "core/parse_number.h"
#include "core/time_format.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>
#include <set>

namespace stallscope {

bool looksLikeMapping(const std::string& text)
{
    return text.find("\"stallscope_mapping\"") != std::string::npos;
}

std::optional<TimeNs> parseUtcOffset(const std::string& text)
{
    if (text == "UTC" || text == "Z" || text == "utc" || text == "+00:00") {
        return 0;
    }
    if (text.size() > 16) {
        return std::nullopt; // "UTC+05:30" is 9 characters
    }
    static const std::regex re(R"(^(?:UTC)?([+-])(\d{1,2}):?(\d{2})?$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) {
        return std::nullopt;
    }
    const TimeNs v
        = (toNumber<TimeNs>(m[2].str()) * 3600 + (m[3].matched ? toNumber<TimeNs>(m[3].str()) * 60 : 0)) * kNsPerSec;
    return m[1] == "-" ? -v : v;
}

Result<FolderMapping> parseMapping(const std::string& file, const std::string& text)
{
    static const std::set<std::string> sources
        = { "dumps", "profiler", "rank_logs", "opensm", "counters", "fabric_snapshots" };
    FolderMapping out;
    auto parsed = parseSmallJson(file, text);
    if (!parsed) {
        return parsed.error();
    }
    const nlohmann::json& j = parsed.value();
    try {
        // Copies: items() of a temporary would dangle.
        const auto ranks = j.value("ranks", nlohmann::json::object());
        const auto zones = j.value("time_zones", nlohmann::json::object());
        const auto offsets = j.value("clock_offsets", nlohmann::json::object());
        for (const auto& [rank, r] : ranks.items()) {
            RankOverride o;
            o.host = r.value("host", std::string());
            o.hca = r.value("hca", std::string());
            if (r.contains("gpu")) {
                o.gpu = jsonNumber<std::uint16_t>(r["gpu"]);
            }
            const auto rankNo = parseNumber<std::uint32_t>(rank);
            if (!rankNo) {
                return LoadIssue { file, 0, -1,
                    "ranks: expected rank numbers as keys, got \"" + rank.substr(0, 40) + "\"" };
            }
            out.ranks[*rankNo] = o;
        }
        for (const auto& [source, zone] : zones.items()) {
            const auto v = parseUtcOffset(zone.get<std::string>());
            if (!v || (source != "rank_logs" && source != "opensm")) {
                return LoadIssue { file, 0, -1,
                    "time_zones." + source + ": expected rank_logs or opensm with an offset like \"+02:00\"" };
            }
            out.timeZones[source] = *v;
        }
        for (const auto& [source, offset] : offsets.items()) {
            const auto v = parseSignedDuration(offset.get<std::string>());
            if (!v || !sources.count(source)) {
                return LoadIssue { file, 0, -1,
                    "clock_offsets." + source
                        + ": expected one of dumps, profiler, rank_logs, opensm, counters, fabric_snapshots with a "
                          "signed duration like \"-1.5s\"" };
            }
            out.clockOffsets[source] = *v;
        }
    } catch (const std::exception& e) {
        return LoadIssue { file, 0, -1, std::string("unexpected content in the mapping file: ") + e.what() };
    }
    return out;
}

} // namespace stallscope
