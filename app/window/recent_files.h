// SPDX-License-Identifier: MIT
#pragma once

// File › Open Recent (issue #39): the paths opened last, newest first, kept in QSettings under "recent" and
// shown in the menu and on the welcome page. Choosing one emits openRequested; the window opens it, so this
// class knows nothing of how. GUI thread only.

#include <QObject>

class QMenu;
class QString;

namespace stallscope {

class WelcomePanel;

class RecentFiles : public QObject
{
    Q_OBJECT
public:
    // `menu` is filled and emptied here; `welcome` (may be null) gets the same list. Both outlive this object.
    RecentFiles(QMenu* menu, WelcomePanel* welcome, QObject* parent);

    void add(const QString& path); // to the front; the oldest falls off past eight
    void rebuild(); // the menu and welcome page from the settings, leaving out paths deleted since

signals:
    void openRequested(const QString& path);

private:
    QMenu* m_menu;
    WelcomePanel* m_welcome;
};

} // namespace stallscope
