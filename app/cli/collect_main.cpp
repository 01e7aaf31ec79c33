// SPDX-License-Identifier: MIT
// stallscope-collect: `stallscope collect` as its own small binary for collector-only hosts (GPU nodes), built
// from the same handler and linked only with the GUI-free core and collector libraries — no Qt GUI or Widgets.
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/manual.h"
#include "stallscope_version.h"

#include <iostream>
#include <sstream>

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && args[0] == "--version") {
        std::cout << "stallscope-collect " STALLSCOPE_VERSION_BUILD "\n";
        return stallscope::cli::kExitOk;
    }
    if (args.size() == 1 && args[0] == "--man") { // for the build: writes stallscope-collect.1
        std::ostringstream help, ignored;
        stallscope::cli::runCollect({ "--help" }, help, ignored);
        std::cout << stallscope::cli::collectorManPage(help.str(), STALLSCOPE_VERSION);
        return stallscope::cli::kExitOk;
    }
    return stallscope::cli::runCollect(args, std::cout, std::cerr);
}
