// SPDX-License-Identifier: MIT
// A refusal in the window: the message box's title names what could not be opened, and the status bar keeps the
// refusal to one line that fits (a long one was cut at the window's edge, mid-word).
#include "window/main_window.h"
#include "open/refusal.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QFontMetrics>
#include <QSignalSpy>
#include <QStatusBar>

#include <fstream>

using namespace stallscope;

TEST_CASE("a refusal's title names what could not be opened", "[window]")
{
    test::TempDir tmp;
    std::filesystem::create_directories(tmp.path() / "bundle");
    std::ofstream(tmp.path() / "bundle" / "manifest.json") << "{}";
    std::filesystem::create_directories(tmp.path() / "raw");
    std::ofstream(tmp.path() / "logs.tgz") << "not really";
    CHECK(refusalTitle(tmp.str("bundle")).toStdString() == "Could not open the bundle");
    CHECK(refusalTitle(tmp.str("raw")).toStdString() == "Could not open the folder");
    CHECK(refusalTitle(tmp.str("logs.tgz")).toStdString() == "Could not open logs.tgz");
    CHECK(refusalTitle(tmp.str("gone")).toStdString() == "Could not open gone");
    CHECK(refusalTitle("http://127.0.0.1:9090").toStdString() == "Could not open the Prometheus server");
}

TEST_CASE("a refusal's status line is one line that fits, cut with an ellipsis", "[window]")
{
    const QFontMetrics metrics(QFont {});
    const auto message = QStringLiteral("nothing readable was found in /data/job:\n  1 tar archive\n  3 other files");
    const auto whole = refusalStatus(message, metrics, 100000);
    CHECK(whole.toStdString() == "Could not open: nothing readable was found in /data/job: 1 tar archive 3 other files");
    const auto cut = refusalStatus(message, metrics, 200);
    CHECK(metrics.horizontalAdvance(cut) <= 200);
    CHECK(cut.endsWith(QChar(0x2026)));
    CHECK(cut.startsWith(QStringLiteral("Could not")));
}

TEST_CASE("a file opened in the window as a folder: the status bar says so within its width", "[window]")
{
    test::TempDir tmp;
    std::ofstream(tmp.path() / "logs.tgz") << "a file where a folder was expected";
    MainWindow w;
    w.resize(480, 400);
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openJob(QString::fromStdString(tmp.str("logs.tgz")));
    REQUIRE(loaded.wait(60000));
    CHECK_FALSE(loaded.first().first().toBool());
    const auto shown = w.statusBar()->currentMessage();
    INFO(shown.toStdString());
    CHECK(shown.startsWith(QStringLiteral("Could not open: ")));
    CHECK(shown.contains(QStringLiteral("logs.tgz: not a folder")));
    CHECK_FALSE(shown.contains(QChar(u'\n')));
    CHECK(w.statusBar()->fontMetrics().horizontalAdvance(shown) <= w.width()); // the bar spans the window
    CHECK(shown.endsWith(QChar(0x2026))); // the refusal is longer than 480 pixels: cut, the box holds it whole
}
