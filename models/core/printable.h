// SPDX-License-Identifier: MIT
#pragma once

// Text taken from a file or a file's name, made safe to print on a terminal or in a list. A name or a quoted value
// holding ESC sequences could set the terminal's title, move its cursor or clear it (`stallscope info` printed a
// file named "weird\e[31mname" raw), and one holding a newline split a warning into two lines. Control characters
// — C0 but tab, DEL, and C1 written as UTF-8 (U+0080..U+009F: U+009B is a CSI to some terminals) — are shown as
// escapes: "\n", "\r", "\x1b", "\u009b". Everything else, invalid UTF-8 included, is left as it is.

#include <string>
#include <string_view>

namespace stallscope {

// `keepNewlines`: for messages made of several lines on purpose; names never are.
std::string printable(std::string_view text, bool keepNewlines = false);

} // namespace stallscope
