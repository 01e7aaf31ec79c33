// SPDX-License-Identifier: MIT
#pragma once

// Numbers from JSON documents, checked (include only where nlohmann_json is linked). nlohmann's get<T>() casts a
// float to an integer type unchecked — undefined behaviour for 1e300 — and truncates integers that do not fit;
// jsonNumber<T> throws BadNumber instead, which the readers' existing error paths turn into a message.

#include "core/parse_number.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace stallscope {

template <typename T> T jsonNumber(const nlohmann::json& v)
{
    static_assert(std::is_integral_v<T>);
    using L = std::numeric_limits<T>;
    const auto tooBig = [&] { return BadNumber("the number " + v.dump() + " does not fit " + std::to_string(sizeof(T) * 8) + " bits"); };
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(L::max())) {
            throw tooBig();
        }
        return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        if ((std::is_unsigned_v<T> && i < 0) || (std::is_signed_v<T> && (i < static_cast<std::int64_t>(L::min())))
            || (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(L::max()))) {
            throw tooBig();
        }
        return static_cast<T>(i);
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        // 2^63 and 2^64 are exact as doubles: compare against them, not against max(), which rounds up.
        const double upper = std::ldexp(1.0, static_cast<int>(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0)));
        if (!std::isfinite(d) || d < static_cast<double>(L::min()) || d >= upper) {
            throw tooBig();
        }
        return static_cast<T>(d);
    }
    throw BadNumber("expected a number, got " + v.dump().substr(0, 40));
}

} // namespace stallscope
