// SPDX-License-Identifier: MIT
#include "import/folder/mapping.h"
#include "core/json_number.h"
#include "import/common/line_scan.h"
#include "import/common/small_json.h"

#include "core/parse_number.h"
#include "core/time_format.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace stallscope {

bool looksLikeMapping(const std::string& text)
{
    return findText(text, "\"stallscope_mapping\"") != std::string::npos;
}

std::optional<TimeNs> parseUtcOffset(const std::string& text)
{
    if (text == "UTC" || text == "Z" || text == "utc" || text == "+00:00") {
        return 0;
    }
    if (text.size() > 16) {
        return std::nullopt; // "UTC+05:30" is 9 characters
    }
    // [UTC]±H[H][[:]MM]: "+2", "+02", "-05:30", "+0530", "UTC+5:30", "+530" (= 5:30).
    std::string_view t(text);
    if (t.starts_with("UTC")) {
        t.remove_prefix(3);
    }
    if (t.empty() || (t[0] != '+' && t[0] != '-')) {
        return std::nullopt;
    }
    const bool negative = t[0] == '-';
    t.remove_prefix(1);
    std::string_view hours = t, minutes;
    if (const auto colon = t.find(':'); colon != std::string_view::npos) {
        hours = t.substr(0, colon);
        minutes = t.substr(colon + 1);
        if (!minutes.empty() && minutes.size() != 2) {
            return std::nullopt;
        }
    } else if (t.size() == 3 || t.size() == 4) {
        hours = t.substr(0, t.size() - 2);
        minutes = t.substr(t.size() - 2);
    }
    const auto digits = [](std::string_view s) {
        return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (hours.empty() || hours.size() > 2 || !digits(hours) || !digits(minutes)) {
        return std::nullopt;
    }
    const TimeNs v
        = (toNumber<TimeNs>(hours) * 3600 + (minutes.empty() ? 0 : toNumber<TimeNs>(minutes) * 60)) * kNsPerSec;
    return negative ? -v : v;
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
