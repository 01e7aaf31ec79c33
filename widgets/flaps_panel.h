// SPDX-License-Identifier: MIT
#pragma once

// The Flaps panel (issue #13): the fabric review as a table — every link that went down, costliest per day
// first, with its flap count, period and jitter, the next expected flap, its down time and its price; then
// the links that only erred. Selecting a row selects the link (its counters plot, its row is outlined in the
// link heatmap) and puts the cursor on its last flap. GUI thread only.

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace stallscope {

struct JobSnapshot;
struct FabricReview;
class ViewState;

class FlapsPanel : public QWidget
{
    Q_OBJECT
public:
    FlapsPanel(ViewState* state, QWidget* parent = nullptr);
    void setReview(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const FabricReview> review);
    int rowCount() const;
    QString cellText(int row, int column) const;
    void selectRow(int row);

private:
    ViewState* m_state;
    QLabel* m_header;
    QTableWidget* m_table;
    std::shared_ptr<const FabricReview> m_review;
};

} // namespace stallscope
