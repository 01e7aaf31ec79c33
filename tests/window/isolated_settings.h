// SPDX-License-Identifier: MIT
#pragma once

// Each window test process its own settings file (ctest runs test cases as parallel processes: a shared file let
// one case's exercise attempts or recent files show up in another's); removed when the case ends.

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

namespace stallscope::test {

struct IsolatedSettings
{
    IsolatedSettings()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(
            QStringLiteral("stallscope-window-test-%1").arg(QCoreApplication::applicationPid()));
        QSettings().clear();
    }
    ~IsolatedSettings()
    {
        QSettings s;
        s.clear();
        s.sync();
        QFile::remove(s.fileName());
    }
};

} // namespace stallscope::test
