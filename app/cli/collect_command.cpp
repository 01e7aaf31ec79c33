// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"
#include "cli/commands.h"

#include "collect/sysfs_collector.h"
#include "core/time_format.h"

#include <atomic>
#include <charconv>
#include <csignal>
#include <ostream>

namespace stallscope::cli {

namespace {

std::atomic<bool> g_stop { false }; // set by SIGINT/SIGTERM; polled between samples

extern "C" void onStopSignal(int)
{
    g_stop.store(true);
}

const std::vector<OptionSpec> kSpecs = {
    { "out", true, "output folder for the CSV files (required)" },
    { "interval", true, "sampling interval, e.g. 1s (default), 500ms" },
    { "rotate", true, "start a new file this often (default 1h)" },
    { "samples", true, "stop after N samples (default: run until SIGINT/SIGTERM)" },
    { "sysfs-root", true, "where the HCAs are (default /sys/class/infiniband)" },
    { "host", true, "host name written into each row (default: this machine's)" },
};

std::string usage()
{
    return "Usage: stallscope collect --out DIR [--interval 1s] [--rotate 1h] [--samples N]\n"
           "Samples every InfiniBand port's counters (and hw_counters) into CSV files in DIR: raw cumulative\n"
           "readings with a timestamp, one row per port per sample, rotating files.\n\nOptions:\n"
        + formatOptions(kSpecs) + "\nExit codes: 0 ok (stopped), 1 no ports or output not writable, 2 usage error.\n";
}

} // namespace

int runCollect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto a = parseArgs(args, kSpecs);
    if (a.help) {
        out << usage();
        return kExitOk;
    }
    CollectorOptions o;
    std::string bad = a.error;
    if (bad.empty() && (a.last("out").empty() || !a.positional.empty())) {
        bad = a.positional.empty() ? "--out DIR is required" : "unexpected argument " + a.positional[0];
    }
    o.outDir = a.last("out");
    for (auto [name, field] : { std::pair { "interval", &o.intervalNs }, std::pair { "rotate", &o.rotateNs } }) {
        if (bad.empty() && a.has(name)) {
            auto d = parseDuration(a.last(name));
            if (!d || *d < 10 * kNsPerMs) {
                bad = std::string("--") + name + ": expected a duration of at least 10ms";
            } else {
                *field = *d;
            }
        }
    }
    if (bad.empty() && a.has("samples")) {
        const auto v = a.last("samples");
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), o.samples);
        if (ec != std::errc {} || p != v.data() + v.size() || o.samples == 0) {
            bad = "--samples: expected a positive number";
        }
    }
    if (!bad.empty()) {
        err << "stallscope collect: " << bad << "\n" << usage();
        return kExitUsage;
    }
    if (a.has("sysfs-root")) {
        o.sysfsRoot = a.last("sysfs-root");
    }
    o.host = a.last("host");
    std::signal(SIGINT, onStopSignal);
    std::signal(SIGTERM, onStopSignal);
    if (auto e = runCollector(o, [] { return g_stop.load(); }); !e.empty()) {
        err << "stallscope collect: " << e << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}

} // namespace stallscope::cli
