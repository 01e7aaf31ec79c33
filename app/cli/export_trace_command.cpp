// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"
#include "cli/commands.h"

#include "analysis/analysis.h"
#include "export/trace_export.h"
#include "import/open_job.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <unistd.h>

namespace stallscope::cli {

namespace {
const std::vector<OptionSpec> kSpecs = {
    { "out", true, "output .json file (required); written atomically" },
    { "window", true, "START..END: times since job start (4m..6m) or Unix-epoch ns" },
    { "ranks", true, "ranks to include, e.g. 0-15,139 (default all)" },
    { "all-links", false, "counter tracks for every link (default: the incidents' culprit links)" },
};

std::string usage()
{
    std::string s
        = "Usage: stallscope export-trace BUNDLE --out FILE.json [--window START..END] [--ranks LIST] [--all-links]\n"
          "Writes Chrome trace event JSON that Perfetto opens: one track per rank with collectives as slices,\n"
          "link counters as counter tracks, link events as instant events.\n\nOptions:\n";
    s += formatOptions(kSpecs);
    return s + "\nExit codes: 0 ok, 1 bad input or write failure, 2 usage error.\n";
}
} // namespace

int runExportTrace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto a = parseArgs(args, kSpecs);
    if (a.help) {
        out << usage();
        return kExitOk;
    }
    if (!a.error.empty() || a.positional.size() != 1 || a.last("out").empty()) {
        err << "stallscope export-trace: "
            << (!a.error.empty()                  ? a.error
                       : a.positional.size() != 1 ? "expected exactly one BUNDLE"
                                                  : "--out FILE is required")
            << "\n"
            << usage();
        return kExitUsage;
    }
    if (const auto inside = outsideInput(a.positional[0], a.last("out")); !inside.empty()) {
        err << "stallscope export-trace: " << inside << '\n';
        return kExitUsage;
    }
    auto loaded = openJob(a.positional[0]);
    if (!loaded) {
        err << "stallscope export-trace: " << loaded.error().format() << '\n';
        return kExitBadInput;
    }
    const auto& snap = *loaded->snapshot;
    TraceExportOptions options;
    options.allLinks = a.options.count("all-links") > 0;
    if (!a.last("window").empty()) {
        const auto window = parseTimeWindow(a.last("window"), snap.job.clockOriginNs);
        if (!window) {
            err << "stallscope export-trace: --window " << a.last("window") << ": " << window.error() << '\n';
            return kExitUsage;
        }
        options.window = window.value();
    }
    if (!a.last("ranks").empty()) {
        auto ranks = parseRankList(a.last("ranks"), snap.job.worldSize);
        if (!ranks) {
            err << "stallscope export-trace: --ranks: expected a list like 0-15,139 within 0.."
                << snap.job.worldSize - 1 << '\n';
            return kExitUsage;
        }
        options.ranks = *ranks;
    }
    const auto analysis = analyze(snap);
    // Stream to a temporary file beside the target, then rename: a failed export never leaves half a file.
    const std::string path = a.last("out");
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    TraceExportCounts counts;
    {
        std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
        if (!file) {
            err << "stallscope export-trace: " << path << ": cannot write\n";
            return kExitBadInput;
        }
        counts = writeChromeTrace(file, snap, &analysis, options);
        file.flush();
        if (!file) {
            std::remove(tmp.c_str());
            err << "stallscope export-trace: " << path << ": write failed\n";
            return kExitBadInput;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        err << "stallscope export-trace: " << path << ": " << ec.message() << '\n';
        return kExitBadInput;
    }
    out << "Wrote " << path << ": " << counts.slices << " collective slices, " << counts.counterSamples
        << " counter samples, " << counts.instants << " link events\n";
    return kExitOk;
}

} // namespace stallscope::cli
