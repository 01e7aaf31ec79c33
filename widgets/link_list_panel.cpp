// SPDX-License-Identifier: MIT
#include "link_list_panel.h"
#include "plain_text.h"

#include "analysis/analysis.h"
#include "core/job_snapshot.h"
#include "view/view_state.h"

#include <QColor>
#include <QLineEdit>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace stallscope {

namespace {

enum Column { kLink, kTier, kRate, kState, kColumnCount };

} // namespace

LinkListPanel::LinkListPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_filter(new QLineEdit(this))
    , m_table(new QTableWidget(0, kColumnCount, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    m_filter->setPlaceholderText(tr("Filter links (host, HCA, switch, GUID, rate, \"degraded\")…"));
    m_filter->setClearButtonEnabled(true);
    m_table->setHorizontalHeaderLabels({ tr("Link"), tr("Tier"), tr("Rate"), tr("State") });
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(kLink, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    connect(m_filter, &QLineEdit::textChanged, this, &LinkListPanel::setFilter);
    connect(m_table, &QTableWidget::itemActivated, this, [this](QTableWidgetItem* item) {
        const auto* first = m_table->item(item->row(), kLink);
        m_state->selectLink(static_cast<LinkId>(first->data(Qt::UserRole).toUInt()));
    });
}

void LinkListPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis)
{
    m_table->setSortingEnabled(false);
    m_table->setRowCount(0);
    m_degraded = 0;
    if (!snap) {
        return;
    }
    const auto& topo = snap->topology;
    std::vector<const DegradedLink*> degraded(topo.links().size(), nullptr);
    std::vector<bool> down(topo.links().size(), false);
    if (analysis) {
        for (const auto& d : analysis->degradedLinks) {
            degraded[index(d.link)] = &d;
            ++m_degraded;
        }
        for (const auto& inc : analysis->incidents) {
            if (inc.culprit) {
                down[index(inc.culprit->link)] = true;
            }
        }
    }
    const QColor vermillion(0xd5, 0x5e, 0x00); // Okabe–Ito, as the stall band
    m_table->setRowCount(int(topo.links().size()));
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        QString tip = QString::fromStdString(
            formatGuid(topo.node(l.a.node).guid) + " ↔ " + formatGuid(topo.node(l.b.node).guid));
        if (const auto* d = degraded[i]) {
            tip += QStringLiteral("\ntrained at %1 vs %2; %3%4")
                       .arg(QString::fromStdString(d->rate), QString::fromStdString(d->usual),
                           QString::fromStdString(d->why),
                           d->impact.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(d->impact));
        }
        const QString state = down[i] ? tr("down") : degraded[i] ? tr("degraded") : tr("ok");
        const QString cells[kColumnCount] = {
            QStringLiteral("%1 p%2 ↔ %3 p%4")
                .arg(QString::fromStdString(snap->str(topo.node(l.a.node).description)))
                .arg(l.a.port)
                .arg(QString::fromStdString(snap->str(topo.node(l.b.node).description)))
                .arg(l.b.port),
            QString::fromLatin1(tierName(topo, l).data(), qsizetype(tierName(topo, l).size())), QStringLiteral("%1x %2").arg(l.width).arg(QString::fromStdString(snap->str(l.speed))),
            state,
        };
        for (int c = 0; c < kColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(plainTip(tip));
            if (down[i] || degraded[i]) {
                item->setForeground(vermillion);
            }
            m_table->setItem(int(i), c, item);
        }
        m_table->item(int(i), kLink)->setData(Qt::UserRole, i);
    }
    // By state: "degraded" and "down" sort before "ok", so links in trouble lead.
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(kState, Qt::AscendingOrder);
    m_table->resizeColumnToContents(kTier);
    m_table->resizeColumnToContents(kRate);
    m_table->resizeColumnToContents(kState);
    setFilter(m_filter->text());
}

void LinkListPanel::setFilter(const QString& text)
{
    const auto words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int r = 0; r < m_table->rowCount(); ++r) {
        QString all = m_table->item(r, 0)->toolTip();
        for (int c = 0; c < kColumnCount; ++c) {
            all += QLatin1Char('\n') + m_table->item(r, c)->text();
        }
        const bool match
            = std::all_of(words.begin(), words.end(), [&](const QString& w) { return all.contains(w, Qt::CaseInsensitive); });
        m_table->setRowHidden(r, !match);
    }
}

QString LinkListPanel::filterText() const
{
    return m_filter->text();
}

void LinkListPanel::setFilterText(const QString& text)
{
    m_filter->setText(text); // textChanged applies it
    setFilter(text);
}

int LinkListPanel::visibleCount() const
{
    int n = 0;
    for (int r = 0; r < m_table->rowCount(); ++r) {
        n += !m_table->isRowHidden(r);
    }
    return n;
}

QString LinkListPanel::cellText(int row, int column) const
{
    const auto* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

} // namespace stallscope
