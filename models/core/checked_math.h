// SPDX-License-Identifier: MIT
#pragma once

// Time arithmetic on values read from files: a product or sum that does not fit 64 bits is nullopt (the reader
// then warns), never signed-overflow UB. Used wherever a file's number is scaled to nanoseconds.

#include <cmath>
#include <cstdint>
#include <optional>

namespace stallscope {

inline std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<std::int64_t>(r);
}

inline std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<std::int64_t>(r);
}

// A double (from JSON) as int64 when it is finite and within range; the cast itself is UB otherwise.
inline std::optional<std::int64_t> checkedFromDouble(double v)
{
    if (!std::isfinite(v) || v < -9.2e18 || v > 9.2e18) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(v);
}

} // namespace stallscope
