// SPDX-License-Identifier: MIT
#include "theme.h"

#include <QApplication>
#include <QStyleFactory>

namespace stallscope {

bool isDarkPalette(const QPalette& pal)
{
    return pal.color(QPalette::Window).lightness() < 128;
}

QPalette themePalette(bool dark)
{
    if (!dark) {
        QPalette p(QColor(0xf3, 0xf3, 0xf4));
        p.setColor(QPalette::Base, Qt::white);
        p.setColor(QPalette::Text, QColor(0x1d, 0x1f, 0x24));
        p.setColor(QPalette::WindowText, QColor(0x1d, 0x1f, 0x24));
        return p;
    }
    QPalette p;
    const QColor window(0x23, 0x25, 0x2b), base(0x1b, 0x1d, 0x22), text(0xe6, 0xe7, 0xea);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xc9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x82, 0x88));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x82, 0x88));
    return p;
}

bool applyTheme(const QString& name)
{
    if (name != QStringLiteral("dark") && name != QStringLiteral("light")) {
        return false;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(themePalette(name == QStringLiteral("dark")));
    return true;
}

} // namespace stallscope
