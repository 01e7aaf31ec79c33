// SPDX-License-Identifier: MIT
#include "core/issue_groups.h"
#include "core/printable.h"

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
    if (files > 1) {
        s += " (and " + std::to_string(files - 1) + " more file" + (files > 2 ? "s" : "") + " like it: ";
        for (std::size_t i = 0; i < moreFiles.size(); ++i) {
            s += (i > 0 ? ", " : "") + printable(moreFiles[i]);
        }
        return s + (files - 1 > moreFiles.size() ? ", …)" : ")");
    }
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

namespace {

// Whole-file groups of one reason merged across files, at the place of the first.
std::vector<IssueGroup> acrossFiles(std::vector<IssueGroup> groups, std::size_t keep)
{
    std::vector<IssueGroup> out;
    std::map<std::string, std::size_t> firstOf; // reason → its first whole-file group in `out`
    for (auto& g : groups) {
        if (g.first.line > 0 || g.first.offset >= 0) {
            out.push_back(std::move(g));
            continue;
        }
        const auto [it, fresh] = firstOf.try_emplace(g.reason, out.size());
        if (fresh) {
            out.push_back(std::move(g));
            continue;
        }
        auto& into = out[it->second];
        ++into.files; // groups are per file and reason: this one is another file's
        into.count += g.count;
        if (into.moreFiles.size() < keep) {
            into.moreFiles.push_back(g.file);
        }
    }
    return out;
}

} // namespace

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
    return acrossFiles(std::move(groups), keep);
}

} // namespace stallscope
