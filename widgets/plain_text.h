// SPDX-License-Identifier: MIT
#pragma once

// Text from files (a job's name, a host's, a warning quoting a line, a path) shown by Qt as text, never as markup.
// A QLabel left at Qt::AutoText, a tooltip and a QMessageBox take a string for rich text when Qt::mightBeRichText()
// finds a known tag after its first "<" before a line break — and rich text loads the images it names: a bundle whose
// job was named `<img src="/dev/zero">` made the summary's title read /dev/zero on the GUI thread (9 GB in 25 s, the
// window frozen). GUI thread only, as every widget.

#include <QString>

#include <string>
#include <string_view>

class QLabel;
class QWidget;

namespace stallscope {

// A tooltip that shows `text` exactly (markup escaped, line breaks kept); empty stays empty (no tooltip).
QString plainTip(const QString& text);

// A name from a file placed in rich text we compose ("<b>%1</b>…"): markup escaped.
QString htmlText(const std::string& text);

// A note's first line, at most `maxChars` characters (ending in "…" when cut), to draw beside its mark: a note is
// whatever a session file holds, and one of 30 MB took `render --session` to 16 s and 1.2 GB, measured and laid out
// whole on every paint. Only the first 4 × maxChars bytes are ever converted.
QString shortLabel(std::string_view text, int maxChars = 80);

// A label that shows whatever it is given as plain text.
QLabel* plainLabel(QWidget* parent);

// A modal warning whose text is shown as plain text.
void warnPlain(QWidget* parent, const QString& title, const QString& text);

} // namespace stallscope
