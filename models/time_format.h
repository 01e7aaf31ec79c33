// SPDX-License-Identifier: MIT
#pragma once

#include "types.h"

#include <string>

namespace stallscope {

// "2026-11-01 00:05:00.123 UTC" (milliseconds, always UTC).
std::string formatUtc(TimeNs t);
// A UTC civil time (month and day 1-based) → epoch ns.
TimeNs utcCivilNs(int year, int month, int day, int hour, int minute, int second);
// "2s", "4.29s", "1h05m00s", "870us": short, for people.
std::string formatDuration(TimeNs ns);
// "+00:05:00.123" relative to `origin` (time since job start).
std::string formatSince(TimeNs t, TimeNs origin);
// "1.2 GB", "688 MB", "4.0 KB" (decimal units).
std::string formatBytes(double bytes);
// 21504000 → "21,504,000"
std::string formatCount(std::uint64_t n);

} // namespace stallscope
