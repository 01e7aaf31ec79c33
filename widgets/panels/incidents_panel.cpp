// SPDX-License-Identifier: MIT
#include "panels/incidents_panel.h"

#include "heatmap/heatmap_palette.h"

#include "analysis/analysis.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include "panels/incident_detail.h"

#include <QHeaderView>
#include <QSplitter>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace stallscope {

IncidentsPanel::IncidentsPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_table(new QTableWidget(this))
    , m_detail(new QTextBrowser(this))
{
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 4);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    m_table->setColumnCount(7);
    m_table->setHorizontalHeaderLabels({ tr("#"), tr("Start (UTC)"), tr("Duration"), tr("Ranks"), tr("Kind"),
        tr("Culprit link / suspect"), tr("GPU-s lost") });
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    m_detail->setOpenLinks(false);
    // Okabe–Ito sky blue: a link colour that reads on the light and the dark theme alike.
    m_detail->document()->setDefaultStyleSheet(QStringLiteral("a { color: #56b4e9; }"));
    connect(m_detail, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const auto t = timeOfLink(url.toString());
        if (!t) {
            return;
        }
        const auto w = m_state->window();
        if (*t < w.start || *t > w.end) { // outside the window: centre it there, same zoom
            m_state->setWindow({ *t - w.delta() / 2, *t + w.delta() / 2 });
        }
        m_state->setCursor(*t);
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty()) {
            m_state->selectIncident(rows.first().row() + 1);
        }
    });
    connect(m_state, &ViewState::incidentSelected, this, &IncidentsPanel::showIncident);
    // Back and forward restore a step's incident without selecting it anew (which would zoom): follow quietly.
    connect(m_state, &ViewState::selectionChanged, this, [this] {
        const int n = m_state->selectedIncident();
        if (m_table->currentRow() == n - 1) {
            return;
        }
        const QSignalBlocker quiet(m_table);
        if (n == 0) {
            m_table->clearSelection();
            m_table->setCurrentCell(-1, -1);
            m_detail->clear();
        } else {
            showIncident(n);
        }
    });
}

void IncidentsPanel::setAnalysis(
    std::shared_ptr<const JobSnapshot> snap, std::shared_ptr<const AnalysisResult> analysis)
{
    m_snap = std::move(snap);
    m_analysis = std::move(analysis);
    m_table->setRowCount(0);
    m_detail->clear();
    if (!m_analysis) {
        m_detail->setPlainText(m_emptyText);
        return;
    }
    m_table->setRowCount(static_cast<int>(m_analysis->incidents.size()));
    for (const auto& inc : m_analysis->incidents) {
        const int row = inc.number - 1;
        QString culprit;
        if (inc.culprit) {
            culprit = QString::fromStdString(inc.culprit->a.node + " p" + std::to_string(inc.culprit->a.port) + " ↔ "
                + inc.culprit->b.node + " p" + std::to_string(inc.culprit->b.port) + " (" + inc.culprit->confidence
                + ")");
        } else if (!inc.suspectRanks.empty()) {
            culprit = tr("no link; rank %1").arg(inc.suspectRanks.front());
        } else {
            culprit = tr("no link implicated");
        }
        // A crash lasts until the job died, not until the stalled collective's timeout: said so, in its own colour.
        const bool died = inc.jobCrashed && inc.jobDiedNs != kNoTime;
        const bool untimed = m_snap && m_snap->job.untimed();
        const QString duration = untimed ? tr("unknown")
            : died ? tr("%1 until the job died").arg(QString::fromStdString(formatDuration(inc.jobDiedNs - inc.startNs)))
                   : QString::fromStdString(formatDuration(inc.endNs - inc.startNs));
        const QString start = untimed ? tr("time unknown") : QString::fromStdString(formatUtc(inc.startNs).substr(0, 23));
        // Extrapolated from the ranks with records: say on how many it rests, in the cell and its tooltip.
        const bool thin = inc.coverage.extrapolated && inc.coverage.recorded > 0;
        const QString affected = QString::fromStdString(formatCount(inc.ranksAffected));
        const QString ranks = !thin ? affected
            : inc.coverage.seen == 0
            ? tr("%1 (from the logs)").arg(affected)
            : tr("%1 (%2 with records)").arg(affected, QString::fromStdString(formatCount(inc.coverage.recorded)));
        const QStringList cells
            = { QString::number(inc.number), start, duration,
                  ranks, QString::fromStdString(incidentLabel(inc)), culprit,
                  QString::fromStdString(formatCount(std::uint64_t(inc.policy.totalGpuSeconds + 0.5))) };
        const QColor crash = HeatmapPalette::fromPalette(palette()).failed;
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 0 || c == 3 || c == 6) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            }
            if (inc.jobCrashed && (c == 2 || c == 4)) {
                item->setForeground(crash);
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            if (c == 3 && thin) {
                item->setToolTip(QString::fromStdString(coverageText(inc.coverage)));
            }
            m_table->setItem(row, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    // No incident: what the logs say is the story then (a time-limit cancel, a failure that hung nothing).
    auto story = m_snap && m_analysis->logStory ? logStoryText(*m_snap, *m_analysis->logStory) : std::string();
    story = story.empty() ? story : "\n\n" + story.substr(story.find_first_not_of('\n') % story.size());
    m_detail->setPlainText(m_analysis->incidents.empty()
            ? (m_snap ? QString::fromStdString(noIncidentText(*m_snap) + story)
                      : tr("No job-wide stall, hang or straggler found."))
            : tr("%1 incident(s). Select one to zoom every view to it and see its evidence, the timeout-policy "
                 "verdict and what it cost.")
                  .arg(m_analysis->incidents.size()));
}

void IncidentsPanel::setEmptyText(const QString& text)
{
    m_emptyText = text;
    if (!m_analysis) {
        m_detail->setPlainText(text);
    }
}

int IncidentsPanel::rowCount() const
{
    return m_table->rowCount();
}

void IncidentsPanel::selectRow(int row)
{
    m_table->selectRow(row);
}

int IncidentsPanel::selectedRow() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.first().row();
}

QString IncidentsPanel::cellText(int row, int column) const
{
    const auto* it = m_table->item(row, column);
    return it ? it->text() : QString();
}

QString IncidentsPanel::detailText() const
{
    return m_detail->toPlainText();
}

void IncidentsPanel::showIncident(int number)
{
    if (!m_analysis || number < 1 || number > static_cast<int>(m_analysis->incidents.size())) {
        return;
    }
    if (m_table->currentRow() != number - 1) {
        m_table->selectRow(number - 1);
    }
    m_detail->setHtml(incidentHtml(*m_snap, m_analysis->incidents[std::size_t(number - 1)]));
}

} // namespace stallscope
