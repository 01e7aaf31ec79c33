// SPDX-License-Identifier: MIT
#include "core/printable.h"

#include <cstdio>

namespace stallscope {

namespace {

// Bytes at `i` that must be escaped: 1 (a C0 control or DEL), 2 (a C1 control as UTF-8), 0 (none).
std::size_t controlAt(std::string_view t, std::size_t i, bool keepNewlines)
{
    const auto c = static_cast<unsigned char>(t[i]);
    if ((c < 0x20 && c != '\t' && !(keepNewlines && c == '\n')) || c == 0x7f) {
        return 1;
    }
    if (c == 0xc2 && i + 1 < t.size()) {
        const auto d = static_cast<unsigned char>(t[i + 1]);
        return d >= 0x80 && d <= 0x9f ? 2 : 0;
    }
    return 0;
}

} // namespace

std::string printable(std::string_view text, bool keepNewlines)
{
    std::size_t first = 0;
    while (first < text.size() && controlAt(text, first, keepNewlines) == 0) {
        ++first;
    }
    if (first == text.size()) {
        return std::string(text); // nearly always: nothing to escape
    }
    std::string out(text.substr(0, first));
    char buf[8];
    for (std::size_t i = first; i < text.size();) {
        const auto n = controlAt(text, i, keepNewlines);
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 0) {
            out += text[i++];
        } else if (n == 2) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
            out += buf;
            i += 2;
        } else {
            if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else {
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
            }
            ++i;
        }
    }
    return out;
}

} // namespace stallscope
