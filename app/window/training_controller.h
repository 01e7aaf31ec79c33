// SPDX-License-Identifier: MIT
#pragma once

// Training mode in the window (issue #16): starts an exercise (generated off the GUI thread into a temporary
// folder, or a folder made by `stallscope exercise new`), opens it with the analysis hidden, gives hints, scores
// the answer against the simulator's truth, then reveals the analysis and walks through its evidence, moving
// every view. Keeps each user's progress (best score, time taken) in QSettings. It knows no window: it asks for
// the folder to be opened, the analysis hidden or shown and its dock by signal, and reads the open job through a
// getter. GUI thread only.

#include "training/folder.h"
#include "training/scoring.h"
#include "training/walkthrough.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QTemporaryDir;
class QWidget;

namespace stallscope {

class TrainingPanel;
class ViewState;
struct OpenedJob;

class TrainingController : public QObject
{
    Q_OBJECT
public:
    // `window`: the dialogs' parent. `opened`: the job the window has open (nullptr: none), asked when needed.
    TrainingController(QWidget* window, ViewState* state, TrainingPanel* panel, std::function<const OpenedJob*()> opened);
    ~TrainingController() override;

    void chooseAndStart(); // Training › Start exercise…: the list with each one's best score
    void openFolderDialog(); // Training › Open exercise folder…
    // Generates exercise `id` (seed: its own when nullopt) into a temporary folder and opens it.
    bool start(const std::string& id, std::optional<std::uint64_t> seed = std::nullopt);
    bool openFolder(const QString& dir); // a folder made by `stallscope exercise new`
    void hint();
    void check();
    void goToStep(int index);

    bool active() const { return m_exercise != nullptr; }
    bool answerable() const { return m_exercise != nullptr && !m_revealed && m_truth != nullptr; }
    bool revealed() const { return m_revealed; }
    int stepCount() const { return int(m_steps.size()); }
    std::optional<training::Score> score() const { return m_score; }
    void stop(); // the window opened something else
    void jobOpened(bool ok); // the window finished a load: the exercise's own, when it asked for one

signals:
    void ready(bool ok); // the exercise's folder opened (analysis hidden), or failed to
    void checked();
    void openRequested(const QString& dir); // open the exercise's folder (its analysis already hidden)
    void analysisHiddenRequested(bool hidden); // no view may show the analysis until Check
    void dockRequested(); // the Exercise dock, beside the fabric
    void statusMessage(const QString& text);
    // Whether Hint and Check answer can act: an exercise is open and not yet checked.
    void answerableChanged(bool answerable);

private:
    struct Generated;
    void onGenerated();
    QString resultHtml() const;
    void saveProgress();

    QWidget* m_window;
    std::function<const OpenedJob*()> m_opened;
    ViewState* m_state;
    TrainingPanel* m_panel;
    const training::Exercise* m_exercise = nullptr;
    training::ExerciseSheet m_sheet;
    SimConfig m_config;
    std::shared_ptr<const SimResult> m_truth;
    std::unique_ptr<QTemporaryDir> m_tempDir; // exercises started here live in a temporary folder
    QString m_dir;
    QFutureWatcher<std::shared_ptr<Generated>> m_generation;
    bool m_opening = false; // its folder is being opened: the next jobOpened is its own
    bool m_revealed = false;
    int m_hintsShown = 0;
    QElapsedTimer m_clock;
    std::optional<training::Reference> m_reference;
    std::optional<training::Score> m_score;
    std::vector<training::WalkStep> m_steps;
};

} // namespace stallscope
