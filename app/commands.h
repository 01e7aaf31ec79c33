// SPDX-License-Identifier: MIT
#pragma once

// CLI subcommands. Each takes the arguments after its name and returns an exit code (cli::ExitCode).
// They use the core only: no QApplication, no widgets.

#include <iosfwd>
#include <string>
#include <vector>

namespace stallscope::cli {

int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runAnalyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runExportTrace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runCollect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runConvert(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Dispatches `stallscope COMMAND ...`; returns -1 when args[0] is not a subcommand.
int runSubcommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string mainUsage();

} // namespace stallscope::cli
