// SPDX-License-Identifier: MIT
#pragma once

// What one file may add to a warnings list, held to kKeptPerFile (issue #17). Without it a file of bad rows kept
// a LoadIssue per row: 32 MB of blank lines in a collector CSV took 4.5 GB and most of a minute, so a few hundred
// MB of garbage could end the process. The first warnings are kept as they came (the grouped view shows them with
// their lines); the rest are counted and said in one last warning. Single-threaded, like the reader that owns it.

#include "core/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope {

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
            m_warnings.push_back({ file, 0, -1,
                std::to_string(m_dropped) + " more warnings not kept (the first " + std::to_string(m_keep)
                    + " of a file are)" });
        }
    }

private:
    std::vector<LoadIssue>& m_warnings;
    std::size_t m_start;
    std::size_t m_keep;
    std::uint64_t m_dropped = 0;
};

} // namespace stallscope
