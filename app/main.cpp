// SPDX-License-Identifier: MIT
// One binary: CLI subcommands run on the core with a QCoreApplication only; no subcommand opens the GUI.
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "core/document_file.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "window/main_window.h"
#include "open/open_input.h"
#include "stallscope_version.h"
#include "window/quit_on_signal.h"
#include "theme.h"
#include "training/answer.h"
#include "window/training_controller.h"
#include "window/training_panel.h"

#include <QApplication>
#include <QSettings>
#include <QCoreApplication>
#include <QTimer>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

// --exercise ID [--seed N] [--answer FILE] [--check] [--step N]: starts an exercise and, once it is open, enters
// the answer, checks it and shows a walk-through step — what a trainee does, for screenshots and tests.
bool startExercise(stallscope::MainWindow& window, const std::string& id, const stallscope::cli::ParsedArgs& parsed)
{
    using namespace stallscope;
    std::optional<std::uint64_t> seed;
    if (const auto* s = parsed.find("seed")) {
        seed = std::strtoull(s->c_str(), nullptr, 10);
    }
    if (!training::builtinExercises().find(id)) {
        return false;
    }
    std::optional<training::TraineeAnswer> answer;
    if (const auto* path = parsed.find("answer")) {
        const auto text = readDocument(*path, kSmallDocumentBytes, "trainee's answer");
        if (!text) {
            std::cerr << "stallscope: " << text.error().format() << "\n";
            return false;
        }
        auto a = training::parseAnswer(text.value(), *path);
        if (!a) {
            std::cerr << "stallscope: " << a.error() << "\n";
            return false;
        }
        answer = a.value();
    }
    const bool check = parsed.has("check");
    const int step = parsed.find("step") ? std::atoi(parsed.find("step")->c_str()) : 0;
    auto* t = window.training();
    // Runs before the quit-after handler (connected later): the actions land before the screenshot.
    QObject::connect(t, &TrainingController::ready, &window, [&window, t, answer, check, step](bool ok) {
        if (!ok) {
            return;
        }
        if (answer) {
            window.trainingPanel()->setAnswer(*answer);
        }
        if (check) {
            t->check();
            if (step > 0) {
                t->goToStep(step - 1);
            }
        }
    });
    return t->start(id, seed);
}

int runGui(int argc, char** argv, const std::vector<std::string>& args)
{
    using namespace stallscope::cli;
    const auto parsed = parseArgs(args,
        withPrometheusOptions({ { "quit-after", true, "" }, { "screenshot", true, "" }, { "incident", true, "" },
            { "theme", true, "" }, { "exercise", true, "" }, { "seed", true, "" }, { "answer", true, "" },
            { "check", false, "" }, { "step", true, "" } }));
    if (parsed.help) {
        std::cout << mainUsage();
        return kExitOk;
    }
    if (parsed.has("prometheus") && parsed.error.empty()) {
        if (const auto bad = checkInput(parsed); !bad.empty()) {
            std::cerr << "stallscope: " << bad << "\n";
            return kExitUsage;
        }
    }
    if (!parsed.error.empty() || parsed.positional.size() > 1) {
        std::cerr << "stallscope: " << (parsed.error.empty() ? "unknown command " + parsed.positional[0] : parsed.error)
                  << "\n"
                  << mainUsage();
        return kExitUsage;
    }
    int quitAfterMs = -1; // a test hook: quit (with a screenshot) this long after opening
    if (const auto* v = parsed.find("quit-after")) {
        const auto ms = stallscope::parseNumber<int>(*v);
        if (!ms || *ms < 0) {
            std::cerr << "stallscope: --quit-after: expected milliseconds\n";
            return kExitUsage;
        }
        quitAfterMs = *ms;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Stallscope"));
    QApplication::setOrganizationName(QStringLiteral("Stallscope"));
    // The installed desktop entry's name (packaging/): Wayland compositors match the window to its icon by it.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.stallscope.Stallscope"));
    stallscope::quitOnTerminationSignals(app); // the window's destructors clean up (an exercise's temp folder)
    if (auto theme = parsed.options.find("theme"); theme != parsed.options.end()) {
        if (!stallscope::applyTheme(QString::fromStdString(theme->second.back()))) {
            std::cerr << "stallscope: --theme: expected light or dark\n";
            return kExitUsage;
        }
    } else if (const auto saved = QSettings().value(QStringLiteral("theme")).toString(); !saved.isEmpty()) {
        stallscope::applyTheme(saved); // View › Theme's last choice
    }
    stallscope::MainWindow window;
    window.show();
    if (auto inc = parsed.options.find("incident"); inc != parsed.options.end()) {
        const int number = std::atoi(inc->second.back().c_str());
        QObject::connect(&window, &stallscope::MainWindow::loadFinished, &window, [&window, number](bool ok) {
            if (ok) {
                window.selectIncident(number);
            }
        });
    }
    bool exercise = false; // the training flags drive the window for screenshots and tests
    if (const auto* id = parsed.find("exercise")) {
        if (!startExercise(window, *id, parsed)) {
            std::cerr << "stallscope: --exercise: no exercise \"" << *id << "\" (stallscope exercise list)\n";
            return kExitUsage;
        }
        exercise = true;
    } else if (!parsed.positional.empty() && parsed.has("prometheus")) {
        window.openFolderWithPrometheus(QString::fromStdString(parsed.positional[0]), prometheusQueryFrom(parsed));
    } else if (!parsed.positional.empty()) {
        window.openJob(QString::fromStdString(parsed.positional[0]));
    } else if (parsed.has("prometheus")) {
        const auto q = prometheusQueryFrom(parsed);
        window.openPrometheus(q);
        if (parsed.has("follow")) {
            window.followLive(); // refreshes start now; a server with no series yet is retried each refresh
        }
    }
    if (quitAfterMs >= 0) {
        // Used by the smoke test: quit after the bundle loaded (or the timeout), saving a screenshot first.
        const QString shot = parsed.options.count("screenshot")
            ? QString::fromStdString(parsed.options.at("screenshot").back())
            : QString();
        auto quit = [&window, shot] {
            if (!shot.isEmpty()) {
                window.settleViews();
                window.grab().save(shot);
            }
            QApplication::exit(kExitOk);
        };
        if (parsed.has("follow")) {
            // Following: the window keeps refreshing; the screenshot is taken when the time is up.
            QTimer::singleShot(quitAfterMs, &app, quit);
        } else if (!exercise && parsed.positional.empty() && !parsed.has("prometheus")) {
            QTimer::singleShot(1500, &app, quit); // nothing to open: the welcome page as it first appears
        } else if (exercise) {
            QObject::connect(window.training(), &stallscope::TrainingController::ready, &app,
                [quit](bool) { QTimer::singleShot(400, quit); });
            QTimer::singleShot(quitAfterMs, &app, [] { QApplication::exit(kExitBadInput); });
        } else {
            QObject::connect(
                &window, &stallscope::MainWindow::loadFinished, &app, [quit](bool) { QTimer::singleShot(200, quit); });
            QTimer::singleShot(quitAfterMs, &app, [] { QApplication::exit(kExitBadInput); });
        }
    }
    return app.exec();
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && args[0] == "--version") {
        std::cout << "stallscope " STALLSCOPE_VERSION_BUILD "\n";
        return stallscope::cli::kExitOk;
    }
    const auto* command = args.empty() ? nullptr : stallscope::cli::findSubcommand(args[0]);
    if (command && command->needs == stallscope::cli::Subcommand::Needs::Painting) {
        // Painting without a display: the offscreen platform, unless the caller chose one.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
        }
        QApplication app(argc, argv);
        return stallscope::cli::runSubcommand(args, std::cout, std::cerr);
    }
    if (command) {
        QCoreApplication core(argc, argv); // these subcommands never touch widget code
        return stallscope::cli::runSubcommand(args, std::cout, std::cerr);
    }
    return runGui(argc, argv, args);
}
