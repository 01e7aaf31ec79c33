// SPDX-License-Identifier: MIT
#pragma once

// Small order statistics shared by the analysis phases.

#include "core/types.h"

#include <algorithm>
#include <vector>

namespace stallscope {

// The upper median (the element at size/2 once sorted); 0 for an empty set. Takes a copy: it reorders.
template <typename T> T median(std::vector<T> v)
{
    if (v.empty()) {
        return T {};
    }
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

} // namespace stallscope
