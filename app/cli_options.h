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

// The "Options:" block of a usage text: one line per option, help aligned in a column.
std::string formatOptions(const std::vector<OptionSpec>& specs);

} // namespace stallscope::cli
