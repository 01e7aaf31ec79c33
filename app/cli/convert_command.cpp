// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "open/load_job.h"
#include "open/open_input.h"

#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "core/issue_groups.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/open_job.h"

#include <chrono>
#include <filesystem>
#include <ostream>

namespace stallscope::cli {

namespace {

const std::vector<OptionSpec> kSpecs = withPrometheusOptions({
    { "out", true, "the bundle folder to write (required); never the folder being read" },
    { "format", true, "binary | jsonl: how collectives and counters are written (default binary)" },
    { "memory-mb", true,
        "counter samples to hold in memory before spilling them to a scratch file beside BUNDLE, in MiB (default: "
        "an eighth of the memory the process may use: the machine's, or its cgroup's limit)" },
    { "quiet", false, "print nothing but errors" },
});

std::string usage()
{
    std::string s = "Usage: stallscope convert PATH --out BUNDLE [--format binary|jsonl]\n"
                    "       stallscope convert --prometheus URL --from T --to T [--match M]... --out BUNDLE\n"
                    "         (keeps an incident's counters after the server's retention has dropped them)\n"
                    "Reads PATH (a folder of raw files as the cluster left them, or a bundle) and writes it as a\n"
                    "Stallscope bundle, which reopens in a fraction of the time. PATH is only read. Warnings about\n"
                    "the input are printed; the bundle holds what was read.\n\nOptions:\n";
    s += formatOptions(kSpecs);
    s += "\nExit codes: 0 ok, 1 unreadable input or write failure, 2 usage error.\n";
    return s;
}

} // namespace

int runConvert(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    const auto bad = !parsed.error.empty() ? parsed.error
        : !parsed.has("out")               ? std::string("--out BUNDLE is required")
                                           : checkInput(parsed);
    if (!bad.empty()) {
        err << "stallscope convert: " << bad << "\n" << usage();
        return kExitUsage;
    }
    const auto in = inputName(parsed);
    const auto& dir = *parsed.find("out");
    if (const auto inside = parsed.positional.empty() ? std::string() : outsideInput(in, dir, false); !inside.empty()) {
        err << "stallscope convert: " << inside << '\n';
        return kExitUsage;
    }
    BundleWriteOptions options;
    if (auto f = parsed.find("format")) {
        if (*f != "binary" && *f != "jsonl") {
            err << "stallscope convert: --format: expected binary or jsonl\n";
            return kExitUsage;
        }
        options.collectives = options.counters = *f == "jsonl" ? ColumnFormat::JsonLines : ColumnFormat::Binary;
    }
    ScratchPolicy scratch;
    // Scratch files beside the bundle: the disk that must hold it anyway, not a small /tmp.
    scratch.dir = absoluteFolder(dir).parent_path().string();
    if (auto m = parsed.find("memory-mb")) {
        const auto mb = parseNumber<std::uint64_t>(*m);
        if (!mb || *mb == 0 || *mb > (1ull << 30)) {
            err << "stallscope convert: --memory-mb: expected a whole number of MiB, 1 or more\n";
            return kExitUsage;
        }
        scratch.memoryBytes = *mb << 20;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = openInput(parsed, scratch);
    if (!loaded) {
        err << "stallscope convert: " << loaded.error().format() << '\n';
        return kExitBadInput;
    }
    for (const auto& g : groupIssues(loaded->warnings)) {
        err << "warning: " << g.format() << '\n';
    }
    if (auto e = writeBundle(*loaded->snapshot, dir, options); !e.empty()) {
        err << "stallscope convert: " << e << '\n';
        return kExitBadInput;
    }
    if (auto e = writeLevels(dir); !e.empty()) {
        err << "warning: the heatmaps' levels were not kept beside the bundle: " << e << '\n';
    }
    if (!parsed.has("quiet")) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const auto& s = *loaded->snapshot;
        out << "Converted " << in << " (" << s.job.worldSize << " ranks, " << formatCount(s.collectiveCount())
            << " collectives, " << s.counters.size() << " counter series, " << loaded->warnings.size()
            << " warning(s)) to " << dir << " in " << std::fixed;
        out.precision(2);
        out << secs << " s\n";
        if (loaded->spilledBytes > 0) {
            out << "The counters outgrew " << formatBytes(double(scratch.memoryBytes))
                << " of memory: " << formatBytes(double(loaded->spilledBytes))
                << " of samples went through a scratch file in " << scratch.dir << "\n";
        }
    }
    return kExitOk;
}

} // namespace stallscope::cli
