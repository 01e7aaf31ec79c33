// SPDX-License-Identifier: MIT
#pragma once

// Training mode in the window (issue #16): starts an exercise (generated off the GUI thread into a temporary
// folder, or a folder made by `stallscope exercise new`), opens it with the analysis hidden, gives hints, scores
// the answer against the simulator's truth, then reveals the analysis and walks through its evidence, moving
// every view. Keeps each user's progress (best score, time taken) in QSettings. GUI thread only.

#include "training/folder.h"
#include "training/scoring.h"
#include "training/walkthrough.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>

#include <memory>
#include <optional>

class QTemporaryDir;

namespace stallscope {

class MainWindow;
class TrainingPanel;
class ViewState;

class TrainingController : public QObject
{
    Q_OBJECT
public:
    TrainingController(MainWindow* window, ViewState* state, TrainingPanel* panel);
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
    bool revealed() const { return m_revealed; }
    bool opening() const { return m_opening; } // its folder is being opened by the window
    int stepCount() const { return int(m_steps.size()); }
    std::optional<training::Score> score() const { return m_score; }
    void stop(); // the window opened something else

signals:
    void ready(bool ok); // the exercise's folder opened (analysis hidden), or failed to
    void checked();

private:
    struct Generated;
    void onGenerated();
    void onOpened(bool ok);
    QString resultHtml() const;
    void saveProgress();

    MainWindow* m_window;
    ViewState* m_state;
    TrainingPanel* m_panel;
    const training::Exercise* m_exercise = nullptr;
    training::ExerciseSheet m_sheet;
    SimConfig m_config;
    std::shared_ptr<const SimResult> m_truth;
    std::unique_ptr<QTemporaryDir> m_tempDir; // exercises started here live in a temporary folder
    QString m_dir;
    QFutureWatcher<std::shared_ptr<Generated>> m_generation;
    bool m_opening = false;
    bool m_revealed = false;
    int m_hintsShown = 0;
    QElapsedTimer m_clock;
    std::optional<training::Reference> m_reference;
    std::optional<training::Score> m_score;
    std::vector<training::WalkStep> m_steps;
};

} // namespace stallscope
