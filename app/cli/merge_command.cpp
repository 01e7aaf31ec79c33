// SPDX-License-Identifier: MIT
#include "cli/bundle_output.h"
#include "cli/cli_options.h"
#include "cli/commands.h"

#include "core/time_format.h"
#include "import/open_job.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <ostream>

namespace stallscope::cli {

namespace {

namespace fs = std::filesystem;

std::vector<OptionSpec> specs()
{
    std::vector<OptionSpec> s
        = { { "out", true, "the bundle folder to write (required); never inside the raw folder" } };
    const auto more = bundleOutputOptions();
    s.insert(s.end(), more.begin(), more.end());
    s.push_back({ "quiet", false, "print nothing but errors" });
    return s;
}

std::string usage()
{
    std::string s = "Usage: stallscope merge SHARD... --out BUNDLE [--format binary|jsonl]\n"
                    "Writes the bundle of a sharded convert: reads the raw folder the shards were written of (from\n"
                    "where they say it is), taking each Flight Recorder dump and profiler trace from its shard and\n"
                    "reading the rest itself, and assembles the job as `stallscope convert` does — the same ranks,\n"
                    "groups, clock, topology, counters, warnings and analysis. SHARD is a shard file or a folder of\n"
                    "them (its *.shard files); all N shards of one `convert --shard K/N` run must be given.\n"
                    "The shards and the raw folder are only read.\n\nOptions:\n";
    s += formatOptions(specs());
    s += "\nExit codes: 0 ok, 1 a missing, damaged or mismatched shard, unreadable input or write failure, 2 usage\n"
         "error.\n";
    return s;
}

// Each argument, a folder replaced by its *.shard files in name order.
std::vector<std::string> shardFiles(const std::vector<std::string>& args)
{
    std::vector<std::string> out;
    for (const auto& a : args) {
        std::error_code ec;
        if (!fs::is_directory(a, ec)) {
            out.push_back(a);
            continue;
        }
        std::vector<std::string> inside;
        for (const auto& e : fs::directory_iterator(a, ec)) {
            if (e.path().extension() == ".shard") {
                inside.push_back(e.path().string());
            }
        }
        std::sort(inside.begin(), inside.end());
        out.insert(out.end(), inside.begin(), inside.end());
    }
    return out;
}

} // namespace

int runMerge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, specs());
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    const auto bad = !parsed.error.empty() ? parsed.error
        : !parsed.has("out")               ? std::string("--out BUNDLE is required")
        : parsed.positional.empty()        ? std::string("no SHARD given")
                                           : std::string();
    const auto dir = parsed.last("out");
    BundleWriteOptions options;
    ScratchPolicy scratch;
    const auto badOption = bad.empty() ? readBundleOutputOptions(parsed, dir, options, scratch) : bad;
    if (!badOption.empty()) {
        err << "stallscope merge: " << badOption << "\n" << usage();
        return kExitUsage;
    }
    const auto shards = shardFiles(parsed.positional);
    for (const auto& s : parsed.positional) {
        if (const auto inside = outsideInput(s, dir, false); !inside.empty()) {
            err << "stallscope merge: " << inside << '\n';
            return kExitUsage;
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    NullProgress progress;
    auto merged = openShards(shards, progress, scratch);
    if (!merged) {
        err << "stallscope merge: " << merged.error().format() << '\n';
        return kExitBadInput;
    }
    if (const auto inside = outsideInput(merged->dir, dir, false); !inside.empty()) {
        err << "stallscope merge: " << inside << '\n';
        return kExitUsage;
    }
    const auto& loaded = merged->job;
    if (const int code = writeLoadedBundle(loaded, dir, options, "merge", err); code != kExitOk) {
        return code;
    }
    if (!parsed.has("quiet")) {
        const auto& s = *loaded.snapshot;
        out << "Merged " << merged->shards << " shards of " << merged->dir << " (" << merged->fromShards
            << " dumps and traces from the shards; " << s.job.worldSize << " ranks, "
            << formatCount(s.collectiveCount()) << " collectives, " << s.counters.size() << " counter series, "
            << loaded.warnings.size() << " warning(s)) to " << dir << " in " << std::fixed;
        out.precision(2);
        out << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
        saySpilled(loaded, scratch, out);
    }
    return kExitOk;
}

} // namespace stallscope::cli
