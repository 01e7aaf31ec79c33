// SPDX-License-Identifier: MIT
#include "core/collectives.h"
#include "core/counters.h"
#include "core/time_format.h"
#include "core/timeout_policy.h"
#include "core/topology.h"
#include "sim/config.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

using namespace stallscope;

TEST_CASE("TimeRange basics", "[core]")
{
    TimeRange r { 10, 20 };
    CHECK(r.delta() == 10);
    CHECK(r.contains(10));
    CHECK_FALSE(r.contains(20));
    CHECK(r.overlaps({ 19, 30 }));
    CHECK_FALSE(r.overlaps({ 20, 30 }));
    CHECK(TimeRange { 20, 10 }.normalized() == r);
    CHECK(TimeRange { 5, 5 }.isEmpty());
}

TEST_CASE("counter deltas handle saturation and resets", "[core]")
{
    SECTION("plain increase")
    {
        CHECK(counterDelta(3, 5, 8).increase == 2);
    }
    SECTION("8-bit link_downed stuck at 255 is flagged saturated")
    {
        const auto d = counterDelta(254, 255, 8);
        CHECK(d.increase == 1);
        CHECK(d.saturated);
        CHECK(counterDelta(255, 255, 8).saturated);
    }
    SECTION("a drop is a reset, not a huge wrap")
    {
        const auto d = counterDelta(200, 3, 8);
        CHECK(d.reset);
        CHECK(d.increase == 3);
    }
    SECTION("32-bit data counters saturate at all ones")
    {
        CHECK(counterDelta(100, 0xFFFFFFFFULL, 32).saturated);
        CHECK_FALSE(counterDelta(100, 0xFFFFFFFFULL, 64).saturated);
    }
    CHECK(semantics(CounterKind::PortXmitData).unitBytes == 4);
    CHECK(semantics(CounterKind::LinkDowned).defaultBits == 8);
    CHECK(parseCounterKind("port_xmit_wait") == CounterKind::PortXmitWait);
    CHECK_FALSE(parseCounterKind("nope").has_value());
}

TEST_CASE("forEachIncrease finds the samples counterDelta sees an increase at, at every storage width", "[core]")
{
    // Readings that climb, stay, drop to 0 (a clear), drop to a smaller non-zero value (a clear, then counts) and
    // sit at the maximum of each width.
    std::vector<std::uint64_t> raw;
    std::uint64_t x = 12345;
    for (int i = 0; i < 4000; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto pick = (x >> 60) % 6;
        const std::uint64_t prev = raw.empty() ? 0 : raw.back();
        raw.push_back(pick == 0 ? 0
                : pick == 1     ? prev
                : pick == 2     ? prev + (x >> 40 & 7)
                : pick == 3     ? (x >> 33)
                                : ~0ULL);
    }
    std::vector<TimeNs> times(raw.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        times[i] = TimeNs(i) * kNsPerSec;
    }
    for (const std::uint8_t bits : { 8, 16, 32, 64 }) {
        const std::uint64_t max = bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
        std::vector<std::uint8_t> bytes(raw.size() * 8);
        CounterSeries s;
        s.bits = bits;
        s.storageBytes = storageBytesFor(bits);
        s.timesNs = times;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            const auto v = raw[i] & max;
            std::memcpy(bytes.data() + i * s.storageBytes, &v, s.storageBytes); // little-endian machine
        }
        s.values = bytes.data();
        std::vector<std::size_t> expected, got;
        for (std::size_t k = 1; k < s.size(); ++k) {
            if (counterDelta(s.value(k - 1), s.value(k), bits).increase > 0) {
                expected.push_back(k);
            }
        }
        forEachIncrease(s, [&](std::size_t k) { got.push_back(k); });
        INFO("bits " << int(bits));
        REQUIRE(expected.size() > 500);
        REQUIRE(expected.size() < s.size() - 500);
        CHECK(got == expected);
    }
}

TEST_CASE("timeout policy retry budget follows NCCL's formula", "[core]")
{
    TimeoutPolicy p;
    CHECK(p.retryPeriodNs() == 4096LL << 20); // 4.295 s
    CHECK(p.retryBudgetNs() == (4096LL << 20) * 7); // ~30 s
    p.ncclIbTimeout = 14;
    CHECK(p.retryPeriodNs() == 67108864); // 67 ms
    p.ncclIbTimeout = 0;
    CHECK(p.infiniteRetry());
    CHECK(p.retryBudgetNs() == kNoTime);
}

TEST_CASE("adaptive retransmission follows NVIDIA's ADP schedule and prices a flap by it", "[core]")
{
    std::string error;
    const auto adp = parseAdaptiveRetransmission("init=10..13,ranges=13..17x2,18..20x3", error);
    REQUIRE(adp);
    CHECK(adp->text() == "init=10..13,ranges=13..17x2,18..20x3");
    // The slowest QP starts at 2^13 units (initial exponent drawn up to 13, used once), continues in the range
    // holding it: 13..17 twice each, then 18..20 three times each.
    const auto t = adp->retransmissions();
    REQUIRE(t.size() == 1 + 5 * 2 + 3 * 3);
    const TimeNs unit = 4096;
    CHECK(t[0] == unit << 13);
    CHECK(t[1] == t[0] + (unit << 13));
    CHECK(t[2] == t[1] + (unit << 13));
    CHECK(t[3] == t[2] + (unit << 14));
    CHECK(t.back() == t[t.size() - 2] + (unit << 20));
    TimeoutPolicy p;
    p.adaptive = *adp;
    CHECK(p.retryPeriodNs() == unit << 13);
    CHECK(p.retryBudgetNs() == t.back());
    CHECK(t.back() == 24'662'507'520); // 24.7 s against 30.1 s for the fixed timeout at 20 x 7
    // A 2 s outage: the first retransmission after 2 s is the 11th (2.11 s), not one 4.29 s period.
    const auto two = flapOutcome(p, 2 * kNsPerSec, Recovery::LinkUp, 0);
    CHECK_FALSE(two.crash);
    CHECK(two.retries == 11);
    CHECK(two.stallNs == t[10]);
    CHECK(t[9] < 2 * kNsPerSec);
    CHECK(flapOutcome(p, 1, Recovery::LinkUp, 0).stallNs == t[0]); // a loss always costs the first timer
    CHECK(flapOutcome(p, 25 * kNsPerSec, Recovery::LinkUp, 0).crash);
    // Rerouted by AR after 50 ms: the stall ends at the first retransmission after that.
    CHECK(flapOutcome(p, 10 * kNsPerSec, Recovery::AdaptiveRouting, 50 * kNsPerMs).stallNs == t[1]);
    for (const char* bad : { "", "init=10..13", "init=13..10,ranges=13..17x2", "init=10..13,ranges=13..17x0",
             "init=10..13,ranges=13..17x2,15..18x1", "init=10..40,ranges=13..17x2",
             "init=1..2,ranges=1..2x1,3..4x1,5..6x1,7..8x1,9..10x1", "init=10..13,ranges=13..17x2;" }) {
        INFO(bad);
        CHECK_FALSE(parseAdaptiveRetransmission(bad, error));
        CHECK_FALSE(error.empty());
    }
}

TEST_CASE("GUIDs parse with or without 0x and padding", "[core]")
{
    CHECK(parseGuid("0x0c42a10300a1b2c4") == 0x0c42a10300a1b2c4ULL);
    CHECK(parseGuid("c42a10300a1b2c4") == 0x0c42a10300a1b2c4ULL);
    CHECK_FALSE(parseGuid("0xzz").has_value());
    CHECK_FALSE(parseGuid("").has_value());
    CHECK(formatGuid(0xc42a10300a1b2c4ULL) == "0x0c42a10300a1b2c4");
}

TEST_CASE("op and state names round-trip", "[core]")
{
    for (int i = 0; i < kCollectiveOpCount; ++i) {
        const auto op = static_cast<CollectiveOp>(i);
        CHECK(parseCollectiveOp(toString(op)) == op);
    }
    for (int i = 0; i < kCollectiveStateCount; ++i) {
        const auto st = static_cast<CollectiveState>(i);
        CHECK(parseCollectiveState(toString(st)) == st);
    }
    CHECK(kBytesPerCollectiveRecord == 32);
}

TEST_CASE("the record a rank is in at a time is the running one, not the last enqueued", "[core]")
{
    // Group A's long collective (0) enqueued first; group B's short ones (1, 2) enqueued while it runs; 3 queued.
    const std::vector<TimeNs> enq { 100, 110, 120, 400 };
    const std::vector<TimeNs> start { 100, 150, 200, kNoTime };
    const std::vector<TimeNs> end { 500, 160, 210, kNoTime };
    const std::vector<std::uint32_t> seq { 7, 1, 2, 8 };
    const std::vector<std::uint16_t> shape { 0, 1, 1, 0 };
    const std::vector<std::uint8_t> state { 2, 2, 2, 0 };
    const std::vector<std::uint8_t> flags(4, 0);
    const RankCollectives c { enq, start, end, seq, shape, state, flags };
    CHECK_FALSE(recordAt(c, 99));
    auto at = recordAt(c, 155); // inside 1 and 0: the newest running
    REQUIRE(at);
    CHECK(at->index == 1);
    CHECK(at->running);
    at = recordAt(c, 300); // only 0 runs; 2 was the last enqueued
    REQUIRE(at);
    CHECK(at->index == 0);
    CHECK(at->running);
    at = recordAt(c, 450); // 0 still runs, 3 queued behind it
    REQUIRE(at);
    CHECK(at->index == 0);
    at = recordAt(c, 600); // nothing runs: the last enqueued, not running
    REQUIRE(at);
    CHECK(at->index == 3);
    CHECK_FALSE(at->running);
}

TEST_CASE("durations and formatting", "[core]")
{
    CHECK(parseDuration("2s") == 2 * kNsPerSec);
    CHECK(parseDuration("500ms") == 500 * kNsPerMs);
    CHECK(parseDuration("1.5h") == 5400 * kNsPerSec);
    CHECK(parseDuration("90") == 90 * kNsPerSec);
    CHECK(parseDuration("1m30s") == 90 * kNsPerSec);
    CHECK(parseDuration("1h05m") == 3900 * kNsPerSec);
    CHECK(formatDuration(3900 * kNsPerSec) == "1h05m00s");
    CHECK(formatDuration((243 * 24 + 8) * 3600 * kNsPerSec + 53 * 60 * kNsPerSec + 6 * kNsPerSec) == "243d08h53m06s");
    CHECK(formatDuration(-25 * 3600 * kNsPerSec) == "-1d01h00m00s");
    // #45: no e-notation ("2.36e+03s", "+1.02e+03s") at any size, including where %.3g would round up to 1000
    CHECK(formatDuration(2362 * kNsPerSec) == "39m22s");
    CHECK(formatDuration(1022 * kNsPerSec) == "17m02s");
    CHECK(formatDuration(4400 * kNsPerMs) == "4.4s");
    CHECK(formatDuration(850 * kNsPerMs) == "850ms");
    CHECK(formatDuration(999'700 * kNsPerUs) == "1s");
    CHECK(formatDuration(999'700) == "1ms");
    CHECK(formatDuration(59'700 * kNsPerMs) == "1m00s");
    CHECK(formatDuration(3'599'700 * kNsPerMs) == "1h00m00s");
    for (TimeNs ns = 1; ns < 400 * 24 * 3600 * kNsPerSec; ns = ns * 3 + 7) {
        CHECK(formatDuration(ns).find('e') == std::string::npos);
    }
    // A reviewed span's length: a duration under a day (a ten-minute job was "0.01 days"), days above.
    CHECK(formatSpanLength(600 * kNsPerSec) == "10m00s");
    CHECK(formatSpanLength(7 * 3600 * kNsPerSec) == "7h00m00s");
    CHECK(formatSpanLength(30 * 3600 * kNsPerSec) == "1.25 days");
    CHECK(formatSpanLength(7 * 24 * 3600 * kNsPerSec) == "7.0 days");
    CHECK_FALSE(parseDuration("5x").has_value());
    CHECK_FALSE(parseDuration("2 parsecs").has_value());
    CHECK_FALSE(parseDuration("-1s").has_value());
    CHECK(formatUtc(1'793'491'200LL * kNsPerSec + 5 * kNsPerMs) == "2026-11-01 00:00:00.005 UTC");
    CHECK(formatSince(3900 * kNsPerSec, 0) == "+01:05:00.000");
    CHECK(formatCount(21273600) == "21,273,600");
}

TEST_CASE("fault specs parse and reject nonsense", "[core]")
{
    auto f = parseFaultSpec("flap:leaf-spine:leaf=3:spine=5:at=5m:for=2s:ar=off:every=1h");
    REQUIRE(f.ok());
    CHECK(f->tier == LinkTier::LeafSpine);
    CHECK(f->leaf == 3);
    CHECK(f->spine == 5);
    CHECK_FALSE(f->adaptiveRouting);
    CHECK(f->everyNs == 3600 * kNsPerSec);
    CHECK(parseFaultSpec("dead-rank:rank=17:at=5m")->kind == FaultKind::DeadRank);
    CHECK_FALSE(parseFaultSpec("flap:rank=3").ok());
    CHECK_FALSE(parseFaultSpec("meteor:rank=3").ok());
    CHECK_FALSE(parseFaultSpec("slow-rank:rank=x").ok());
    auto c = *presetConfig("small");
    c.faults = { parseFaultSpec("dead-rank:rank=999:at=1m").value() };
    CHECK_FALSE(validateConfig(c).empty());
}
