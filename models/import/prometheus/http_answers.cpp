// SPDX-License-Identifier: MIT
#include "import/prometheus/http_answers.h"
#include "core/checked_math.h"
#include "core/parse_number.h"
#include "import/common/small_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <optional>

namespace stallscope {

const std::map<std::string, PromMetric>& prometheusNodeExporterMetrics()
{
    static const std::map<std::string, PromMetric> m = [] {
        std::map<std::string, PromMetric> names;
        for (int k = 0; k < kCounterKindCount; ++k) {
            const auto kind = static_cast<CounterKind>(k);
            const auto& sem = semantics(kind);
            names[std::string(sem.nodeExporter)] = { kind, sem.unitBytes ? sem.unitBytes : 1 }; // bytes → words
        }
        return names;
    }();
    return m;
}

bool looksLikePrometheusMatrix(const std::string& text)
{
    if (text.find("\"resultType\"") != std::string::npos && text.find("\"status\"") != std::string::npos
        && (text.find("\"matrix\"") != std::string::npos || text.find("\"vector\"") != std::string::npos)) {
        return true;
    }
    // A bare result array, as prometheus-api-client and hand exports store it: [{"metric": …, "values": …}].
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '[' && text.find("\"metric\"") != std::string::npos
        && (text.find("\"values\"") != std::string::npos || text.find("\"value\"") != std::string::npos);
}

namespace {

// Float seconds → ns without the double's rounding at 1e18 (1793491500.25 s must be …500250000000 ns): whole
// seconds and the fraction apart, the fraction rounded to the microsecond Prometheus' milliseconds allow.
std::optional<TimeNs> epochSecondsToNs(double secs)
{
    if (!std::isfinite(secs)) {
        return std::nullopt;
    }
    const double whole = std::floor(secs);
    const auto s = checkedFromDouble(whole);
    const auto ns = s ? checkedMul(*s, kNsPerSec) : std::nullopt;
    if (!ns) {
        return std::nullopt;
    }
    return checkedAdd(*ns, static_cast<TimeNs>(std::llround((secs - whole) * 1e6)) * 1000);
}

// A series' [time, "value"] pairs: "values" of a range query, or the one "value" of an instant query.
nlohmann::json pairsOf(const nlohmann::json& series)
{
    if (series.contains("values")) {
        return series.at("values");
    }
    if (series.contains("value")) {
        return nlohmann::json::array({ series.at("value") });
    }
    return nlohmann::json::array();
}

// A switch-side exporter's series (treydock, guilbaults) as exposition lines with millisecond timestamps, so one
// reader handles their labels, info series and cable names whether they were scraped or queried.
void appendAsExposition(
    const std::string& name, const nlohmann::json& metric, const nlohmann::json& series, std::string& out)
{
    std::string labels;
    for (const auto& [k, v] : metric.items()) {
        if (k == "__name__" || !v.is_string()) {
            continue;
        }
        std::string escaped;
        for (char c : v.get<std::string>()) {
            if (c == '"' || c == '\\') {
                escaped += '\\';
            }
            escaped += c;
        }
        labels += (labels.empty() ? "" : ",") + k + "=\"" + escaped + "\"";
    }
    const auto prefix = name + "{" + labels + "} ";
    for (const auto& pair : pairsOf(series)) {
        const double secs = pair.at(0).get<double>();
        out += prefix + pair.at(1).get<std::string>() + " " + std::to_string(std::llround(secs * 1000)) + "\n";
    }
}

} // namespace

Result<PromMatrix> parsePrometheusMatrix(const std::string& file, const std::string& text)
{
    PromMatrix out;
    auto parsed = parseSmallJson(file, text);
    if (!parsed) {
        return parsed.error();
    }
    const nlohmann::json& j = parsed.value();
    try {
        if (!j.is_array() && j.value("status", std::string()) != "success") {
            return LoadIssue { file, 0, -1,
                "a Prometheus error response: " + j.value("error", std::string("(no message)")) };
        }
        // An API answer (matrix of query_range, vector of an instant query) or the bare result array.
        const auto& result = j.is_array() ? j : j.at("data").at("result");
        for (std::size_t i = 0; i < result.size(); ++i) {
            const auto& metric = result[i].at("metric");
            const auto name = metric.value("__name__", std::string());
            auto it = prometheusNodeExporterMetrics().find(name);
            if (it == prometheusNodeExporterMetrics().end() && name.rfind("infiniband_", 0) == 0) {
                appendAsExposition(name, metric, result[i], out.switchSide);
                continue;
            }
            if (it == prometheusNodeExporterMetrics().end()) {
                out.warnings.push_back({ file, 0, -1,
                    "series " + std::to_string(i) + ": "
                        + (name.empty()
                                ? std::string("no __name__ (a rate() or increase() query?): raw counters are needed")
                                : "\"" + name + "\" is not an InfiniBand port counter")
                        + ", skipped" });
                continue;
            }
            PromSeries s;
            const auto instance = metric.value("instance", std::string());
            s.host = instance.substr(0, instance.find(':'));
            s.device = metric.value("device", std::string());
            s.port = parseNumber<std::uint16_t>(metric.value("port", std::string("1"))).value_or(0);
            s.kind = it->second.kind;
            for (const auto& pair : pairsOf(result[i])) {
                // Values are strings ("NaN" possible); a time or value outside int64 is damage: the point is dropped.
                const auto t = epochSecondsToNs(pair.at(0).get<double>());
                const auto value = parseDouble(pair.at(1).get<std::string>());
                const auto whole = value && *value >= 0 ? checkedFromDouble(std::round(*value)) : std::nullopt;
                if (!t || !whole) {
                    continue;
                }
                s.timesNs.push_back(*t);
                s.values.push_back(static_cast<std::uint64_t>(*whole) / it->second.divisor);
            }
            out.series.push_back(std::move(s));
        }
    } catch (const std::exception& e) {
        return LoadIssue { file, 0, -1, std::string("unexpected content in a Prometheus matrix: ") + e.what() };
    }
    return out;
}

} // namespace stallscope
