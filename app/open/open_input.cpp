// SPDX-License-Identifier: MIT
#include "open/open_input.h"

#include "core/json_text.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/open_job.h"
#include "source/prometheus_source.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>

namespace stallscope::cli {

const std::vector<OptionSpec>& prometheusOptions()
{
    static const std::vector<OptionSpec> specs = {
        { "prometheus", true, "read counters from a Prometheus-compatible server at URL instead of a PATH" },
        { "from", true, "with --prometheus: range start, epoch seconds or 2026-11-01T00:00:00Z" },
        { "to", true, "with --prometheus: range end" },
        { "match", true, "with --prometheus: a label matcher, repeatable, e.g. 'instance=~\"gpu-a0.*\"'" },
        { "step", true, "with --prometheus: query step (default: the server's scrape interval)" },
        { "ca-file", true, "with --prometheus: PEM file of extra CAs (the system's are trusted)" },
        { "token-file", true,
            "with --prometheus: read a Bearer token from FILE (else STALLSCOPE_PROMETHEUS_TOKEN;\n"
            "Basic auth from STALLSCOPE_PROMETHEUS_USER and _PASSWORD); never written anywhere" },
        { "parallel", true, "with --prometheus: requests at once (default 4)" },
        { "follow", false,
            "with --prometheus: keep polling every scrape interval and print an alert for every\n"
            "link that goes down (--to defaults to now)" },
        { "for", true, "with --follow: stop after this long, e.g. 10m (default: until interrupted)" },
    };
    return specs;
}

// A token file as Prometheus' own bearer_token_file: the token, surrounding blanks and newlines trimmed; files
// over 64 KiB or empty are not tokens.
std::optional<std::string> readTokenFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string text(64 * 1024 + 1, '\0');
    in.read(text.data(), std::streamsize(text.size()));
    text.resize(std::size_t(in.gcount()));
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto last = text.find_last_not_of(" \t\r\n");
    if (!in.eof() || first == std::string::npos) {
        return std::nullopt;
    }
    return text.substr(first, last - first + 1);
}

std::vector<OptionSpec> withPrometheusOptions(std::vector<OptionSpec> specs)
{
    const auto& p = prometheusOptions();
    specs.insert(specs.end(), p.begin(), p.end());
    return specs;
}

std::optional<TimeNs> parseTimeArg(const std::string& text)
{
    if (!text.empty() && text.find_first_not_of("0123456789.") == std::string::npos) {
        try {
            const double s = std::stod(text);
            if (s >= 0 && s < 4e9) {
                return static_cast<TimeNs>(s * 1e9);
            }
        } catch (...) {
        }
        return std::nullopt;
    }
    std::tm tm {};
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
            &tm.tm_min, &tm.tm_sec, &consumed)
            != 6
        || consumed != int(text.size())) {
        return std::nullopt;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return static_cast<TimeNs>(timegm(&tm)) * kNsPerSec;
}

std::string checkInput(const ParsedArgs& a)
{
    if (a.has("prometheus")) {
        if (a.positional.size() > 1) {
            return "expected at most one PATH (a folder of raw files) with --prometheus URL";
        }
        if (!a.positional.empty()) {
            // The folder's job gives the range unless both ends are given.
            if (a.has("follow")) {
                return "--follow reads the server alone: give --from instead of a PATH";
            }
            if (a.has("from") != a.has("to")) {
                return "with a PATH, give both --from and --to or neither (the job's span is the default)";
            }
        } else if (!a.has("from") || (!a.has("to") && !a.has("follow"))) {
            return "--prometheus needs --from and --to (or --follow), or a PATH whose job gives the range";
        }
        if ((a.has("from") && !parseTimeArg(a.last("from"))) || (a.has("to") && !parseTimeArg(a.last("to")))) {
            return "--from/--to: expected epoch seconds or a UTC time like 2026-11-01T00:00:00Z";
        }
        if (a.has("for") && (!a.has("follow") || !parseDuration(a.last("for")))) {
            return "--for: expected a duration like 10m, with --follow";
        }
        if (a.has("token-file") && !readTokenFile(a.last("token-file"))) {
            return "--token-file: cannot read a token from " + a.last("token-file");
        }
        if (a.has("step") && !parseDuration(a.last("step"))) {
            return "--step: expected a duration like 15s";
        }
        if (a.has("parallel")) {
            const auto n = parseNumber<int>(a.last("parallel"));
            if (!n || *n < 1 || *n > 64) {
                return "--parallel: expected 1 .. 64";
            }
        }
        return {};
    }
    for (const auto& o : prometheusOptions()) {
        if (o.name != "prometheus" && a.has(o.name)) {
            return "--" + o.name + " goes with --prometheus URL";
        }
    }
    return a.positional.size() == 1 ? std::string() : "expected exactly one PATH (a bundle or a folder)";
}

std::string loadErrorJson(const LoadIssue& issue)
{
    nlohmann::ordered_json j = { { "error", issue.message }, { "file", issue.file },
        { "line", issue.line > 0 ? nlohmann::ordered_json(issue.line) : nlohmann::ordered_json(nullptr) } };
    return jsonText(j, 1) + "\n";
}

std::string inputName(const ParsedArgs& a)
{
    return a.positional.empty() ? a.last("prometheus") : a.positional.at(0);
}

TimeNs nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

PrometheusQuery prometheusQueryFrom(const ParsedArgs& a)
{
    PrometheusQuery q;
    q.url = a.last("prometheus");
    if (a.has("from")) { // else: a PATH's job gives the range
        q.range = { *parseTimeArg(a.last("from")), a.has("to") ? *parseTimeArg(a.last("to")) : nowNs() };
    }
    if (auto it = a.options.find("match"); it != a.options.end()) {
        q.matchers = it->second;
    }
    if (a.has("step")) {
        q.stepNs = *parseDuration(a.last("step"));
    }
    if (a.has("parallel")) {
        q.parallel = *parseNumber<int>(a.last("parallel")); // checked by checkInput
    }
    q.caFile = a.last("ca-file");
    if (a.has("token-file")) {
        q.bearerToken = readTokenFile(a.last("token-file")).value_or(""); // checked by checkInput
    }
    applyPrometheusEnvironment(q);
    return q;
}

Result<LoadedJob> openInput(const ParsedArgs& a, const ScratchPolicy& scratch)
{
    JobInput input { a.positional.empty() ? std::string() : a.positional.at(0), std::nullopt };
    if (a.has("prometheus")) {
        input.prometheus = prometheusQueryFrom(a);
    }
    NullProgress progress;
    return readInput(input, progress, scratch);
}

} // namespace stallscope::cli

namespace stallscope {

Result<LoadedJob> readInput(const JobInput& input, Progress& progress, const ScratchPolicy& scratch)
{
    if (!input.prometheus) {
        return openJob(input.path, progress, scratch);
    }
    // The server is asked in its own event loop, on this thread.
    auto r = input.path.empty() ? loadFromPrometheus(*input.prometheus, progress)
                                : loadJobWithPrometheus(input.path, *input.prometheus, progress);
    if (!r) {
        return r.error();
    }
    return std::move(r->job);
}

Loader loaderFor(JobInput input)
{
    return [input = std::move(input)](Progress& progress) { return readInput(input, progress); };
}

} // namespace stallscope
