// SPDX-License-Identifier: MIT
#include "time_ticks.h"

#include "core/time_format.h"

#include <cstdio>
#include <string>

namespace stallscope {

namespace {
constexpr TimeNs kHourNs = 3600 * kNsPerSec;
constexpr TimeNs kDayNs = 24 * kHourNs;
} // namespace

TimeNs tickStep(double nsPerPx, int minPx)
{
    static const TimeNs steps[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1'000, 2'000, 5'000, 10'000, 20'000, 50'000,
        100'000, 200'000, 500'000, kNsPerMs, 2 * kNsPerMs, 5 * kNsPerMs, 10 * kNsPerMs, 20 * kNsPerMs, 50 * kNsPerMs,
        100 * kNsPerMs, 200 * kNsPerMs, 500 * kNsPerMs, kNsPerSec, 2 * kNsPerSec, 5 * kNsPerSec, 10 * kNsPerSec,
        30 * kNsPerSec, 60 * kNsPerSec, 120 * kNsPerSec, 300 * kNsPerSec, 600 * kNsPerSec, 1200 * kNsPerSec,
        1800 * kNsPerSec, kHourNs, 2 * kHourNs, 3 * kHourNs, 6 * kHourNs, 12 * kHourNs, kDayNs, 2 * kDayNs, 7 * kDayNs,
        14 * kDayNs, 28 * kDayNs };
    for (auto s : steps) {
        if (double(s) / nsPerPx >= minPx) {
            return s;
        }
    }
    return 28 * kDayNs;
}

TimeNs firstTick(TimeNs visibleStart, TimeNs step)
{
    return (visibleStart >= 0 ? visibleStart / step : (visibleStart - step + 1) / step) * step;
}

QString tickLabel(TimeNs t, TimeNs step)
{
    const std::string utc = formatUtc(t); // "2026-11-02 06:00:00.000 UTC"
    if (step >= kHourNs) {
        const TimeNs day = t >= 0 ? t / kDayNs : (t + 1) / kDayNs - 1;
        if (t - day * kDayNs == 0 || step >= kDayNs) {
            static const char* kDays[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" }; // 1970-01-01: Thu
            return QString::fromStdString(std::string(kDays[((day % 7) + 7) % 7]) + " " + utc.substr(5, 5));
        }
        return QString::fromStdString(utc.substr(11, 5));
    }
    std::string s = utc.substr(11, 12); // "00:05:00.123"
    if (step >= kNsPerSec) {
        s = s.substr(0, 8);
    } else if (step < kNsPerMs) {
        char buf[16];
        std::snprintf(
            buf, sizeof buf, "%06lld", static_cast<long long>((t % kNsPerSec + kNsPerSec) % kNsPerSec / 1000));
        s = s.substr(0, 8) + "." + buf;
    }
    return QString::fromStdString(s);
}

std::string utcRange(TimeNs start, TimeNs end)
{
    const auto a = formatUtc(start), b = formatUtc(end); // "YYYY-MM-DD hh:mm:ss.mmm UTC"
    const bool sameDay = a.compare(0, 10, b, 0, 10) == 0;
    // Seconds always (a 4.4 s window cut to minutes read "00:04 .. 00:04"); milliseconds only while the window
    // is short enough for them to tell its ends apart.
    const std::size_t timeEnd = end - start < kUtcRangeMsBelowNs ? 23 : 19;
    return a.substr(0, timeEnd) + " .. " + b.substr(sameDay ? 11 : 0, timeEnd - (sameDay ? 11 : 0)) + " UTC";
}

} // namespace stallscope
