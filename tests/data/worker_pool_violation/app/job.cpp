// SPDX-License-Identifier: MIT
// A job started in Qt's global pool: cmake/check_worker_pool.cmake must refuse this file.
#include <QtConcurrent>

void start()
{
    QtConcurrent::run([] {});
}
