// SPDX-License-Identifier: MIT
#pragma once

// A searchable list of the fabric's links; activating one adds its counter plot (ViewState::selectLink).

#include <QWidget>

#include <memory>

class QLineEdit;
class QListWidget;

namespace stallscope {

struct JobSnapshot;
class ViewState;

class LinkListPanel : public QWidget
{
    Q_OBJECT
public:
    LinkListPanel(ViewState* state, QWidget* parent = nullptr);
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap);
    void setFilter(const QString& text);
    int visibleCount() const;

private:
    ViewState* m_state;
    QLineEdit* m_filter;
    QListWidget* m_list;
};

} // namespace stallscope
