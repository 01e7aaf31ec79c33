// SPDX-License-Identifier: MIT
// The first half of reading a scrape file: lines into distinct series and their readings (no fabric; any thread).
// A scrape file repeats each series once per scrape, so a series' text is tokenised once and later lines of it
// parse only their value and timestamp — found by predicting the series (the successor of the last line's series
// the last time, else the same series) and, failing that, by a hash of its text (issue #11: labels dominated).
#include "core/checked_math.h"
#include "core/warning_cap.h"
#include "import/common/sample_stamp.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/exposition_line.h"

#include <cctype>
#include <cstring>
#include <unordered_map>

namespace stallscope {

using namespace exposition;

namespace {

constexpr std::uint32_t kNone = ~0u;

struct Known
{
    std::string_view key; // name{labels}, in the file's bytes
    std::uint32_t next = kNone; // the series of the line after this one's last line
};

// node_uname_info names the host of node_exporter's series; it may come after them. memmem finds it without
// walking the lines.
std::string unameHost(std::string_view text)
{
    std::string host;
    for (std::size_t at = 0; at < text.size();) {
        const void* hit = memmem(text.data() + at, text.size() - at, "node_uname_info", 15);
        if (!hit) {
            break;
        }
        const auto found = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
        const auto nl = text.rfind('\n', found);
        std::size_t pos = nl == std::string_view::npos ? 0 : nl + 1;
        const auto raw = nextLine(text, pos);
        Line l;
        if (startsWith(raw, "node_uname_info") && parseLine(raw, l)) {
            host = label(l, "nodename");
        }
        at = std::max(pos, found + 1);
    }
    return host;
}

class SeriesIndex
{
public:
    // The known series `raw` is a line of, with `l` holding its value and timestamp; kNone when new.
    std::uint32_t find(std::string_view raw, std::uint32_t previous, Line& l) const
    {
        if (previous != kNone) {
            for (const auto guess : { m_known[previous].next, previous }) {
                if (guess != kNone && matches(raw, m_known[guess].key)
                    && parseValueAndTime(raw, m_known[guess].key.size(), l)) {
                    return guess;
                }
            }
        }
        // The labels end at the line's last '}' (values and timestamps hold none); a line without labels at its
        // first blank.
        const auto close = raw.rfind('}');
        const auto end = close != std::string_view::npos ? close + 1 : raw.find_first_of(" \t");
        if (end == std::string_view::npos) {
            return kNone;
        }
        const auto it = m_index.find(raw.substr(0, end));
        return it != m_index.end() && parseValueAndTime(raw, end, l) ? it->second : kNone;
    }
    std::uint32_t add(std::string_view key)
    {
        const auto i = static_cast<std::uint32_t>(m_known.size());
        m_known.push_back({ key });
        m_index.emplace(key, i);
        return i;
    }
    void follows(std::uint32_t previous, std::uint32_t current)
    {
        if (previous != kNone) {
            m_known[previous].next = current;
        }
    }

private:
    static bool matches(std::string_view raw, std::string_view key)
    {
        return raw.size() > key.size() && (raw[key.size()] == ' ' || raw[key.size()] == '\t')
            && raw.compare(0, key.size(), key) == 0;
    }
    std::vector<Known> m_known;
    std::unordered_map<std::string_view, std::uint32_t> m_index;
};

} // namespace

ExpositionScanCursor startExpositionScan(std::string_view whole)
{
    ExpositionScanCursor c;
    c.unameHost = unameHost(whole);
    return c;
}

ExpositionScan scanPrometheusExposition(const std::string& file, const std::string& text)
{
    auto cursor = startExpositionScan(text);
    return scanPrometheusExpositionPart(file, text, cursor);
}

ExpositionScan scanPrometheusExpositionPart(
    const std::string& file, std::string_view text, ExpositionScanCursor& cursor)
{
    ExpositionScan out;
    out.unameHost = cursor.unameHost;
    out.readings.reserve(text.size() / 128);
    SeriesIndex index;
    WarningCap cap(out.warnings);
    std::uint32_t previous = kNone;
    auto& stamp = cursor.stampNs;
    auto& lineNo = cursor.line;
    Line l;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::string_view raw = nextLine(text, pos);
        ++lineNo;
        if (raw.empty()) {
            continue;
        }
        auto series = index.find(raw, previous, l);
        if (series == kNone) {
            if (raw[0] == '#' || std::isdigit(static_cast<unsigned char>(raw[0]))) {
                if (auto t = parseSampleStamp(raw)) {
                    stamp = *t;
                }
                continue; // HELP / TYPE, or a stamp
            }
            if (!startsWith(raw, "node_infiniband_") && !startsWith(raw, "infiniband_")) {
                continue;
            }
            if (!parseLine(raw, l)) {
                if (cap.full()) {
                    cap.count(); // not even built: a scrape of garbage is millions of lines
                } else {
                    out.warnings.push_back({ file, lineNo, -1,
                        "expected a sample `name{label=\"value\",...} value [timestamp]`: line skipped" });
                }
                continue;
            }
            // Only a line whose series parsed as a whole is a key: the same text is then the same series.
            series = index.add(raw.substr(0, l.seriesEnd));
            out.series.push_back({ std::string(raw.substr(0, l.seriesEnd)), lineNo });
        }
        index.follows(previous, series);
        previous = series;
        ExpositionScan::Reading r;
        r.series = series;
        r.value = l.value;
        r.line = lineNo;
        if (l.timestampMs) {
            const auto ns = checkedMul(*l.timestampMs, 1'000'000);
            r.timeBad = !ns;
            r.timeNs = ns.value_or(kNoTime);
        } else {
            r.timeNs = stamp;
        }
        out.readings.push_back(r);
    }
    cap.finish(file);
    return out;
}

} // namespace stallscope
