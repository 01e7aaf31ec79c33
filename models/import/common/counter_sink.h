// SPDX-License-Identifier: MIT
#pragma once

// Where the raw-folder importers put counter samples: one accumulator per (node GUID, port, counter, width),
// filled from any number of files in any order (a folder may hold one exposition snapshot per scrape), then
// flushed into the snapshot's series sorted by time. Equal timestamps keep the later file's value. When a port
// has both 32-bit (perfquery standard) and 64-bit (extended) data counters, the 64-bit series wins.

#include "core/counters.h"
#include "core/job_snapshot.h"
#include "core/progress.h"
#include "core/result.h"
#include "core/scratch_file.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

class CounterSink
{
public:
    CounterSink() = default;
    // Past `policy.memoryBytes` of held samples the sink spills them to a scratch file in `policy.dir`, and its
    // flush writes the columns to another one, mapped (issue #13: a week of 1 s counters outgrows memory).
    explicit CounterSink(ScratchPolicy policy)
        : m_policy(std::move(policy))
    {
    }
    TimeNs timeOffsetNs = 0; // added to every sample's time as the series are flushed (a mapping file's clock offset)
    void sample(std::uint64_t guid, std::uint16_t port, CounterKind kind, TimeNs t, std::uint64_t value, int bits = 0);
    // A sample of a series whose port is not known yet (a scrape read before the folder's topology files), under
    // the reader's own id for the series until resolveProvisional() names its port. Held and spilled as any other.
    void provisional(std::uint64_t id, CounterKind kind, TimeNs t, std::uint64_t value)
    {
        sample(id, 0, kind, t, value, kProvisional);
    }
    // Every provisional series to its port: (id) → (node GUID, port). Series that land on one key are joined (their
    // samples of one instant then keep the later id's reading).
    void resolveProvisional(const std::function<std::pair<std::uint64_t, std::uint16_t>(std::uint64_t id)>& portOf);
    std::size_t seriesCount() const { return m_series.size(); }
    // Appends the series to `snap` (counterPorts, counters). While every sample fitted in memory their columns are
    // owned by `owned` and the time block of each series is returned for attachOwnedColumns; once samples were
    // spilled the columns are in a mapped scratch file the snapshot keeps, their spans are set here and nothing is
    // returned. Series of one sampler share one time column. After a failed spill (a full disk) error() says why.
    // Reports "Joining counter samples" on `progress` and stops early when it is cancelled (the caller checks).
    std::vector<std::uint32_t> flush(JobSnapshot& snap, OwnedColumns& owned, Progress& progress);
    std::vector<std::uint32_t> flush(JobSnapshot& snap, OwnedColumns& owned)
    {
        NullProgress none;
        return flush(snap, owned, none);
    }
    std::uint64_t spilledBytes() const { return m_spilledBytes; }
    // The columns the last flush wrote (times shared between series counted once), in memory or the scratch file.
    std::uint64_t columnBytes() const { return m_columnBytes; }
    const std::string& error() const { return m_error; }

private:
    using Sample = std::pair<TimeNs, std::uint64_t>;
    struct Run // samples of one series spilled together, in arrival order
    {
        std::uint64_t offset = 0;
        std::uint64_t count = 0;
    };
    struct Acc
    {
        std::vector<Sample> samples; // held in memory, after those in `runs`
        std::vector<Run> runs;
    };
    void spill();
    bool gather(Acc& acc, std::vector<Sample>& out); // runs then held samples: arrival order

    using Key = std::tuple<std::uint64_t, std::uint16_t, CounterKind, int>;
    // (guid, port, kind, bits); bits 0 = the kind's default width, kProvisional = guid is a reader's series id
    static constexpr int kProvisional = -1;
    std::map<Key, Acc> m_series;
    Key m_lastKey {}; // files list a series' samples together: the last lookup is usually the next one
    Acc* m_last = nullptr;
    ScratchPolicy m_policy;
    std::uint64_t m_heldBytes = 0; // samples held in memory, all series
    std::uint64_t m_spilledBytes = 0;
    std::uint64_t m_columnBytes = 0;
    std::unique_ptr<ScratchFile> m_spill;
    std::string m_error;
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
