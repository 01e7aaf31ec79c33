// SPDX-License-Identifier: MIT
#include "import/common/sample_stamp.h"
#include "core/checked_math.h"
#include "core/parse_number.h"

#include "core/time_format.h"

#include <algorithm>
#include <ctime>
#include <regex>
#include <string>

namespace stallscope {

namespace {

constexpr std::size_t kMaxStampBytes = 128;

TimeNs fractionNs(const std::string& digits)
{
    std::string d = digits.substr(0, 9);
    d.resize(9, '0');
    return parseNumber<TimeNs>(d).value_or(0); // nine digits always fit
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
    if (raw.size() > kMaxStampBytes) {
        return std::nullopt; // a stamp line is short; anything longer is a sample or a damaged line
    }
    const std::string line = std::regex_replace(std::string(raw), prefix, "", std::regex_constants::format_first_only);
    std::smatch m;
    if (std::regex_match(line, m, epoch)) {
        const auto digits = m[1].length();
        const auto whole = parseNumber<TimeNs>(m[1].str());
        if (!whole) {
            return std::nullopt; // 19 digits beyond int64
        }
        // Seconds (9–11 digits: 1973–5138), ms (12–14), µs (15–17), ns (18–19); a scale that overflows is no stamp.
        const TimeNs scale = digits <= 11 ? kNsPerSec : digits <= 14 ? 1'000'000 : digits <= 17 ? 1'000 : 1;
        const auto t = checkedMul(*whole, scale);
        if (!t) {
            return std::nullopt;
        }
        return digits <= 11 && m[2].matched ? checkedAdd(*t, fractionNs(m[2])) : t;
    }
    if (std::regex_match(line, m, iso)) {
        const TimeNs civil = utcCivilNs(toNumber<int>(m[1].str()), toNumber<int>(m[2].str()), toNumber<int>(m[3].str()),
            toNumber<int>(m[4].str()), toNumber<int>(m[5].str()), toNumber<int>(m[6].str()));
        if (civil == kNoTime) {
            return std::nullopt;
        }
        TimeNs t = civil + (m[7].matched ? fractionNs(m[7]) : 0);
        if (m[8].matched && (m[8].str()[0] == '+' || m[8].str()[0] == '-')) {
            std::string z = m[8];
            z.erase(std::remove(z.begin(), z.end(), ':'), z.end());
            const int sign = z[0] == '-' ? -1 : 1;
            const TimeNs offset
                = (toNumber<int>(z.substr(1, 2)) * 3600LL + toNumber<int>(z.substr(3, 2)) * 60LL) * kNsPerSec;
            t -= sign * offset; // local = UTC + offset
        }
        return t;
    }
    if (std::regex_match(line, m, unixDate)) {
        const int mo = month(m[1]);
        if (mo == 0) {
            return std::nullopt;
        }
        const TimeNs t = utcCivilNs(toNumber<int>(m[7].str()), mo, toNumber<int>(m[2].str()), toNumber<int>(m[3].str()),
            toNumber<int>(m[4].str()), toNumber<int>(m[5].str()));
        return t == kNoTime ? std::nullopt : std::optional<TimeNs>(t);
    }
    return std::nullopt;
}

} // namespace stallscope
