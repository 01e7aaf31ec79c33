// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"
#include "cli/commands.h"

#include "core/snapshot_summary.h"
#include "open/open_input.h"

#include <ostream>

namespace stallscope::cli {

namespace {
const std::vector<OptionSpec> kSpecs = withPrometheusOptions({
    { "json", false, "print one JSON object instead of text" },
});

std::string usage()
{
    return "Usage: stallscope info PATH [--json]\n"
           "       stallscope info --prometheus URL --from T --to T [--match M]... [--json]\n"
           "Loads PATH (a bundle, or a folder of raw files) or a Prometheus-compatible server's InfiniBand series and\n"
           "prints ranks, hosts, switches, links, time span, record counts, memory used, bytes per collective record,\n"
           "warnings and load time.\n\nOptions:\n"
        + formatOptions(kSpecs) + "\nExit codes: 0 ok, 1 the input could not be loaded, 2 usage error.\n";
}
} // namespace

int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    const auto bad = parsed.error.empty() ? checkInput(parsed) : parsed.error;
    if (!bad.empty()) {
        err << "stallscope info: " << bad << "\n" << usage();
        return kExitUsage;
    }
    const auto path = inputName(parsed);
    auto loaded = openInput(parsed);
    if (!loaded) {
        err << "stallscope info: " << loaded.error().format() << '\n';
        if (parsed.has("json")) { // a script reading stdout gets an answer it can parse
            out << loadErrorJson(loaded.error());
        }
        return kExitBadInput;
    }
    const auto summary = summarize(path, loaded.value());
    out << (parsed.options.count("json") ? summaryJson(summary) : summaryText(summary));
    return kExitOk;
}

} // namespace stallscope::cli
