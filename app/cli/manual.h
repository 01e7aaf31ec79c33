// SPDX-License-Identifier: MIT
#pragma once

// The man page and shell completions, made from the commands' own --help text (the table in commands.cpp and
// each command's option list as formatOptions prints it), so the three cannot drift apart. The build runs
// `stallscope help --man` and `stallscope help --completion bash|zsh` (and `stallscope-collect --man`) to write
// them; tests/manual_test.sh checks that every command and option is in the page and that groff renders it
// without a warning.

#include <string>
#include <vector>

namespace stallscope::cli {

// A --help text taken apart: "Usage:" lines, the description up to "Options:", one entry per option line
// (`  --name V   help`, continuation lines joined), and whatever follows (faults, formats, exit codes).
struct HelpOption
{
    std::string name; // without "--"
    bool takesValue = false;
    std::string help;
};

struct HelpText
{
    std::vector<std::string> usage; // "stallscope simulate --preset NAME ..." (without "Usage: ")
    std::vector<std::string> description;
    std::vector<HelpOption> options;
    std::vector<std::string> rest;
};

HelpText parseHelp(const std::string& text);

// Text for roff: backslashes, minus signs, a leading dot or quote, non-ASCII as \[uXXXX].
std::string roffText(const std::string& text);

// The parts of one command's section in a man page: usage in no-fill, the description filled, options as tagged
// paragraphs, the rest verbatim; roffCommand is all four.
std::string roffUsage(const HelpText& help);
std::string roffDescription(const HelpText& help);
std::string roffOptions(const HelpText& help);
std::string roffRest(const HelpText& help);
std::string roffCommand(const HelpText& help);

// The man page of the collector-only binary, from `collect`'s --help.
std::string collectorManPage(const std::string& collectHelp, const std::string& version);

// The full man page of `stallscope`, and the completion script ("bash" or "zsh"; "" for another shell) of
// `stallscope` or `stallscope-collect`.
std::string manPage();
std::string completionScript(const std::string& shell, const std::string& program = "stallscope");

} // namespace stallscope::cli
