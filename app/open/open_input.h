// SPDX-License-Identifier: MIT
#pragma once

// What `info`, `analyze` and `convert` read: PATH (a bundle or a folder of raw files), or a Prometheus-compatible
// server (`--prometheus URL --from T --to T [--match M]…`, issue #14).

#include "cli/cli_options.h"

#include "core/loaded_job.h"
#include "core/result.h"
#include "core/scratch_file.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {
struct PrometheusQuery;
}

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
