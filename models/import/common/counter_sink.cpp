// SPDX-License-Identifier: MIT
#include "import/common/counter_sink.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

namespace stallscope {

void CounterSink::sample(
    std::uint64_t guid, std::uint16_t port, CounterKind kind, TimeNs t, std::uint64_t value, int bits)
{
    if (!m_error.empty()) {
        return; // a spill failed: the load ends with the error, so nothing more is held meanwhile
    }
    const Key key { guid, port, kind, bits };
    if (!m_last || key != m_lastKey) {
        m_last = &m_series[key];
        m_lastKey = key;
    }
    auto& xs = m_last->samples;
    const auto capacity = xs.capacity();
    xs.emplace_back(t, value);
    m_heldBytes += (xs.capacity() - capacity) * sizeof(Sample); // what is allocated, not what is used
    if (m_heldBytes > m_policy.memoryBytes) {
        spill();
    }
}

// Every series' held samples to the scratch file, as one run each (in arrival order), and their memory freed.
void CounterSink::spill()
{
    if (!m_spill) {
        m_spill = ScratchFile::create(m_policy.dir, m_error);
        if (!m_spill) {
            return;
        }
    }
    for (auto& [key, acc] : m_series) {
        if (acc.samples.empty()) {
            continue;
        }
        acc.runs.push_back({ m_spill->size(), acc.samples.size() });
        if (!m_spill->append(acc.samples.data(), acc.samples.size() * sizeof(Sample))) {
            m_error = m_spill->error();
            return;
        }
        m_spilledBytes += acc.samples.size() * sizeof(Sample);
        std::vector<Sample>().swap(acc.samples);
    }
    m_heldBytes = 0;
}

void CounterSink::resolveProvisional(
    const std::function<std::pair<std::uint64_t, std::uint16_t>(std::uint64_t id)>& portOf)
{
    std::vector<std::map<Key, Acc>::node_type> moved;
    for (auto it = m_series.begin(); it != m_series.end();) {
        auto next = std::next(it);
        if (std::get<3>(it->first) == kProvisional) {
            moved.push_back(m_series.extract(it));
        }
        it = next;
    }
    for (auto& node : moved) {
        const auto [guid, port] = portOf(std::get<0>(node.key()));
        node.key() = Key { guid, port, std::get<2>(node.key()), 0 };
        auto [pos, inserted, rest] = m_series.insert(std::move(node));
        if (!inserted) { // two ids are one port: join them
            auto& to = pos->second;
            to.runs.insert(to.runs.end(), rest.mapped().runs.begin(), rest.mapped().runs.end());
            to.samples.insert(to.samples.end(), rest.mapped().samples.begin(), rest.mapped().samples.end());
        }
    }
    m_last = nullptr;
}

bool CounterSink::gather(Acc& acc, std::vector<Sample>& out)
{
    out.clear();
    std::uint64_t n = acc.samples.size();
    for (const auto& r : acc.runs) {
        n += r.count;
    }
    out.resize(n);
    std::size_t at = 0;
    for (const auto& r : acc.runs) {
        if (!m_spill->read(r.offset, out.data() + at, r.count * sizeof(Sample))) {
            m_error = m_spill->error();
            return false;
        }
        at += r.count;
    }
    std::copy(acc.samples.begin(), acc.samples.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
    std::vector<Sample>().swap(acc.samples);
    return true;
}

namespace {

// Where a flush puts its columns: vectors in OwnedColumns while the samples fitted in memory, else a scratch file
// mapped once every series is written. Consecutive series with the same sample times (one sampler's counters of
// a port) share one time column.
class ColumnsOut
{
public:
    ColumnsOut(OwnedColumns& owned, std::unique_ptr<ScratchFile> file)
        : m_owned(owned)
        , m_file(std::move(file))
    {
    }
    bool add(std::vector<TimeNs>&& times, std::vector<std::uint8_t>&& values)
    {
        const bool same = m_series > 0 && times == m_lastTimes;
        bytes += (same ? 0 : times.size() * sizeof(TimeNs)) + values.size();
        if (!m_file) {
            if (!same) {
                m_owned.counterTimes.push_back(times);
            }
            m_blocks.push_back(static_cast<std::uint32_t>(m_owned.counterTimes.size() - 1));
            m_owned.counterValues.push_back(std::move(values));
        } else {
            if (!same) {
                m_timesAt = m_file->size();
                m_file->append(times.data(), times.size() * sizeof(TimeNs));
            }
            m_placed.push_back({ m_timesAt, m_file->size(), times.size() });
            m_file->append(values.data(), values.size());
            m_file->align(alignof(TimeNs));
        }
        m_lastTimes = std::move(times);
        ++m_series;
        return !m_file || m_file->error().empty();
    }
    // Sets the spans of the series written to a file (the last m_placed.size() of `snap`) and keeps its mapping.
    std::vector<std::uint32_t> finish(JobSnapshot& snap, std::string& error)
    {
        if (!m_file) {
            return std::move(m_blocks);
        }
        auto map = m_file->map();
        if (!map) {
            error = m_file->error();
            return {};
        }
        const auto* base = map->bytes().data();
        const auto first = snap.counters.size() - m_placed.size();
        for (std::size_t i = 0; i < m_placed.size(); ++i) {
            auto& cs = snap.counters[first + i];
            cs.timesNs = { reinterpret_cast<const TimeNs*>(base + m_placed[i].times), m_placed[i].count };
            cs.values = base + m_placed[i].values;
        }
        snap.storage.push_back(std::move(map));
        return {};
    }
    ScratchFile* file() const { return m_file.get(); }
    std::uint64_t bytes = 0; // of the columns added

private:
    struct Placed
    {
        std::uint64_t times, values, count;
    };
    OwnedColumns& m_owned;
    std::unique_ptr<ScratchFile> m_file;
    std::vector<std::uint32_t> m_blocks;
    std::vector<Placed> m_placed;
    std::vector<TimeNs> m_lastTimes;
    std::uint64_t m_timesAt = 0;
    std::size_t m_series = 0;
};

} // namespace

std::vector<std::uint32_t> CounterSink::flush(JobSnapshot& snap, OwnedColumns& owned, Progress& progress)
{
    std::unique_ptr<ScratchFile> columnFile;
    if (m_spill && m_error.empty()) {
        columnFile = ScratchFile::create(m_spill->dir(), m_error);
    }
    ColumnsOut out(owned, std::move(columnFile));
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::uint32_t> portIndex;
    std::set<std::tuple<std::uint64_t, std::uint16_t, CounterKind>> wide;
    for (const auto& [key, acc] : m_series) {
        if (std::get<3>(key) == 64) {
            wide.insert({ std::get<0>(key), std::get<1>(key), std::get<2>(key) });
        }
    }
    std::vector<Sample> xs;
    std::size_t done = 0;
    for (auto& [key, acc] : m_series) {
        if (done++ % 256 == 0) {
            progress.report("Joining counter samples", done, m_series.size());
            if (progress.cancelled()) {
                break;
            }
        }
        if (!m_error.empty()) {
            break;
        }
        const auto& [guid, port, kind, bits] = key;
        if (bits != 0 && bits < 64 && wide.count({ guid, port, kind })) {
            continue; // the extended counter of the same port says the same, without saturating
        }
        if (!gather(acc, xs)) {
            break;
        }
        std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<TimeNs> times;
        std::vector<std::uint64_t> values;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (i + 1 < xs.size() && xs[i + 1].first == xs[i].first) {
                continue; // the same instant twice: the later reading stands
            }
            times.push_back(xs[i].first + timeOffsetNs);
            values.push_back(xs[i].second);
        }
        auto [pit, fresh] = portIndex.try_emplace({ guid, port }, static_cast<std::uint32_t>(snap.counterPorts.size()));
        if (fresh) {
            snap.counterPorts.push_back({ guid, port, std::nullopt });
        }
        CounterSeries cs;
        cs.port = pit->second;
        cs.kind = kind;
        // The stated width, else the kind's; widened when a source reports more than that width holds (an
        // exporter that sums, or a wider counter than the kind's usual), so no reading is ever cut.
        int width = bits == 0 ? semantics(kind).defaultBits : bits;
        const auto peak = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
        while (width < 64 && peak > (~std::uint64_t(0) >> (64 - width))) {
            width = width < 16 ? 16 : width < 32 ? 32 : 64;
        }
        cs.bits = static_cast<std::uint8_t>(width);
        cs.storageBytes = storageBytesFor(cs.bits);
        std::vector<std::uint8_t> bytes(values.size() * cs.storageBytes);
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::memcpy(bytes.data() + i * cs.storageBytes, &values[i], cs.storageBytes); // little-endian
        }
        snap.counters.push_back(cs);
        if (!out.add(std::move(times), std::move(bytes))) {
            m_error = out.file()->error();
        }
    }
    auto blocks = m_error.empty() ? out.finish(snap, m_error) : std::vector<std::uint32_t>();
    m_columnBytes = out.bytes;
    m_series.clear();
    m_last = nullptr;
    m_spill.reset();
    m_heldBytes = 0;
    return blocks;
}

void BackwardsCheck::see(
    const std::string& series, TimeNs t, std::uint64_t value, std::int64_t line, std::vector<LoadIssue>& warnings)
{
    auto [it, fresh] = m_last.try_emplace(series, t, value);
    if (fresh) {
        return;
    }
    const auto [lastT, lastV] = it->second;
    if (m_reported < 5 && (t < lastT || value < lastV)) {
        report(series, t < lastT, lastV, value, line, warnings);
    }
    it->second = { t, value };
}

void BackwardsCheck::report(const std::string& series, bool older, std::uint64_t lastV, std::uint64_t value,
    std::int64_t line, std::vector<LoadIssue>& warnings)
{
    if (older) {
        warnings.push_back(
            { m_file, line, -1, series + ": a sample older than the one before it (the rows are sorted by time)" });
    } else {
        warnings.push_back({ m_file, line, -1,
            series + " went backwards from " + std::to_string(lastV) + " to " + std::to_string(value)
                + ": read as a counter reset" });
    }
    ++m_reported;
}

} // namespace stallscope
