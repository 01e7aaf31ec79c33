// SPDX-License-Identifier: MIT
#pragma once

// Where the raw-folder importers put counter samples: one accumulator per (node GUID, port, counter, width),
// filled from any number of files in any order (a folder may hold one exposition snapshot per scrape), then
// flushed into the snapshot's series sorted by time. Equal timestamps keep the later file's value. When a port
// has both 32-bit (perfquery standard) and 64-bit (extended) data counters, the 64-bit series wins.

#include "core/counters.h"
#include "core/job_snapshot.h"
#include "core/result.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

class CounterSink
{
public:
    TimeNs timeOffsetNs = 0; // added to every sample's time (a mapping file's clock offset)
    void sample(std::uint64_t guid, std::uint16_t port, CounterKind kind, TimeNs t, std::uint64_t value, int bits = 0);
    std::size_t seriesCount() const { return m_series.size(); }
    // Appends the series to `snap` (counterPorts, counters) with columns owned by `owned`; returns the time
    // block of each series for attachOwnedColumns.
    std::vector<std::uint32_t> flush(JobSnapshot& snap, OwnedColumns& owned);

private:
    struct Acc
    {
        std::vector<std::pair<TimeNs, std::uint64_t>> samples;
    };
    using Key = std::tuple<std::uint64_t, std::uint16_t, CounterKind, int>;
    // (guid, port, kind, bits); bits 0 = the kind's default width
    std::map<Key, Acc> m_series;
    Key m_lastKey {}; // files list a series' samples together: the last lookup is usually the next one
    Acc* m_last = nullptr;
};

// Watches one file's series for readings that go backwards: a counter is cleared (perfquery -R, an exporter's
// reset of a maxed-out counter) or the file is out of order. The reading is kept — counterDelta() reads a
// decrease as a reset — and the first few are reported with the file and line.
class BackwardsCheck
{
public:
    explicit BackwardsCheck(std::string file)
        : m_file(std::move(file))
    {
    }
    void see(
        const std::string& series, TimeNs t, std::uint64_t value, std::int64_t line, std::vector<LoadIssue>& warnings);
    // The same for a series known by a small number (an index the reader gave it); its name is built only when a
    // warning needs it. For files of many samples: no string per sample.
    template <typename NameFn>
    void see(std::uint32_t series, TimeNs t, std::uint64_t value, std::int64_t line, std::vector<LoadIssue>& warnings,
        NameFn&& name)
    {
        if (series >= m_byIndex.size()) {
            m_byIndex.resize(series + 1, { kNoTime, 0 });
        }
        auto& [lastT, lastV] = m_byIndex[series];
        if (lastT != kNoTime && m_reported < 5 && (t < lastT || value < lastV)) {
            report(name(), t < lastT, lastV, value, line, warnings);
        }
        lastT = t;
        lastV = value;
    }

private:
    void report(const std::string& series, bool older, std::uint64_t lastV, std::uint64_t value, std::int64_t line,
        std::vector<LoadIssue>& warnings);
    std::string m_file;
    std::map<std::string, std::pair<TimeNs, std::uint64_t>> m_last;
    std::vector<std::pair<TimeNs, std::uint64_t>> m_byIndex;
    int m_reported = 0;
};

} // namespace stallscope
