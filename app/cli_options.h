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
};

struct OptionSpec
{
    std::string name; // long name without "--"
    bool takesValue = true;
    std::string help;
};

// Parses GNU-style arguments: `--name value`, `--name=value`, `--flag`, `-h`, `--` ends options.
ParsedArgs parseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs);

const std::vector<std::string>& subcommands();
bool isSubcommand(const std::string& word);

} // namespace stallscope::cli
