// SPDX-License-Identifier: MIT
#include "panels/summary_view.h"
#include "plain_text.h"

#include "core/snapshot_summary.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace stallscope {

SummaryView::SummaryView(QWidget* parent)
    : QWidget(parent)
    , m_title(plainLabel(this)) // the job's name comes from a file
    , m_body(new QPlainTextEdit(this))
{
    auto* layout = new QVBoxLayout(this);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.4);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_body->setReadOnly(true);
    m_body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_title);
    layout->addWidget(m_body, 1);
    setMessage(tr("Open a bundle or a folder of raw files with File › Open, or drop one here."));
}

void SummaryView::setSummary(const SnapshotSummary& summary)
{
    m_title->setText(QString::fromStdString(summary.jobName));
    m_body->setPlainText(QString::fromStdString(summaryText(summary)));
}

void SummaryView::setMessage(const QString& message)
{
    m_title->setText(tr("Stallscope"));
    m_body->setPlainText(message);
}

QString SummaryView::text() const
{
    return m_body->toPlainText();
}

} // namespace stallscope
