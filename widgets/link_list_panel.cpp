// SPDX-License-Identifier: MIT
#include "link_list_panel.h"
#include "plain_text.h"

#include "analysis/analysis.h"
#include "core/job_snapshot.h"
#include "view/view_state.h"

#include <QColor>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace stallscope {

LinkListPanel::LinkListPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_filter(new QLineEdit(this))
    , m_list(new QListWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_list, 1);
    m_filter->setPlaceholderText(tr("Filter links (host, HCA, switch, GUID, rate, \"degraded\")…"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &LinkListPanel::setFilter);
    connect(m_list, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* item) { m_state->selectLink(static_cast<LinkId>(item->data(Qt::UserRole).toUInt())); });
}

void LinkListPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis)
{
    m_list->clear();
    m_degraded = 0;
    if (!snap) {
        return;
    }
    const auto& topo = snap->topology;
    const auto linkText = [&](const FabricLink& l) {
        return QStringLiteral("%1 p%2 ↔ %3 p%4 — %5x %6")
            .arg(QString::fromStdString(snap->str(topo.node(l.a.node).description)))
            .arg(l.a.port)
            .arg(QString::fromStdString(snap->str(topo.node(l.b.node).description)))
            .arg(l.b.port)
            .arg(l.width)
            .arg(QString::fromStdString(snap->str(l.speed)));
    };
    const auto tip = [&](const FabricLink& l) {
        return QString::fromStdString(
            formatGuid(topo.node(l.a.node).guid) + " ↔ " + formatGuid(topo.node(l.b.node).guid));
    };
    std::vector<bool> listed(topo.links().size(), false);
    if (analysis) {
        // Degraded links first, in the analysis' order (those the job crosses, then the slowest).
        for (const auto& d : analysis->degradedLinks) {
            const auto i = index(d.link);
            const auto& l = topo.link(d.link);
            auto* item = new QListWidgetItem(QStringLiteral("⚠ degraded: ") + linkText(l), m_list);
            item->setData(Qt::UserRole, i);
            item->setForeground(QColor(0xd5, 0x5e, 0x00)); // Okabe–Ito vermillion, as the stall band
            item->setToolTip(plainTip(tip(l)
                + QStringLiteral("\ntrained at %1 vs %2; %3%4")
                      .arg(QString::fromStdString(d.rate), QString::fromStdString(d.usual),
                          QString::fromStdString(d.why),
                          d.impact.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(d.impact))));
            listed[i] = true;
            ++m_degraded;
        }
    }
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        if (listed[i]) {
            continue;
        }
        const auto& l = topo.links()[i];
        auto* item = new QListWidgetItem(linkText(l), m_list);
        item->setData(Qt::UserRole, i);
        item->setToolTip(plainTip(tip(l)));
    }
    setFilter(m_filter->text());
}

void LinkListPanel::setFilter(const QString& text)
{
    const auto words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int i = 0; i < m_list->count(); ++i) {
        auto* item = m_list->item(i);
        bool match = true;
        for (const auto& w : words) {
            match = match
                && (item->text().contains(w, Qt::CaseInsensitive) || item->toolTip().contains(w, Qt::CaseInsensitive));
        }
        item->setHidden(!match);
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
    for (int i = 0; i < m_list->count(); ++i) {
        n += !m_list->item(i)->isHidden();
    }
    return n;
}

} // namespace stallscope
