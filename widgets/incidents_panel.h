// SPDX-License-Identifier: MIT
#pragma once

// The analysis results as a table (time, duration, ranks, kind, culprit link or suspect rank, GPU-seconds
// lost) with a detail pane (evidence lines, timeout-policy verdict, what-if table). Selecting a row selects
// the incident in the ViewState; the main window zooms every view to it.

#include <QWidget>

#include <memory>

class QTableWidget;
class QPlainTextEdit;

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
    QString detailText() const;

private:
    void showIncident(int number);

    ViewState* m_state;
    QTableWidget* m_table;
    QPlainTextEdit* m_detail;
    std::shared_ptr<const JobSnapshot> m_snap;
    std::shared_ptr<const AnalysisResult> m_analysis;
};

} // namespace stallscope
