// SPDX-License-Identifier: MIT
#pragma once

// The fuzz targets' table (fuzz_targets.cpp): a name and the reader run on one input.

#include <string_view>
#include <vector>

namespace stallscope::fuzz {

// Separates the files of one input for the targets that read a folder (folder, bundle).
inline constexpr const char* kFileSeparator = "\n--8<-- next file --8<--\n";
// A part that begins with this line names its file ("#name: fr_rank_4294967295.jsonl\n"): readers take ranks,
// hosts and formats from names too. Letters, digits, '.', '_' and '-' only, at most 64, not hidden.
inline constexpr const char* kNameLine = "#name: ";

struct Target
{
    std::string_view name;
    void (*run)(std::string_view input);
};

const std::vector<Target>& targets();
const Target* findTarget(std::string_view name);

} // namespace stallscope::fuzz
