// SPDX-License-Identifier: MIT
#pragma once

// The CSV of `stallscope collect` (collect/sysfs_collector.h writes it): a header
// "t_ns,host,device,port,<column>,<sysfs counter names...>" and one row per port per sample. Host-side rows are
// joined to the HCA node "<host> <device>" through `guidOfHca`.

#include "import/common/counter_sink.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// The header every collector CSV starts with: how the folder reader recognises one.
inline constexpr const char* kCollectorCsvHeader = "t_ns,host,device,port";

bool looksLikeCollectorCsv(const std::string& text);

using GuidOfHca = std::function<std::optional<std::uint64_t>(const std::string& description)>;
void readCollectorCsv(const std::string& file, const std::string& text, const GuidOfHca& guidOfHca, CounterSink& sink,
    std::vector<LoadIssue>& warnings);

} // namespace stallscope
