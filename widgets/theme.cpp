// SPDX-License-Identifier: MIT
#include "theme.h"

#include <QApplication>
#include <QStyleFactory>

#include <cmath>

namespace stallscope {

bool isDarkPalette(const QPalette& pal)
{
    return pal.color(QPalette::Window).lightness() < 128;
}

namespace {

QColor mix(const QColor& a, const QColor& b, double towardB)
{
    const auto m = [towardB](int x, int y) { return int(std::lround(x + (y - x) * towardB)); };
    return QColor(m(a.red(), b.red()), m(a.green(), b.green()), m(a.blue(), b.blue()));
}

// QPalette::setColor(role, c) sets every colour group, so a disabled control read as enabled; and the default
// placeholder colour is the light theme's grey, near-invisible on a dark base. Disabled text sits halfway to
// the background, placeholders a third of the way (still well readable).
void setDisabledAndPlaceholder(QPalette& p, const QColor& window, const QColor& base, const QColor& text)
{
    const QColor disabled = mix(text, window, 0.55);
    for (const auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText }) {
        p.setColor(QPalette::Disabled, role, disabled);
    }
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::PlaceholderText, mix(text, base, 0.35));
}

} // namespace

QPalette themePalette(bool dark)
{
    if (!dark) {
        const QColor window(0xf3, 0xf3, 0xf4), base(Qt::white), text(0x1d, 0x1f, 0x24);
        QPalette p(window);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::ButtonText, text);
        setDisabledAndPlaceholder(p, window, base, text);
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
    setDisabledAndPlaceholder(p, window, base, text);
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
