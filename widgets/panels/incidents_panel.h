// SPDX-License-Identifier: MIT
#pragma once

// The analysis results as a table (time, duration, ranks, kind, culprit link or suspect rank, GPU-seconds
// lost) with a detail pane: the verdict in a sentence, cost, culprit, evidence whose times move the cursor when
// clicked, what the hosts said, and the what-if table (incident_detail.h). Selecting a row selects
// the incident in the ViewState; the main window zooms every view to it.

#include <QWidget>

#include <memory>

class QTableWidget;
class QTextBrowser;

namespace stallscope {

struct AnalysisResult;
struct JobSnapshot;
class ViewState;

class IncidentsPanel : public QWidget
{
    Q_OBJECT
public:
    IncidentsPanel(ViewState* state, QWidget* parent = nullptr);
    void setAnalysis(std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis);
    int rowCount() const;
    QString cellText(int row, int column) const;
    QString detailText() const;
    // What the panel says while it has no analysis: nothing open, being analysed, or hidden until Check.
    void setEmptyText(const QString& text);
    // The table as a person uses it: a click on a row (selects the incident), the row shown as selected (-1: none).
    void selectRow(int row);
    int selectedRow() const;

private:
    void showIncident(int number);

    ViewState* m_state;
    QTableWidget* m_table;
    QTextBrowser* m_detail; // the selected incident, structured (incident_detail.h)
    QString m_emptyText; // set by its owner (the window: app/window/empty_states.h)
    std::shared_ptr<const JobSnapshot> m_snap;
    std::shared_ptr<const AnalysisResult> m_analysis;
};

} // namespace stallscope
