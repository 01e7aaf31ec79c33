// SPDX-License-Identifier: MIT
#pragma once

// A cursor over one line for the hand-written line readers (rank logs, Slurm and kernel logs). Each step either
// consumes what it expects and says so, or leaves the cursor where it was: a reader tries a wording and falls back
// to the next without copying the line. Linear in the line (no backtracking), which is why the line readers left
// std::regex: under the sanitizers a regex reader ran at 25–1,000 lines/s (bench/RESULTS.md "Fuzzing runs").

#include "core/parse_number.h"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallscope {

class LineScan
{
public:
    explicit LineScan(std::string_view line, std::size_t pos = 0)
        : m_s(line)
        , m_i(pos)
    {
    }

    std::size_t pos() const { return m_i; }
    void seek(std::size_t pos) { m_i = pos < m_s.size() ? pos : m_s.size(); }
    bool atEnd() const { return m_i >= m_s.size(); }
    std::string_view rest() const { return m_s.substr(m_i); }
    std::string_view line() const { return m_s; }
    char peek() const { return atEnd() ? '\0' : m_s[m_i]; }

    // `lit` here: consumed.
    bool lit(std::string_view lit)
    {
        if (m_s.substr(m_i, lit.size()) != lit) {
            return false;
        }
        m_i += lit.size();
        return true;
    }
    // The next `lit` at or after the cursor: the cursor moves past it.
    bool skipPast(std::string_view lit)
    {
        const auto at = m_s.find(lit, m_i);
        if (at == std::string_view::npos) {
            return false;
        }
        m_i = at + lit.size();
        return true;
    }
    void skipSpaces()
    {
        while (!atEnd() && (m_s[m_i] == ' ' || m_s[m_i] == '\t')) {
            ++m_i;
        }
    }
    // Up to `maxDigits` decimal digits as text (empty: none here, cursor unchanged).
    std::string_view digits(std::size_t maxDigits = 20) { return takeWhile(maxDigits, &isDecimal); }
    // Decimal digits as a T; nullopt (cursor unchanged) when there are none. Throws BadNumber when they do not fit:
    // the line readers turn that into a warning for the line.
    template <typename T> std::optional<T> number()
    {
        const auto start = m_i;
        const bool negative = std::is_signed_v<T> && lit("-");
        const auto d = digits();
        if (d.empty()) {
            m_i = start;
            return std::nullopt;
        }
        return toNumber<T>(negative ? m_s.substr(start, m_i - start) : d);
    }
    // Exactly `n` digits as an int, or nullopt with the cursor unchanged.
    std::optional<int> fixed(std::size_t n)
    {
        const auto start = m_i;
        const auto d = digits(n);
        if (d.size() != n) {
            m_i = start;
            return std::nullopt;
        }
        return *parseNumber<int>(d);
    }
    // Characters up to (not including) the first of `stops`, or to the end.
    std::string_view until(std::string_view stops)
    {
        const auto at = m_s.find_first_of(stops, m_i);
        const auto end = at == std::string_view::npos ? m_s.size() : at;
        const auto t = m_s.substr(m_i, end - m_i);
        m_i = end;
        return t;
    }
    // Hexadecimal digits at the cursor (at most maxDigits), consumed; empty when there are none.
    std::string_view hexDigits(std::size_t maxDigits = 16) { return takeWhile(maxDigits, &isHex); }
    // A word: letters, digits, '_', '-', '.'.
    std::string_view word()
    {
        auto j = m_i;
        while (j < m_s.size()
            && (std::isalnum(static_cast<unsigned char>(m_s[j])) || m_s[j] == '_' || m_s[j] == '-' || m_s[j] == '.')) {
            ++j;
        }
        const auto w = m_s.substr(m_i, j - m_i);
        m_i = j;
        return w;
    }

private:
    static bool isDecimal(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
    static bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
    // Up to `max` characters that `accept`, consumed.
    std::string_view takeWhile(std::size_t max, bool (*accept)(char))
    {
        auto j = m_i;
        while (j < m_s.size() && j - m_i < max && accept(m_s[j])) {
            ++j;
        }
        const auto taken = m_s.substr(m_i, j - m_i);
        m_i = j;
        return taken;
    }

    std::string_view m_s;
    std::size_t m_i = 0;
};

// Where `needle` first occurs in `text` at or after `from`; npos when it does not. Every recogniser searches a whole
// file for its marks, and std::string::find is slow there: it finds the needle's first byte with memchr and
// compares at each hit, so a needle starting with a byte common in logs (a space, the 'N' of "NCCL WARN" among
// "NCCL INFO" lines) stops every few bytes. This one filters 32 bytes at a time on two of the needle's bytes
// (text_search.cpp).
std::size_t findText(std::string_view text, std::string_view needle, std::size_t from = 0);

// The first decimal number in `text` ("12", "IBV_WC_RETRY_EXC_ERR(12)" → 12), or nullopt.
inline std::optional<std::int64_t> firstNumberIn(std::string_view text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(text[i]))) {
            LineScan s(text, i);
            return s.number<std::int64_t>();
        }
    }
    return std::nullopt;
}

// `s` without its leading blanks and tabs and its trailing blanks, tabs and CR.
inline std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

// A character of a host name as logs and tools print one: letters, digits, '-', '_', '.'. Not std::isalnum, a
// library call per character of every line.
inline bool hostNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
        || c == '.';
}

// A message kept as text: trailing `trim` characters dropped, then cut at `maxChars` so one runaway line (an
// exception's what() holding a whole tensor dump) cannot grow an event without bound.
inline std::string clipped(std::string_view s, std::string_view trim = " \t", std::size_t maxChars = 240)
{
    while (!s.empty() && trim.find(s.back()) != std::string_view::npos) {
        s.remove_suffix(1);
    }
    return std::string(s.substr(0, maxChars));
}

} // namespace stallscope
