// SPDX-License-Identifier: MIT
#include "window/training_panel.h"
#include "plain_text.h"

#include "core/job_snapshot.h"
#include "core/time_format.h"
#include "view/view_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace stallscope {

using namespace training;

namespace {

constexpr int kLinkItem = 1;
constexpr int kRankItem = 2;

QString verdictLabel(Verdict v)
{
    switch (v) {
    case Verdict::Stretched:
        return QObject::tr("Stretched — a link fault, under the retry budget");
    case Verdict::Crashed:
        return QObject::tr("Crashed — a link fault, over the retry budget");
    case Verdict::NoFabricFault:
        return QObject::tr("No fabric fault — a rank is the cause");
    case Verdict::Slowed:
        return QObject::tr("Slowed — a degraded link, no stall");
    }
    return {};
}

} // namespace

TrainingPanel::TrainingPanel(ViewState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_title(plainLabel(this))
    , m_briefing(plainLabel(this)) // sheets are files: their text is text
    , m_verdict(new QComboBox(this))
    , m_culprits(new QListWidget(this))
    , m_unprovable(new QCheckBox(tr("These files cannot prove which link"), this))
    , m_cost(new QDoubleSpinBox(this))
    , m_period(new QLineEdit(this))
    , m_hints(plainLabel(this))
    , m_hintButton(new QPushButton(tr("Hint (−%1 points)").arg(kHintCost), this))
    , m_checkButton(new QPushButton(tr("Check answer"), this))
    , m_result(new QTextBrowser(this))
    , m_stepper(new QWidget(this))
    , m_step(new QLabel(this))
    , m_prev(new QPushButton(tr("◀ Previous"), this))
    , m_next(new QPushButton(tr("Next step ▶"), this))
{
    auto* layout = new QVBoxLayout(this);
    QFont big = m_title->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.15);
    m_title->setFont(big);
    m_title->setWordWrap(true);
    m_briefing->setWordWrap(true);
    m_briefing->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    layout->addWidget(m_briefing);

    m_form = new QWidget(this);
    auto* form = new QFormLayout(m_form);
    form->setContentsMargins(0, 0, 0, 0);
    m_verdict->addItem(tr("— choose a verdict —"));
    for (auto v : { Verdict::Stretched, Verdict::Crashed, Verdict::NoFabricFault, Verdict::Slowed }) {
        m_verdict->addItem(verdictLabel(v), int(v));
    }
    form->addRow(tr("Verdict"), m_verdict);
    auto* culpritBox = new QWidget(this);
    auto* culpritLayout = new QVBoxLayout(culpritBox);
    culpritLayout->setContentsMargins(0, 0, 0, 0);
    m_culprits->setMinimumHeight(44);
    m_culprits->setMaximumHeight(80);
    culpritLayout->addWidget(m_culprits);
    auto* buttons = new QHBoxLayout;
    auto* addLinks = new QPushButton(tr("Add selected link"), this);
    addLinks->setToolTip(tr("The link(s) selected in the Fabric view, the Links list or the link heatmap"));
    auto* addRanks = new QPushButton(tr("Add selected rank"), this);
    addRanks->setToolTip(tr("The rank(s) selected in the heatmap (click a row)"));
    auto* remove = new QPushButton(tr("Remove"), this);
    buttons->addWidget(addLinks);
    buttons->addWidget(addRanks);
    buttons->addWidget(remove);
    culpritLayout->addLayout(buttons);
    culpritLayout->addWidget(m_unprovable);
    form->addRow(tr("Culprit"), culpritBox);
    m_cost->setRange(-1, 1e12);
    m_cost->setDecimals(0);
    m_cost->setSpecialValueText(tr("not estimated"));
    m_cost->setValue(-1);
    m_cost->setSuffix(tr(" GPU-s"));
    m_cost->setToolTip(tr("What one occurrence cost: ranks that waited × how long (plus lost work if it crashed)"));
    form->addRow(tr("Cost per occurrence"), m_cost);
    m_period->setPlaceholderText(tr("if it recurs: 1h, 20m, 90s"));
    form->addRow(tr("Recurs every"), m_period);
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_hintButton);
    actions->addStretch(1);
    actions->addWidget(m_checkButton);
    form->addRow(actions);
    // The hint on a row of its own, wrapped: squeezed between the two buttons a hint was cut off.
    m_hints->setWordWrap(true);
    m_hints->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    form->addRow(m_hints);
    layout->addWidget(m_form);
    m_result->setOpenLinks(false);
    layout->addWidget(m_result, 10);
    auto* stepLayout = new QHBoxLayout(m_stepper);
    stepLayout->setContentsMargins(0, 0, 0, 0);
    m_step->setWordWrap(true);
    stepLayout->addWidget(m_prev);
    stepLayout->addWidget(m_step, 1);
    stepLayout->addWidget(m_next);
    layout->addWidget(m_stepper);
    layout->addStretch(1); // before Check, the form stays compact at the top
    m_answerWidgets = { m_verdict, m_culprits, addLinks, addRanks, remove, m_unprovable, m_cost, m_period, m_hintButton,
        m_checkButton };

    connect(addLinks, &QPushButton::clicked, this, &TrainingPanel::addSelectedLinks);
    connect(addRanks, &QPushButton::clicked, this, &TrainingPanel::addSelectedRanks);
    connect(remove, &QPushButton::clicked, this, [this] { delete m_culprits->currentItem(); });
    connect(m_hintButton, &QPushButton::clicked, this, &TrainingPanel::hintRequested);
    connect(m_checkButton, &QPushButton::clicked, this, &TrainingPanel::checkRequested);
    connect(m_prev, &QPushButton::clicked, this, [this] { emit stepRequested(std::max(0, m_stepIndex - 1)); });
    connect(m_next, &QPushButton::clicked, this,
        [this] { emit stepRequested(std::min(m_stepCount - 1, m_stepIndex + 1)); });
    clear();
}

void TrainingPanel::clear()
{
    m_title->setText(tr("No exercise open"));
    m_briefing->setText(tr("Training › Start exercise… opens a simulated incident with its analysis hidden. Find "
                           "the cause in the views, answer here, and Check."));
    m_culprits->clear();
    m_verdict->setCurrentIndex(0);
    m_unprovable->setChecked(false);
    m_cost->setValue(-1);
    m_period->clear();
    m_result->clear();
    m_result->hide();
    m_briefing->show();
    m_form->show();
    m_stepper->hide();
    m_hintsUsed = 0;
    m_hints->clear();
    m_checked = false;
    setEditable(false);
}

void TrainingPanel::startExercise(const ExerciseSheet& sheet)
{
    clear();
    m_title->setText(tr("%1 — level %2").arg(QString::fromStdString(sheet.title)).arg(sheet.level));
    QString brief = QString::fromStdString(sheet.briefing);
    if (!sheet.withheld.empty()) {
        QStringList names;
        for (const auto w : sheet.withheld) {
            names << QString::fromStdString(std::string(toString(w)));
        }
        brief += tr("\n\nNot available for this incident: %1.").arg(names.join(QStringLiteral(", ")));
    }
    m_briefing->setText(brief);
    m_hints->setText(tr("%n hint(s) available", nullptr, int(sheet.hints)));
    setEditable(true);
}

void TrainingPanel::setSnapshot(std::shared_ptr<const JobSnapshot> snap)
{
    m_snap = std::move(snap);
}

void TrainingPanel::setEditable(bool on)
{
    for (auto* w : m_answerWidgets) {
        w->setEnabled(on);
    }
}

void TrainingPanel::addSelectedLinks()
{
    if (!m_snap) {
        return;
    }
    for (const auto link : m_state->selectedLinks()) {
        if (index(link) >= m_snap->topology.links().size()) {
            continue;
        }
        // One end names the link; the switch end reads the way fabric engineers name a port.
        const auto full = linkName(*m_snap, link);
        const auto shown = QString::fromStdString(full);
        if (m_culprits->findItems(shown, Qt::MatchExactly).isEmpty()) {
            auto* item = new QListWidgetItem(shown, m_culprits);
            item->setData(Qt::UserRole, kLinkItem);
            item->setData(Qt::UserRole + 1, QString::fromStdString(full.substr(0, full.find(" <-> "))));
        }
    }
}

void TrainingPanel::addSelectedRanks()
{
    for (const auto r : m_state->selectedRanks()) {
        const auto shown = tr("rank %1").arg(r);
        if (m_culprits->findItems(shown, Qt::MatchExactly).isEmpty()) {
            auto* item = new QListWidgetItem(shown, m_culprits);
            item->setData(Qt::UserRole, kRankItem);
            item->setData(Qt::UserRole + 1, r);
        }
    }
}

TraineeAnswer TrainingPanel::answer() const
{
    TraineeAnswer a;
    if (m_verdict->currentIndex() > 0) {
        a.verdict = static_cast<Verdict>(m_verdict->currentData().toInt());
    }
    for (int i = 0; i < m_culprits->count(); ++i) {
        const auto* item = m_culprits->item(i);
        if (item->data(Qt::UserRole).toInt() == kLinkItem) {
            a.links.push_back(item->data(Qt::UserRole + 1).toString().toStdString());
        } else {
            a.ranks.push_back(item->data(Qt::UserRole + 1).toUInt());
        }
    }
    a.culpritUnprovable = m_unprovable->isChecked();
    if (m_cost->value() >= 0) {
        a.costGpuSeconds = m_cost->value();
    }
    if (const auto p = parseDuration(m_period->text().trimmed().toStdString())) {
        a.periodSeconds = double(*p) / 1e9;
    }
    a.hintsUsed = m_hintsUsed;
    return a;
}

void TrainingPanel::setAnswer(const TraineeAnswer& a)
{
    m_verdict->setCurrentIndex(a.verdict ? m_verdict->findData(int(*a.verdict)) : 0);
    m_culprits->clear();
    for (const auto& l : a.links) {
        auto* item = new QListWidgetItem(QString::fromStdString(l), m_culprits);
        item->setData(Qt::UserRole, kLinkItem);
        item->setData(Qt::UserRole + 1, QString::fromStdString(l));
    }
    for (const auto r : a.ranks) {
        auto* item = new QListWidgetItem(tr("rank %1").arg(r), m_culprits);
        item->setData(Qt::UserRole, kRankItem);
        item->setData(Qt::UserRole + 1, r);
    }
    m_unprovable->setChecked(a.culpritUnprovable);
    m_cost->setValue(a.costGpuSeconds.value_or(-1));
    m_period->setText(
        a.periodSeconds ? QString::fromStdString(formatDuration(TimeNs(*a.periodSeconds * 1e9))) : QString());
    m_hintsUsed = std::max(m_hintsUsed, a.hintsUsed);
}

void TrainingPanel::showHint(int number, int total, const QString& text)
{
    m_hintsUsed = std::max(m_hintsUsed, number);
    m_hints->setText(tr("Hint %1 of %2: %3").arg(number).arg(total).arg(text));
    m_hintButton->setEnabled(number < total);
}

void TrainingPanel::showResult(const QString& html, int steps)
{
    m_checked = true;
    setEditable(false);
    m_briefing->hide(); // read already: the room goes to the score and the walk-through
    m_form->hide(); // the score repeats what was answered ("You said …")
    m_result->setHtml(html);
    m_result->show();
    m_stepCount = steps;
    m_stepper->setVisible(steps > 0);
}

void TrainingPanel::showStep(int index, int total, const QString& text)
{
    m_stepIndex = index;
    m_stepCount = total;
    m_step->setText(tr("<b>Step %1 of %2.</b> %3").arg(index + 1).arg(total).arg(text.toHtmlEscaped()));
    m_prev->setEnabled(index > 0);
    m_next->setEnabled(index + 1 < total);
}

QString TrainingPanel::resultText() const
{
    return m_result->toPlainText();
}

QString TrainingPanel::stepText() const
{
    return m_step->text();
}

} // namespace stallscope
