// SPDX-License-Identifier: MIT
#pragma once

// CLI subcommands, all in one table (commands.cpp): name, one-line summary, what the process must set up before
// it runs (a QCoreApplication, or a QApplication on the offscreen platform for the ones that paint) and the
// handler. Each handler takes the arguments after its name and returns an exit code (cli::ExitCode); its options
// and --help text live beside it in <name>_command.cpp. A new subcommand is one file and one row.

#include <iosfwd>
#include <string>
#include <vector>

namespace stallscope::cli {

using CommandHandler = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct Subcommand
{
    enum class Needs { Core, Painting };
    const char* name;
    const char* summary; // for `stallscope --help`
    Needs needs;
    CommandHandler run;
};

const std::vector<Subcommand>& subcommandTable();
// The row named `word`, or nullptr.
const Subcommand* findSubcommand(const std::string& word);

// Dispatches `stallscope COMMAND ...` (the caller made the application object the row needs); returns -1 when
// args[0] is not a subcommand.
int runSubcommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string mainUsage();

// The handlers.
int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runAnalyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runExportTrace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runCollect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runConvert(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMerge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runExercise(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace stallscope::cli
