// SPDX-License-Identifier: MIT
#pragma once

// File › Open: one dialog for everything the window opens — a bundle folder, a folder of raw files, or a review
// session (`.stallscope`). The platform's folder chooser hides files, so this is Qt's own dialog in folder mode
// with files shown, accepting a session file as well as a folder. GUI thread only.

#include <QString>

class QWidget;

namespace stallscope {

// The chosen path, or empty when cancelled.
QString chooseOpenPath(QWidget* parent, const QString& startDir = {});
// What the dialog accepts: an existing folder, or an existing file whose name ends in .stallscope.
bool openablePath(const QString& path);

} // namespace stallscope
