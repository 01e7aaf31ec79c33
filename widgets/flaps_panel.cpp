// SPDX-License-Identifier: MIT
#include "flaps_panel.h"
#include "plain_text.h"

#include "analysis/flaps.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cstdio>

namespace stallscope {

namespace {

enum Column { kLink, kTier, kFlaps, kRecurrence, kNext, kDown, kCost, kColumns };

QString fixed(double v, int digits)
{
    return QString::number(v, 'f', digits);
}

QTableWidgetItem* item(const QString& text, const QString& tip = {}, double sortKey = 0, bool numeric = false)
{
    auto* it = new QTableWidgetItem(text);
    it->setToolTip(plainTip(tip.isEmpty() ? text : tip));
    if (numeric) {
        it->setData(Qt::UserRole + 1, sortKey);
        it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return it;
}

} // namespace

FlapsPanel::FlapsPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_header(new QLabel(this))
    , m_table(new QTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 1);
    m_header->setWordWrap(true);
    m_table->setColumnCount(kColumns);
    m_table->setHorizontalHeaderLabels(
        { tr("Link"), tr("Tier"), tr("Flaps"), tr("Recurrence"), tr("Next expected"), tr("Down"), tr("GPU-h/day") });
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(kRecurrence, QHeaderView::Stretch);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty()) {
            selectRow(rows.front().row());
        }
    });
    setReview(nullptr, nullptr);
}

void FlapsPanel::setReview(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const FabricReview> review)
{
    m_review = std::move(review);
    m_table->setRowCount(0);
    if (!snap || !m_review) {
        m_header->setText(tr("No fabric data open."));
        return;
    }
    const auto& rv = *m_review;
    m_header->setText(tr("%1 links went down, %2 only erred, of %3 watched — priced for a %4-GPU job crossing the "
                         "link (NCCL_IB_TIMEOUT=%5)")
                          .arg(rv.flapping.size())
                          .arg(rv.erroring.size())
                          .arg(rv.linksWatched)
                          .arg(rv.options.jobRanks)
                          .arg(rv.policy.ncclIbTimeout));
    int row = 0;
    m_table->setRowCount(int(rv.flapping.size() + rv.erroring.size()));
    for (const auto& l : rv.flapping) {
        const QString name = QString::fromStdString(l.a + " ↔ " + l.b);
        m_table->setItem(row, kLink, item(name));
        m_table->setItem(row, kTier, item(QString::fromStdString(l.tier)));
        m_table->setItem(row, kFlaps, item(QString::number(l.flaps.size()), {}, double(l.flaps.size()), true));
        const QString rec = l.recurrence ? QString::fromStdString(describeRecurrence(*l.recurrence))
            : l.flaps.size() == 1
            ? tr("once, %1").arg(QString::fromStdString(formatUtc(l.flaps[0].timeNs()).substr(0, 16)))
            : tr("irregular");
        m_table->setItem(row, kRecurrence, item(rec));
        m_table->setItem(row, kNext,
            item(l.recurrence ? QString::fromStdString(formatUtc(l.recurrence->nextNs).substr(0, 16)) : QString()));
        m_table->setItem(row, kDown,
            item(l.downKnown ? QString::fromStdString(formatDuration(l.downTotalNs)) : tr("?"),
                l.downKnown ? tr("%1 of %2 flaps timed by link events").arg(l.downKnown).arg(l.flaps.size())
                            : tr("seen in counters only: length unknown")));
        m_table->setItem(row, kCost,
            item(fixed(l.gpuHoursPerDay, 1),
                l.crashes ? tr("each flap crashes the job (down past the retry budget)")
                          : tr("%1 stall per flap × %2 flaps/day")
                                .arg(QString::fromStdString(formatDuration(l.stallPerFlapNs)))
                                .arg(fixed(l.flapsPerDay, 1)),
                l.gpuHoursPerDay, true));
        ++row;
    }
    for (const auto& l : rv.erroring) {
        const QString name = QString::fromStdString(l.a + " ↔ " + l.b);
        m_table->setItem(row, kLink, item(name));
        m_table->setItem(row, kTier, item(QString::fromStdString(l.tier)));
        m_table->setItem(row, kFlaps, item(QStringLiteral("0"), {}, 0, true));
        m_table->setItem(row, kRecurrence,
            item(tr("never down: %1 retrains in %2 bursts, %3 symbol errors")
                     .arg(l.retrains)
                     .arg(l.errorBursts)
                     .arg(QString::fromStdString(formatCount(l.symbolErrors)))));
        m_table->setItem(row, kNext, item({}));
        m_table->setItem(row, kDown, item({}));
        m_table->setItem(row, kCost, item({}));
        for (int c = 0; c < kColumns; ++c) {
            m_table->item(row, c)->setForeground(palette().color(QPalette::PlaceholderText));
        }
        ++row;
    }
    m_table->resizeColumnsToContents();
}

int FlapsPanel::rowCount() const
{
    return m_table->rowCount();
}

QString FlapsPanel::cellText(int row, int column) const
{
    const auto* it = m_table->item(row, column);
    return it ? it->text() : QString();
}

void FlapsPanel::selectRow(int row)
{
    if (!m_review || row < 0 || row >= rowCount()) {
        return;
    }
    const auto n = static_cast<std::size_t>(row);
    const bool flapping = n < m_review->flapping.size();
    const auto& l = flapping ? m_review->flapping[n] : m_review->erroring[n - m_review->flapping.size()];
    if (m_table->currentRow() != row) {
        m_table->selectRow(row);
    }
    if (l.link) {
        m_state->clearLinks();
        m_state->selectLink(*l.link);
    }
    if (flapping) {
        m_state->setCursor(l.flaps.back().timeNs()); // the latest flap: where the counters tell the story
    }
}

} // namespace stallscope
