// SPDX-License-Identifier: MIT
#pragma once

// A small expected-style result (until C++23 std::expected) and the error/warning type every loader reports.

#include "core/printable.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace stallscope {

// One problem found while loading. `line` is 1-based for text files; for binary files `line` is 0 and
// `offset` is the byte offset. format() gives "file:line: message" or "file (byte offset N): message", control
// characters from the file's name or content escaped (core/printable.h).
struct LoadIssue
{
    std::string file;
    std::int64_t line = 0;
    std::int64_t offset = -1;
    std::string message;

    std::string format() const
    {
        std::string s = printable(file);
        if (line > 0) {
            s += ':' + std::to_string(line);
        } else if (offset >= 0) {
            s += " (byte offset " + std::to_string(offset) + ")";
        }
        return s + ": " + printable(message, true);
    }
};

template <typename T, typename E = LoadIssue> class Result
{
public:
    Result(T value)
        : m_v(std::in_place_index<0>, std::move(value))
    {
    }
    Result(E error)
        : m_v(std::in_place_index<1>, std::move(error))
    {
    }

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(m_v); }
    const T& value() const { return std::get<0>(m_v); }
    const E& error() const { return std::get<1>(m_v); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::variant<T, E> m_v;
};

} // namespace stallscope
