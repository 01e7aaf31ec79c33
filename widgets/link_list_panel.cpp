// SPDX-License-Identifier: MIT
#include "link_list_panel.h"

#include "core/job_snapshot.h"
#include "view/view_state.h"

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
    m_filter->setPlaceholderText(tr("Filter links (host, HCA, switch, GUID)…"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &LinkListPanel::setFilter);
    connect(m_list, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* item) { m_state->selectLink(static_cast<LinkId>(item->data(Qt::UserRole).toUInt())); });
}

void LinkListPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap)
{
    m_list->clear();
    if (!snap) {
        return;
    }
    const auto& topo = snap->topology;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        const auto& a = topo.node(l.a.node);
        const auto& b = topo.node(l.b.node);
        const QString text = QStringLiteral("%1 p%2 ↔ %3 p%4")
                                 .arg(QString::fromStdString(snap->str(a.description)))
                                 .arg(l.a.port)
                                 .arg(QString::fromStdString(snap->str(b.description)))
                                 .arg(l.b.port);
        auto* item = new QListWidgetItem(text, m_list);
        item->setData(Qt::UserRole, i);
        item->setToolTip(QString::fromStdString(formatGuid(a.guid) + " ↔ " + formatGuid(b.guid)));
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

int LinkListPanel::visibleCount() const
{
    int n = 0;
    for (int i = 0; i < m_list->count(); ++i) {
        n += !m_list->item(i)->isHidden();
    }
    return n;
}

} // namespace stallscope
