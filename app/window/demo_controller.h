// SPDX-License-Identifier: MIT
#pragma once

// The welcome page's demo: the hourly-flap scenario, simulated once off the GUI thread into the cache folder,
// then handed to the window to open (openRequested). GUI thread; the simulation runs on a worker.

#include <QFutureWatcher>
#include <QObject>

#include <string>

class QWidget;

namespace stallscope {

class DemoController : public QObject
{
    Q_OBJECT
public:
    explicit DemoController(QWidget* window); // the parent of the message box when the demo cannot be written
    ~DemoController() override; // waits for the simulation

    void open(); // opens the cached demo, or simulates it first

signals:
    void openRequested(const QString& dir);
    void statusMessage(const QString& text);

private:
    static QString folder();

    QWidget* m_window;
    QFutureWatcher<std::string> m_job; // "" or why the demo could not be written
};

} // namespace stallscope
