// SPDX-License-Identifier: MIT
#pragma once

class QCoreApplication;

namespace stallscope {

// SIGTERM and SIGINT quit the event loop instead of killing the process, so destructors run: an exercise's temp
// folder (TrainingController's QTemporaryDir) was left in /tmp by `kill` or Ctrl+C. The handler only writes a
// byte to a socket pair (async-signal-safe); a QSocketNotifier on the other end calls app.quit() in the loop.
// Call once, after the application object exists.
void quitOnTerminationSignals(QCoreApplication& app);

} // namespace stallscope
