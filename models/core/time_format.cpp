// SPDX-License-Identifier: MIT
#include "core/time_format.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

namespace stallscope {

std::string formatUtc(TimeNs t)
{
    if (t == kNoTime) {
        return "-";
    }
    const TimeNs secs = t >= 0 ? t / kNsPerSec : (t - kNsPerSec + 1) / kNsPerSec;
    const auto ms = (t - secs * kNsPerSec) / kNsPerMs;
    const std::time_t tt = static_cast<std::time_t>(secs);
    std::tm tm {};
    gmtime_r(&tt, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03lld UTC", tm.tm_year + 1900, tm.tm_mon + 1,
        tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(ms));
    return buf;
}

std::string formatDuration(TimeNs ns)
{
    // One rule for every view, tooltip, hint and report: whole seconds from a minute up ("39m22s"), three
    // significant digits below ("4.4s", "850ms"). Each unit's range ends where %.3g would round up to 1000, the
    // point at which %g switches to "1e+03".
    char buf[64];
    const char* sign = ns < 0 ? "-" : "";
    const auto a = ns < 0 ? -ns : ns;
    if (a >= 59'500 * kNsPerMs) {
        const long long s = (a + kNsPerSec / 2) / kNsPerSec;
        if (s >= 24 * 3600) { // "243d08h53m06s": a span of months read as 5840h told nothing at a glance
            std::snprintf(buf, sizeof buf, "%s%lldd%02lldh%02lldm%02llds", sign, s / 86400, s / 3600 % 24,
                s / 60 % 60, s % 60);
        } else if (s >= 3600) {
            std::snprintf(buf, sizeof buf, "%s%lldh%02lldm%02llds", sign, s / 3600, s / 60 % 60, s % 60);
        } else {
            std::snprintf(buf, sizeof buf, "%s%lldm%02llds", sign, s / 60, s % 60);
        }
    } else if (a >= 999'500 * kNsPerUs) {
        std::snprintf(buf, sizeof buf, "%s%.3gs", sign, double(a) / 1e9);
    } else if (a >= 999'500) {
        std::snprintf(buf, sizeof buf, "%s%.3gms", sign, double(a) / 1e6);
    } else {
        std::snprintf(buf, sizeof buf, "%s%.3gus", sign, double(a) / 1e3);
    }
    return buf;
}

std::string formatSpanLength(TimeNs ns)
{
    if (ns < 24 * 3600 * kNsPerSec) {
        return formatDuration(ns);
    }
    const double days = double(ns) / 86400e9;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f days", days < 2 ? 2 : 1, days);
    return buf;
}

std::string formatSince(TimeNs t, TimeNs origin)
{
    TimeNs d = t - origin;
    const char sign = d < 0 ? '-' : '+';
    if (d < 0) {
        d = -d;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%c%02lld:%02lld:%02lld.%03lld", sign,
        static_cast<long long>(d / (3600 * kNsPerSec)), static_cast<long long>(d / (60 * kNsPerSec) % 60),
        static_cast<long long>(d / kNsPerSec % 60), static_cast<long long>(d / kNsPerMs % 1000));
    return buf;
}

std::string formatBytes(double bytes)
{
    const char* units[] = { "B", "KB", "MB", "GB", "TB" };
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

std::string formatFixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string formatCount(std::uint64_t n)
{
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) {
        s.insert(static_cast<std::size_t>(i), ",");
    }
    return s;
}

int monthFromAbbreviation(std::string_view name)
{
    static constexpr std::string_view names[]
        = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    for (int i = 0; i < 12; ++i) {
        if (name == names[i]) {
            return i + 1;
        }
    }
    return 0;
}

TimeNs utcCivilNs(int year, int month, int day, int hour, int minute, int second)
{
    // Epoch ns in 64 bits reach 1677-09-21 .. 2262-04-11: outside whole years 1678..2261 the product overflows.
    if (year < 1678 || year > 2261 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 24
        || minute < 0 || minute > 59 || second < 0 || second > 60) {
        return kNoTime;
    }
    std::tm tm {};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return TimeNs(timegm(&tm)) * kNsPerSec;
}

std::optional<TimeNs> parseDuration(const std::string& text)
{
    // One or more number+unit parts: "2s", "500ms", "1.5h", "1m30s", "1h05m"; a bare number is seconds.
    static const std::map<std::string, double> units = { { "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
        { "ns", 1.0 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { "d", 86400e9 } };
    if (text.empty()) {
        return std::nullopt;
    }
    double total = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t used = 0;
        double value = 0;
        if (!std::isdigit(static_cast<unsigned char>(text[pos])) && text[pos] != '.') {
            return std::nullopt;
        }
        try {
            value = std::stod(text.substr(pos), &used);
        } catch (...) {
            return std::nullopt;
        }
        pos += used;
        std::size_t end = pos;
        while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) {
            ++end;
        }
        auto it = units.find(text.substr(pos, end - pos));
        if (it == units.end() || !std::isfinite(value) || value < 0 || (it->first.empty() && end < text.size())) {
            return std::nullopt;
        }
        total += value * it->second;
        pos = end;
    }
    if (total > 9.2e18) {
        return std::nullopt;
    }
    return static_cast<TimeNs>(std::llround(total));
}

std::optional<TimeNs> parseSignedDuration(const std::string& text)
{
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
        const auto v = parseDuration(text.substr(1));
        return v && text[0] == '-' ? std::optional<TimeNs>(-*v) : v;
    }
    return parseDuration(text);
}

} // namespace stallscope
