// SPDX-License-Identifier: MIT
#include "import/common/sample_stamp.h"

#include "core/time_format.h"

#include <algorithm>
#include <ctime>
#include <regex>
#include <string>

namespace stallscope {

namespace {

TimeNs fractionNs(const std::string& digits)
{
    std::string d = digits.substr(0, 9);
    d.resize(9, '0');
    return std::stoll(d);
}

int month(const std::string& name)
{
    static const char* names[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    for (int i = 0; i < 12; ++i) {
        if (name == names[i]) {
            return i + 1;
        }
    }
    return 0;
}

} // namespace

std::optional<TimeNs> parseSampleStamp(std::string_view raw)
{
    static const std::regex prefix(R"(^\s*#?\s*(?:(?:time|timestamp|date)\s*[:=]\s*)?)", std::regex::icase);
    static const std::regex epoch(R"(^(\d{9,19})(?:\.(\d{1,9}))?\s*$)");
    static const std::regex iso(
        R"(^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|UTC|[+-]\d{2}:?\d{2})?\s*$)");
    static const std::regex unixDate(
        R"(^\w{3},? +(\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (?:([A-Z]{3,4}|[+-]\d{4}) )?(\d{4})\s*$)");
    const std::string line = std::regex_replace(std::string(raw), prefix, "", std::regex_constants::format_first_only);
    std::smatch m;
    if (std::regex_match(line, m, epoch)) {
        const auto digits = m[1].length();
        const long long whole = std::stoll(m[1]);
        if (digits <= 11) { // seconds (9–11 digits: 1973–5138)
            return TimeNs(whole) * kNsPerSec + (m[2].matched ? fractionNs(m[2]) : 0);
        }
        if (digits <= 14) {
            return TimeNs(whole) * 1'000'000; // ms
        }
        if (digits <= 17) {
            return TimeNs(whole) * 1'000; // µs
        }
        return TimeNs(whole); // ns
    }
    if (std::regex_match(line, m, iso)) {
        TimeNs t = utcCivilNs(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]),
                       std::stoi(m[6]))
            + (m[7].matched ? fractionNs(m[7]) : 0);
        if (m[8].matched && (m[8].str()[0] == '+' || m[8].str()[0] == '-')) {
            std::string z = m[8];
            z.erase(std::remove(z.begin(), z.end(), ':'), z.end());
            const int sign = z[0] == '-' ? -1 : 1;
            const TimeNs offset = (std::stoi(z.substr(1, 2)) * 3600LL + std::stoi(z.substr(3, 2)) * 60LL) * kNsPerSec;
            t -= sign * offset; // local = UTC + offset
        }
        return t;
    }
    if (std::regex_match(line, m, unixDate)) {
        const int mo = month(m[1]);
        if (mo == 0) {
            return std::nullopt;
        }
        return utcCivilNs(std::stoi(m[7]), mo, std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]));
    }
    return std::nullopt;
}

} // namespace stallscope
