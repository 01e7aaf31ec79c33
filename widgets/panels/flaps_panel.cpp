// SPDX-License-Identifier: MIT
#include "panels/flaps_panel.h"
#include "plain_text.h"

#include "analysis/flaps.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

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
    , m_flapList(new QListWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_header);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_flapList);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    m_flapList->setObjectName(QStringLiteral("flapList"));
    m_flapList->setToolTip(tr("Each flap of the selected link: Enter or double-click zooms every view to it"));
    connect(m_flapList, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* it) { zoomToFlap(m_flapList->row(it)); });
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

void FlapsPanel::setEmptyText(const QString& text)
{
    m_emptyText = text;
    if (!m_review) {
        m_header->setText(text);
    }
}

void FlapsPanel::setReview(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const FabricReview> review)
{
    m_review = std::move(review);
    m_table->setRowCount(0);
    m_flapList->clear();
    m_events.clear();
    m_listed = -1;
    if (!snap || !m_review) {
        m_review.reset();
        m_header->setText(m_emptyText);
        return;
    }
    const auto& rv = *m_review;
    const auto down = rv.flapping.size();
    m_header->setText(tr("%1 went down, %2 only erred, of %3 watched — priced for a %4-GPU job crossing the "
                         "link (NCCL_IB_TIMEOUT=%5)")
                          .arg(down == 1 ? tr("1 link") : tr("%1 links").arg(down))
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
        const QString rec
            = QString::fromStdString(describeSightings(l.recurrence, flapTimes(l)) + jobStallsText(l));
        m_table->setItem(row, kRecurrence, item(rec));
        m_table->setItem(row, kNext,
            item(l.recurrence ? QString::fromStdString(formatUtc(l.recurrence->nextNs).substr(0, 16)) : QString()));
        m_table->setItem(row, kDown,
            item(l.downKnown ? QString::fromStdString(formatDuration(l.downTotalNs)) : tr("?"),
                l.downKnown ? tr("%1 of %2 flaps timed by link events").arg(l.downKnown).arg(l.flaps.size())
                            : tr("seen in counters only: length unknown")));
        // The job saw flaps pass without a stall: the price is for the flaps that find data in flight, and the cell
        // says what the job saw beside it, not only in the tooltip.
        const bool passed = l.flapsJobStalledAt < l.flapsJobRanThrough;
        m_table->setItem(row, kCost,
            item(fixed(l.gpuHoursPerDay, 1)
                    + (passed
                            ? tr(" (this job: %1 of %2 stalled it)").arg(l.flapsJobStalledAt).arg(l.flapsJobRanThrough)
                            : QString()),
                l.crashes ? tr("each flap crashes the job (down past the retry budget)")
                          : tr("%1 stall per flap%2 × %3 flaps/day%4")
                                .arg(QString::fromStdString(formatDuration(l.stallPerFlapNs)))
                                .arg(passed ? tr(" that finds data in flight") : QString())
                                .arg(fixed(l.flapsPerDay, 1))
                                .arg(passed ? tr("; this job stalled at %1 of the %2 it ran through")
                                                  .arg(l.flapsJobStalledAt)
                                                  .arg(l.flapsJobRanThrough)
                                            : QString()),
                l.gpuHoursPerDay, true));
        ++row;
    }
    for (const auto& l : rv.erroring) {
        const QString name = QString::fromStdString(l.a + " ↔ " + l.b);
        m_table->setItem(row, kLink, item(name));
        m_table->setItem(row, kTier, item(QString::fromStdString(l.tier)));
        m_table->setItem(row, kFlaps, item(QStringLiteral("0"), {}, 0, true));
        m_table->setItem(row, kRecurrence,
            item(tr("never down: %1 retrains in %2 %3, %4 symbol errors")
                     .arg(l.retrains)
                     .arg(l.errorBursts)
                     .arg(l.errorBursts == 1 ? tr("burst") : tr("bursts"))
                     .arg(QString::fromStdString(formatCount(l.symbolErrors)))
                + QString::fromStdString(jobStallsText(l))));
        m_table->setItem(row, kNext, item({}));
        m_table->setItem(row, kDown, item({}));
        m_table->setItem(row, kCost, item({}));
        // Greyed as background noise, unless its retrains fall in the job's stalls: then it is a suspect.
        for (int c = 0; c < kColumns && l.jobStalls.empty(); ++c) {
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

QString FlapsPanel::cellToolTip(int row, int column) const
{
    const auto* it = m_table->item(row, column);
    return it ? it->toolTip() : QString();
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
    listEvents(row);
    // The latest flap or retrain: where the counters tell the story.
    if (flapping) {
        m_state->setCursor(l.flaps.back().timeNs());
    } else if (!l.retrainBrackets.empty()) {
        m_state->setCursor(l.retrainBrackets.back().end);
    }
}

void FlapsPanel::listEvents(int row)
{
    m_flapList->clear();
    m_events.clear();
    m_listed = row;
    const auto n = static_cast<std::size_t>(row);
    if (n < m_review->flapping.size()) {
        for (const auto& f : m_review->flapping[n].flaps) {
            QString text = QString::fromStdString(formatUtc(f.timeNs()).substr(0, 23));
            text += f.downForNs != kNoTime ? tr(" · down %1").arg(QString::fromStdString(formatDuration(f.downForNs)))
                                           : tr(" · length unknown");
            if (f.symbolErrorsBefore > 0) {
                text += tr(" · %1 symbol errors before").arg(QString::fromStdString(formatCount(f.symbolErrorsBefore)));
            }
            m_events.push_back({ f.earliestNs, f.latestNs, f.downForNs });
            m_flapList->addItem(text);
        }
        m_flapList->setToolTip(tr("Each flap of the selected link: Enter or double-click zooms every view to it"));
        return;
    }
    // A link that never went down: its retrains, and the sample intervals in which it dropped packets (with a
    // retrain or without one), in time order. Samples date them: each is the interval it fell in.
    const auto& l = m_review->erroring[n - m_review->flapping.size()];
    struct Line
    {
        TimeRange when;
        bool retrain = false, drops = false;
    };
    std::vector<Line> lines;
    for (const auto& r : l.retrainBrackets) {
        const bool drops = std::any_of(
            l.dropBrackets.begin(), l.dropBrackets.end(), [&](const TimeRange& d) { return d.overlaps(r); });
        lines.push_back({ r, true, drops });
    }
    for (const auto& d : l.dropBrackets) { // both ends may count one drop: one line for overlapping intervals
        const bool told = std::any_of(lines.begin(), lines.end(), [&](const Line& x) { return x.when.overlaps(d); });
        if (!told) {
            lines.push_back({ d, false, true });
        }
    }
    std::sort(lines.begin(), lines.end(), [](const Line& x, const Line& y) { return x.when.start < y.when.start; });
    for (const auto& line : lines) {
        QString text = QString::fromStdString(formatUtc(line.when.start + line.when.delta() / 2).substr(0, 23));
        text += line.retrain ? tr(" · retrained") : tr(" · dropped packets, no retrain");
        if (line.retrain && line.drops) {
            text += tr(", dropped packets");
        }
        text += tr(" (within %1)").arg(QString::fromStdString(formatDuration(line.when.delta())));
        m_events.push_back({ line.when.start, line.when.end, kNoTime });
        m_flapList->addItem(text);
    }
    m_flapList->setToolTip(tr("Each retrain of the selected link and each sample interval in which it dropped "
                              "packets, dated by the counter samples around it: Enter or double-click zooms to it"));
}

int FlapsPanel::flapListCount() const
{
    return m_flapList->count();
}

QString FlapsPanel::flapListText(int index) const
{
    const auto* it = m_flapList->item(index);
    return it ? it->text() : QString();
}

void FlapsPanel::zoomToFlap(int index)
{
    if (!m_review || m_listed < 0 || index < 0 || std::size_t(index) >= m_events.size()) {
        return;
    }
    const auto& e = m_events[std::size_t(index)];
    const TimeNs width = e.downForNs != kNoTime ? e.downForNs : e.latestNs - e.earliestNs;
    // The outage (or the sample interval) with room either side to see the traffic stop and come back.
    const TimeNs pad = std::max<TimeNs>(width * 3, 20 * kNsPerSec);
    m_state->zoomIn({ e.earliestNs - pad, std::max(e.latestNs, e.earliestNs + width) + pad });
    m_state->setCursor(e.at());
    if (m_flapList->currentRow() != index) {
        m_flapList->setCurrentRow(index);
    }
}

bool FlapsPanel::stepFlap(int delta)
{
    if (!m_review || (m_listed < 0 && m_review->flapping.empty())) {
        return false;
    }
    const TimeNs from = m_state->cursor() != kNoTime ? m_state->cursor() : (delta > 0 ? m_state->span().start - 1
                                                                                      : m_state->span().end + 1);
    auto better = [&](TimeNs t, TimeNs best) { return delta > 0 ? t < best : t > best; };
    auto ahead = [&](TimeNs t) { return delta > 0 ? t > from : t < from; };
    if (m_listed >= 0) { // the listed link's flaps, or its retrains and drops
        std::optional<std::size_t> best;
        for (std::size_t i = 0; i < m_events.size(); ++i) {
            if (ahead(m_events[i].at()) && (!best || better(m_events[i].at(), m_events[*best].at()))) {
                best = i;
            }
        }
        if (best) {
            zoomToFlap(static_cast<int>(*best));
        }
        return best.has_value();
    }
    // No link selected: every flap of every link that went down, as (time, link, index).
    std::optional<std::tuple<TimeNs, std::size_t, std::size_t>> best;
    for (std::size_t li = 0; li < m_review->flapping.size(); ++li) {
        const auto& flaps = m_review->flapping[li].flaps;
        for (std::size_t i = 0; i < flaps.size(); ++i) {
            const TimeNs t = flaps[i].timeNs();
            if (ahead(t) && (!best || better(t, std::get<0>(*best)))) {
                best = std::tuple { t, li, i };
            }
        }
    }
    if (!best) {
        return false;
    }
    const auto [t, li, i] = *best;
    selectRow(static_cast<int>(li)); // lists its flaps (and moves the cursor: zoomToFlap sets it again)
    zoomToFlap(static_cast<int>(i));
    return true;
}

QString FlapsPanel::headerText() const
{
    return m_header->text();
}

} // namespace stallscope
