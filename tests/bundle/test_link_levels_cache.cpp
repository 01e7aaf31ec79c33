// SPDX-License-Identifier: MIT
// The link heatmap's level 0 kept beside a bundle (issue #13: the cold first frame of a week of counters): read
// back it draws exactly what building it from the counters draws, and a file made from other counters, cut short
// or holding a cell that is no link state is refused (the levels are then built).
#include "bundle/reader.h"
#include "bundle/writer.h"
#include "test_support.h"
#include "view/link_heatmap_model.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace stallscope;
using namespace stallscope::test;

namespace {

SimConfig twoDays(const std::string& flap)
{
    auto c = *presetConfig("fabric-week");
    c.hosts = 16;
    c.spines = 4;
    c.durationNs = 48 * 3600 * kNsPerSec;
    c.faults = { parseFaultSpec(flap).value() };
    return c;
}

std::shared_ptr<const JobSnapshot> bundleOf(const SimConfig& c, const std::string& dir)
{
    const auto sim = simulateOrFail(c);
    REQUIRE(writeBundle(*sim.snapshot, dir).empty());
    auto loaded = loadBundle(dir);
    REQUIRE(loaded.ok());
    return loaded->snapshot;
}

// Every row of both models at a few zooms, cell by cell.
void sameCells(const LinkHeatmapModel& a, const LinkHeatmapModel& b, TimeRange span)
{
    REQUIRE(a.rows().size() == b.rows().size());
    REQUIRE(a.levelCount() == b.levelCount());
    std::vector<LinkCell> x(800), y(800);
    for (const auto w : { span, TimeRange { span.start, span.start + (span.end - span.start) / 50 } }) {
        for (std::uint32_t r = 0; r < a.rows().size(); ++r) {
            a.rasterizeRow(r, w, 800, x.data());
            b.rasterizeRow(r, w, 800, y.data());
            REQUIRE(x == y);
            CHECK(a.rows()[r].downBuckets == b.rows()[r].downBuckets);
        }
    }
}

} // namespace

TEST_CASE("link levels kept beside a bundle draw what the counters draw", "[core][view][fabric]")
{
    TempDir tmp;
    const auto dir = tmp.str("b");
    const auto snap = bundleOf(twoDays("flap:leaf-spine:leaf=3:spine=1:at=30m:for=2s:every=1h"), dir);
    NullProgress none;
    const auto built = LinkHeatmapModel::build(snap, none);
    const auto file = dir + "/link_levels.bin";
    REQUIRE(built->save(file).empty());
    std::string why;
    const auto loaded = LinkHeatmapModel::load(snap, file, why);
    INFO(why);
    REQUIRE(loaded);
    sameCells(*built, *loaded, snap->job.span);
    const auto down
        = std::count_if(built->rows().begin(), built->rows().end(), [](const LinkRow& r) { return r.downBuckets > 0; });
    CHECK(down == 1); // the hourly flapper, and no other link
    CHECK(LinkHeatmapModel::loadOrBuild(snap, dir, none)->levelCount() == built->levelCount());
}

TEST_CASE("link levels made from other counters, cut short or damaged are refused", "[core][view][fabric][hostile]")
{
    TempDir tmp;
    const auto a = tmp.str("a");
    const auto b = tmp.str("b");
    const auto snapA = bundleOf(twoDays("flap:leaf-spine:leaf=3:spine=1:at=30m:for=2s:every=1h"), a);
    auto other = twoDays("flap:leaf-spine:leaf=2:spine=2:at=40m:for=2s:every=2h");
    other.durationNs -= 3600 * kNsPerSec; // another span: another level-0 shape
    const auto snapB = bundleOf(other, b);
    NullProgress none;
    const auto fileA = a + "/link_levels.bin";
    REQUIRE(LinkHeatmapModel::build(snapA, none)->save(fileA).empty());
    std::string why;

    // Another bundle's counters: its size or header disagrees.
    CHECK_FALSE(LinkHeatmapModel::load(snapB, fileA, why));
    CHECK_THAT(why, Catch::Contains("link_levels.bin"));

    // Cut short.
    const auto size = std::filesystem::file_size(fileA);
    const auto cut = a + "/cut.bin";
    std::filesystem::copy_file(fileA, cut);
    std::filesystem::resize_file(cut, size - 100);
    CHECK_FALSE(LinkHeatmapModel::load(snapA, cut, why));
    CHECK_THAT(why, Catch::Contains("bytes where these counters give"));

    // A cell that is no link state.
    const auto bad = a + "/bad.bin";
    std::filesystem::copy_file(fileA, bad);
    {
        std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(size - 1));
        f.put(char(0x7f));
    }
    CHECK_FALSE(LinkHeatmapModel::load(snapA, bad, why));
    CHECK_THAT(why, Catch::Contains("no link state"));

    // A header from another version.
    const auto old = a + "/old.bin";
    std::filesystem::copy_file(fileA, old);
    {
        std::fstream f(old, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(8);
        f.put(char(9));
    }
    CHECK_FALSE(LinkHeatmapModel::load(snapA, old, why));
    CHECK_THAT(why, Catch::Contains("header differs"));

    // loadOrBuild falls back to building: still the right picture.
    std::filesystem::copy_file(bad, b + "/link_levels.bin", std::filesystem::copy_options::overwrite_existing);
    CHECK(LinkHeatmapModel::loadOrBuild(snapB, b, none)->rows().size()
        == LinkHeatmapModel::build(snapB, none)->rows().size());
}
