// SPDX-License-Identifier: MIT
#pragma once

// Shows what a loaded bundle holds (the same figures as `stallscope info`). Observes one immutable summary.
// Placeholder for the heatmap/counter/topology views of the desktop-app issue (#4).

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace stallscope {

struct SnapshotSummary;

class SummaryView : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryView(QWidget* parent = nullptr);
    void setSummary(const SnapshotSummary& summary);
    void setMessage(const QString& message);
    QString text() const;

private:
    QLabel* m_title;
    QPlainTextEdit* m_body;
};

} // namespace stallscope
