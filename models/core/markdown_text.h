// SPDX-License-Identifier: MIT
#pragma once

// Text from a file (a job's name, a host's, a reviewer's note) placed in a Markdown report. Written raw, a host
// named "gpu|a01" split its table row into one cell too many, a job name holding a newline and "# " started a
// heading of its own, "<img src=x onerror=...>" in a note reached renderers that pass inline HTML, and "```" in a
// fenced block ended the block early. CommonMark (0.30, §2.4) lets a backslash escape any ASCII punctuation; GFM
// tables need "\|" even inside code spans.

#include <string>
#include <string_view>

namespace stallscope {

// `text` as one line of Markdown that reads as the text itself: control characters shown as escapes (printable()),
// then the punctuation that Markdown would act on escaped — \ ` * [ ] | # ~, a "<" that could open HTML or an
// autolink, an "&" that could open an entity, an "_" at a word's edge. What cannot act stays as it is, so the file
// still reads well raw: "mlx5_3" (an underscore inside a word opens no emphasis), "a <-> b", "R&D". For the middle of
// a line — a table cell, a heading's text, a list item's — never its start ("> " or "1. " would act there).
std::string markdownText(std::string_view text);

// The fence for a fenced code block holding `text`: backticks, one more than the longest run of them in the text
// and at least three (CommonMark §4.5: a fence closes only on a run at least as long as the one that opened it).
std::string markdownFence(std::string_view text);

} // namespace stallscope
