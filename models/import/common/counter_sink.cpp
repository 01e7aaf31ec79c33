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
    const Key key { guid, port, kind, bits };
    if (!m_last || key != m_lastKey) {
        m_last = &m_series[key];
        m_lastKey = key;
    }
    m_last->samples.emplace_back(t + timeOffsetNs, value);
}

std::vector<std::uint32_t> CounterSink::flush(JobSnapshot& snap, OwnedColumns& owned)
{
    std::vector<std::uint32_t> blocks;
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::uint32_t> portIndex;
    std::set<std::tuple<std::uint64_t, std::uint16_t, CounterKind>> wide;
    for (const auto& [key, acc] : m_series) {
        if (std::get<3>(key) == 64) {
            wide.insert({ std::get<0>(key), std::get<1>(key), std::get<2>(key) });
        }
    }
    for (auto& [key, acc] : m_series) {
        const auto& [guid, port, kind, bits] = key;
        if (bits != 0 && bits < 64 && wide.count({ guid, port, kind })) {
            continue; // the extended counter of the same port says the same, without saturating
        }
        auto& xs = acc.samples;
        std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<TimeNs> times;
        std::vector<std::uint64_t> values;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (i + 1 < xs.size() && xs[i + 1].first == xs[i].first) {
                continue; // the same instant twice: the later reading stands
            }
            times.push_back(xs[i].first);
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
        blocks.push_back(static_cast<std::uint32_t>(owned.counterTimes.size()));
        owned.counterTimes.push_back(std::move(times));
        owned.counterValues.push_back(std::move(bytes));
        snap.counters.push_back(cs);
    }
    m_series.clear();
    m_last = nullptr;
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
