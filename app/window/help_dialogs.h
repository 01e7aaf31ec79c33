// SPDX-License-Identifier: MIT
#pragma once

// The Help menu's windows: the keyboard-shortcut sheet, the documentation browser and About. They keep no state:
// each call opens its window over `parent` (non-modal, deleted on close; About is modal). GUI thread only.

#include <QCoreApplication>

class QWidget;

namespace stallscope {

class HelpDialogs
{
    Q_DECLARE_TR_FUNCTIONS(HelpDialogs)
public:
    static void showShortcuts(QWidget* parent); // Help › Keyboard shortcuts (?)
    // Help › Documentation (F1): the README and docs/ rendered from their Markdown, links between them followed,
    // from the installed package's documentation folder, else the source tree this binary was built from.
    static void showDocumentation(QWidget* parent);
    static void showAbout(QWidget* parent); // Help › About Stallscope
};

} // namespace stallscope
