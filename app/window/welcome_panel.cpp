// SPDX-License-Identifier: MIT
#include "window/welcome_panel.h"
#include "plain_text.h"

#include <QCommandLinkButton>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

namespace stallscope {

WelcomePanel::WelcomePanel(QWidget* parent)
    : QWidget(parent)
    , m_recent(new QListWidget(this))
{
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto* row = new QHBoxLayout;
    auto* page = new QWidget(this);
    page->setMaximumWidth(1100); // a readable column, centred, however wide the window
    row->addStretch(1);
    row->addWidget(page, 4);
    row->addStretch(1);
    outer->addLayout(row);
    outer->addStretch(2);
    auto* grid = new QGridLayout(page);

    auto* title = new QLabel(tr("<h2>Stallscope</h2><p>Every rank's collectives and the fabric's counters on one time "
                                "axis: see the job stall, find the link, price each flap.</p>"),
        this);
    title->setWordWrap(true);
    grid->addWidget(title, 0, 0, 1, 2);

    auto* actions = new QVBoxLayout;
    auto add = [&](const QString& text, const QString& detail, void (WelcomePanel::*signal)()) {
        auto* b = new QCommandLinkButton(text, detail, this);
        connect(b, &QCommandLinkButton::clicked, this, signal);
        actions->addWidget(b);
    };
    add(tr("Open a bundle or a folder…"),
        tr("What a cluster left behind: Flight Recorder dumps, profiler traces, rank logs, counters, topology"),
        &WelcomePanel::openFolderRequested);
    add(tr("Open from Prometheus…"), tr("The fleet's InfiniBand series for a time range"),
        &WelcomePanel::openPrometheusRequested);
    add(tr("Open the demo scenario"),
        tr("1,024 GPUs, 70 minutes, one link down for 2 s every hour (simulated once, then cached)"),
        &WelcomePanel::openDemoRequested);
    add(tr("Start a training exercise…"), tr("A simulated incident with a hidden answer, from first day to expert"),
        &WelcomePanel::startExerciseRequested);
    actions->addStretch(1);
    grid->addLayout(actions, 1, 0);

    auto* recentBox = new QVBoxLayout;
    recentBox->addWidget(new QLabel(tr("<b>Open recent</b>"), this));
    m_recent->setMinimumWidth(360);
    recentBox->addWidget(m_recent);
    grid->addLayout(recentBox, 1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    connect(m_recent, &QListWidget::itemClicked, this,
        [this](QListWidgetItem* item) { emit openRecentRequested(item->data(Qt::UserRole).toString()); });
}

void WelcomePanel::setRecent(const QStringList& paths)
{
    m_recent->clear();
    for (const auto& p : paths) {
        auto* item = new QListWidgetItem(p, m_recent);
        item->setData(Qt::UserRole, p);
        item->setToolTip(plainTip(p));
    }
    if (paths.isEmpty()) {
        auto* item = new QListWidgetItem(tr("(nothing opened yet)"), m_recent);
        item->setFlags(Qt::NoItemFlags);
    }
}

} // namespace stallscope
