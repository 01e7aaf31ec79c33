// SPDX-License-Identifier: MIT
#pragma once

// The Flaps panel: the fabric review as a table — every link that went down, costliest per day first, with its
// flap count, period and jitter, the next expected flap, its down time and its price; then the links that only
// erred. Selecting a row selects the link (its counters plot, its row is outlined in the link heatmap), puts the
// cursor on its last flap (or retrain) and lists each of its flaps beside the table — for a link that only erred,
// each retrain and each sample interval that dropped packets; Enter or a double-click on one zooms every view to it,
// and stepFlap walks them (View › Next flap). GUI thread only.

#include <QWidget>

#include "core/types.h"

#include <memory>
#include <vector>

class QLabel;
class QListWidget;
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
    // What the panel says while it has no review: nothing open, being reviewed, or hidden until Check.
    void setEmptyText(const QString& text);
    int rowCount() const;
    QString cellText(int row, int column) const;
    QString cellToolTip(int row, int column) const;
    void selectRow(int row);
    int flapListCount() const; // the selected link's flaps (or retrains and drops) listed
    QString flapListText(int index) const;
    void zoomToFlap(int index); // of the selected link's listed events, in time order
    // The next (+1) or previous (-1) event from the pinned cursor: of the selected link (its flaps, or its retrains
    // and drops), or of every link that went down when none is selected; zooms to it and selects its link. False
    // when there is none that way.
    bool stepFlap(int delta);

    QString headerText() const; // the line over the table: how many links went down, erred, were watched
private:
    // One line of the list beside the table: where it happened (a bracket when only samples date it).
    struct ListedEvent
    {
        TimeNs earliestNs = 0, latestNs = 0;
        TimeNs downForNs = kNoTime; // flaps whose length is known
        TimeNs at() const { return earliestNs + (latestNs - earliestNs) / 2; }
    };
    void listEvents(int row); // the table row's link

    ViewState* m_state;
    QLabel* m_header;
    QString m_emptyText; // set by its owner (the window: app/window/empty_states.h)
    QTableWidget* m_table;
    QListWidget* m_flapList;
    int m_listed = -1; // the table row whose events are listed
    std::vector<ListedEvent> m_events; // what the list shows, in its order (time)
    std::shared_ptr<const FabricReview> m_review;
};

} // namespace stallscope
