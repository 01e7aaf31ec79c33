// SPDX-License-Identifier: MIT
#include "worker_pool.h"

#include <QThread>
#include <QThreadPool>

#include <algorithm>

namespace stallscope {

QThreadPool* workerPool()
{
    // Jobs are few and coarse (each splits its own work over the cores): enough threads that a raster never queues
    // behind an open in flight. Torn down with the other statics, as the global pool is: it waits for its jobs.
    static QThreadPool pool;
    static const bool sized = [] {
        pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        return true;
    }();
    (void)sized;
    return &pool;
}

} // namespace stallscope
