// SPDX-License-Identifier: MIT
#pragma once

// Where a place to write stands to what was opened. Stallscope never writes into what it opened: a folder of raw
// files would take a report's images, or an exported trace for a profiler trace, as input the next time; a bundle
// replaced by `convert` takes with it whatever the folder held. The CLI's --out and the window's save dialogs ask.

#include <string>

namespace stallscope {

enum class PathRelation {
    Apart, // neither holds the other (or the input is no file or folder: a Prometheus URL)
    Same, // `out` is the input
    Inside, // `out` lies inside the input folder
    Holds, // the input lies inside `out`
};

// Both resolved (std::filesystem::weakly_canonical: `out` need not exist yet, links followed as far as they exist).
PathRelation pathRelation(const std::string& input, const std::string& out);

} // namespace stallscope
