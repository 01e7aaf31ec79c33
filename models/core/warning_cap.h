// SPDX-License-Identifier: MIT
#pragma once

// What one file may add to a warnings list, held to kKeptPerFile (issue #17). Without it a file of bad rows kept
// a LoadIssue per row: 32 MB of blank lines in a collector CSV took 4.5 GB and most of a minute, so a few hundred
// MB of garbage could end the process. The first warnings are kept as they came (the grouped view shows them with
// their lines); the rest are counted and said in one last warning. Single-threaded, like the reader that owns it.
// A folder of many such files holds each file to fewer (holdWarnings): the warnings of a whole folder are bounded
// too, not just those of one file.

#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

// The last warning of a file that kept only its first `kept`: "<n> more warnings not kept (the first <kept> of
// <scope> are)"; scope "a file" for one file alone.
LoadIssue notKeptWarning(const std::string& file, std::uint64_t n, std::size_t kept, const std::string& scope);
// The <n> of a notKeptWarning; nullopt for any other warning.
std::optional<std::uint64_t> notKeptCount(const LoadIssue& issue);
// Holds what `file` added to `warnings` (from `start` on) to its first `keep`, and says how many went in one last
// notKeptWarning, folding in the count of one the file's reader already wrote (so a file never says it twice).
void holdWarnings(std::vector<LoadIssue>& warnings, std::size_t start, std::size_t keep, const std::string& file,
    const std::string& scope);

class WarningCap
{
public:
    static constexpr std::size_t kKeptPerFile = 10'000;

    // Counts from what `warnings` holds now: earlier files' warnings are not this file's.
    explicit WarningCap(std::vector<LoadIssue>& warnings, std::size_t keep = kKeptPerFile)
        : m_warnings(warnings)
        , m_start(warnings.size())
        , m_keep(keep)
    {
    }
    // Drops what this file added past the limit (call after each line or entry; O(1) when under it).
    void trim()
    {
        const auto added = m_warnings.size() - m_start;
        if (added > m_keep) {
            m_dropped += added - m_keep;
            m_warnings.erase(m_warnings.begin() + static_cast<std::ptrdiff_t>(m_start + m_keep), m_warnings.end());
        }
    }
    // True when a further warning would be dropped: callers may skip building its message.
    bool full() const { return m_warnings.size() - m_start >= m_keep; }
    // Counts one warning not built because the list is full.
    void count() { ++m_dropped; }
    std::uint64_t dropped() const { return m_dropped; }
    // Once, after the file: one warning saying how many were not kept.
    void finish(const std::string& file)
    {
        trim();
        if (m_dropped > 0) {
            m_warnings.push_back(notKeptWarning(file, m_dropped, m_keep, "a file"));
        }
    }

private:
    std::vector<LoadIssue>& m_warnings;
    std::size_t m_start;
    std::size_t m_keep;
    std::uint64_t m_dropped = 0;
};

} // namespace stallscope
