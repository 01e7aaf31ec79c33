// SPDX-License-Identifier: MIT
#include "window/recent_files.h"

#include "window/welcome_panel.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStringList>

namespace stallscope {

namespace {
constexpr int kMaxRecent = 8;
const QString kKey = QStringLiteral("recent"); // the window tests read it too
} // namespace

RecentFiles::RecentFiles(QMenu* menu, WelcomePanel* welcome, QObject* parent)
    : QObject(parent)
    , m_menu(menu)
    , m_welcome(welcome)
{
}

void RecentFiles::add(const QString& path)
{
    QSettings settings;
    auto recent = settings.value(kKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) {
        recent.removeLast();
    }
    settings.setValue(kKey, recent);
    rebuild();
}

void RecentFiles::rebuild()
{
    m_menu->clear();
    QStringList recent;
    for (const auto& path : QSettings().value(kKey).toStringList()) {
        if (QFileInfo::exists(path)) { // a bundle deleted since is not offered
            recent << path;
        }
    }
    for (const auto& path : recent) {
        m_menu->addAction(path, this, [this, path] { emit openRequested(path); });
    }
    m_menu->setEnabled(!recent.isEmpty());
    if (m_welcome) {
        m_welcome->setRecent(recent);
    }
}

} // namespace stallscope
