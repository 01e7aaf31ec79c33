// SPDX-License-Identifier: MIT
#include "import/prometheus/exposition_line.h"

#include "core/parse_number.h"
#include "core/topology.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace stallscope::exposition {

namespace {

// Up to 15 decimal digits of `s` from `i` (exact in a double); the count read.
std::size_t readDigits(std::string_view s, std::size_t i, std::uint64_t& out)
{
    std::size_t k = i;
    out = 0;
    while (k < s.size() && k - i < 15 && static_cast<unsigned>(s[k] - '0') < 10) {
        out = out * 10 + static_cast<std::uint64_t>(s[k] - '0');
        ++k;
    }
    return k - i;
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

} // namespace

// The part of a sample line after its name and labels, from `i`: " value [timestamp_ms]". Counters and
// millisecond timestamps are plain integers: read digit by digit (scrape files are millions of such lines);
// anything else (exponents, fractions, NaN, a sign) through from_chars.
bool parseValueAndTime(std::string_view s, std::size_t i, Line& l)
{
    l.timestampMs.reset();
    while (i < s.size() && isBlank(s[i])) {
        ++i;
    }
    std::uint64_t whole = 0;
    auto valueEnd = i + readDigits(s, i, whole);
    if (valueEnd > i && (valueEnd == s.size() || isBlank(s[valueEnd]))) {
        l.value = static_cast<double>(whole);
    } else {
        valueEnd = i;
        while (valueEnd < s.size() && !isBlank(s[valueEnd])) {
            ++valueEnd;
        }
        const std::string_view value = s.substr(i, valueEnd - i);
        if (value.empty()) {
            return false;
        }
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), l.value);
        if (ec != std::errc {} || end != value.data() + value.size()) {
            // NaN / +Inf spellings from_chars does not take
            if (value == "NaN" || value == "+Inf" || value == "-Inf") {
                l.value = value == "NaN" ? NAN : value == "+Inf" ? INFINITY : -INFINITY;
            } else {
                return false;
            }
        }
    }
    i = valueEnd;
    while (i < s.size() && isBlank(s[i])) {
        ++i;
    }
    if (i < s.size()) {
        std::uint64_t ms = 0;
        const auto n = readDigits(s, i, ms);
        if (n > 0 && n < 15 && (i + n == s.size() || s[i + n] == ' ')) {
            l.timestampMs = static_cast<std::int64_t>(ms);
            return true;
        }
        std::int64_t ts = 0;
        const auto [tend, tec] = std::from_chars(s.data() + i, s.data() + s.size(), ts);
        if (tec != std::errc {} || (tend != s.data() + s.size() && *tend != ' ' && *tend != '\r')) {
            return false;
        }
        l.timestampMs = ts;
    }
    return true;
}

// name{a="x",b="y"} value [timestamp_ms]; label values may hold escaped quotes.
bool parseLine(std::string_view s, Line& l)
{
    std::size_t i = 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':')) {
        ++i;
    }
    if (i == 0) {
        return false;
    }
    l.name.assign(s.data(), i);
    l.count = 0;
    l.timestampMs.reset();
    if (i < s.size() && s[i] == '{') {
        ++i;
        while (i < s.size() && s[i] != '}') {
            while (i < s.size() && (s[i] == ',' || s[i] == ' ')) {
                ++i;
            }
            if (i < s.size() && s[i] == '}') {
                break;
            }
            const auto eq = s.find('=', i);
            if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') {
                return false;
            }
            if (l.labels.size() <= l.count) {
                l.labels.emplace_back();
            }
            auto& [key, value] = l.labels[l.count++];
            key.assign(s.data() + i, eq - i);
            value.clear();
            std::size_t j = eq + 2;
            for (; j < s.size() && s[j] != '"'; ++j) {
                if (s[j] == '\\' && j + 1 < s.size()) {
                    ++j;
                    value += s[j] == 'n' ? '\n' : s[j];
                } else {
                    value += s[j];
                }
            }
            if (j >= s.size()) {
                return false;
            }
            i = j + 1;
        }
        if (i >= s.size()) {
            return false;
        }
        ++i; // '}'
    }
    l.seriesEnd = i;
    return parseValueAndTime(s, i, l);
}

// The line of `text` at `pos` (advanced past it) without its CR and its leading blanks and tabs: exporters' test
// fixtures and hand-edited .prom files indent their lines.
std::string_view nextLine(std::string_view text, std::size_t& pos)
{
    const auto end = std::min(text.find('\n', pos), text.size());
    std::string_view raw(text.data() + pos, end - pos);
    pos = end + 1;
    if (!raw.empty() && raw.back() == '\r') {
        raw.remove_suffix(1);
    }
    const auto first = raw.find_first_not_of(" \t");
    raw.remove_prefix(first == std::string_view::npos ? raw.size() : first);
    return raw;
}

const std::string* findLabel(const Line& l, std::string_view key)
{
    for (std::size_t i = 0; i < l.count; ++i) {
        if (l.labels[i].first == key) {
            return &l.labels[i].second;
        }
    }
    return nullptr;
}

std::optional<std::uint64_t> guidLabel(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? parseGuid(*v) : std::nullopt;
}

std::uint16_t portLabel(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? parseNumber<std::uint16_t>(*v).value_or(0) : 1; // 0: no such port, the sample finds no link
}

std::string label(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? *v : std::string();
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool endsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

} // namespace stallscope::exposition
