// SPDX-License-Identifier: MIT
#pragma once

// Work over independent items (ranks, pixel rows) split across the cores: the one place that says how many
// threads a pass over a job may take. At most four: these passes read memory more than they compute, and two to
// four cores saturate what a desktop's memory delivers.

#include <algorithm>
#include <thread>
#include <vector>

namespace stallscope {

// How many parts parallelParts cuts work into: one per core, at most four.
inline unsigned parallelPartCount()
{
    return std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
}

// Runs fn(part, parts) for part = 0 .. parts-1, each on its own thread (part 0 on the caller's), and returns when
// all are done. fn must touch only what its part owns, or what no part writes.
template <typename Fn> void parallelParts(Fn fn, unsigned parts = parallelPartCount())
{
    std::vector<std::thread> pool;
    for (unsigned p = 1; p < parts; ++p) {
        pool.emplace_back(fn, p, parts);
    }
    fn(0u, parts);
    for (auto& t : pool) {
        t.join();
    }
}

// The part-th of `parts` contiguous slices of [0, n): its first and one-past-last index.
inline std::pair<std::size_t, std::size_t> partSlice(std::size_t n, unsigned part, unsigned parts)
{
    return { n * part / parts, n * (part + 1) / parts };
}

} // namespace stallscope
