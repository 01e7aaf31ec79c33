// SPDX-License-Identifier: MIT
#pragma once

// Warnings grouped for people: one line per file and reason, with a count and the first places, so a folder
// with 40,000 unreadable lines opens with a handful of lines to read, not 40,000 (the Grafana / hotspot way of
// showing partial input). The reason is the message with its particulars (numbers, GUIDs, quoted text, the
// text after "skipped:") blanked, so "line 7: expected a number, got \"x\"" and "line 9: … got \"y\"" group.

#include "core/result.h"

#include <string>
#include <vector>

namespace stallscope {

struct IssueGroup
{
    std::string file;
    std::string reason; // the message with its particulars blanked (the grouping key)
    LoadIssue first; // the first issue of the group, as reported
    std::size_t count = 0;
    std::vector<std::int64_t> lines; // the first few lines (or byte offsets, when lines are 0), in order seen
    bool byOffset = false;
    // Whole-file issues (no line, no offset) of one reason in several files are one group: how many files, and
    // the first few after `file` ("not a recognised format: skipped" for each of 100,000 files is one line).
    std::size_t files = 1;
    std::vector<std::string> moreFiles;

    // "file:3: message" for one; "file:3: message (and 41 more like it, at lines 7, 12, 15, …)" for many;
    // "file: message (and 2 more files like it: b, c)" for a whole-file issue of several files.
    std::string format() const;
};

std::string issueReason(const std::string& message);

// Groups in order of first appearance. O(issues log groups). `keep` places (and files) are kept per group.
std::vector<IssueGroup> groupIssues(const std::vector<LoadIssue>& issues, std::size_t keep = 4);

} // namespace stallscope
