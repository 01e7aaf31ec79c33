// SPDX-License-Identifier: MIT
#pragma once

// The Exercise dock of training mode: the briefing, the trainee's answer (verdict, culprit links or ranks taken
// from the views' selection, "cannot be proven", cost per occurrence, period), hints, Check, and after Check the
// score with a reason per part and the evidence walk-through (Previous / Next step). A view over the controller's
// state: it says what the trainee did through signals and never scores or reads files itself. GUI thread.

#include "training/answer.h"
#include "training/folder.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTextBrowser;

namespace stallscope {

struct JobSnapshot;
class ViewState;

class TrainingPanel : public QWidget
{
    Q_OBJECT
public:
    TrainingPanel(ViewState* state, QWidget* parent = nullptr);

    void startExercise(const training::ExerciseSheet& sheet); // shows the briefing, clears the answer
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap); // names the selected links and ranks
    void clear(); // no exercise open

    training::TraineeAnswer answer() const;
    void setAnswer(const training::TraineeAnswer& a); // a saved answer, or one given on the command line

    void showHint(int number, int total, const QString& text);
    // After Check: the score as HTML, and how many walk-through steps there are.
    void showResult(const QString& html, int steps);
    void showStep(int index, int total, const QString& text);
    bool checked() const { return m_checked; }
    QString resultText() const; // plain text of the score (tests)
    QString stepText() const;

signals:
    void hintRequested();
    void checkRequested();
    void stepRequested(int index);

private:
    void addSelectedLinks();
    void addSelectedRanks();
    void setEditable(bool on);

    ViewState* m_state;
    std::shared_ptr<const JobSnapshot> m_snap;
    QLabel* m_title;
    QLabel* m_briefing;
    QWidget* m_form; // the answer: hidden after Check
    QComboBox* m_verdict;
    QListWidget* m_culprits; // items: "link: NAME" or "rank: N" (UserRole: the name or the rank)
    QCheckBox* m_unprovable;
    QDoubleSpinBox* m_cost;
    QLineEdit* m_period;
    QLabel* m_hints;
    QPushButton* m_hintButton;
    QPushButton* m_checkButton;
    QTextBrowser* m_result;
    QWidget* m_stepper;
    QLabel* m_step;
    QPushButton* m_prev;
    QPushButton* m_next;
    int m_hintsUsed = 0;
    int m_stepIndex = 0;
    int m_stepCount = 0;
    bool m_checked = false;
    std::vector<QWidget*> m_answerWidgets;
};

} // namespace stallscope
