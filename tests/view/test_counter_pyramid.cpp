// SPDX-License-Identifier: MIT
// The counter plots' pyramid (issue #13): plotting a long span from min/max buckets must draw what the samples
// draw — the same lowest and highest rate in every pixel column (within one column: a bucket's extremes are
// placed at its ends), one-sample spikes and dips included — with a few points per column.
#include "test_support.h"
#include "view/counter_plot_data.h"
#include "view/counter_pyramid.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace stallscope;
using namespace stallscope::test;

namespace {

struct Series
{
    std::vector<TimeNs> times;
    std::vector<std::uint64_t> values;
    CounterSeries view() const
    {
        CounterSeries s;
        s.kind = CounterKind::PortXmitData;
        s.bits = 64;
        s.storageBytes = 8;
        s.timesNs = times;
        s.values = values.data();
        return s;
    }
};

// 1 s samples of a busy port: ~1e9 words/s with noise, one sample 50× higher, one idle second, a counter reset,
// and a 30 s gap in the samples.
Series busyPort(std::size_t n)
{
    Series s;
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint64_t> noise(0, 200'000'000);
    std::uint64_t v = 0;
    TimeNs t = 1'793'491'200LL * kNsPerSec;
    for (std::size_t i = 0; i < n; ++i) {
        t += i == n / 2 ? 30 * kNsPerSec : kNsPerSec;
        std::uint64_t inc = 900'000'000 + noise(rng);
        if (i == n / 3 + 17) {
            inc *= 50; // the spike
        }
        if (i == n / 4 + 5) {
            inc = 0; // the dip
        }
        v = i == (2 * n) / 3 ? 12345 : v + inc; // a reset: the counter was cleared
        s.times.push_back(t);
        s.values.push_back(v);
    }
    return s;
}

// Per pixel column: the highest and lowest value the points reach.
void columnExtremes(const PlotPoints& p, TimeRange w, int columns, std::vector<double>& hi, std::vector<double>& lo)
{
    hi.assign(std::size_t(columns), -INFINITY);
    lo.assign(std::size_t(columns), INFINITY);
    const double colS = double(w.delta()) / 1e9 / columns;
    for (std::size_t i = 0; i < p.keys.size(); ++i) {
        const auto c = static_cast<long long>(std::floor((p.keys[i] - double(w.start) / 1e9) / colS));
        if (c >= 0 && c < columns) {
            hi[std::size_t(c)] = std::max(hi[std::size_t(c)], p.values[i]);
            lo[std::size_t(c)] = std::min(lo[std::size_t(c)], p.values[i]);
        }
    }
}

} // namespace

TEST_CASE("the counter pyramid plots a week of 1 s samples as the samples would, a few points per column",
    "[counters][pyramid]")
{
    const Series data = busyPort(604'800); // a week
    const CounterSeries s = data.view();
    const CounterPyramid pyramid(s);
    REQUIRE(pyramid.levels() >= 5);
    CHECK(pyramid.samplesPerBucket(0) == 16);
    CHECK(pyramid.memoryBytes() <= s.size()); // bytes: about 2/3 per sample

    const TimeRange span { s.timesNs.front(), s.timesNs.back() };
    const TimeNs mid = span.start + span.delta() / 3;
    for (const auto& [window, columns] : std::vector<std::pair<TimeRange, int>> { { span, 1600 }, { span, 300 },
             { { mid - 86400 * kNsPerSec, mid + 86400 * kNsPerSec }, 1200 },
             { { mid - 3 * 3600 * kNsPerSec, mid + 3600 * kNsPerSec }, 800 },
             { { mid - 600 * kNsPerSec, mid }, 900 } }) {
        INFO("window " << window.delta() / kNsPerSec << " s on " << columns << " columns");
        const auto raw = counterRate(s, window, columns, 4.0, 0);
        const auto fast = counterRate(s, pyramid, window, columns, 4.0, 0);
        REQUIRE(!raw.values.empty());
        REQUIRE(!fast.values.empty());
        CHECK(std::is_sorted(fast.keys.begin(), fast.keys.end()));
        CHECK(fast.keys.size() <= std::size_t(4 * columns + 8)); // two points per column and bucket end
        // The same extremes over the window: the spike and the dip (1e-6: the pyramid keeps floats)
        const auto [rawLo, rawHi] = std::minmax_element(raw.values.begin(), raw.values.end());
        const auto [fastLo, fastHi] = std::minmax_element(fast.values.begin(), fast.values.end());
        CHECK(*fastHi == Approx(*rawHi).epsilon(1e-6));
        CHECK(*fastLo == Approx(*rawLo).margin(1.0));
        // Column by column, within one column either way.
        std::vector<double> rh, rl, fh, fl;
        columnExtremes(raw, window, columns, rh, rl);
        columnExtremes(fast, window, columns, fh, fl);
        int wrong = 0;
        for (int c = 0; c < columns; ++c) {
            if (!std::isfinite(rh[std::size_t(c)])) {
                continue;
            }
            double h = -INFINITY, l = INFINITY;
            for (int d = std::max(0, c - 1); d <= std::min(columns - 1, c + 1); ++d) {
                h = std::max(h, fh[std::size_t(d)]);
                l = std::min(l, fl[std::size_t(d)]);
            }
            wrong += h < rh[std::size_t(c)] * (1 - 1e-6)
                || l > rl[std::size_t(c)] + std::abs(rl[std::size_t(c)]) * 1e-6 + 1.0;
        }
        CHECK(wrong == 0);
    }
}

TEST_CASE("the counter pyramid reads the samples where a column holds few of them", "[counters][pyramid]")
{
    const Series data = busyPort(5'000);
    const CounterSeries s = data.view();
    const CounterPyramid pyramid(s);
    const TimeRange w { s.timesNs[1000], s.timesNs[1500] };
    const auto raw = counterRate(s, w, 800, 1.0, 0);
    const auto fast = counterRate(s, pyramid, w, 800, 1.0, 0);
    CHECK(fast.keys == raw.keys);
    CHECK(fast.values == raw.values);
    CounterPyramidCache cache;
    CHECK(&cache.of(s) == &cache.of(s)); // built once
    CHECK(cache.size() == 1);
    cache.forget();
    CHECK(cache.size() == 0);
}

TEST_CASE("portSeries finds each kind's series of a port as findSeries does, in one pass", "[core][view]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto& snap = *sim.snapshot;
    REQUIRE_FALSE(snap.counterPorts.empty());
    std::size_t found = 0;
    for (const auto& p : snap.counterPorts) {
        const auto all = portSeries(snap, p.guid, p.port);
        for (std::size_t k = 0; k < kCounterKindCount; ++k) {
            const auto* one = findSeries(snap, p.guid, p.port, static_cast<CounterKind>(k));
            REQUIRE(all[k] == one);
            found += one != nullptr;
        }
    }
    CHECK(found == snap.counters.size()); // one series per port and kind in a simulated job
    CHECK(portSeries(snap, 0x1, 99) == PortSeriesSet {});
}
