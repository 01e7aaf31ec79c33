// SPDX-License-Identifier: MIT
#include "window/training_controller.h"
#include "plain_text.h"
#include "worker_pool.h"

#include "open/load_job.h"
#include "window/training_panel.h"
#include "view/view_state.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace stallscope {

using namespace training;

// What the worker hands back: the exercise's truth and where its folder is.
struct TrainingController::Generated
{
    std::string error;
    const Exercise* exercise = nullptr;
    ExerciseSheet sheet;
    SimConfig config;
    std::shared_ptr<const SimResult> truth;
    QString dir;
};

TrainingController::TrainingController(
    QWidget* window, ViewState* state, TrainingPanel* panel, std::function<const OpenedJob*()> opened)
    : QObject(window)
    , m_window(window)
    , m_opened(std::move(opened))
    , m_state(state)
    , m_panel(panel)
{
    connect(&m_generation, &QFutureWatcherBase::finished, this, &TrainingController::onGenerated);
    connect(m_panel, &TrainingPanel::hintRequested, this, &TrainingController::hint);
    connect(m_panel, &TrainingPanel::checkRequested, this, &TrainingController::check);
    connect(m_panel, &TrainingPanel::stepRequested, this, &TrainingController::goToStep);
}

TrainingController::~TrainingController()
{
    m_generation.waitForFinished();
}

bool TrainingController::start(const std::string& id, std::optional<std::uint64_t> seed)
{
    const auto& lib = builtinExercises();
    const auto* e = lib.find(id);
    if (!e || m_generation.isRunning()) {
        return false;
    }
    stop();
    auto temp = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/stallscope-exercise-XXXXXX"));
    if (!temp->isValid()) {
        warnPlain(m_window, tr("Cannot start the exercise"), temp->errorString());
        return false;
    }
    const QString dir = temp->filePath(QString::fromStdString(id));
    m_tempDir = std::move(temp);
    const std::uint64_t s = seed.value_or(e->sim.seed);
    emit statusMessage(tr("Generating exercise %1…").arg(QString::fromStdString(e->title)));
    m_generation.setFuture(QtConcurrent::run(workerPool(), [e, s, dir, &lib] {
        auto g = std::make_shared<Generated>();
        NullProgress progress;
        auto sim = writeExerciseFolder(lib, *e, s, dir.toStdString(), progress);
        if (!sim) {
            g->error = sim.error();
            return g;
        }
        g->exercise = e;
        g->sheet = sheetFor(lib, *e, s);
        g->config = simConfigFor(*e, s);
        g->truth = std::make_shared<const SimResult>(std::move(sim.value()));
        g->dir = dir;
        return g;
    }));
    return true;
}

bool TrainingController::openFolder(const QString& dir)
{
    if (m_generation.isRunning()) {
        return false;
    }
    auto sheet = readExerciseFolder(dir.toStdString());
    const auto& lib = builtinExercises();
    const auto* e = sheet ? lib.find(sheet.value().id) : nullptr;
    if (!e) {
        warnPlain(m_window, tr("Not an exercise"),
            sheet ? tr("%1: exercise \"%2\" is not in this version's library")
                        .arg(dir, QString::fromStdString(sheet.value().id))
                  : QString::fromStdString(sheet.error()));
        return false;
    }
    stop();
    const auto s = sheet.value();
    emit statusMessage(tr("Preparing exercise %1…").arg(QString::fromStdString(e->title)));
    // The folder has no answer in it: the truth is simulated again from its id and seed.
    m_generation.setFuture(QtConcurrent::run(workerPool(), [e, s, dir] {
        auto g = std::make_shared<Generated>();
        NullProgress progress;
        const auto config = simConfigFor(*e, s.seed);
        auto sim = simulate(config, progress);
        if (!sim) {
            g->error = sim.error();
            return g;
        }
        g->exercise = e;
        g->sheet = s;
        g->config = config;
        g->truth = std::make_shared<const SimResult>(std::move(sim.value()));
        g->dir = dir;
        return g;
    }));
    return true;
}

void TrainingController::onGenerated()
{
    const auto g = m_generation.result();
    if (!g->error.empty()) {
        emit statusMessage(tr("Could not prepare the exercise"));
        warnPlain(m_window, tr("Could not prepare the exercise"), QString::fromStdString(g->error));
        emit ready(false);
        return;
    }
    m_exercise = g->exercise;
    m_sheet = g->sheet;
    m_config = g->config;
    m_truth = g->truth;
    m_dir = g->dir;
    emit analysisHiddenRequested(true); // before the load: nothing of the analysis reaches a view
    m_opening = true;
    emit openRequested(m_dir);
}

void TrainingController::jobOpened(bool ok)
{
    if (!m_opening) {
        return;
    }
    m_opening = false;
    if (!ok || !m_opened()) {
        stop();
        emit ready(false);
        return;
    }
    m_panel->startExercise(m_sheet);
    m_panel->setSnapshot(m_opened()->snapshot);
    emit dockRequested();
    emit statusMessage(tr("Exercise: %1 — the analysis is hidden until you Check your answer")
                                           .arg(QString::fromStdString(m_exercise->title)));
    m_clock.start();
    emit answerableChanged(answerable());
    emit ready(true);
}

void TrainingController::stop()
{
    if (!m_exercise && !m_tempDir) {
        return;
    }
    if (m_exercise) {
        emit statusMessage(m_revealed ? tr("Exercise closed") : tr("Exercise left unchecked"));
    }
    m_exercise = nullptr;
    m_truth.reset();
    m_reference.reset();
    m_score.reset();
    m_steps.clear();
    m_revealed = false;
    m_hintsShown = 0;
    m_panel->clear();
    emit analysisHiddenRequested(false);
    emit answerableChanged(false);
}

void TrainingController::hint()
{
    if (!m_exercise || m_revealed || m_hintsShown >= int(m_exercise->hints.size())) {
        return;
    }
    ++m_hintsShown;
    m_panel->showHint(m_hintsShown, int(m_exercise->hints.size()),
        QString::fromStdString(m_exercise->hints[std::size_t(m_hintsShown - 1)]));
}

void TrainingController::check()
{
    const auto* opened = m_opened();
    if (!m_exercise || !m_truth || m_revealed || !opened) {
        return;
    }
    auto answer = m_panel->answer();
    answer.hintsUsed = std::max(answer.hintsUsed, m_hintsShown);
    m_reference = referenceFor(*m_exercise, m_config, *m_truth);
    m_score = scoreAnswer(*m_exercise, m_config, *m_truth, *m_reference, answer);
    m_revealed = true;
    emit answerableChanged(false);
    emit analysisHiddenRequested(false);
    m_steps = opened->analysis ? walkthrough(*opened->snapshot, *opened->analysis) : std::vector<WalkStep> {};
    m_panel->showResult(resultHtml(), int(m_steps.size()));
    saveProgress();
    emit statusMessage(
        tr("Checked: %1% — the analysis is shown; step through its evidence in the Exercise panel")
            .arg(m_score->percent()));
    if (!m_steps.empty()) {
        goToStep(0);
    }
    emit checked();
}

void TrainingController::goToStep(int index)
{
    if (index < 0 || index >= int(m_steps.size())) {
        return;
    }
    const auto& s = m_steps[std::size_t(index)];
    if (s.incident > 0 && m_state->selectedIncident() != s.incident) {
        m_state->selectIncident(s.incident); // its marks in every view; the step then sets its own time and links
    }
    if (s.window.delta() > 0) {
        m_state->zoomIn(s.window);
    }
    if (s.cursorNs != kNoTime) {
        m_state->setCursor(s.cursorNs);
    }
    if (!s.links.empty()) {
        m_state->clearLinks();
        for (const auto l : s.links) {
            m_state->selectLink(l);
        }
    }
    if (!s.ranks.empty()) {
        m_state->selectRanks(s.ranks);
    }
    m_panel->showStep(index, int(m_steps.size()), QString::fromStdString(s.text));
}

QString TrainingController::resultHtml() const
{
    const auto& s = *m_score;
    QString html = tr("<h3>Score %1 of %2 (%3%)</h3><table cellspacing=4>")
                       .arg(s.points(), 0, 'f', 0)
                       .arg(s.maxPoints(), 0, 'f', 0)
                       .arg(s.percent());
    for (const auto& p : s.parts) {
        html += QStringLiteral("<tr><td valign=top><b>%1</b></td><td valign=top align=right>%2/%3</td><td>%4</td></tr>")
                    .arg(QString::fromStdString(p.part))
                    .arg(p.got, 0, 'f', 0)
                    .arg(p.max, 0, 'f', 0)
                    .arg(QString::fromStdString(p.why).toHtmlEscaped());
    }
    html += QStringLiteral("</table><h4>%1</h4><ul>").arg(tr("What happened"));
    for (const auto& f : m_reference->facts) {
        html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(f).toHtmlEscaped());
    }
    html += QStringLiteral("</ul><h4>%1</h4><p>%2</p>")
                .arg(tr("Lesson"), QString::fromStdString(m_exercise->lesson).toHtmlEscaped());
    if (!m_exercise->analysisNote.empty()) {
        html
            += QStringLiteral("<p><i>%1</i></p>").arg(QString::fromStdString(m_exercise->analysisNote).toHtmlEscaped());
    }
    return html;
}

void TrainingController::saveProgress()
{
    QSettings settings;
    const QString key = QStringLiteral("training/%1/").arg(QString::fromStdString(m_exercise->id));
    settings.setValue(key + QStringLiteral("best"),
        std::max(settings.value(key + QStringLiteral("best"), -1).toInt(), m_score->percent()));
    settings.setValue(key + QStringLiteral("last"), m_score->percent());
    settings.setValue(
        key + QStringLiteral("attempts"), settings.value(key + QStringLiteral("attempts"), 0).toInt() + 1);
    settings.setValue(key + QStringLiteral("seconds"), int(m_clock.elapsed() / 1000));
}

void TrainingController::chooseAndStart()
{
    QDialog dialog(m_window);
    dialog.setWindowTitle(tr("Start an exercise"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Simulated incidents with a hidden answer, from first day to expert. The "
                                    "analysis stays hidden until you Check.")));
    auto* list = new QListWidget(&dialog);
    QSettings settings;
    for (const auto& e : builtinExercises().exercises) {
        const QString key = QStringLiteral("training/%1/").arg(QString::fromStdString(e.id));
        const int best = settings.value(key + QStringLiteral("best"), -1).toInt();
        const int secs = settings.value(key + QStringLiteral("seconds"), 0).toInt();
        auto* item = new QListWidgetItem(
            tr("Level %1 · %2%3")
                .arg(e.level)
                .arg(QString::fromStdString(e.title))
                .arg(best < 0 ? QString() : tr("   — best %1%, last took %2 min").arg(best).arg((secs + 59) / 60)),
            list);
        item->setData(Qt::UserRole, QString::fromStdString(e.id));
        item->setToolTip(plainTip(QString::fromStdString(e.briefing)));
    }
    list->setCurrentRow(0);
    list->setMinimumSize(560, 320);
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(list, &QListWidget::itemDoubleClicked, &dialog, &QDialog::accept);
    if (dialog.exec() == QDialog::Accepted && list->currentItem()) {
        start(list->currentItem()->data(Qt::UserRole).toString().toStdString());
    }
}

void TrainingController::openFolderDialog()
{
    const auto dir = QFileDialog::getExistingDirectory(m_window, tr("Open a folder made by 'stallscope exercise new'"));
    if (!dir.isEmpty()) {
        openFolder(dir);
    }
}

} // namespace stallscope
