// SPDX-License-Identifier: MIT
#pragma once

// A searchable list of the fabric's links with the rate each trained at; links the analysis found degraded
// (below their tier's rate, docs/formats.md §5e) come first, marked. Activating one adds its counter plot
// (ViewState::selectLink).

#include <QWidget>

#include <memory>

class QLineEdit;
class QListWidget;

namespace stallscope {

struct JobSnapshot;
struct AnalysisResult;
class ViewState;

class LinkListPanel : public QWidget
{
    Q_OBJECT
public:
    LinkListPanel(ViewState* state, QWidget* parent = nullptr);
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis = {});
    void setFilter(const QString& text); // hides what does not match (the find box's text is left as it is)
    QString filterText() const;
    void setFilterText(const QString& text); // the find box's text, and the filter with it
    int visibleCount() const;
    int degradedCount() const { return m_degraded; }

private:
    ViewState* m_state;
    QLineEdit* m_filter;
    QListWidget* m_list;
    int m_degraded = 0;
};

} // namespace stallscope
