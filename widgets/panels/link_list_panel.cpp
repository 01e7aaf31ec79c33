// SPDX-License-Identifier: MIT
#include "panels/link_list_panel.h"
#include "plain_text.h"

#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "core/job_snapshot.h"
#include "view/view_state.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

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

} // namespace

// One row per link of the snapshot, each cell's text made when the view asks for it: a fabric of 132,096 links is
// 660,000 cells, which as table items took the GUI thread seconds at every stage of an open.
class LinkListPanel::Model : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    void reset(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis,
        std::shared_ptr<const FabricReview> review)
    {
        beginResetModel();
        m_snap = std::move(snap);
        m_analysis = std::move(analysis);
        m_review = std::move(review);
        const std::size_t n = m_snap ? m_snap->topology.links().size() : 0;
        m_degraded.assign(n, nullptr);
        m_flapping.assign(n, nullptr);
        m_erroring.assign(n, nullptr);
        m_trouble.assign(n, LinkTrouble::Ok);
        std::vector<bool> down(n, false);
        if (m_analysis) {
            for (const auto& d : m_analysis->degradedLinks) {
                if (stallscope::index(d.link) < n) {
                    m_degraded[stallscope::index(d.link)] = &d;
                }
            }
            for (const auto& inc : m_analysis->incidents) {
                if (inc.culprit && stallscope::index(inc.culprit->link) < n) {
                    down[stallscope::index(inc.culprit->link)] = true;
                }
            }
        }
        if (m_review) {
            for (const auto* list : { &m_review->flapping, &m_review->erroring }) {
                for (const auto& r : *list) {
                    if (r.link && stallscope::index(*r.link) < n) {
                        (list == &m_review->flapping ? m_flapping : m_erroring)[stallscope::index(*r.link)] = &r;
                    }
                }
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            m_trouble[i] = down[i] ? LinkTrouble::Down
                : m_flapping[i]    ? LinkTrouble::Flapping
                : m_degraded[i]    ? LinkTrouble::Degraded
                : m_erroring[i]    ? LinkTrouble::Erroring
                                   : LinkTrouble::Ok;
        }
        endResetModel();
    }
    bool hasReview() const { return m_review != nullptr; }
    int degradedCount() const
    {
        return int(std::count_if(m_degraded.begin(), m_degraded.end(), [](auto* d) { return d != nullptr; }));
    }
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_trouble.size()); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : kColumnCount; }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal) {
            return {};
        }
        if (role == Qt::DisplayRole) {
            const QString names[kColumnCount] = { tr("Link"), tr("State"), tr("Flaps"), tr("Tier"), tr("Rate") };
            return section >= 0 && section < kColumnCount ? names[section] : QString();
        }
        if (role == Qt::ToolTipRole && section == kFlaps) {
            return tr("Times the link went down in the fabric review");
        }
        return {};
    }
    QVariant data(const QModelIndex& idx, int role) const override
    {
        if (!idx.isValid() || idx.row() >= rowCount()) {
            return {};
        }
        const auto i = std::size_t(idx.row());
        switch (role) {
        case Qt::DisplayRole:
            return text(i, idx.column());
        case Qt::ToolTipRole:
            return plainTip(tip(i));
        case Qt::ForegroundRole:
            return m_trouble[i] != LinkTrouble::Ok ? QVariant(QColor(0xd5, 0x5e, 0x00))
                                                   : QVariant(); // as the stall band
        case Qt::TextAlignmentRole:
            return idx.column() == kFlaps ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        default:
            return {};
        }
    }
    // What a sort by the column compares: counts as numbers, states in trouble order; else nothing (the text).
    std::optional<int> sortKey(std::size_t i, int column) const
    {
        if (column == kState) {
            return int(m_trouble[i]);
        }
        if (column == kFlaps) {
            return flaps(i);
        }
        return std::nullopt;
    }
    QString text(std::size_t i, int column) const
    {
        const auto& topo = m_snap->topology;
        const auto& l = topo.links()[i];
        switch (column) {
        case kLink:
            return QStringLiteral("%1 p%2 ↔ %3 p%4")
                .arg(QString::fromStdString(m_snap->str(topo.node(l.a.node).description)))
                .arg(l.a.port)
                .arg(QString::fromStdString(m_snap->str(topo.node(l.b.node).description)))
                .arg(l.b.port);
        case kState:
            return troubleName(m_trouble[i]);
        case kFlaps:
            return m_review ? QString::number(flaps(i)) : QString();
        case kTier: {
            const auto tier = tierName(topo, l);
            return QString::fromLatin1(tier.data(), qsizetype(tier.size()));
        }
        case kRate:
            return QStringLiteral("%1x %2").arg(l.width).arg(QString::fromStdString(m_snap->str(l.speed)));
        default:
            return {};
        }
    }
    QString tip(std::size_t i) const
    {
        const auto& topo = m_snap->topology;
        const auto& l = topo.links()[i];
        QString tip = QString::fromStdString(
            formatGuid(topo.node(l.a.node).guid) + " ↔ " + formatGuid(topo.node(l.b.node).guid));
        if (const auto* d = m_degraded[i]) {
            tip += QStringLiteral("\ntrained at %1 vs %2; %3%4")
                       .arg(QString::fromStdString(d->rate), QString::fromStdString(d->usual),
                           QString::fromStdString(d->why),
                           d->impact.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(d->impact));
        }
        if (const auto* f = m_flapping[i]) {
            tip += tr("\nwent down %n time(s) in the fabric review", nullptr, int(f->flaps.size()));
        }
        if (const auto* e = m_erroring[i]) {
            tip += tr("\nretrained %1 times, %2 symbol errors, without going down")
                       .arg(e->retrains)
                       .arg(e->symbolErrors);
        }
        return tip;
    }

private:
    int flaps(std::size_t i) const { return m_flapping[i] ? int(m_flapping[i]->flaps.size()) : 0; }

    std::shared_ptr<const JobSnapshot> m_snap;
    std::shared_ptr<const AnalysisResult> m_analysis;
    std::shared_ptr<const FabricReview> m_review;
    std::vector<const DegradedLink*> m_degraded;
    std::vector<const ReviewedLink*> m_flapping, m_erroring;
    std::vector<LinkTrouble> m_trouble;
};

// Sorted by the model's keys where it has them, and filtered by every word of the find box, each found in the
// link's texts or its tooltip (GUIDs, "trained at", "went down").
class LinkListPanel::Filter : public QSortFilterProxyModel
{
public:
    Filter(Model* model, QObject* parent)
        : QSortFilterProxyModel(parent)
        , m_model(model)
    {
        setSourceModel(model);
    }
    void setWords(const QString& text)
    {
        m_words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        invalidateFilter();
    }

protected:
    bool lessThan(const QModelIndex& a, const QModelIndex& b) const override
    {
        const auto ka = m_model->sortKey(std::size_t(a.row()), a.column());
        const auto kb = m_model->sortKey(std::size_t(b.row()), b.column());
        if (ka && kb) {
            return *ka < *kb;
        }
        return m_model->text(std::size_t(a.row()), a.column()) < m_model->text(std::size_t(b.row()), b.column());
    }
    bool filterAcceptsRow(int row, const QModelIndex&) const override
    {
        if (m_words.isEmpty()) {
            return true;
        }
        QString all = m_model->tip(std::size_t(row));
        for (int c = 0; c < kColumnCount; ++c) {
            all += QLatin1Char('\n') + m_model->text(std::size_t(row), c);
        }
        return std::all_of(
            m_words.begin(), m_words.end(), [&](const QString& w) { return all.contains(w, Qt::CaseInsensitive); });
    }

private:
    Model* m_model;
    QStringList m_words;
};

LinkListPanel::LinkListPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_filter(new QLineEdit(this))
    , m_table(new QTableView(this))
    , m_model(new Model(this))
    , m_rows(new Filter(m_model, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    m_filter->setPlaceholderText(tr("Filter links (host, HCA, switch, GUID, rate, \"flapping\", \"degraded\")…"));
    m_filter->setClearButtonEnabled(true);
    m_table->setModel(m_rows);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed); // every row one line: no row measured
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // both ends of a link's name: the host and the switch
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(kState, Qt::AscendingOrder); // by state, trouble first, so links in trouble lead
    connect(m_filter, &QLineEdit::textChanged, this, &LinkListPanel::setFilter);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        m_state->selectLink(static_cast<LinkId>(m_rows->mapToSource(index).row()));
    });
}

LinkListPanel::~LinkListPanel() = default;

void LinkListPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis,
    std::shared_ptr<const FabricReview> review)
{
    m_model->reset(std::move(snap), std::move(analysis), std::move(review));
    m_degraded = m_model->degradedCount();
    m_table->setColumnHidden(kFlaps, !m_model->hasReview());
    for (const int c : { kTier, kRate, kFlaps, kState }) {
        m_table->resizeColumnToContents(c); // the view measures at most its first 1,000 rows
    }
    fitColumns();
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
    m_rows->setWords(text);
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
    return m_rows->rowCount();
}

int LinkListPanel::columnWidth(int column) const
{
    return m_table->columnWidth(column);
}

QString LinkListPanel::cellText(int row, int column) const
{
    return m_rows->data(m_rows->index(row, column)).toString();
}

} // namespace stallscope
