// SPDX-License-Identifier: MIT
#include "core/warning_cap.h"

#include "core/parse_number.h"

#include <algorithm>

namespace stallscope {

namespace {

constexpr std::string_view kNotKept = " more warnings not kept (the first ";

} // namespace

LoadIssue notKeptWarning(const std::string& file, std::uint64_t n, std::size_t kept, const std::string& scope)
{
    return { file, 0, -1, std::to_string(n) + std::string(kNotKept) + std::to_string(kept) + " of " + scope + " are)" };
}

std::optional<std::uint64_t> notKeptCount(const LoadIssue& issue)
{
    const auto at = issue.message.find(kNotKept);
    if (issue.line != 0 || at == std::string::npos) {
        return std::nullopt;
    }
    return parseNumber<std::uint64_t>(std::string_view(issue.message).substr(0, at));
}

void holdWarnings(std::vector<LoadIssue>& warnings, std::size_t start, std::size_t keep, const std::string& file,
    const std::string& scope)
{
    start = std::min(start, warnings.size());
    std::optional<std::uint64_t> counted; // the reader's own count, when it wrote one last
    if (warnings.size() > start && warnings.back().file == file) {
        counted = notKeptCount(warnings.back());
    }
    const auto added = warnings.size() - start - (counted ? 1 : 0);
    if (added <= keep) {
        return; // within what the file may keep: as the reader left it
    }
    const auto dropped = counted.value_or(0) + (added - keep);
    warnings.erase(warnings.begin() + static_cast<std::ptrdiff_t>(start + keep), warnings.end());
    warnings.push_back(notKeptWarning(file, dropped, keep, scope));
    if (start == 0) {
        // The file's own list: erase keeps its capacity, which a folder's parsed files would hold until added.
        warnings.shrink_to_fit();
    }
}

} // namespace stallscope
