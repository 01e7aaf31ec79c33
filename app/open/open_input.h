// SPDX-License-Identifier: MIT
#pragma once

// What a job is opened from, for the CLI and the window alike: a path (a bundle or a folder of raw files), a
// Prometheus-compatible server, or a job's folder with its counters from a server. readInput is the one dispatch;
// the CLI's `info`, `analyze` and `convert` get their input from the command line (PATH, or
// `--prometheus URL --from T --to T [--match M]…`, issue #14) and the window from its menus.

#include "cli/cli_options.h"
#include "open/load_job.h"
#include "source/prometheus_source.h"

#include "core/loaded_job.h"
#include "core/result.h"
#include "core/scratch_file.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct JobInput
{
    std::string path; // empty: the server's series alone
    std::optional<PrometheusQuery> prometheus; // with a path: that job's counters from the server
};
// Opens the input. Blocks (files, network): a worker or the CLI thread. A folder's counter samples past
// `scratch.memoryBytes` go through scratch files in `scratch.dir`.
Result<LoadedJob> readInput(const JobInput& input, Progress& progress, const ScratchPolicy& scratch = {});
// readInput as the staged opening's loader (open/load_job.h).
Loader loaderFor(JobInput input);

} // namespace stallscope

namespace stallscope::cli {

// The options of the Prometheus source, appended to each command's own.
const std::vector<OptionSpec>& prometheusOptions();
std::vector<OptionSpec> withPrometheusOptions(std::vector<OptionSpec> specs);

// The Bearer token in a file (--token-file), trimmed; nullopt when unreadable, empty or over 64 KiB.
std::optional<std::string> readTokenFile(const std::string& path);
// "" when the arguments name exactly one input (PATH or --prometheus), else the usage error.
std::string checkInput(const ParsedArgs& a);
// A name for messages: PATH or the URL.
std::string inputName(const ParsedArgs& a);
// The Prometheus query the arguments describe (--to defaults to now: following a server).
PrometheusQuery prometheusQueryFrom(const ParsedArgs& a);
TimeNs nowNs();
// Opens the input; errors name the file or the query. Blocks (network) — CLI thread.
// A folder's counter samples past `scratch.memoryBytes` go through scratch files in `scratch.dir`.
Result<LoadedJob> openInput(const ParsedArgs& a, const ScratchPolicy& scratch = {});

// A refusal as one JSON object for `--json` (stdout): {"error": MESSAGE, "file": ..., "line": ...}, newline-ended.
std::string loadErrorJson(const LoadIssue& issue);

// "1793491200", "1793491200.5", "2026-11-01T00:00:00Z" → epoch ns.
std::optional<TimeNs> parseTimeArg(const std::string& text);

} // namespace stallscope::cli
