// SPDX-License-Identifier: MIT
#include "core/markdown_text.h"

#include "core/printable.h"

#include <algorithm>
#include <cctype>

namespace stallscope {

namespace {

bool wordChar(const std::string& s, std::size_t i)
{
    return i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || static_cast<unsigned char>(s[i]) >= 0x80);
}

bool entityAt(const std::string& s, std::size_t amp)
{
    std::size_t i = amp + 1;
    if (i < s.size() && s[i] == '#') {
        ++i;
    }
    const auto start = i;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i])) && i - start < 32) {
        ++i;
    }
    return i > start && i < s.size() && s[i] == ';';
}

} // namespace

std::string markdownText(std::string_view text)
{
    const auto line = printable(text); // no newline survives: one line, as a cell or a heading needs
    std::string out;
    out.reserve(line.size() + 8);
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        bool escape = false;
        switch (c) {
        case '\\':
        case '`':
        case '*':
        case '[':
        case ']':
        case '|':
        case '#':
        case '~': // GFM strikethrough
            escape = true;
            break;
        case '<': // raw HTML, an autolink or a comment starts "<" then a letter, "/", "!" or "?"; "<->" is text
            escape = i + 1 < line.size()
                && (std::isalpha(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '/' || line[i + 1] == '!'
                    || line[i + 1] == '?');
            break;
        case '&': // an entity: "&", a name or "#" and digits, ";" ("R&D" is text)
            escape = entityAt(line, i);
            break;
        case '_':
            escape = !(i > 0 && wordChar(line, i - 1) && wordChar(line, i + 1));
            break;
        default:
            break;
        }
        if (escape) {
            out += '\\';
        }
        out += c;
    }
    return out;
}

std::string markdownFence(std::string_view text)
{
    std::size_t longest = 0, run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

} // namespace stallscope
