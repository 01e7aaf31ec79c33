// SPDX-License-Identifier: MIT
#include "core/issue_groups.h"

#include <cctype>
#include <map>

namespace stallscope {

std::string issueReason(const std::string& message)
{
    // "unrecognised line skipped: <the line>": what follows the colon is the particular.
    std::string m = message;
    for (const char* cut : { "skipped: ", " got \"", ", got " }) {
        if (const auto at = m.find(cut); at != std::string::npos) {
            m = m.substr(0, at + std::string(cut).size()) + "…";
        }
    }
    std::string out;
    out.reserve(m.size());
    bool quoted = false;
    for (std::size_t i = 0; i < m.size(); ++i) {
        const char c = m[i];
        if (c == '"') {
            quoted = !quoted;
            out += quoted ? "\"…" : "\"";
            continue;
        }
        if (quoted) {
            continue;
        }
        // A run of digits (with hex letters, dots and an 0x) is one particular: "0x0c42a1…", "2.5", "37".
        if (std::isdigit(static_cast<unsigned char>(c))) {
            while (i + 1 < m.size()
                && (std::isxdigit(static_cast<unsigned char>(m[i + 1])) || m[i + 1] == '.' || m[i + 1] == 'x')) {
                ++i;
            }
            out += '#';
            continue;
        }
        out += c;
    }
    return out;
}

std::string IssueGroup::format() const
{
    std::string s = first.format();
    if (count <= 1) {
        return s;
    }
    s += " (and " + std::to_string(count - 1) + " more like it";
    if (lines.size() > 1) {
        s += byOffset ? ", at byte offsets " : ", at lines ";
        for (std::size_t i = 1; i < lines.size(); ++i) {
            s += (i > 1 ? ", " : "") + std::to_string(lines[i]);
        }
        if (count > lines.size()) {
            s += ", …";
        }
    }
    return s + ")";
}

std::vector<IssueGroup> groupIssues(const std::vector<LoadIssue>& issues, std::size_t keep)
{
    std::vector<IssueGroup> groups;
    std::map<std::pair<std::string, std::string>, std::size_t> at;
    for (const auto& issue : issues) {
        auto reason = issueReason(issue.message);
        auto [it, fresh] = at.try_emplace({ issue.file, reason }, groups.size());
        if (fresh) {
            IssueGroup g;
            g.file = issue.file;
            g.reason = std::move(reason);
            g.first = issue;
            g.byOffset = issue.line <= 0 && issue.offset >= 0;
            groups.push_back(std::move(g));
        }
        auto& g = groups[it->second];
        ++g.count;
        const auto place = g.byOffset ? issue.offset : issue.line;
        if (g.lines.size() < keep && place > 0) {
            g.lines.push_back(place);
        }
    }
    return groups;
}

} // namespace stallscope
