// SPDX-License-Identifier: MIT
#pragma once

// The pool for Stallscope's own work off the GUI thread (opening a job, heatmap rasters, lateness levels, training
// sets): every QtConcurrent::run of ours names it. Never QThreadPool::globalInstance(): Qt's raster engine splits a
// large paint into segments on the global pool and the GUI thread waits on them, so while our seconds-long jobs held
// both of its threads (2 on 2 cores) every paint stood still — the open's progress dialog sat at one value for 4 s at
// 131,072 ranks.

class QThreadPool;

namespace stallscope {

QThreadPool* workerPool(); // from any thread

} // namespace stallscope
