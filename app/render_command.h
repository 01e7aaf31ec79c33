// SPDX-License-Identifier: MIT
#pragma once

// Subcommands that paint (they need a QApplication on the offscreen platform, created by main()).

#include <iosfwd>
#include <string>
#include <vector>

namespace stallscope::cli {

int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace stallscope::cli
