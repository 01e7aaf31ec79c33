// SPDX-License-Identifier: MIT
#pragma once

// Internal to import/prometheus: one exposition line as the scan and the resolution read it — the name, the
// labels, the value and the optional millisecond timestamp — and the helpers over its labels.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope::exposition {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One parsed sample line, reused from line to line: its strings keep their capacity (a scrape file has
// hundreds of thousands of lines, and allocation dominated the parse).
struct Line
{
    std::string name;
    Labels labels; // the first `count` are this line's
    std::size_t count = 0;
    double value = 0;
    std::optional<std::int64_t> timestampMs;
    std::size_t seriesEnd = 0; // where the name and labels end: the series' identity is the line up to here
};

// name{a="x",b="y"} value [timestamp_ms]; label values may hold escaped quotes.
bool parseLine(std::string_view s, Line& l);
// The part of a sample line after its name and labels, from `i`: " value [timestamp_ms]".
bool parseValueAndTime(std::string_view s, std::size_t i, Line& l);
// The line of `text` at `pos` (advanced past it) without its CR and its leading blanks and tabs: exporters' test
// fixtures and hand-edited .prom files indent their lines.
std::string_view nextLine(std::string_view text, std::size_t& pos);

const std::string* findLabel(const Line& l, std::string_view key);
std::optional<std::uint64_t> guidLabel(const Line& labels, const char* key);
std::uint16_t portLabel(const Line& labels, const char* key); // 1 when absent, 0 when not a port number
std::string label(const Line& labels, const char* key);
bool startsWith(std::string_view s, std::string_view p);
bool endsWith(std::string_view s, std::string_view p);

} // namespace stallscope::exposition
