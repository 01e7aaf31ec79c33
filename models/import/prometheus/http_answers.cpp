// SPDX-License-Identifier: MIT
#include "import/prometheus/http_answers.h"
#include "core/checked_math.h"
#include "core/parse_number.h"
#include "import/common/line_scan.h"

#include <simdjson.h>

#include <charconv>

#include <cmath>
#include <map>
#include <optional>

namespace stallscope {

namespace ond = simdjson::ondemand;

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

bool prometheusSeriesIsRead(std::string_view name)
{
    if (prometheusNodeExporterMetrics().count(std::string(name))) {
        return true;
    }
    if (name == "infiniband_switch_info" || name == "infiniband_hca_info" || name == "infiniband_switch_uplink_info"
        || name == "infiniband_hca_uplink_info") {
        return true;
    }
    constexpr std::string_view total = "_total";
    if (name.rfind("infiniband_", 0) != 0 || name.size() <= total.size()
        || name.substr(name.size() - total.size()) != total) {
        return false;
    }
    for (const std::string_view prefix : { "infiniband_switch_port_", "infiniband_hca_port_" }) {
        if (name.rfind(prefix, 0) == 0) {
            const auto counter = name.substr(prefix.size(), name.size() - prefix.size() - total.size());
            for (int k = 0; k < kCounterKindCount; ++k) {
                if (semantics(static_cast<CounterKind>(k)).treydock == counter) {
                    return true;
                }
            }
            return false;
        }
    }
    // guilbaults: infiniband_<ibqueryerrors counter>_total
    return counterKindFromPerfName(std::string(name.substr(11, name.size() - 11 - total.size()))).has_value();
}

bool looksLikePrometheusMatrix(const std::string& text)
{
    if (findText(text, "\"resultType\"") != std::string::npos && findText(text, "\"status\"") != std::string::npos
        && (findText(text, "\"matrix\"") != std::string::npos || findText(text, "\"vector\"") != std::string::npos)) {
        return true;
    }
    // A bare result array, as prometheus-api-client and hand exports store it: [{"metric": …, "values": …}].
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '[' && findText(text, "\"metric\"") != std::string::npos
        && (findText(text, "\"values\"") != std::string::npos || findText(text, "\"value\"") != std::string::npos);
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
// One series of an answer as it is read: its labels, then its points (Prometheus writes "metric" first; a file
// written otherwise still reads, the points are kept until the name is known).
struct RawSeries
{
    std::string name;
    std::vector<std::pair<std::string, std::string>> labels; // without __name__
    std::vector<TimeNs> times;
    std::vector<double> values;
};

// Counter values are decimal strings ("12345", "NaN", "1.2e+06" from Go's %g): integers the fast way.
std::optional<double> pointValue(std::string_view v)
{
    std::uint64_t whole = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), whole);
    if (ec == std::errc {} && end == v.data() + v.size()) {
        return static_cast<double>(whole);
    }
    return parseDouble(v);
}

void readPoint(ond::value pair, RawSeries& out)
{
    // [seconds, "value"]; a pair of another length is damage: the point is dropped (never an iterator past
    // the end: simdjson asserts on that).
    double secs = 0;
    std::string_view v;
    int k = 0;
    for (auto element : pair.get_array()) {
        if (k == 0) {
            secs = element.get_double();
        } else if (k == 1) {
            v = element.get_string();
        }
        ++k;
    }
    if (k != 2) {
        return;
    }
    // A time or value outside int64 (or NaN) is damage: the point is dropped.
    const auto t = epochSecondsToNs(secs);
    const auto value = pointValue(v);
    if (t && value && *value >= 0 && std::isfinite(*value)) {
        out.times.push_back(*t);
        out.values.push_back(*value);
    }
}

RawSeries readSeries(ond::object series)
{
    RawSeries out;
    for (auto field : series) {
        const std::string_view key = field.unescaped_key();
        if (key == "metric") {
            for (auto label : field.value().get_object()) {
                const std::string_view k = label.unescaped_key();
                ond::value v = label.value();
                if (v.type() != ond::json_type::string) {
                    continue;
                }
                const std::string_view text = v.get_string();
                if (k == "__name__") {
                    out.name = std::string(text);
                } else {
                    out.labels.emplace_back(std::string(k), std::string(text));
                }
            }
        } else if (key == "values") {
            for (auto pair : field.value().get_array()) {
                readPoint(pair.value(), out);
            }
        } else if (key == "value") {
            readPoint(field.value(), out);
        }
    }
    return out;
}

std::string labelOf(const RawSeries& s, std::string_view key)
{
    for (const auto& [k, v] : s.labels) {
        if (k == key) {
            return v;
        }
    }
    return {};
}

// A switch-side exporter's series (treydock, guilbaults): its labels as one exposition line (read by the
// exposition reader for its kind, port and the fabric facts its labels carry) and its points as columns.
PromLabelledSeries labelled(RawSeries&& s)
{
    PromLabelledSeries out;
    out.line = s.name + "{";
    bool first = true;
    for (const auto& [k, v] : s.labels) {
        out.line += (first ? "" : ",") + k + "=\"";
        first = false;
        for (char c : v) {
            if (c == '"' || c == '\\') {
                out.line += '\\';
            }
            out.line += c == '\n' ? ' ' : c;
        }
        out.line += '"';
    }
    out.line += "}";
    out.timesNs = std::move(s.times);
    out.values.reserve(s.values.size());
    for (const double v : s.values) {
        out.values.push_back(v >= 1.8e19 ? ~0ULL : static_cast<std::uint64_t>(std::llround(v)));
    }
    return out;
}

void addSeries(const std::string& file, std::size_t index, RawSeries&& raw, PromMatrix& out)
{
    auto it = prometheusNodeExporterMetrics().find(raw.name);
    if (it == prometheusNodeExporterMetrics().end() && raw.name.rfind("infiniband_", 0) == 0) {
        out.switchSide.push_back(labelled(std::move(raw)));
        return;
    }
    if (it == prometheusNodeExporterMetrics().end()) {
        out.warnings.push_back({ file, 0, -1,
            "series " + std::to_string(index) + ": "
                + (raw.name.empty()
                        ? std::string("no __name__ (a rate() or increase() query?): raw counters are needed")
                        : "\"" + raw.name + "\" is not an InfiniBand port counter")
                + ", skipped" });
        return;
    }
    PromSeries s;
    const auto instance = labelOf(raw, "instance");
    s.host = instance.substr(0, instance.find(':'));
    s.device = labelOf(raw, "device");
    const auto port = labelOf(raw, "port");
    s.port = port.empty() ? 1 : parseNumber<std::uint16_t>(port).value_or(0);
    s.kind = it->second.kind;
    s.timesNs.reserve(raw.times.size());
    s.values.reserve(raw.values.size());
    for (std::size_t k = 0; k < raw.times.size(); ++k) {
        if (raw.values[k] >= 9.2e18) {
            continue; // beyond int64: damage
        }
        s.timesNs.push_back(raw.times[k]);
        s.values.push_back(static_cast<std::uint64_t>(std::llround(raw.values[k])) / it->second.divisor);
    }
    out.series.push_back(std::move(s));
}

void readResult(const std::string& file, ond::array result, PromMatrix& out)
{
    std::size_t i = 0;
    for (auto item : result) {
        addSeries(file, i++, readSeries(item.get_object()), out);
    }
}

} // namespace

PromEnvelope readPromEnvelope(std::string_view body)
{
    PromEnvelope out;
    const simdjson::padded_string copy(body); // the answer's own buffer has no padding past its end
    ond::parser parser;
    try {
        auto doc = parser.iterate(copy);
        if (doc.type() != ond::json_type::object) {
            out.notJson = "not a JSON object";
            return out;
        }
        for (auto field : doc.get_object()) { // "data" is skipped over, never built
            const std::string_view key = field.unescaped_key();
            const auto text = [&] { return std::string(std::string_view(field.value().get_string())); };
            if (key == "status") {
                out.status = text();
            } else if (key == "errorType") {
                out.errorType = text();
            } else if (key == "error") {
                out.error = text();
            } else if (key == "warnings") {
                for (auto w : field.value().get_array()) {
                    out.warnings.emplace_back(std::string_view(w.get_string()));
                }
            }
        }
        out.object = true;
    } catch (const simdjson::simdjson_error& e) {
        out = PromEnvelope {};
        out.notJson = e.what();
    }
    return out;
}

Result<PromMatrix> parsePrometheusMatrix(const std::string& file, const std::string& text)
{
    PromMatrix out;
    // simdjson reads past the end by its padding: the folder reader's buffers have it; other callers' are copied.
    std::optional<simdjson::padded_string> copy;
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
        copy.emplace(text);
    }
    const auto view = copy ? simdjson::padded_string_view(*copy)
                           : simdjson::padded_string_view(text.data(), text.size(), text.capacity());
    thread_local ond::parser parser; // reused across files: its buffers stay warm
    try {
        auto doc = parser.iterate(view);
        if (doc.type() == ond::json_type::array) {
            readResult(file, doc.get_array(), out); // the bare result array
            return out;
        }
        std::string status, error;
        for (auto field : doc.get_object()) {
            const std::string_view key = field.unescaped_key();
            if (key == "status") {
                status = std::string(std::string_view(field.value().get_string()));
            } else if (key == "error") {
                error = std::string(std::string_view(field.value().get_string()));
            } else if (key == "data") {
                for (auto d : field.value().get_object()) {
                    if (d.unescaped_key().value() == "result") {
                        readResult(file, d.value().get_array(), out);
                    }
                }
            }
        }
        if (status != "success") {
            return LoadIssue { file, 0, -1,
                "a Prometheus error response: " + (error.empty() ? std::string("(no message)") : error) };
        }
    } catch (const simdjson::simdjson_error& e) {
        return LoadIssue { file, 0, -1, std::string("unexpected content in a Prometheus matrix: ") + e.what() };
    }
    return out;
}

} // namespace stallscope
