// SPDX-License-Identifier: MIT
// The rank heatmap's level 0 kept beside a bundle (issue #43: a first frame that need not read every record): read
// back it draws exactly what building it from the records draws; a file made from other records, cut short,
// damaged or of another version is refused (the levels are then built); a job whose logs add to its rows never
// uses one.
#include "bundle/reader.h"
#include "bundle/writer.h"
#include "test_support.h"
#include "view/heatmap_model.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::shared_ptr<const JobSnapshot> bundleOf(const SimConfig& c, const std::string& dir)
{
    const auto sim = simulateOrFail(c);
    REQUIRE(writeBundle(*sim.snapshot, dir).empty());
    auto loaded = loadBundle(dir);
    REQUIRE(loaded.ok());
    return loaded->snapshot;
}

// Every rank's row at the whole span and at a tenth of it, cell by cell (the stall overlay included).
void samePicture(const HeatmapModel& a, const HeatmapModel& b)
{
    REQUIRE(a.levels() == b.levels());
    REQUIRE(a.baseBuckets() == b.baseBuckets());
    REQUIRE(a.baseBucketNs() == b.baseBucketNs());
    const auto span = a.snapshot().job.span;
    const auto order = a.rowOrder(RowOrder::Rank);
    for (const auto w : { span, TimeRange { span.start, span.start + span.delta() / 10 } }) {
        const TimeAxisMapping map { w, 700 };
        std::vector<HeatCell> x, y;
        a.rasterize(map, static_cast<int>(order.size()), order, x);
        b.rasterize(map, static_cast<int>(order.size()), order, y);
        REQUIRE(x.size() == y.size());
        CHECK(std::memcmp(x.data(), y.data(), x.size() * sizeof(HeatCell)) == 0);
    }
}

void patch(const std::string& file, std::streamoff at, char byte)
{
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(at);
    f.put(byte);
}

} // namespace

TEST_CASE("rank levels kept beside a bundle draw what the records draw", "[core][view][heatmap]")
{
    TempDir tmp;
    const auto dir = tmp.str("b");
    const auto snap = bundleOf(tinyConfig(), dir);
    NullProgress none;
    const auto built = HeatmapModel::build(snap, {}, none);
    const auto file = dir + "/rank_levels.bin";
    REQUIRE(built->save(file).empty());
    std::string why;
    const auto loaded = HeatmapModel::load(snap, file, why);
    INFO(why);
    REQUIRE(loaded);
    CHECK(loaded->levelsFromFile());
    CHECK_FALSE(built->levelsFromFile());
    samePicture(*built, *loaded);
    // With the analysis' stalls laid over both, still the same picture.
    const TimeRange stall { snap->job.span.start + 60 * kNsPerSec, snap->job.span.start + 65 * kNsPerSec };
    samePicture(*built->withStalls({ stall }), *loaded->withStalls({ stall }));
    CHECK(HeatmapModel::loadOrBuild(snap, dir, none)->levelsFromFile());
}

TEST_CASE("rank levels made from other records, cut short, damaged or of another version are refused",
    "[core][view][heatmap][hostile]")
{
    TempDir tmp;
    const auto a = tmp.str("a");
    const auto b = tmp.str("b");
    const auto snapA = bundleOf(tinyConfig(), a);
    auto other = tinyConfig();
    other.seed = 9; // the same shape of job: same ranks, span and buckets, other records
    const auto snapB = bundleOf(other, b);
    NullProgress none;
    const auto fileA = a + "/rank_levels.bin";
    REQUIRE(HeatmapModel::build(snapA, {}, none)->save(fileA).empty());
    const auto size = std::filesystem::file_size(fileA);
    std::string why;

    // Another job's records: another span, so another size of level 0.
    CHECK_FALSE(HeatmapModel::load(snapB, fileA, why));
    CHECK_THAT(why, Catch::Contains("rank_levels.bin") && Catch::Contains("bytes where these records give"));

    // The same job with two ranks' records swapped (dumps named for the wrong rank): the same counts, span and size;
    // the records' digest differs.
    auto edited = std::make_shared<JobSnapshot>(*snapA);
    std::swap(edited->collectives[5], edited->collectives[6]);
    REQUIRE(edited->job.span.delta() == snapA->job.span.delta());
    CHECK_FALSE(HeatmapModel::load(edited, fileA, why));
    CHECK_THAT(why, Catch::Contains("header differs"));

    // Cut short.
    const auto cut = a + "/cut.bin";
    std::filesystem::copy_file(fileA, cut);
    std::filesystem::resize_file(cut, size - 100);
    CHECK_FALSE(HeatmapModel::load(snapA, cut, why));
    CHECK_THAT(why, Catch::Contains("bytes where these records give"));

    // One cell changed: the checksum no longer holds.
    const auto bad = a + "/bad.bin";
    std::filesystem::copy_file(fileA, bad);
    patch(bad, static_cast<std::streamoff>(size / 2), char(0x5a));
    CHECK_FALSE(HeatmapModel::load(snapA, bad, why));
    CHECK_THAT(why, Catch::Contains("checksum"));

    // Another version.
    const auto old = a + "/old.bin";
    std::filesystem::copy_file(fileA, old);
    patch(old, 8, char(9));
    CHECK_FALSE(HeatmapModel::load(snapA, old, why));
    CHECK_THAT(why, Catch::Contains("header differs"));

    // loadOrBuild falls back to building from the records: the right picture all the same.
    std::filesystem::copy_file(bad, b + "/rank_levels.bin", std::filesystem::copy_options::overwrite_existing);
    const auto rebuilt = HeatmapModel::loadOrBuild(snapB, b, none);
    CHECK_FALSE(rebuilt->levelsFromFile());
    samePicture(*rebuilt, *HeatmapModel::build(snapB, {}, none));
}

TEST_CASE("a job whose logs add to its rows builds its rank levels from its records and logs", "[core][view][heatmap]")
{
    TempDir tmp;
    const auto dir = tmp.str("b");
    const auto snap = bundleOf(tinyConfig(), dir);
    NullProgress none;
    REQUIRE(HeatmapModel::build(snap, {}, none)->save(dir + "/rank_levels.bin").empty());
    // The same job with rank 3's records gone (its dump missing): its row comes from what its log says, which the
    // file cannot hold.
    auto withLogs = std::make_shared<JobSnapshot>(*snap);
    withLogs->collectives[3] = RankCollectives {};
    std::string why;
    const auto loaded = HeatmapModel::load(withLogs, dir + "/rank_levels.bin", why);
    CHECK_FALSE(loaded);
    CHECK_THAT(why, Catch::Contains("logs add to its rows"));
    CHECK_FALSE(HeatmapModel::loadOrBuild(withLogs, dir, none)->levelsFromFile());
}
