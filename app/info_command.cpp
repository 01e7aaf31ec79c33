// SPDX-License-Identifier: MIT
#include "cli_options.h"
#include "commands.h"

#include "core/snapshot_summary.h"
#include "import/open_job.h"

#include <ostream>

namespace stallscope::cli {

namespace {
const std::vector<OptionSpec> kSpecs = {
    { "json", false, "print one JSON object instead of text" },
};

std::string usage()
{
    return "Usage: stallscope info PATH [--json]\n"
           "Loads PATH (a bundle, or a folder of raw files) and prints ranks, hosts, switches, links, time span, "
           "record\n"
           "counts, memory used, bytes per collective record, warnings and load time.\n"
           "  --json   print the same as one JSON object\n"
           "Exit codes: 0 ok, 1 the bundle could not be loaded, 2 usage error.\n";
}
} // namespace

int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    if (!parsed.error.empty() || parsed.positional.size() != 1) {
        err << "stallscope info: " << (parsed.error.empty() ? "expected exactly one BUNDLE" : parsed.error) << "\n"
            << usage();
        return kExitUsage;
    }
    const auto& path = parsed.positional[0];
    auto loaded = openJob(path);
    if (!loaded) {
        err << "stallscope info: " << loaded.error().format() << '\n';
        return kExitBadInput;
    }
    const auto summary = summarize(path, loaded.value());
    out << (parsed.options.count("json") ? summaryJson(summary) : summaryText(summary));
    return kExitOk;
}

} // namespace stallscope::cli
