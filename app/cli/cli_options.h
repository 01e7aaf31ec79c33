// SPDX-License-Identifier: MIT
#pragma once

// Command-line parsing for the one `stallscope` binary: GUI when no subcommand is given, CLI subcommands
// otherwise. A pure function so tests can drive it.

#include <map>
#include <string>
#include <vector>

namespace stallscope::cli {

enum ExitCode { kExitOk = 0, kExitBadInput = 1, kExitUsage = 2 };

struct ParsedArgs
{
    std::string command; // "" = GUI
    std::map<std::string, std::vector<std::string>> options; // long name → values (repeatable)
    std::vector<std::string> positional;
    bool help = false;
    std::string error; // non-empty on a usage error

    // The last value given for an option, or "" (flags: present → "").
    std::string last(const std::string& name) const
    {
        auto it = options.find(name);
        return it == options.end() ? std::string() : it->second.back();
    }
    bool has(const std::string& name) const { return options.count(name) > 0; }
    // The last value given for an option, or nullptr when it was not given.
    const std::string* find(const std::string& name) const
    {
        auto it = options.find(name);
        return it == options.end() ? nullptr : &it->second.back();
    }
};

struct OptionSpec
{
    std::string name; // long name without "--"
    bool takesValue = true;
    std::string help;
};

// Parses GNU-style arguments: `--name value`, `--name=value`, `--flag`, `-h`, `--` ends options.
ParsedArgs parseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs);

// "" when `out` (a file or folder to write, which need not exist yet) lies outside `input` (what the command reads);
// else the usage error: "--out OUT is inside INPUT, which this command reads: …". Stallscope never writes into what
// it opened — a folder of raw files would take a report's images, or an exported trace for a profiler trace, as input
// the next time. Both are resolved, links followed as far as they exist; an input that is not a folder or file
// (a Prometheus URL) has nothing inside it. `outMayHoldInput` off (convert, which replaces the bundle folder it
// writes): an `out` that holds the input is refused too.
std::string outsideInput(const std::string& input, const std::string& out, bool outMayHoldInput = true);

// The "Options:" block of a usage text: one line per option, help aligned in a column.
std::string formatOptions(const std::vector<OptionSpec>& specs);

} // namespace stallscope::cli
