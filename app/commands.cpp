// SPDX-License-Identifier: MIT
#include "commands.h"

#include "cli_options.h"

#include <ostream>

namespace stallscope::cli {

std::string mainUsage()
{
    return "Usage: stallscope [BUNDLE] [--theme light|dark] [--incident N]\n"
           "                                        open the GUI (optionally with a bundle, zoomed to incident N)\n"
           "       stallscope COMMAND [OPTIONS]     run a command without a display\n"
           "\n"
           "Commands:\n"
           "  simulate   generate a simulated incident bundle (with truth.json)\n"
           "  info       print what a bundle or raw folder holds and how long it took to load\n"
           "  convert    write a folder of raw files (Flight Recorder dumps, logs, counters, topology) as a bundle\n"
           "  analyze    find stalls, hangs and stragglers; name the link or rank; price each incident\n"
           "  collect    sample this host's InfiniBand port counters into CSV (run it as a service)\n"
           "  export-trace  Chrome trace JSON for Perfetto (ranks, collectives, link counters, events)\n"
           "  report     a self-contained HTML and Markdown incident report with one image per incident\n"
           "  render     the composed postmortem image of an incident or window (PNG, SVG, PDF), headless\n"
           "\n"
           "Run 'stallscope COMMAND --help' for a command's options.\n"
           "Exit codes: 0 ok, 1 bad input, 2 usage error.\n";
}

int runSubcommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        return -1;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "simulate") {
        return runSimulate(rest, out, err);
    }
    if (args[0] == "collect") {
        return runCollect(rest, out, err);
    }
    if (args[0] == "export-trace") {
        return runExportTrace(rest, out, err);
    }
    if (args[0] == "analyze") {
        return runAnalyze(rest, out, err);
    }
    if (args[0] == "convert") {
        return runConvert(rest, out, err);
    }
    if (args[0] == "info") {
        return runInfo(rest, out, err);
    }
    if (args[0] == "help") {
        out << mainUsage();
        return kExitOk;
    }
    return -1;
}

} // namespace stallscope::cli
