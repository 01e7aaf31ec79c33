// SPDX-License-Identifier: MIT
#pragma once

// The lines of a text file, one at a time, as every line-oriented reader wants them: numbered from 1, a trailing
// CR removed (files copied off Windows hosts), and no line longer than kMaxLineBytes — a longer one (a JSON blob
// printed on one line, a corrupted file without newlines) is cut there and counted, so no pattern ever runs over
// unbounded input. Readers report the count once per file (cutWarning) instead of once per line.

#include "core/parse_number.h"
#include "core/result.h"
#include "core/warning_cap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stallscope {

class TextLines
{
public:
    static constexpr std::size_t kMaxLineBytes = 4096;

    explicit TextLines(std::string_view text)
        : m_text(text)
    {
    }
    // The next line into `line` (its buffer reused); false after the last one.
    bool next(std::string& line);
    std::int64_t number() const { return m_number; }
    std::size_t cutLines() const { return m_cut; }
    std::int64_t firstCutLine() const { return m_firstCut; }
    // "N lines longer than 4096 bytes were read up to that length (first: line L)", or nothing.
    std::optional<LoadIssue> cutWarning(const std::string& file) const;

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    std::int64_t m_number = 0;
    std::size_t m_cut = 0;
    std::int64_t m_firstCut = 0;
};

// The loop every line reader runs: fn(line, lineNo) for each line; a number in a line that does not fit (BadNumber)
// is a warning for that line and reading goes on; lines cut at 4 KiB are reported once at the end. fn returns
// nothing, or an issue to stop reading (the file is not what it seemed), which readLines returns. What one file
// adds to `warnings` is held to WarningCap::kKeptPerFile.
template <typename Fn>
std::optional<LoadIssue> readLines(
    std::string_view text, const std::string& file, std::vector<LoadIssue>& warnings, Fn&& fn)
{
    TextLines reader(text);
    WarningCap cap(warnings);
    std::string line;
    while (reader.next(line)) {
        try {
            if constexpr (std::is_void_v<std::invoke_result_t<Fn&, const std::string&, std::int64_t>>) {
                fn(line, reader.number());
            } else if (auto stop = fn(line, reader.number())) {
                cap.finish(file);
                return stop;
            }
        } catch (const BadNumber& e) {
            warnings.push_back({ file, reader.number(), -1, std::string(e.what()) + ": line skipped" });
        }
        cap.trim();
    }
    cap.finish(file);
    if (auto cut = reader.cutWarning(file)) {
        warnings.push_back(*cut);
    }
    return std::nullopt;
}

} // namespace stallscope
