// SPDX-License-Identifier: MIT
// Training mode in the real window (offscreen): an exercise opens with the analysis hidden from every view, the
// trainee marks the culprit from the views' selection and checks; only then do the incidents appear, and the
// walk-through moves the cursor and the selection in every view.
#include "bundle/writer.h"
#include "panels/incidents_panel.h"
#include "isolated_settings.h"
#include "window/main_window.h"
#include "sim/raw_writer.h"
#include "test_support.h"
#include "training/answer.h"
#include "training/folder.h"
#include "window/training_controller.h"
#include "window/training_panel.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

#include <filesystem>

using namespace stallscope;

namespace {

QPushButton* button(QWidget* in, const QString& text)
{
    for (auto* b : in->findChildren<QPushButton*>()) {
        if (b->text() == text) {
            return b;
        }
    }
    FAIL("no button " << text.toStdString());
    return nullptr;
}

bool dockVisible(MainWindow& w, const char* name)
{
    auto* d = w.findChild<QDockWidget*>(QString::fromLatin1(name));
    return d && d->isVisible();
}

} // namespace

TEST_CASE("an exercise in the window: the answer is invisible until Check, then walked through", "[window]")
{
    test::IsolatedSettings settingsFile; // progress goes to a test settings file of this process
    MainWindow w;
    w.show();
    QSignalSpy ready(w.training(), &TrainingController::ready);
    REQUIRE(w.training()->start("first-flap"));
    REQUIRE(ready.wait(120000));
    REQUIRE(ready.first().first().toBool());

    // Hidden: no incident, no flap list, no analysis in any view, nothing to check yet.
    CHECK(w.analysisHidden());
    CHECK(w.opened()->analysis); // computed, just not shown
    CHECK(w.opened()->analysis->incidents.size() == 1);
    CHECK(w.incidentsPanel()->rowCount() == 0);
    CHECK_FALSE(dockVisible(w, "incidents"));
    CHECK_FALSE(dockVisible(w, "flaps"));
    CHECK(dockVisible(w, "exercise"));
    auto* panel = w.trainingPanel();
    CHECK_FALSE(panel->checked());
    CHECK(panel->resultText().isEmpty());

    // The trainee selects the link in the views (as clicking it in the Fabric view does) and adds it.
    const auto& snap = *w.opened()->snapshot;
    auto link = training::resolveLinkName(snap, "gpu-a002 mlx5_5");
    REQUIRE(link);
    w.viewState()->clearLinks();
    w.viewState()->selectLink(link.value());
    QTest::mouseClick(button(panel, QObject::tr("Add selected link")), Qt::LeftButton);
    auto* verdict = panel->findChild<QComboBox*>();
    REQUIRE(verdict);
    verdict->setCurrentIndex(verdict->findData(int(training::Verdict::Stretched)));
    panel->findChild<QDoubleSpinBox*>()->setValue(270);
    QTest::mouseClick(button(panel, QObject::tr("Hint (−%1 points)").arg(training::kHintCost)), Qt::LeftButton);
    const auto answer = panel->answer();
    CHECK(answer.links.size() == 1);
    CHECK(answer.hintsUsed == 1);

    QSignalSpy checked(w.training(), &TrainingController::checked);
    QTest::mouseClick(button(panel, QObject::tr("Check answer")), Qt::LeftButton);
    REQUIRE(checked.count() == 1);
    CHECK(panel->checked());
    CHECK(panel->resultText().contains(QStringLiteral("Score 85 of 90 (94%)")));
    CHECK(panel->resultText().contains(QStringLiteral("Right: gpu-a002 mlx5_5 port 1")));

    // Revealed: the incident and its culprit in the views; the walk-through drives every view.
    CHECK_FALSE(w.analysisHidden());
    CHECK(w.incidentsPanel()->rowCount() == 1);
    CHECK(dockVisible(w, "incidents"));
    REQUIRE(w.training()->stepCount() >= 4);
    const auto& inc = w.opened()->analysis->incidents[0];
    CHECK(w.viewState()->cursor() == inc.startNs); // step 1: the band
    CHECK(w.viewState()->selectedIncident() == 1); // its marks (culprit, bracket) show in every view
    w.training()->goToStep(1);
    CHECK(panel->stepText().contains(QStringLiteral("Step 2 of")));
    CHECK(panel->stepText().contains(QStringLiteral("link DOWN")));
    CHECK(w.viewState()->cursor() != inc.startNs);
    REQUIRE(w.viewState()->selectedLinks().size() == 1);
    CHECK(w.viewState()->selectedLinks()[0] == inc.culprit->link);
    CHECK(w.viewState()->window().start <= inc.startNs);
    CHECK(w.viewState()->window().end >= inc.endNs);

    // Progress is kept per user.
    QSettings settings;
    CHECK(settings.value(QStringLiteral("training/first-flap/best")).toInt() == 94);
    CHECK(settings.value(QStringLiteral("training/first-flap/attempts")).toInt() == 1);
}

TEST_CASE("opening something else ends the exercise and shows analyses again", "[window]")
{
    test::IsolatedSettings settingsFile;
    MainWindow w;
    QSignalSpy ready(w.training(), &TrainingController::ready);
    REQUIRE(w.training()->start("dead-rank"));
    REQUIRE(ready.wait(120000));
    CHECK(w.analysisHidden());
    test::TempDir tmp;
    auto config = test::tinyConfig();
    auto sim = test::simulateOrFail(config);
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("other")).empty());
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openJob(QString::fromStdString(tmp.str("other")));
    REQUIRE(loaded.wait(120000));
    CHECK_FALSE(w.training()->active());
    CHECK_FALSE(w.analysisHidden());
    CHECK(w.incidentsPanel()->rowCount() >= 1);
}

TEST_CASE("File › Close leaves the exercise, and Hint and Check act only while one waits for its answer", "[window]")
{
    test::IsolatedSettings settingsFile;
    MainWindow w;
    const auto action = [&](const QString& text) -> QAction* {
        for (auto* menu : w.menuBar()->findChildren<QMenu*>()) {
            for (auto* a : menu->actions()) {
                if (a->text() == text) {
                    return a;
                }
            }
        }
        return nullptr;
    };
    auto* hint = action(QObject::tr("&Hint"));
    auto* check = action(QObject::tr("&Check answer"));
    auto* close = action(QObject::tr("&Close"));
    REQUIRE(hint);
    REQUIRE(check);
    REQUIRE(close);
    CHECK_FALSE(hint->isEnabled()); // no exercise: nothing to hint at
    CHECK_FALSE(check->isEnabled());
    QSignalSpy ready(w.training(), &TrainingController::ready);
    REQUIRE(w.training()->start("dead-rank"));
    REQUIRE(ready.wait(120000));
    CHECK(hint->isEnabled());
    CHECK(check->isEnabled());
    close->trigger();
    CHECK_FALSE(w.training()->active()); // the exercise went with its job
    CHECK_FALSE(w.analysisHidden());
    CHECK_FALSE(hint->isEnabled());
    CHECK_FALSE(check->isEnabled());
    CHECK(w.statusBar()->currentMessage() == QObject::tr("Exercise left unchecked"));
}

TEST_CASE("with nothing open the window offers the ways in, the demo opens from the cache", "[window]")
{
    test::IsolatedSettings settingsFile;
    MainWindow w;
    CHECK_FALSE(w.showingViews()); // the welcome page
    // A cached demo scenario (a small one stands in for the 1,024-rank job) opens without simulating again.
    const auto cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation).toStdString();
    std::filesystem::remove_all(cache + "/hourly-flap");
    auto sim = test::simulateOrFail(test::tinyConfig());
    REQUIRE(writeBundle(*sim.snapshot, cache + "/hourly-flap").empty());
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openDemo();
    REQUIRE(loaded.wait(120000));
    CHECK(loaded.first().first().toBool());
    CHECK(w.showingViews());
    CHECK(w.incidentsPanel()->rowCount() == 1);
    std::filesystem::remove_all(cache + "/hourly-flap");
}

TEST_CASE("a handed-out exercise folder opens as an exercise, its analysis hidden", "[window]")
{
    test::IsolatedSettings settingsFile;
    const auto& lib = training::builtinExercises();
    test::TempDir tmp;
    NullProgress progress;
    REQUIRE(training::writeExerciseFolder(lib, *lib.find("dead-rank"), 5, tmp.str("alice"), progress));
    MainWindow w;
    QSignalSpy ready(w.training(), &TrainingController::ready);
    w.openJob(QString::fromStdString(tmp.str("alice"))); // as File › Open, a drop or `stallscope DIR` do
    REQUIRE(ready.wait(120000));
    CHECK(w.training()->active());
    CHECK(w.analysisHidden());
    CHECK(w.incidentsPanel()->rowCount() == 0);
    CHECK(w.opened()->analysis->incidents.size() == 1);
}

TEST_CASE("a long training hint wraps in a narrow panel instead of being cut off", "[window]")
{
    // #45: the hint sat between the Hint and Check buttons on one line and was cut off.
    ViewState state;
    TrainingPanel panel(&state);
    panel.resize(340, 700);
    panel.show();
    const QString text = QStringLiteral("Look at the links that went down around the first stall: one of them "
                                        "stayed down longer than the retry budget, and its ranks stopped first.");
    panel.showHint(1, 3, text);
    QCoreApplication::processEvents();
    QLabel* hint = nullptr;
    for (auto* l : panel.findChildren<QLabel*>()) {
        if (l->text().contains(text)) {
            hint = l;
        }
    }
    REQUIRE(hint != nullptr);
    CHECK(hint->wordWrap());
    CHECK(hint->geometry().right() <= panel.width());
    CHECK(hint->height() >= hint->heightForWidth(hint->width()));
    CHECK(hint->height() > 2 * hint->fontMetrics().height()); // several lines, all shown
}
