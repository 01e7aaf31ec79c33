// SPDX-License-Identifier: MIT
// The light and dark palettes (#45): a disabled control reads as disabled, a placeholder stays readable.
#include "theme.h"

#include <catch2/catch.hpp>

#include <QColor>

#include <algorithm>
#include <cmath>

using namespace stallscope;

namespace {

// WCAG relative luminance and contrast ratio (1 = none, 21 = black on white).
double luminance(const QColor& c)
{
    const auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}

double contrast(const QColor& a, const QColor& b)
{
    const double x = luminance(a), y = luminance(b);
    return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

} // namespace

TEST_CASE("both themes show disabled text as disabled and placeholders readable", "[widget]")
{
    for (const bool dark : { false, true }) {
        INFO((dark ? "dark" : "light"));
        const QPalette p = themePalette(dark);
        const QColor base = p.color(QPalette::Active, QPalette::Base);
        const QColor window = p.color(QPalette::Active, QPalette::Window);
        for (const auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText }) {
            INFO("role " << int(role));
            const QColor active = p.color(QPalette::Active, role);
            const QColor disabled = p.color(QPalette::Disabled, role);
            const QColor ground = role == QPalette::Text ? base : window;
            CHECK(contrast(active, ground) > 7.0);
            // Visibly quieter than enabled text, yet not gone.
            CHECK(contrast(disabled, ground) < contrast(active, ground) / 2);
            CHECK(contrast(disabled, ground) > 1.8);
        }
        CHECK(p.color(QPalette::Disabled, QPalette::Base) != base); // a disabled field looks inert
        const QColor placeholder = p.color(QPalette::Active, QPalette::PlaceholderText);
        CHECK(contrast(placeholder, base) >= 3.0);
        CHECK(contrast(placeholder, base) < contrast(p.color(QPalette::Active, QPalette::Text), base));
    }
}
