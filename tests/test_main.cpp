// SPDX-License-Identifier: MIT
// Catch2 main that creates the Qt application object first: QCoreApplication for [core]/[cli] tests,
// QApplication on the offscreen platform for [widget] tests (STALLSCOPE_WIDGET_TESTS).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#ifdef STALLSCOPE_WIDGET_TESTS
#include <QApplication>
#else
#include <QCoreApplication>
#endif

int main(int argc, char** argv)
{
#ifdef STALLSCOPE_WIDGET_TESTS
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
#else
    QCoreApplication app(argc, argv);
#endif
    return Catch::Session().run(argc, argv);
}
