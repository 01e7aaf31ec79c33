// SPDX-License-Identifier: MIT
#include "cli/commands.h"

#include "cli/cli_options.h"
#include "cli/manual.h"

#include <ostream>

namespace stallscope::cli {

namespace {

// `help --man` and `help --completion bash|zsh [PROGRAM]` are for the build (they write the installed man page
// and completions), so the usage text does not list them.
int runHelp(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.size() == 1 && args[0] == "--man") {
        out << manPage();
        return kExitOk;
    }
    if ((args.size() == 2 || args.size() == 3) && args[0] == "--completion") {
        const auto script = completionScript(args[1], args.size() == 3 ? args[2] : "stallscope");
        if (script.empty()) {
            err << "stallscope help: --completion: expected bash or zsh\n";
            return kExitUsage;
        }
        out << script;
        return kExitOk;
    }
    out << mainUsage();
    return kExitOk;
}

} // namespace

const std::vector<Subcommand>& subcommandTable()
{
    using N = Subcommand::Needs;
    static const std::vector<Subcommand> table = {
        { "simulate", "generate a simulated incident bundle (with truth.json)", N::Core, runSimulate },
        { "info", "print what a bundle or raw folder holds and how long it took to load", N::Core, runInfo },
        { "convert", "write a folder of raw files (Flight Recorder dumps, logs, counters, topology) as a bundle",
            N::Core, runConvert },
        { "merge", "write the bundle of a sharded convert (convert --shard K/N) from its N shards", N::Core, runMerge },
        { "analyze", "find stalls, hangs and stragglers; name the link or rank; price each incident", N::Core,
            runAnalyze },
        { "collect", "sample this host's InfiniBand port counters into CSV (run it as a service)", N::Core,
            runCollect },
        { "export-trace", "Chrome trace JSON for Perfetto (ranks, collectives, link counters, events)", N::Core,
            runExportTrace },
        { "report", "a self-contained HTML and Markdown incident report with one image per incident", N::Painting,
            runReport },
        { "render", "the composed postmortem image of an incident or window (PNG, SVG, PDF), headless", N::Painting,
            runRender },
        { "exercise", "training: list exercises, make one as a folder, give hints, score an answer", N::Core,
            runExercise },
        { "help", "this text", N::Core, runHelp },
    };
    return table;
}

const Subcommand* findSubcommand(const std::string& word)
{
    for (const auto& c : subcommandTable()) {
        if (word == c.name) {
            return &c;
        }
    }
    return nullptr;
}

std::string mainUsage()
{
    std::string s = "Usage: stallscope [BUNDLE] [--theme light|dark] [--incident N]\n"
                    "                                        open the GUI (optionally with a bundle, zoomed to "
                    "incident N)\n"
                    "       stallscope COMMAND [OPTIONS]     run a command without a display\n"
                    "\n"
                    "Commands:\n";
    for (const auto& c : subcommandTable()) {
        std::string name = c.name;
        name.resize(std::max<std::size_t>(name.size() + 1, 15), ' ');
        s += "  " + name + c.summary + "\n";
    }
    return s
        + "\nRun 'stallscope COMMAND --help' for a command's options.\n"
          "Exit codes: 0 ok, 1 bad input, 2 usage error.\n";
}

int runSubcommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const Subcommand* c = args.empty() ? nullptr : findSubcommand(args[0]);
    if (!c) {
        return -1;
    }
    return c->run({ args.begin() + 1, args.end() }, out, err);
}

} // namespace stallscope::cli
