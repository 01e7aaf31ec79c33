// SPDX-License-Identifier: MIT
#include "cli/bundle_output.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "open/open_input.h"

#include "core/atomic_file.h"
#include "core/time_format.h"
#include "import/folder/shard.h"

#include <chrono>
#include <filesystem>
#include <ostream>

namespace stallscope::cli {

namespace {

std::vector<OptionSpec> specs()
{
    auto s = withPrometheusOptions({
        { "out", true, "the bundle folder to write (required; with --shard, the shard file); never inside PATH" },
        { "shard", true,
            "K/N: parse shard K (0 … N-1) of PATH's dumps and traces, whole hosts, into the file --out names; "
            "`stallscope merge` makes the bundle of all N (docs/sharded-convert.md)" },
        { "quiet", false, "print nothing but errors" },
    });
    const auto more = bundleOutputOptions();
    s.insert(s.begin() + 1, more.begin(), more.end());
    return s;
}

std::string usage()
{
    std::string s = "Usage: stallscope convert PATH --out BUNDLE [--format binary|jsonl]\n"
                    "       stallscope convert PATH --shard K/N --out SHARD_FILE\n"
                    "       stallscope convert --prometheus URL --from T --to T [--match M]... --out BUNDLE\n"
                    "         (keeps an incident's counters after the server's retention has dropped them)\n"
                    "Reads PATH (a folder of raw files as the cluster left them, or a bundle) and writes it as a\n"
                    "Stallscope bundle, which reopens in a fraction of the time. PATH is only read. Warnings about\n"
                    "the input are printed; the bundle holds what was read. With --shard, one of N processes (a\n"
                    "Slurm array task) parses its share of a raw folder's Flight Recorder dumps and profiler\n"
                    "traces into a shard file; `stallscope merge` then writes the bundle.\n\nOptions:\n";
    s += formatOptions(specs());
    s += "\nExit codes: 0 ok, 1 unreadable input or write failure, 2 usage error.\n";
    return s;
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// convert PATH --shard K/N --out FILE.
int convertShard(const ParsedArgs& parsed, const std::string& spec, std::ostream& out, std::ostream& err)
{
    const auto shard = folder::parseShardSpec(spec);
    const auto bad = !shard ? "--shard: expected K/N with 0 <= K < N <= " + std::to_string(folder::kMaxShards)
            + ", e.g. 3/8 (got \"" + spec + "\")"
        : parsed.positional.size() != 1 ? std::string("--shard takes one PATH, a folder of raw files")
        : parsed.has("prometheus")      ? std::string("--shard reads a folder of raw files, not --prometheus")
                                        : std::string();
    if (!bad.empty()) {
        err << "stallscope convert: " << bad << "\n" << usage();
        return kExitUsage;
    }
    const auto& in = parsed.positional.front();
    const auto& file = *parsed.find("out");
    if (const auto inside = outsideInput(in, file, false); !inside.empty()) {
        err << "stallscope convert: " << inside << '\n';
        return kExitUsage;
    }
    const auto t0 = std::chrono::steady_clock::now();
    NullProgress progress;
    const auto w = folder::writeShard(in, *shard, file, progress);
    if (!w) {
        err << "stallscope convert: " << w.error().format() << '\n';
        return kExitBadInput;
    }
    if (!parsed.has("quiet")) {
        const double secs = secondsSince(t0);
        out << "Shard " << shard->index << "/" << shard->count << " of " << w->dir << ": " << w->shardFiles << " of "
            << w->folderFiles << " files, " << formatBytes(double(w->bytesRead)) << " read, " << w->kept
            << " dumps and traces kept (" << formatBytes(double(w->shardBytes)) << ") in " << file << " in "
            << std::fixed;
        out.precision(2);
        out << secs << " s (" << double(w->bytesRead) / 1e6 / std::max(secs, 1e-6) << " MB/s)\n";
    }
    return kExitOk;
}

} // namespace

int runConvert(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, specs());
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
    if (const auto* spec = parsed.find("shard")) {
        return convertShard(parsed, *spec, out, err);
    }
    const auto in = inputName(parsed);
    const auto& dir = *parsed.find("out");
    if (const auto inside = parsed.positional.empty() ? std::string() : outsideInput(in, dir, false); !inside.empty()) {
        err << "stallscope convert: " << inside << '\n';
        return kExitUsage;
    }
    BundleWriteOptions options;
    ScratchPolicy scratch;
    if (const auto e = readBundleOutputOptions(parsed, dir, options, scratch); !e.empty()) {
        err << "stallscope convert: " << e << '\n';
        return kExitUsage;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = openInput(parsed, scratch);
    if (!loaded) {
        err << "stallscope convert: " << loaded.error().format() << '\n';
        return kExitBadInput;
    }
    if (const int code = writeLoadedBundle(loaded.value(), dir, options, "convert", err); code != kExitOk) {
        return code;
    }
    if (!parsed.has("quiet")) {
        const auto& s = *loaded->snapshot;
        out << "Converted " << in << " (" << s.job.worldSize << " ranks, " << formatCount(s.collectiveCount())
            << " collectives, " << s.counters.size() << " counter series, " << loaded->warnings.size()
            << " warning(s)) to " << dir << " in " << std::fixed;
        out.precision(2);
        out << secondsSince(t0) << " s\n";
        saySpilled(loaded.value(), scratch, out);
    }
    return kExitOk;
}

} // namespace stallscope::cli
