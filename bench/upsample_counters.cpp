// SPDX-License-Identifier: MIT
// Makes the issue #13 scale bundle the simulator cannot (it holds a bundle in memory: a 1 s week of 2,048 ports
// would need ~70 GB): a copy of a bundle whose counters are resampled every INTERVAL, written as a stream in the
// documented counters.bin layout (docs/bundle-format.md), then its link_levels.bin as `convert` writes it.
// Traffic-like counters (data, packets, xmit_wait) are interpolated linearly between the source's samples; the
// others step: link_downed at its port's down event when the source has one in that interval (else at the
// source's sample), error counts at the interval's start — so the flaps and the errors before them stay in order. A
// benchmark input, not physics: the simulator's bundle is the physics.
//
//   bench_upsample SRC_BUNDLE DST_DIR [INTERVAL_S=1]
//
// For the 60 s fabric-week (588 MB) at 1 s: 604,800 samples per series, ≈ 35 GB.
#include "bundle/format.h"
#include "bundle/reader.h"
#include "view/link_heatmap_model.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

bool interpolated(CounterKind k)
{
    return k == CounterKind::PortXmitData || k == CounterKind::PortRcvData || k == CounterKind::PortXmitPackets
        || k == CounterKind::PortRcvPackets || k == CounterKind::PortXmitWait;
}

// A step counter as (time, value from then on). link_downed steps on its port's own down events inside the
// source's interval (a resampled counter that stepped a minute after its event would look like a second flap),
// else at the source's sample; the error counters step at the start of the interval.
std::vector<std::pair<TimeNs, std::uint64_t>> steps(const CounterSeries& s, const std::vector<TimeNs>& downs)
{
    std::vector<std::pair<TimeNs, std::uint64_t>> out;
    if (s.size() == 0) {
        return out;
    }
    out.emplace_back(s.timesNs[0], s.value(0));
    for (std::size_t i = 1; i < s.size(); ++i) {
        std::uint64_t v = s.value(i - 1);
        const std::uint64_t next = s.value(i);
        if (next > v && s.kind == CounterKind::LinkDowned) {
            auto e = std::upper_bound(downs.begin(), downs.end(), s.timesNs[i - 1]);
            for (; e != downs.end() && *e <= s.timesNs[i] && v < next; ++e) {
                out.emplace_back(*e, ++v);
            }
        }
        if (next != v) {
            // link_downed's rest at the source's sample; error counts early in the interval, where the source's
            // symbol errors come before its flap
            out.emplace_back(s.kind == CounterKind::LinkDowned ? s.timesNs[i] : s.timesNs[i - 1] + 1, next);
        }
    }
    return out;
}

// The series' value at each of `times`, into `out` (storage bytes each).
void resample(const CounterSeries& s, const std::vector<TimeNs>& downs, const std::vector<TimeNs>& times,
    std::vector<std::uint8_t>& out)
{
    out.assign(times.size() * s.storageBytes, 0);
    const bool linear = interpolated(s.kind);
    const auto stepped = linear ? std::vector<std::pair<TimeNs, std::uint64_t>> {} : steps(s, downs);
    std::size_t i = 0; // source sample (or step) at or before t
    for (std::size_t k = 0; k < times.size(); ++k) {
        const TimeNs t = times[k];
        std::uint64_t v = 0;
        if (linear) {
            while (i + 1 < s.size() && s.timesNs[i + 1] <= t) {
                ++i;
            }
            v = s.size() == 0 ? 0 : s.value(i);
            if (i + 1 < s.size() && s.timesNs[i] <= t && s.value(i + 1) >= v) {
                const double f = double(t - s.timesNs[i]) / double(s.timesNs[i + 1] - s.timesNs[i]);
                v += static_cast<std::uint64_t>(f * double(s.value(i + 1) - v));
            }
        } else if (!stepped.empty()) {
            while (i + 1 < stepped.size() && stepped[i + 1].first <= t) {
                ++i;
            }
            v = stepped[i].second;
        }
        std::memcpy(out.data() + k * s.storageBytes, &v, s.storageBytes); // little-endian: the low bytes
    }
}

bool put(std::FILE* f, const void* p, std::size_t n)
{
    return n == 0 || std::fwrite(p, 1, n, f) == n;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::cerr << "usage: bench_upsample SRC_BUNDLE DST_DIR [INTERVAL_S=1]\n";
        return 2;
    }
    const fs::path src = argv[1], dst = argv[2];
    const TimeNs interval = (argc > 3 ? std::atoll(argv[3]) : 1) * kNsPerSec;
    auto loaded = loadBundle(src.string());
    if (!loaded || interval <= 0) {
        std::cerr << (loaded ? std::string("bad interval") : loaded.error().format()) << '\n';
        return 1;
    }
    const auto& snap = *loaded->snapshot;
    const auto t0 = std::chrono::steady_clock::now();
    fs::create_directories(dst);
    for (const auto& entry : fs::directory_iterator(src)) { // all but the counters and the levels made from them
        const auto name = entry.path().filename();
        if (entry.is_regular_file() && name != "counters.bin" && name != "link_levels.bin") {
            fs::copy_file(entry.path(), dst / name, fs::copy_options::overwrite_existing);
        }
    }
    std::vector<TimeNs> times;
    for (TimeNs t = snap.job.span.start; t <= snap.job.span.end; t += interval) {
        times.push_back(t);
    }
    // The documented layout with one shared time block (every series sampled at the same instants).
    bundle::CntrHeader h {};
    std::memcpy(h.magic, bundle::kCntrMagic, 8);
    h.version = bundle::kFormatVersion;
    h.portCount = static_cast<std::uint32_t>(snap.counterPorts.size());
    h.seriesCount = static_cast<std::uint32_t>(snap.counters.size());
    h.timeBlockCount = 1;
    h.portTableOffset = sizeof h;
    h.timeBlockTableOffset = h.portTableOffset + h.portCount * sizeof(bundle::CntrPortEntry);
    h.seriesTableOffset = h.timeBlockTableOffset + sizeof(bundle::CntrTimeBlockEntry);
    std::uint64_t offset = h.seriesTableOffset + h.seriesCount * sizeof(bundle::CntrSeriesEntry);
    std::vector<bundle::CntrPortEntry> ports;
    for (const auto& p : snap.counterPorts) {
        ports.push_back({ p.guid, p.port, 0, 0 });
    }
    const bundle::CntrTimeBlockEntry block { offset, times.size() };
    offset += bundle::align8(times.size() * sizeof(TimeNs));
    std::vector<bundle::CntrSeriesEntry> series;
    for (const auto& s : snap.counters) {
        series.push_back({ s.port, static_cast<std::uint16_t>(s.kind), s.bits, s.storageBytes, 0, 0, offset });
        offset += bundle::align8(times.size() * s.storageBytes);
    }
    h.fileSize = offset;
    const auto tmp = dst / "counters.bin.tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    bool ok = f && put(f, &h, sizeof h) && put(f, ports.data(), ports.size() * sizeof ports[0])
        && put(f, &block, sizeof block) && put(f, series.data(), series.size() * sizeof series[0])
        && put(f, times.data(), times.size() * sizeof(TimeNs));
    static const std::uint8_t zeros[8] = {};
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::vector<TimeNs>> downs; // per port, sorted
    for (const auto& e : snap.linkEvents) {
        if (e.state == LinkState::Down) {
            downs[{ e.guid, e.port }].push_back(e.timeNs);
        }
    }
    for (auto& [port, list] : downs) {
        std::sort(list.begin(), list.end());
    }
    const std::vector<TimeNs> none;
    std::vector<std::uint8_t> values;
    for (std::size_t i = 0; ok && i < snap.counters.size(); ++i) {
        const auto& s = snap.counters[i];
        const auto it = downs.find({ snap.counterPorts[s.port].guid, snap.counterPorts[s.port].port });
        resample(s, it == downs.end() ? none : it->second, times, values);
        ok = put(f, values.data(), values.size()) && put(f, zeros, bundle::align8(values.size()) - values.size());
    }
    ok = f && std::fclose(f) == 0 && ok;
    if (!ok) {
        std::cerr << tmp << ": write failed\n";
        return 1;
    }
    fs::rename(tmp, dst / "counters.bin");
    const auto t1 = std::chrono::steady_clock::now();
    // The kept level, as `convert` writes it.
    auto again = loadBundle(dst.string());
    if (!again) {
        std::cerr << again.error().format() << '\n';
        return 1;
    }
    NullProgress quiet;
    const auto e = LinkHeatmapModel::build(again->snapshot, quiet)->save((dst / "link_levels.bin").string());
    const auto t2 = std::chrono::steady_clock::now();
    std::cout << "wrote " << dst.string() << ": " << snap.counters.size() << " series × " << times.size()
              << " samples, counters.bin " << double(h.fileSize) / 1e9 << " GB in "
              << std::chrono::duration<double>(t1 - t0).count() << " s; link_levels.bin " << (e.empty() ? "written" : e)
              << " in " << std::chrono::duration<double>(t2 - t1).count() << " s\n";
    return e.empty() ? 0 : 1;
}
