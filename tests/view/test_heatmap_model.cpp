// SPDX-License-Identifier: MIT
// The rank heatmap's model without a widget: the level-0 bucket rule (memory bounded at any rank count), the
// records-only model `render` uses, which must draw what the window's pyramid draws, and ranks without records.
#include "analysis/analysis.h"
#include "import/open_job.h"
#include "test_support.h"
#include "view/heatmap_model.h"

#include <catch2/catch.hpp>

#include <numeric>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::vector<HeatCell> raster(const HeatmapModel& m, TimeRange window, int w, int h)
{
    std::vector<std::uint32_t> order(m.rows());
    std::iota(order.begin(), order.end(), 0u);
    std::vector<HeatCell> cells;
    m.rasterize(TimeAxisMapping { window, w }, h, order, cells);
    return cells;
}

// Columns where some row shows the stall colour.
std::vector<int> stalledColumns(const std::vector<HeatCell>& cells, int w)
{
    std::vector<int> cols;
    for (int x = 0; x < w; ++x) {
        for (std::size_t i = std::size_t(x); i < cells.size(); i += std::size_t(w)) {
            if (cells[i].stalled > 0) {
                cols.push_back(x);
                break;
            }
        }
    }
    return cols;
}

// Four pods with a shard group each (hybrid sharding), `hosts` hosts, a leaf-spine flap under pod 2 at 70.5 s.
SimConfig podGroupsConfig(std::uint32_t hosts)
{
    auto config = tinyConfig();
    config.hosts = hosts;
    config.pods = 4;
    config.spines = 2;
    config.cores = 2;
    config.podGroups = true;
    config.bucketBytes = 2ULL << 30;
    config.durationNs = 180 * kNsPerSec;
    config.faults = { parseFaultSpec("flap:leaf-spine:pod=2:leaf=5:spine=1:at=70500ms:for=2s:ar=on").value() };
    return config;
}

} // namespace

TEST_CASE("the heatmap's level-0 bucket keeps the levels bounded at any rank count", "[heatmap]")
{
    constexpr TimeNs kMinute = 60 * kNsPerSec;
    for (const std::size_t ranks : { 8u, 1024u, 4096u, 16384u, 65536u }) {
        for (const TimeNs span : { 10 * kMinute, 60 * kMinute, 7 * 24 * 60 * kMinute }) {
            const TimeNs b = HeatmapModel::baseBucketFor(span, ranks);
            INFO(ranks << " ranks, span " << span << " ns, bucket " << b << " ns");
            REQUIRE((b & (b - 1)) == 0); // a power of two: the coarser levels halve it exactly
            const auto buckets = std::size_t(span / b);
            CHECK(buckets <= 32768);
            CHECK((buckets <= 256 || buckets * ranks <= (std::size_t(1) << 26)));
            CHECK(std::size_t(span / (b / 2))
                > std::min<std::size_t>(32768, std::max<std::size_t>(256, (std::size_t(1) << 26) / ranks)));
        }
    }
    // bench-hour (1,024 ranks, one hour) keeps its 32,768 buckets; a 16,384-rank 10-minute job gets 2,236.
    CHECK(std::size_t(60 * kMinute / HeatmapModel::baseBucketFor(60 * kMinute, 1024)) > 16384);
    CHECK(10 * kMinute / HeatmapModel::baseBucketFor(10 * kMinute, 16384) == 2235);
}

TEST_CASE("the records-only heatmap draws what the pyramid draws", "[heatmap]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto analysis = analyze(*sim.snapshot);
    const auto stalls = stallWindows(analysis);
    REQUIRE(!stalls.empty());
    NullProgress none;
    const auto pyramid = HeatmapModel::build(sim.snapshot, stalls, none);
    const auto records = HeatmapModel::recordsOnly(sim.snapshot, stalls);
    REQUIRE(pyramid->levels() > 1);
    CHECK(records->levels() == 0);
    CHECK(records->memoryBytes() == 0);
    const int w = 800;
    const int h = int(pyramid->rows());

    SECTION("a window finer than level 0: both draw from the records, cell for cell")
    {
        // 800 px over 200 level-0 buckets: finer than half a bucket per pixel, so the pyramid draws records too
        const TimeNs half = 100 * pyramid->baseBucketNs();
        const TimeRange win { stalls[0].start - half, stalls[0].start + half };
        const auto a = raster(*pyramid, win, w, h);
        const auto b = raster(*records, win, w, h);
        REQUIRE(a.size() == b.size());
        std::size_t same = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            same += a[i].inside == b[i].inside && a[i].stalled == b[i].stalled && a[i].failed == b[i].failed
                && a[i].present == b[i].present;
        }
        CHECK(same == a.size());
        CHECK(!stalledColumns(b, w).empty());
    }
    SECTION("the whole job: the same stall columns, the same busy share within a level's rounding")
    {
        const auto& span = sim.snapshot->job.span;
        const auto a = raster(*pyramid, span, w, h);
        const auto b = raster(*records, span, w, h);
        const auto ca = stalledColumns(a, w);
        const auto cb = stalledColumns(b, w);
        REQUIRE(!cb.empty());
        CHECK(cb.front() >= ca.front() - 1);
        CHECK(cb.back() <= ca.back() + 1);
        CHECK(cb.size() + 2 >= ca.size());
        double sa = 0, sb = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            sa += a[i].inside;
            sb += b[i].inside;
        }
        CHECK(sb == Approx(sa).epsilon(0.05));
    }
    SECTION("lateness needs the levels: the records-only model is returned without it")
    {
        CHECK(!records->withLateness(analysis)->hasLateness());
        CHECK(pyramid->withLateness(analysis)->hasLateness());
    }
}

TEST_CASE("a stall of one pod's group shows that pod stalled and the other pods held", "[heatmap]")
{
    // Four pods with a shard group each (hybrid sharding): a flap under pod 2 hangs pod 2's own collective;
    // the other pods wait in the next global one (docs/formats.md §6b).
    const auto config = podGroupsConfig(32);
    const auto sim = simulateOrFail(config);
    const auto analysis = analyze(*sim.snapshot);
    REQUIRE(analysis.incidents.size() == 1);
    const auto& inc = analysis.incidents[0];
    REQUIRE(inc.heldRanks == 192);
    const auto& members = sim.snapshot->groups[inc.group].ranks;
    REQUIRE(members.size() == 64);

    const auto model = HeatmapModel::recordsOnly(sim.snapshot, {})->withStalls(analysis);
    CHECK(model->hasGroupStalls());
    const int w = 400;
    const auto cells = raster(*model, { inc.startNs - kNsPerSec, inc.endNs + kNsPerSec }, w, int(model->rows()));
    int stalledMembers = 0, heldOthers = 0, wrong = 0;
    for (std::uint32_t r = 0; r < model->rows(); ++r) {
        const bool member = std::binary_search(members.begin(), members.end(), r);
        int stalled = 0, held = 0;
        for (int x = 0; x < w; ++x) {
            const auto& c = cells[std::size_t(r) * w + std::size_t(x)];
            stalled += c.stalled > 0;
            held += c.held > 0;
        }
        stalledMembers += member && stalled > w / 4;
        heldOthers += !member && held > w / 4;
        wrong += member ? held > 0 : stalled > 0;
    }
    CHECK(stalledMembers == 64);
    CHECK(heldOthers == 192);
    CHECK(wrong == 0);

    // Without the groups (windows only) every rank inside a collective there is stalled, as before.
    const auto plain = HeatmapModel::recordsOnly(sim.snapshot, stallWindows(analysis));
    CHECK_FALSE(plain->hasGroupStalls());
    const auto before = raster(*plain, { inc.startNs - kNsPerSec, inc.endNs + kNsPerSec }, w, int(plain->rows()));
    CHECK(std::none_of(before.begin(), before.end(), [](const HeatCell& c) { return c.held > 0; }));
}

TEST_CASE("first-stuck order explains itself: ranks in together make its top row a hint, one late rank is named",
    "[heatmap]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto analysis = analyze(*sim.snapshot);
    REQUIRE_FALSE(analysis.incidents.empty());
    const TimeRange stall { analysis.incidents[0].startNs, analysis.incidents[0].endNs };
    const auto model = HeatmapModel::recordsOnly(sim.snapshot, { stall });
    const auto f = model->firstStuck();
    REQUIRE(f);
    // A flap blocks a collective every rank was already in: who is on top is the compute jitter's choice.
    CHECK(f->arrived == sim.snapshot->job.worldSize);
    CHECK(f->together);
    const auto text = HeatmapModel::explain(*f);
    CHECK(text.find("all " + std::to_string(f->arrived) + " ranks entered within") == 0);
    CHECK(text.find("a hint, not a culprit") != std::string::npos);
    CHECK(model->rowOrder(RowOrder::FirstStuck).front() == f->first);

    // The same job with rank 5 entering that collective 3 s after the others: it stands apart, and is named.
    // (The records are read-only views into the snapshot's arena: rank 5's start column is copied and moved.)
    auto late = std::make_shared<JobSnapshot>(*sim.snapshot);
    auto& c = late->collectives[5];
    std::vector<TimeNs> start(c.startNs.begin(), c.startNs.end());
    const auto i = static_cast<std::size_t>(
        std::upper_bound(c.enqueueNs.begin(), c.enqueueNs.end(), stall.start) - c.enqueueNs.begin() - 1);
    REQUIRE(start[i] != kNoTime);
    start[i] += 3 * kNsPerSec;
    c.startNs = start;
    const auto g = HeatmapModel::recordsOnly(late, { stall })->firstStuck();
    REQUIRE(g);
    CHECK_FALSE(g->together);
    CHECK(g->last == 5);
    CHECK(HeatmapModel::explain(*g).find("rank 5 entered 3") == 0);
    CHECK(HeatmapModel::explain(*g).find("the others waited for it") != std::string::npos);
    CHECK_FALSE(HeatmapModel::recordsOnly(sim.snapshot, {})->firstStuck()); // no stall, nothing to explain
}

// #44: a folder with the Flight Recorder dumps of ranks 0..7 only; the other ranks are known from their logs.
TEST_CASE("ranks known only from their logs are unknown where present, ranks with records never", "[heatmap]")
{
    constexpr std::uint32_t kRecorded = 8;
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    writePartialRawFolder(*sim.snapshot, tmp.path(), kRecorded);
    auto job = openJob(tmp.str());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto snap = job->snapshot;
    const auto R = static_cast<std::uint32_t>(snap->collectives.size());
    REQUIRE(R == sim.snapshot->collectives.size());
    NullProgress none;
    const auto pyramid = HeatmapModel::build(snap, {}, none);
    const auto records = HeatmapModel::recordsOnly(snap, {});
    REQUIRE(pyramid->levels() > 1);
    CHECK(pyramid->hasUnrecordedRanks());
    const auto& span = snap->job.span;
    const int w = 400;

    // The whole job from the levels, and a second of the flap from the records (rank 37's log has times only
    // there, from its port error at +60 s to port active at +62 s; other ranks hold records, so it is unknown from
    // the job's start): one row per rank.
    const TimeNs flap = snap->job.clockOriginNs + 60 * kNsPerSec;
    const std::pair<const HeatmapModel*, TimeRange> views[]
        = { { pyramid.get(), span }, { records.get(), { flap + kNsPerSec / 2, flap + 3 * kNsPerSec / 2 } } };
    for (const auto& [model, window] : views) {
        INFO("levels: " << model->levels());
        const auto cells = raster(*model, window, w, int(R));
        for (std::uint32_t r = 0; r < R; ++r) {
            INFO("rank " << r);
            int present = 0, unrecorded = 0, inside = 0, mismatched = 0;
            for (int x = 0; x < w; ++x) {
                const auto& c = cells[std::size_t(r) * w + std::size_t(x)];
                present += c.present > 0;
                unrecorded += c.unrecorded > 0;
                inside += c.inside > 0;
                mismatched += c.unrecorded != (r < kRecorded ? 0 : c.present);
            }
            CHECK(model->recorded(r) == (r < kRecorded));
            CHECK(model->knownFromLogOnly(r) == (r >= kRecorded)); // every rank left its log
            CHECK(mismatched == 0);
            if (r < kRecorded) {
                CHECK(unrecorded == 0);
                CHECK(inside > 0);
            } else {
                CHECK(unrecorded > 0); // alive from its log: some cells to draw unknown
                CHECK(inside == 0); // and no collective made up
                if (model == pyramid.get()) {
                    // In the same collectives as the recorded ranks from the start: unknown all along, never "no data"
                    // before its first timed line.
                    CHECK(unrecorded == w);
                }
            }
        }
    }

    SECTION("a pixel row folding recorded and unrecorded ranks is unknown (max), rows of recorded ranks are not")
    {
        const int h = 20; // 3 or 4 ranks a row: row 2 folds ranks 6..8, rows 0 and 1 ranks 0..5
        const auto cells = raster(*pyramid, span, w, h);
        auto unknownCells = [&](int y) {
            return std::count_if(
                cells.begin() + y * w, cells.begin() + (y + 1) * w, [](const HeatCell& c) { return c.unrecorded > 0; });
        };
        CHECK(unknownCells(0) == 0);
        CHECK(unknownCells(1) == 0);
        CHECK(unknownCells(2) > 0);
        CHECK(unknownCells(h - 1) > 0);
    }
    SECTION("the full folder has no unrecorded rank: its raster is what it was")
    {
        const auto full = HeatmapModel::build(sim.snapshot, {}, none);
        CHECK_FALSE(full->hasUnrecordedRanks());
        const auto cells = raster(*full, span, w, int(R));
        CHECK(std::none_of(cells.begin(), cells.end(), [](const HeatCell& c) { return c.unrecorded > 0; }));
    }
}

TEST_CASE("a frame from rank blocks draws what the same frame drawn rank by rank draws", "[heatmap]")
{
    // 4,096 ranks in four pods with a shard group each: a flap under pod 2 stalls its group, the others are held.
    const auto config = podGroupsConfig(512);
    const auto sim = simulateOrFail(config);
    auto analysis = analyze(*sim.snapshot);
    REQUIRE(!analysis.incidents.empty());
    // Drawn as a stall of one pod's shard group (what the analysis says when a pod's own collective hangs): the other
    // pods' ranks are held. A pod is 1,024 ranks, so blocks never straddle members and others.
    auto& inc = analysis.incidents[0];
    const auto& groups = sim.snapshot->groups;
    const auto pod
        = std::find_if(groups.begin(), groups.end(), [](const ProcessGroup& g) { return g.ranks.size() == 1024; });
    REQUIRE(pod != groups.end());
    inc.group = static_cast<std::uint16_t>(pod - groups.begin());
    inc.heldRanks = 3072;
    NullProgress none;
    const auto model = HeatmapModel::build(sim.snapshot, {}, none)->withStalls(analysis)->withLateness(analysis);
    REQUIRE(model->rows() == 4096);
    REQUIRE(model->rankBlockTiers() == 1); // blocks of 8 ranks (at most 1/256 of the job)
    REQUIRE(model->hasGroupStalls());

    // Rank order draws whole blocks; the same order with two ranks of the first pixel row swapped draws every rank
    // one by one, and folds the same ranks into each row (a row's fold does not depend on its ranks' order).
    std::vector<std::uint32_t> order(model->rows());
    std::iota(order.begin(), order.end(), 0u);
    auto byRank = order;
    std::swap(byRank[0], byRank[1]);
    const auto& span = sim.snapshot->job.span;
    for (const int h : { 64, 100, 512 }) {
        for (const TimeRange win : { span, TimeRange { span.start + 60 * kNsPerSec, span.start + 90 * kNsPerSec } }) {
            const TimeAxisMapping map { win, 300 };
            std::vector<HeatCell> blocks, ranks;
            model->rasterize(map, h, order, blocks, true);
            model->rasterize(map, h, byRank, ranks, true);
            REQUIRE(blocks.size() == ranks.size());
            std::size_t insideOff = 0, otherOff = 0, stalledBelow = 0, stalledAt = 0, held = 0;
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                const auto& a = blocks[i];
                const auto& b = ranks[i];
                insideOff += std::abs(int(a.inside) - int(b.inside)) > 2; // a block's mean is rounded once
                otherOff += a.failed != b.failed || a.present != b.present || a.late != b.late
                    || a.unrecorded != b.unrecorded || (a.held > 0) != (b.held > 0);
                stalledBelow += a.stalled < b.stalled; // the busiest rank of a block, bounded from above
                stalledAt += (a.stalled > 0) != (b.stalled > 0);
                held += b.held > 0;
            }
            INFO(h << " rows, window " << win.start << ".." << win.end);
            CHECK(insideOff == 0);
            CHECK(otherOff == 0);
            CHECK(stalledBelow == 0);
            CHECK(stalledAt == 0);
            CHECK(held > 0);
        }
    }
}
