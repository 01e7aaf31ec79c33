// SPDX-License-Identifier: MIT
// Sample stamps, read with LineScan (no std::regex: this runs on every line of perfquery, iblinkinfo and
// exposition files, where a regex per line made the readers crawl under the sanitizers — bench/RESULTS.md
// "Fuzzing runs").
// The grammar, in the regex notation the first version used:
//   prefix   \s*#?\s*((time|timestamp|date)\s*[:=]\s*)?        (case-insensitive keyword)
//   epoch    \d{9,19}(\.\d{1,9})?\s*
//   iso      \d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}([.,]\d{1,9})?\s*(Z|UTC|[+-]\d{2}:?\d{2})?\s*
//   date     \w{3},? +\w{3} +\d{1,2} \d{2}:\d{2}:\d{2} ([A-Z]{3,4} |[+-]\d{4} )?\d{4}\s*
#include "import/common/sample_stamp.h"
#include "core/checked_math.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/common/line_scan.h"

#include <array>
#include <cctype>
#include <string>

namespace stallscope {

namespace {

constexpr std::size_t kMaxStampBytes = 128;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isWord(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

void skipWhite(LineScan& s)
{
    while (!s.atEnd() && isSpace(s.peek())) {
        s.seek(s.pos() + 1);
    }
}

// Only blanks left.
bool endsHere(LineScan& s)
{
    skipWhite(s);
    return s.atEnd();
}

TimeNs fractionNs(std::string_view digits)
{
    std::string d(digits.substr(0, 9));
    d.resize(9, '0');
    return parseNumber<TimeNs>(d).value_or(0); // nine digits always fit
}

bool startsWithNoCase(std::string_view text, std::string_view word)
{
    if (text.size() < word.size()) {
        return false;
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != word[i]) {
            return false;
        }
    }
    return true;
}

// "# ", "time: ", "Timestamp=" ... before the stamp.
void skipPrefix(LineScan& s)
{
    skipWhite(s);
    s.lit("#");
    skipWhite(s);
    for (std::string_view kw : { "time", "timestamp", "date" }) {
        const auto at = s.pos();
        if (startsWithNoCase(s.rest(), kw)) {
            s.seek(at + kw.size());
            skipWhite(s);
            if (s.lit(":") || s.lit("=")) {
                skipWhite(s);
                return;
            }
        }
        s.seek(at);
    }
}

std::optional<TimeNs> epoch(std::string_view line)
{
    LineScan s(line);
    const auto whole = s.digits(20);
    if (whole.size() < 9 || whole.size() > 19) {
        return std::nullopt;
    }
    std::string_view fraction;
    if (s.lit(".")) {
        fraction = s.digits(10);
        if (fraction.empty() || fraction.size() > 9) {
            return std::nullopt;
        }
    }
    if (!endsHere(s)) {
        return std::nullopt;
    }
    const auto value = parseNumber<TimeNs>(whole);
    if (!value) {
        return std::nullopt; // 19 digits beyond int64
    }
    // Seconds (9–11 digits: 1973–5138), ms (12–14), µs (15–17), ns (18–19); a scale that overflows is no stamp.
    const auto digits = whole.size();
    const TimeNs scale = digits <= 11 ? kNsPerSec : digits <= 14 ? 1'000'000 : digits <= 17 ? 1'000 : 1;
    const auto t = checkedMul(*value, scale);
    if (!t) {
        return std::nullopt;
    }
    return digits <= 11 && !fraction.empty() ? checkedAdd(*t, fractionNs(fraction)) : t;
}

std::optional<TimeNs> iso(std::string_view line)
{
    LineScan s(line);
    std::array<std::optional<int>, 6> f;
    if (!(f[0] = s.fixed(4)) || !s.lit("-") || !(f[1] = s.fixed(2)) || !s.lit("-") || !(f[2] = s.fixed(2))
        || !(s.lit("T") || s.lit(" ")) || !(f[3] = s.fixed(2)) || !s.lit(":") || !(f[4] = s.fixed(2)) || !s.lit(":")
        || !(f[5] = s.fixed(2))) {
        return std::nullopt;
    }
    std::string_view fraction;
    if (s.lit(".") || s.lit(",")) {
        fraction = s.digits(10);
        if (fraction.empty() || fraction.size() > 9) {
            return std::nullopt;
        }
    }
    skipWhite(s);
    TimeNs offset = 0;
    if (!s.lit("Z") && !s.lit("UTC") && (s.peek() == '+' || s.peek() == '-')) {
        const int sign = s.peek() == '-' ? -1 : 1;
        s.seek(s.pos() + 1);
        const auto hours = s.fixed(2);
        s.lit(":");
        const auto minutes = s.fixed(2);
        if (!hours || !minutes) {
            return std::nullopt;
        }
        offset = sign * (*hours * 3600LL + *minutes * 60LL) * kNsPerSec;
    }
    if (!endsHere(s)) {
        return std::nullopt;
    }
    const TimeNs civil = utcCivilNs(*f[0], *f[1], *f[2], *f[3], *f[4], *f[5]);
    if (civil == kNoTime) {
        return std::nullopt;
    }
    return civil + (fraction.empty() ? 0 : fractionNs(fraction)) - offset; // local = UTC + offset
}

// `date`: "Sun Nov 29 17:40:39 UTC 2026", "Sun, Nov 29 17:40:39 +0100 2026".
std::optional<TimeNs> unixDate(std::string_view line)
{
    if (line.size() < 3 || !isWord(line[0]) || !isWord(line[1]) || !isWord(line[2])) {
        return std::nullopt;
    }
    LineScan s(line, 3);
    s.lit(",");
    const auto spaces = [&] {
        const auto at = s.pos();
        while (s.lit(" ")) { }
        return s.pos() > at;
    };
    if (!spaces()) {
        return std::nullopt;
    }
    const auto monthName = s.rest().substr(0, 3);
    if (monthName.size() != 3 || !isWord(monthName[0]) || !isWord(monthName[1]) || !isWord(monthName[2])) {
        return std::nullopt;
    }
    s.seek(s.pos() + 3);
    if (!spaces()) {
        return std::nullopt;
    }
    const auto day = s.digits(2);
    std::array<std::optional<int>, 3> hms;
    if (day.empty() || !s.lit(" ") || !(hms[0] = s.fixed(2)) || !s.lit(":") || !(hms[1] = s.fixed(2)) || !s.lit(":")
        || !(hms[2] = s.fixed(2)) || !s.lit(" ")) {
        return std::nullopt;
    }
    // An optional zone and a blank: "UTC ", "CEST ", "+0100 " (the zone is not applied: `date` prints local time
    // with its name; the stamp is read as UTC, like every stamp without a numeric zone — see the header).
    const auto zoneStart = s.pos();
    std::size_t upper = 0;
    while (upper < 4 && std::isupper(static_cast<unsigned char>(s.peek()))) {
        s.seek(s.pos() + 1);
        ++upper;
    }
    if (upper >= 3 && s.lit(" ")) {
        // a named zone
    } else {
        s.seek(zoneStart);
        if ((s.lit("+") || s.lit("-")) && s.digits(4).size() == 4 && s.lit(" ")) {
            // a numeric zone
        } else {
            s.seek(zoneStart);
        }
    }
    const auto year = s.fixed(4);
    if (!year || !endsHere(s)) {
        return std::nullopt;
    }
    const int mo = monthFromAbbreviation(monthName);
    if (mo == 0) {
        return std::nullopt;
    }
    const TimeNs t = utcCivilNs(*year, mo, toNumber<int>(day), *hms[0], *hms[1], *hms[2]);
    return t == kNoTime ? std::nullopt : std::optional<TimeNs>(t);
}

} // namespace

std::optional<TimeNs> parseSampleStamp(std::string_view raw)
{
    if (raw.size() > kMaxStampBytes) {
        return std::nullopt; // a stamp line is short; anything longer is a sample or a damaged line
    }
    LineScan s(raw);
    skipPrefix(s);
    const auto line = s.rest();
    if (line.empty()) {
        return std::nullopt;
    }
    if (auto t = epoch(line)) {
        return t;
    }
    if (auto t = iso(line)) {
        return t;
    }
    return unixDate(line); // its weekday is any three word characters, digits too
}

} // namespace stallscope
