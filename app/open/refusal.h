// SPDX-License-Identifier: MIT
#pragma once

// How the window says that something could not be opened: the message box's title names what it was (a bundle, a
// folder of raw files, a file given where a folder was expected, a Prometheus server), and the status bar keeps the
// refusal to one line that fits, since the box beside it holds the whole text.

#include <QString>

#include <string>

class QFontMetrics;

namespace stallscope {

// "Could not open the bundle" / "… the folder" / "… the Prometheus server" / "Could not open NAME" (a file, or a
// path that is not there). Looks at the path on disk (a stat or two): for a refusal, not on every open.
QString refusalTitle(const std::string& path);

// "Could not open: MESSAGE" cut with "…" to `width` pixels in `metrics`, on one line (a refusal may list the
// folder's files one to a line).
QString refusalStatus(const QString& message, const QFontMetrics& metrics, int width);

} // namespace stallscope
