// SPDX-License-Identifier: MIT
#pragma once

// Light and dark palettes (Fusion style) for `--theme`, renders and screenshots. Without --theme the app
// follows the system palette.

#include <QPalette>
#include <QString>

namespace stallscope {

QPalette themePalette(bool dark);
// Whether a palette is dark (its window colour's lightness under half): every view picks its dark colours by it.
bool isDarkPalette(const QPalette& pal);
// Applies "light" or "dark" to the application; returns false for an unknown name.
bool applyTheme(const QString& name);

} // namespace stallscope
