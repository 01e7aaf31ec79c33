// SPDX-License-Identifier: MIT
// One binary: CLI subcommands run on the core with a QCoreApplication only; no subcommand opens the GUI.
#include "cli_options.h"
#include "commands.h"
#include "core/time_format.h"
#include "main_window.h"
#include "open_input.h"
#include "theme.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTimer>

#include <iostream>

namespace {

int runGui(int argc, char** argv, const std::vector<std::string>& args)
{
    using namespace stallscope::cli;
    const auto parsed = parseArgs(args,
        withPrometheusOptions({ { "quit-after", true, "" }, { "screenshot", true, "" }, { "incident", true, "" },
            { "theme", true, "" } }));
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
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Stallscope"));
    QApplication::setOrganizationName(QStringLiteral("Stallscope"));
    if (auto theme = parsed.options.find("theme"); theme != parsed.options.end()) {
        if (!stallscope::applyTheme(QString::fromStdString(theme->second.back()))) {
            std::cerr << "stallscope: --theme: expected light or dark\n";
            return kExitUsage;
        }
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
    if (!parsed.positional.empty()) {
        window.openBundle(QString::fromStdString(parsed.positional[0]));
    } else if (parsed.has("prometheus")) {
        const auto q = prometheusQueryFrom(parsed);
        window.openPrometheus(q);
        if (parsed.has("follow")) {
            window.followLive(); // refreshes start now; a server with no series yet is retried each refresh
        }
    }
    if (auto it = parsed.options.find("quit-after"); it != parsed.options.end()) {
        // Used by the smoke test: quit after the bundle loaded (or the timeout), saving a screenshot first.
        const QString shot = parsed.options.count("screenshot")
            ? QString::fromStdString(parsed.options.at("screenshot").back())
            : QString();
        auto quit = [&window, shot] {
            if (!shot.isEmpty()) {
                window.grab().save(shot);
            }
            QApplication::exit(kExitOk);
        };
        if (parsed.has("follow")) {
            // Following: the window keeps refreshing; the screenshot is taken when the time is up.
            QTimer::singleShot(std::stoi(it->second.back()), &app, quit);
        } else {
            QObject::connect(
                &window, &stallscope::MainWindow::loadFinished, &app, [quit](bool) { QTimer::singleShot(200, quit); });
            QTimer::singleShot(std::stoi(it->second.back()), &app, [] { QApplication::exit(kExitBadInput); });
        }
    }
    return app.exec();
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
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
