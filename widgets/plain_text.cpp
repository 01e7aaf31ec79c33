// SPDX-License-Identifier: MIT
#include "plain_text.h"

#include <QLabel>
#include <QMessageBox>
#include <QTextDocument>

#include <algorithm>

namespace stallscope {

QString plainTip(const QString& text)
{
    // Rich text that renders as the text itself: "<" becomes "&lt;", a newline "<br>"; no tag of the text's own.
    return text.isEmpty() ? text : Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal);
}

QString htmlText(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString shortLabel(std::string_view text, int maxChars)
{
    const auto line = text.substr(0, text.find('\n'));
    auto bytes = std::min<std::size_t>(line.size(), std::size_t(maxChars) * 4 + 4); // ≥ maxChars + 1 characters
    while (bytes < line.size() && bytes > 0 && (static_cast<unsigned char>(line[bytes]) & 0xc0) == 0x80) {
        --bytes; // cut between characters, not inside one
    }
    QString label = QString::fromUtf8(line.data(), qsizetype(bytes));
    if (label.size() > maxChars || bytes < text.size()) {
        label = label.left(maxChars - 1).trimmed() + QStringLiteral("…");
    }
    return label;
}

QLabel* plainLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    return label;
}

void warnPlain(QWidget* parent, const QString& title, const QString& text)
{
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Ok, parent);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

} // namespace stallscope
