// SPDX-License-Identifier: MIT
#pragma once

// A searchable, sortable table of the fabric's links: both ends, tier, the rate each trained at, how often it
// went down, and its state from the analyses (down: an incident's culprit; flapping: went down in the fabric
// review; degraded: below its tier's rate, docs/formats.md §5e; erroring: retrained or erred without going
// down; ok). Sorted by state first, so links in trouble lead. Activating a row adds its counter plot (ViewState::selectLink).

#include <QWidget>

#include <memory>

class QLineEdit;
class QTableView;

namespace stallscope {

struct JobSnapshot;
struct AnalysisResult;
struct FabricReview;
class ViewState;

class LinkListPanel : public QWidget
{
    Q_OBJECT
public:
    // The table's columns, trouble first: a narrow dock shows a link's state and flaps before its tier and rate.
    enum Column { kLink, kState, kFlaps, kTier, kRate, kColumnCount };

    LinkListPanel(ViewState* state, QWidget* parent = nullptr);
    ~LinkListPanel() override;
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis = {},
        std::shared_ptr<const FabricReview> review = {});
    void setFilter(const QString& text); // hides what does not match (the find box's text is left as it is)
    QString filterText() const;
    void setFilterText(const QString& text); // the find box's text, and the filter with it
    int visibleCount() const;
    int degradedCount() const { return m_degraded; }
    QString cellText(int row, int column) const; // as sorted on screen
    int columnWidth(int column) const; // px, as laid out

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The link's name takes what the other columns leave, but never less than a readable width: in a narrow
    // dock the tier and rate scroll off to the right rather than the name shrinking to "…".
    void fitColumns();

    class Model; // the links' rows, texts made when asked
    class Filter; // sorted and filtered view of them

    ViewState* m_state;
    QLineEdit* m_filter;
    QTableView* m_table;
    Model* m_model;
    Filter* m_rows;
    int m_degraded = 0;
};

} // namespace stallscope
