// SPDX-License-Identifier: MIT
#pragma once

#include "core/types.h"

#include <optional>
#include <string>
#include <string_view>

namespace stallscope {

// "2026-11-01 00:05:00.123 UTC" (milliseconds, always UTC).
std::string formatUtc(TimeNs t);
// A UTC civil time (month and day 1-based) → epoch ns; kNoTime when a field is out of range or the year is
// outside 1678..2261 (what int64 ns can hold).
TimeNs utcCivilNs(int year, int month, int day, int hour, int minute, int second);
// "Jan" .. "Dec" (as syslog, dmesg -T, OpenSM and `date` print them) → 1 .. 12; 0 for anything else.
int monthFromAbbreviation(std::string_view name);
// "2s", "4.29s", "1h05m00s", "870us": short, for people.
std::string formatDuration(TimeNs ns);
// How long a reviewed span is, as a title says it: formatDuration under a day ("10m00s", "7h00m00s"), else days
// ("1.25 days", "7.0 days"): a week read as "7d00h00m00s" or ten minutes as "0.01 days" told less.
std::string formatSpanLength(TimeNs ns);
// "+00:05:00.123" relative to `origin` (time since job start).
std::string formatSince(TimeNs t, TimeNs origin);
// "1.2 GB", "688 MB", "4.0 KB" (decimal units).
std::string formatBytes(double bytes);
// 21504000 → "21,504,000"
std::string formatCount(std::uint64_t n);
// "29.3": fixed-point with `digits` decimals (printf %.*f; no locale).
std::string formatFixed(double v, int digits);

// "2s", "500ms", "1.5h", "1m30s", "250us", "10ns", "90" (seconds): the one duration syntax of every command
// and file Stallscope reads. nullopt when malformed, negative or beyond ~292 years.
std::optional<TimeNs> parseDuration(const std::string& text);
// The same with an optional leading sign ("-1.5s", "+200ms"): clock offsets.
std::optional<TimeNs> parseSignedDuration(const std::string& text);

} // namespace stallscope
