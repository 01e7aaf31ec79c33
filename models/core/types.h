// SPDX-License-Identifier: MIT
#pragma once

// Basic value types shared by the whole core: time, strong ids, time ranges.
// Every time in the core is TimeNs: signed 64-bit nanoseconds since the Unix epoch (UTC), on one job clock.

#include <cstdint>
#include <limits>

namespace stallscope {

using TimeNs = std::int64_t; // ns since Unix epoch, UTC, job clock

// Sentinel for "this time was never observed" (e.g. a collective that never started).
inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerSec = 1'000'000'000;

enum class RankId : std::uint32_t {};
enum class LinkId : std::uint32_t {};
enum class NodeId : std::uint32_t {};
enum class PortId : std::uint32_t {};
enum class StringId : std::uint32_t {};

template <typename Id> constexpr std::uint32_t index(Id id)
{
    return static_cast<std::uint32_t>(id);
}

struct TimeRange
{
    TimeNs start = 0; // inclusive
    TimeNs end = 0; // exclusive

    constexpr TimeNs delta() const { return end - start; }
    constexpr bool isEmpty() const { return end <= start; }
    constexpr bool contains(TimeNs t) const { return t >= start && t < end; }
    constexpr bool overlaps(const TimeRange& o) const { return start < o.end && o.start < end; }
    constexpr TimeRange normalized() const { return start <= end ? *this : TimeRange { end, start }; }
    friend constexpr bool operator==(const TimeRange&, const TimeRange&) = default;
};

} // namespace stallscope
