// SPDX-License-Identifier: MIT
#include "window/job_alerts.h"
#include "plain_text.h"

#include "core/mapped_file.h"
#include "window/live_controller.h"

#include <QApplication>
#include <QColor>
#include <QLabel>
#include <QListWidget>
#include <QStatusBar>
#include <QTimer>

namespace stallscope {

JobAlerts::JobAlerts(QWidget* window, QStatusBar* statusBar, QListWidget* warnings, LiveController* live)
    : QObject(window)
    , m_window(window)
    , m_statusBar(statusBar)
    , m_warnings(warnings)
    , m_live(live)
    , m_label(plainLabel(window))
{
    m_label->setStyleSheet(QStringLiteral("QLabel { color: white; background: #d55e00; padding: 1px 6px; }"));
    m_label->hide();
    m_statusBar->addPermanentWidget(m_label);
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, &JobAlerts::noteFilesCutShort);
    timer->start(2000);
}

void JobAlerts::hide()
{
    m_label->hide();
}

// In-window alert for links that went down since the last load (live), within one refresh of the server.
void JobAlerts::noteNewFlaps(const FabricReview& review)
{
    const auto fresh = m_live->newFlaps(review);
    if (!fresh.isEmpty()) {
        m_label->setText(QStringLiteral("⚠ ") + fresh.join(QStringLiteral("; ")));
        m_label->show();
        QApplication::alert(m_window);
    }
}

// A bundle's files are mapped, not copied: one cut short on disk while open (copied over, rotated) reads as zeros
// past its new end instead of ending the process (core/mapped_file.h). The user is told, once per file, in the
// Warnings panel and the status bar, since the views now show zeros where the file was.
void JobAlerts::noteFilesCutShort()
{
    QStringList fresh;
    for (const auto& f : mappedFilesCutShort()) {
        const auto file = QString::fromStdString(f.path);
        if (!m_cutShortShown.contains(file)) { // once per file: the message changes tense once zeros are read
            m_cutShortShown << file;
            fresh << QString::fromStdString(f.format());
        }
    }
    if (fresh.isEmpty()) {
        return;
    }
    for (const auto& text : fresh) {
        auto* item = new QListWidgetItem(text);
        item->setForeground(QColor(0xd5, 0x5e, 0x00));
        m_warnings->insertItem(0, item);
    }
    m_label->setText(tr("⚠ A file of this bundle changed on disk: see Warnings, and open it again"));
    m_label->setToolTip(plainTip(fresh.join(QLatin1Char('\n'))));
    m_label->show();
    m_statusBar->showMessage(fresh.front());
}

} // namespace stallscope
