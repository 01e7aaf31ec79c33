// SPDX-License-Identifier: MIT
#pragma once

// The Hosts panel: each host's inventory and findings (analysis/host_inventory.h) as a searchable, sortable tree —
// a row per host (findings, the worst port state, rates, ranks, HCAs), under it the findings with their evidence,
// the HCA ports merged from every tool, the conflicts between sources and the HCAs that vanished. Hosts with a
// port down lead. Picking a host selects its ranks (ViewState::selectRanks), so the heatmap and the fabric view
// show them; a selection of one host's ranks made elsewhere (Go to, the fabric view) picks its row. GUI thread.

#include "analysis/host_inventory.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace stallscope {

struct JobSnapshot;
class ViewState;

class HostsPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { kHost, kFindings, kState, kRate, kRanks, kHcas, kColumnCount };

    HostsPanel(ViewState* state, QWidget* parent = nullptr);
    // The findings are findNodeProblems'; `hideFindings` leaves them and the conflicts out (an exercise, where
    // they would give the answer away). The filter text stays: it belongs to the job (app/window/job_views.h).
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap, bool hideFindings = false);
    void setFilterText(const QString& text);
    QString filterText() const;
    int hostCount() const; // rows, filtered or not
    int visibleCount() const;
    QString cellText(int row, int column) const; // a host row as sorted on screen
    QStringList childTexts(int row) const; // the lines under a host row: "mlx5_1/1 — Down / Polling · …"
    void selectHostRow(int row); // as a click on the row does
    QString selectedHost() const; // the host row picked, "" when none
    QString emptyText() const;
    // Hosts with a finding, for the fabric view's marks.
    std::vector<std::string> flaggedHosts() const;

private:
    void fill();
    void ensureLines(QTreeWidgetItem* row) const; // a host row's lines, made when first wanted
    void applyFilter();
    void followSelection(); // the row of the host whose ranks are selected

    ViewState* m_state;
    QLineEdit* m_filter;
    QLabel* m_empty;
    QTreeWidget* m_tree;
    std::shared_ptr<const JobSnapshot> m_snap;
    std::vector<HostInventory> m_hosts;
    bool m_hideFindings = false;
    bool m_picking = false; // our own selectRanks is under way: do not follow it back
};

} // namespace stallscope
