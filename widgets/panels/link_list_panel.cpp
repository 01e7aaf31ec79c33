// SPDX-License-Identifier: MIT
#include "panels/link_list_panel.h"
#include "plain_text.h"

#include "analysis/analysis.h"
#include "analysis/flaps.h"
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


// The states in the order a sort by state shows them: trouble first.
enum class LinkTrouble { Down, Flapping, Degraded, Erroring, Ok };

QString troubleName(LinkTrouble t)
{
    switch (t) {
    case LinkTrouble::Down:
        return QObject::tr("down");
    case LinkTrouble::Flapping:
        return QObject::tr("flapping");
    case LinkTrouble::Degraded:
        return QObject::tr("degraded");
    case LinkTrouble::Erroring:
        return QObject::tr("erroring");
    case LinkTrouble::Ok:
        break;
    }
    return QObject::tr("ok");
}

// Sorts by a key of its own (the state's rank, a count) while showing its text.
class KeyedItem : public QTableWidgetItem
{
public:
    KeyedItem(const QString& text, int key)
        : QTableWidgetItem(text)
        , m_key(key)
    {
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        const auto* o = dynamic_cast<const KeyedItem*>(&other);
        return o ? m_key < o->m_key : QTableWidgetItem::operator<(other);
    }

private:
    int m_key;
};

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
    m_filter->setPlaceholderText(tr("Filter links (host, HCA, switch, GUID, rate, \"flapping\", \"degraded\")…"));
    m_filter->setClearButtonEnabled(true);
    m_table->setHorizontalHeaderLabels({ tr("Link"), tr("State"), tr("Flaps"), tr("Tier"), tr("Rate") });
    m_table->horizontalHeaderItem(kFlaps)->setToolTip(tr("Times the link went down in the fabric review"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // both ends of a link's name: the host and the switch
    connect(m_filter, &QLineEdit::textChanged, this, &LinkListPanel::setFilter);
    connect(m_table, &QTableWidget::itemActivated, this, [this](QTableWidgetItem* item) {
        const auto* first = m_table->item(item->row(), kLink);
        m_state->selectLink(static_cast<LinkId>(first->data(Qt::UserRole).toUInt()));
    });
}

void LinkListPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis,
    std::shared_ptr<const FabricReview> review)
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
    std::vector<const ReviewedLink*> flapping(topo.links().size(), nullptr), erroring(topo.links().size(), nullptr);
    if (review) {
        for (const auto* list : { &review->flapping, &review->erroring }) {
            for (const auto& r : *list) {
                if (r.link && index(*r.link) < topo.links().size()) {
                    (list == &review->flapping ? flapping : erroring)[index(*r.link)] = &r;
                }
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
        if (const auto* f = flapping[i]) {
            tip += tr("\nwent down %n time(s) in the fabric review", nullptr, int(f->flaps.size()));
        }
        if (const auto* e = erroring[i]) {
            tip += tr("\nretrained %1 times, %2 symbol errors, without going down").arg(e->retrains).arg(e->symbolErrors);
        }
        const auto trouble = down[i] ? LinkTrouble::Down
            : flapping[i]            ? LinkTrouble::Flapping
            : degraded[i]            ? LinkTrouble::Degraded
            : erroring[i]            ? LinkTrouble::Erroring
                                     : LinkTrouble::Ok;
        const int flaps = flapping[i] ? int(flapping[i]->flaps.size()) : 0;
        const QString cells[kColumnCount] = {
            QStringLiteral("%1 p%2 ↔ %3 p%4")
                .arg(QString::fromStdString(snap->str(topo.node(l.a.node).description)))
                .arg(l.a.port)
                .arg(QString::fromStdString(snap->str(topo.node(l.b.node).description)))
                .arg(l.b.port),
            troubleName(trouble),
            review ? QString::number(flaps) : QString(),
            QString::fromLatin1(tierName(topo, l).data(), qsizetype(tierName(topo, l).size())),
            QStringLiteral("%1x %2").arg(l.width).arg(QString::fromStdString(snap->str(l.speed))),
        };
        for (int c = 0; c < kColumnCount; ++c) {
            // Counts sort as numbers (most flaps first when descending); states in trouble order.
            auto* item = c == kFlaps ? new KeyedItem(cells[c], flaps)
                : c == kState        ? new KeyedItem(cells[c], int(trouble))
                                     : new QTableWidgetItem(cells[c]);
            item->setToolTip(plainTip(tip));
            if (c == kFlaps) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            }
            if (trouble != LinkTrouble::Ok) {
                item->setForeground(vermillion);
            }
            m_table->setItem(int(i), c, item);
        }
        m_table->item(int(i), kLink)->setData(Qt::UserRole, i);
    }
    // By state, trouble first, so links in trouble lead.
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(kState, Qt::AscendingOrder);
    m_table->setColumnHidden(kFlaps, !review);
    for (const int c : { kTier, kRate, kFlaps, kState }) {
        m_table->resizeColumnToContents(c);
    }
    fitColumns();
    setFilter(m_filter->text());
}

void LinkListPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

void LinkListPanel::fitColumns()
{
    int others = 0;
    for (int c = 0; c < kColumnCount; ++c) {
        if (c != kLink && !m_table->isColumnHidden(c)) {
            others += m_table->columnWidth(c);
        }
    }
    const int minimum = m_table->fontMetrics().horizontalAdvance(QStringLiteral("gpu-a000 mlx5_0 p1 ↔ leaf"));
    m_table->setColumnWidth(kLink, std::max(minimum, m_table->viewport()->width() - others));
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

int LinkListPanel::columnWidth(int column) const
{
    return m_table->columnWidth(column);
}

QString LinkListPanel::cellText(int row, int column) const
{
    const auto* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

} // namespace stallscope
