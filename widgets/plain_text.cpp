// SPDX-License-Identifier: MIT
#include "plain_text.h"

#include <QLabel>
#include <QMessageBox>
#include <QTextDocument>

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
