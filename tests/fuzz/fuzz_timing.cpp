// SPDX-License-Identifier: MIT
// How long the readers take on what the fuzzer kept (issue #17: "no input taking > 1 s per MB"). Run on a release
// build, never as a unit test (timings belong to benchmarks). For each target folder under DIR (a libFuzzer corpus,
// build-asan/fuzz/corpus, or tests/fuzz/regressions):
//  - every input is read once and timed: the slowest one, and the slowest per byte;
//  - the inputs slowest per byte are then repeated end to end to at least 1 MiB and read again, which is where
//    work growing faster than the input shows (a 16 KiB fuzz input cannot show it).
// Seconds per MiB of the grown inputs are what the limit is checked against; exit 1 when one is over the limit.
// Usage: fuzz_timing DIR [--limit SECONDS_PER_MIB] [--grow BYTES] [--targets "a b"]
#include "fuzz_targets.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Timed
{
    fs::path file;
    std::size_t bytes = 0;
    double seconds = 0;
    double perByte() const { return seconds / static_cast<double>(std::max<std::size_t>(bytes, 1)); }
};

struct Options
{
    fs::path dir;
    double limitPerMiB = 1.0;
    std::size_t growTo = 1 << 20;
    std::string only; // space-separated target names; empty = all
};

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// The shorter of two reads: the first read of a process pays for static tables and cold caches.
double timeOne(const stallscope::fuzz::Target& t, const std::string& input)
{
    double best = 1e300;
    for (int k = 0; k < 2; ++k) {
        const auto start = Clock::now();
        try {
            t.run(input);
        } catch (...) { // fuzz_replay reports escapes; here only the time matters
        }
        best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    return best;
}

// The input repeated end to end until it is at least `size` bytes.
std::string grown(const std::string& input, std::size_t size)
{
    std::string out;
    out.reserve(size + input.size());
    while (out.size() < size) {
        out += input;
    }
    return out;
}

bool wanted(const Options& o, std::string_view name)
{
    if (o.only.empty()) {
        return true;
    }
    std::istringstream names(o.only);
    for (std::string n; names >> n;) {
        if (n == name) {
            return true;
        }
    }
    return false;
}

// One target's folder: prints a row; returns the worst seconds per MiB of its grown inputs.
double timeTarget(const stallscope::fuzz::Target& t, const fs::path& dir, const Options& o)
{
    std::vector<Timed> all;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file()) {
            const auto input = readAll(entry.path());
            all.push_back({ entry.path(), input.size(), timeOne(t, input) });
        }
    }
    if (all.empty()) {
        return 0;
    }
    const auto slowest = *std::max_element(
        all.begin(), all.end(), [](const Timed& a, const Timed& b) { return a.seconds < b.seconds; });
    // Per byte, among inputs long enough that the reader's fixed cost does not decide it.
    std::vector<Timed> sized;
    std::copy_if(all.begin(), all.end(), std::back_inserter(sized), [](const Timed& x) { return x.bytes >= 256; });
    std::sort(sized.begin(), sized.end(), [](const Timed& a, const Timed& b) { return a.perByte() > b.perByte(); });
    double worst = 0;
    std::string worstName = "-";
    for (std::size_t k = 0; k < std::min<std::size_t>(sized.size(), 3); ++k) {
        const auto big = grown(readAll(sized[k].file), o.growTo);
        const double perMiB = timeOne(t, big) / (static_cast<double>(big.size()) / (1 << 20));
        if (perMiB > worst) {
            worst = perMiB;
            worstName = sized[k].file.filename().string();
        }
    }
    double total = 0;
    std::size_t bytes = 0;
    for (const auto& x : all) {
        total += x.seconds;
        bytes += x.bytes;
    }
    std::printf("| `%s` | %zu | %.1f | %.2f | %.1f (%zu B) | %.3f (%s) | %s |\n", std::string(t.name).c_str(),
        all.size(), static_cast<double>(bytes) / (1 << 20), total, slowest.seconds * 1e3, slowest.bytes, worst,
        worstName.c_str(), worst > o.limitPerMiB ? "**over**" : "ok");
    std::fflush(stdout);
    return worst;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--limit" && i + 1 < argc) {
            o.limitPerMiB = std::stod(argv[++i]);
        } else if (a == "--grow" && i + 1 < argc) {
            o.growTo = std::stoul(argv[++i]);
        } else if (a == "--targets" && i + 1 < argc) {
            o.only = argv[++i];
        } else if (o.dir.empty() && a.rfind("--", 0) != 0) {
            o.dir = a;
        } else {
            std::cerr << "usage: fuzz_timing DIR [--limit SECONDS_PER_MIB] [--grow BYTES] [--targets \"a b\"]\n";
            return 2;
        }
    }
    if (o.dir.empty()) {
        std::cerr << "usage: fuzz_timing DIR [--limit SECONDS_PER_MIB] [--grow BYTES] [--targets \"a b\"]\n";
        return 2;
    }
    std::printf("| target | inputs | MiB | s, all | slowest, ms | grown to %zu B: worst s/MiB | ≤ %.2f s/MiB |\n"
                "|---|---|---|---|---|---|---|\n",
        o.growTo, o.limitPerMiB);
    bool over = false;
    for (const auto& t : stallscope::fuzz::targets()) {
        const auto dir = o.dir / std::string(t.name);
        std::error_code ec;
        if (wanted(o, t.name) && fs::is_directory(dir, ec)) {
            over = timeTarget(t, dir, o) > o.limitPerMiB || over;
        }
    }
    return over ? 1 : 0;
}
