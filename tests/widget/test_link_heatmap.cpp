// SPDX-License-Identifier: MIT
// The fabric views offscreen (issue #13): the link × time model keeps every flap at any zoom, the rendered link
// heatmap shows the hourly flapper's row in the down colour once per flap and no healthy row at all (light and
// dark, 1,024 links), the Flaps panel lists the review and selecting a row selects the link.
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "heatmap/link_heatmap_widget.h"
#include "panels/flaps_panel.h"
#include "test_support.h"
#include "theme.h"
#include "time_ruler.h"
#include "time_ticks.h"
#include "view/link_heatmap_model.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QTest>

#include <set>

using namespace stallscope;
using namespace stallscope::test;

namespace {

constexpr TimeNs kHour = 3600 * kNsPerSec;

// Two days of a fabric without a job: an uplink flapping every hour, a host link once, an uplink retraining.
SimConfig fabricDays(std::uint32_t hosts, std::uint32_t spines)
{
    auto c = *presetConfig("fabric-week");
    c.hosts = hosts;
    c.spines = spines;
    c.durationNs = 48 * kHour;
    c.faults = { parseFaultSpec("flap:leaf-spine:leaf=3:spine=1:at=30m:for=2s:every=1h:jitter=3s").value(),
        parseFaultSpec("flap:host-leaf:rank=20:at=20h:for=2s").value(),
        parseFaultSpec("errors:leaf-spine:leaf=5:spine=2:at=5h:count=4:gap=20s:pause=200ms").value() };
    return c;
}

struct FabricFixture
{
    SimResult sim;
    std::shared_ptr<const LinkHeatmapModel> model;
    ViewState state;
    explicit FabricFixture(SimConfig c)
        : sim(simulateOrFail(c))
    {
        NullProgress none;
        model = LinkHeatmapModel::build(sim.snapshot, none);
        state.setSpan(sim.snapshot->job.span);
    }
    LinkId flapper() const { return sim.outages.front().link; }
    std::uint32_t rowOf(LinkId link) const
    {
        for (std::uint32_t r = 0; r < model->rows().size(); ++r) {
            if (model->rows()[r].link == link) {
                return r;
            }
        }
        FAIL("link not in the model");
        return 0;
    }
};

bool isDown(QRgb c, QRgb down)
{
    return std::abs(qRed(c) - qRed(down)) < 30 && std::abs(qGreen(c) - qGreen(down)) < 30
        && std::abs(qBlue(c) - qBlue(down)) < 30;
}

} // namespace

TEST_CASE("link heatmap model: every flap survives any zoom, healthy links never look down", "[widget][fabric]")
{
    FabricFixture f(fabricDays(16, 4));
    const auto& rows = f.model->rows();
    CHECK(rows.size() == f.sim.snapshot->topology.links().size());
    std::size_t flaps = 0;
    for (const auto& o : f.sim.outages) {
        flaps += o.link == f.flapper();
    }
    const auto row = f.rowOf(f.flapper());
    CHECK(rows[row].downBuckets >= flaps);
    std::set<LinkId> faulty;
    for (const auto& o : f.sim.outages) {
        faulty.insert(o.link);
    }
    for (const auto& r : rows) {
        if (!faulty.count(*r.link)) {
            CHECK(r.downBuckets == 0);
            CHECK(r.errorBuckets == 0);
        }
    }
    // The whole two days in 300 columns: one down column (or two, at a boundary) per flap, nothing else.
    const auto span = f.sim.snapshot->job.span;
    for (const int columns : { 300, 2000 }) {
        std::vector<LinkCell> cells(static_cast<std::size_t>(columns));
        f.model->rasterizeRow(row, span, columns, cells.data());
        std::size_t runs = 0;
        for (int c = 0; c < columns; ++c) {
            runs += cells[std::size_t(c)] == LinkCell::Down && (c == 0 || cells[std::size_t(c - 1)] != LinkCell::Down);
        }
        CHECK(runs == flaps);
    }
    // Zoomed to one flap: down around it, not elsewhere in the window.
    const auto& o = f.sim.outages.front();
    LinkCell at = LinkCell::NoData, before = LinkCell::NoData;
    f.model->rasterizeRow(row, { o.downNs, o.downNs + kNsPerSec }, 1, &at);
    f.model->rasterizeRow(row, { o.downNs - 10 * 60 * kNsPerSec, o.downNs - 9 * 60 * kNsPerSec }, 1, &before);
    CHECK(at == LinkCell::Down);
    CHECK(before != LinkCell::Down);
    CHECK(f.model->order(LinkRowOrder::TroubleFirst).front() == row);
    // Levels cost a byte per link per bucket (× 4/3 for the pyramid): a small fraction of the counters' columns.
    std::uint64_t columns = 0;
    for (const auto& c : f.sim.snapshot->counters) {
        columns += c.size() * c.storageBytes;
    }
    CHECK(f.model->memoryBytes() * 8 < columns);
}

TEST_CASE("the link heatmap shows the hourly flapper among 1,024 links, light and dark", "[widget][fabric]")
{
    FabricFixture f(fabricDays(120, 8)); // 960 host links + 64 uplinks: a 2,048-port fabric
    REQUIRE(f.model->rows().size() == 1024);
    std::size_t flaps = 0;
    for (const auto& o : f.sim.outages) {
        flaps += o.link == f.flapper();
    }
    for (const bool dark : { false, true }) {
        LinkHeatmapWidget w(&f.state);
        w.setPalette(themePalette(dark));
        w.setModel(f.model);
        w.resize(1200, 500);
        const QImage img = w.renderImage(QSize(1200, 500));
        const QRect plot = w.plotRect();
        const QRgb down = LinkHeatmapWidget::cellColor(LinkCell::Down, themePalette(dark)).rgb();
        // The pixel rows showing the flapper: the rows whose hit-test names it.
        std::vector<int> flapperY, otherY;
        for (int y = plot.top(); y <= plot.bottom(); ++y) {
            const auto r = w.rowAt(QPoint(plot.left() + 1, y));
            REQUIRE(r);
            (f.model->rows()[*r].link == f.flapper() ? flapperY : otherY).push_back(y);
        }
        REQUIRE(flapperY.size() >= 3); // a trouble row keeps a few pixels among 1,024
        const int y = flapperY[flapperY.size() / 2];
        std::size_t runs = 0;
        for (int x = plot.left(); x <= plot.right(); ++x) {
            runs += isDown(img.pixel(x, y), down) && !isDown(img.pixel(x - 1, y), down);
        }
        CHECK(runs == flaps);
        // Down appears only on rows of links that went down (the flapper and the one-off host link): a pixel row
        // in the down colour shows such a link, or borders one (rows fold into their worst).
        const auto wentDown = [&](int py) {
            const auto r = w.rowAt(QPoint(plot.left() + 1, std::clamp(py, plot.top(), plot.bottom())));
            return r && f.model->rows()[*r].downBuckets > 0;
        };
        int strayRows = 0;
        for (const int oy : otherY) {
            bool anyDown = false;
            for (int x = plot.left(); x <= plot.right() && !anyDown; ++x) {
                anyDown = isDown(img.pixel(x, oy), down);
            }
            strayRows += anyDown && !wentDown(oy) && !wentDown(oy - 1) && !wentDown(oy + 1);
        }
        CHECK(strayRows == 0);
        // Clicking the flapper's row selects its link.
        QTest::mouseClick(&w, Qt::LeftButton, {}, QPoint(plot.left() + 40, y));
        REQUIRE(f.state.selectedLinks().size() == 1);
        CHECK(f.state.selectedLinks()[0] == f.flapper());
        f.state.clearLinks();
    }
}

TEST_CASE(
    "the Flaps panel lists the review, costliest first — a row selects its link and its latest flap", "[widget][fabric]")
{
    FabricFixture f(fabricDays(16, 4));
    auto review = std::make_shared<FabricReview>(reviewFabric(*f.sim.snapshot));
    FlapsPanel panel(&f.state);
    panel.setReview(f.sim.snapshot, review);
    REQUIRE(panel.rowCount() == int(review->flapping.size() + review->erroring.size()));
    REQUIRE(review->flapping.size() == 2);
    CHECK(panel.headerText().startsWith(QStringLiteral("2 links went down, 1 only erred")));
    CHECK(panel.cellText(0, 3).startsWith(QStringLiteral("every 1h00m00s")));
    CHECK(panel.cellText(1, 3).startsWith(QStringLiteral("once")));
    CHECK(panel.cellText(2, 3).startsWith(QStringLiteral("never down: 4 retrains")));
    panel.selectRow(0);
    REQUIRE(f.state.selectedLinks().size() == 1);
    CHECK(f.state.selectedLinks()[0] == f.flapper());
    CHECK(f.state.cursor() == review->flapping[0].flaps.back().timeNs());
}

TEST_CASE("the name of a link that went down ends clear of the gutter's marks", "[widget][fabric]")
{
    FabricFixture f(fabricDays(16, 4));
    LinkHeatmapWidget w(&f.state);
    w.setModel(f.model);
    const QImage img = w.renderImage(QSize(1200, 500));
    const QRgb down = LinkHeatmapWidget::cellColor(LinkCell::Down, w.palette()).rgb();
    int named = 0, touching = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < kTimeGutterPx - 14; ++x) {
            named += isDown(img.pixel(x, y), down);
        }
        for (int x = kTimeGutterPx - 11; x < kTimeGutterPx - 6; ++x) { // between the name and the down bar
            touching += isDown(img.pixel(x, y), down);
        }
    }
    CHECK(named > 20); // the flapping link is named in the down colour
    CHECK(touching == 0);
}

TEST_CASE("the Flaps panel says one link went down in the singular", "[widget][fabric]")
{
    auto sim = simulateOrFail(tinyConfig());
    auto review = std::make_shared<FabricReview>(reviewFabric(*sim.snapshot));
    REQUIRE(review->flapping.size() == 1);
    ViewState state;
    FlapsPanel panel(&state);
    panel.setReview(sim.snapshot, review);
    CHECK(panel.headerText().startsWith(QStringLiteral("1 link went down, ")));
}

TEST_CASE("the Flaps panel says when the job ran through a link's flaps without a stall", "[widget][fabric]")
{
    // Under adaptive routing a leaf-spine flap that finds no data in flight costs the job nothing (formats.md §6b).
    auto config = tinyConfig();
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=3:spine=1:at=60s:for=2s:every=100s").value() };
    auto sim = simulateOrFail(config);
    auto review = std::make_shared<FabricReview>(reviewFabric(*sim.snapshot));
    noteJobStalls(*review, analyze(*sim.snapshot, AnalysisOptions {}), *sim.snapshot);
    REQUIRE(review->flapping.size() == 1);
    const auto& l = review->flapping[0];
    REQUIRE(l.flapsJobRanThrough > l.flapsJobStalledAt);
    ViewState state;
    FlapsPanel panel(&state);
    panel.setReview(sim.snapshot, review);
    CHECK_FALSE(panel.cellText(0, 3).contains(QStringLiteral("ran through"))); // said once, beside the price
    CHECK(panel.cellText(0, 6).endsWith(
        QStringLiteral("(this job: %1 of %2 stalled it)").arg(l.flapsJobStalledAt).arg(l.flapsJobRanThrough)));
    const auto cost = panel.cellToolTip(0, 6); // the GPU-h a day
    INFO(cost.toStdString());
    CHECK(cost.contains(QStringLiteral("per flap that finds data in flight")));
    CHECK(cost.contains(QStringLiteral("this job stalled at %1 of the %2 it ran through")
                            .arg(l.flapsJobStalledAt)
                            .arg(l.flapsJobRanThrough)));
}

TEST_CASE("the link heatmap's title range shows seconds, and milliseconds for a window of a few seconds", "[widget]")
{
    // #45: a 4.4 s window was titled "00:04 .. 00:04" (UTC cut to minutes); both heatmaps now use utcRange.
    FabricFixture f(fabricDays(16, 4));
    LinkHeatmapWidget w(&f.state);
    w.setModel(f.model);
    const TimeNs start = f.sim.snapshot->job.span.start + 4 * 60 * kNsPerSec;
    f.state.setWindow({ start, start + 4'400 * kNsPerMs });
    const QString range = QString::fromStdString(utcRange(start, start + 4'400 * kNsPerMs));
    INFO(w.headline().toStdString());
    CHECK(range.endsWith(QStringLiteral(":04:04.400 UTC"))); // the job starts on a whole second
    CHECK(w.headline().contains(range));
    CHECK(w.headline().contains(QStringLiteral("window 4.4s")));
}

TEST_CASE("with the analysis hidden the link heatmap's gutter names and marks no link that went down", "[widget]")
{
    // #45: in training the gutter named the flapping link in vermillion before Check.
    FabricFixture f(fabricDays(16, 4));
    LinkHeatmapWidget w(&f.state);
    w.setModel(f.model);
    w.resize(1000, 400);
    const QRgb down = LinkHeatmapWidget::cellColor(LinkCell::Down, w.palette()).rgb();
    const auto gutterDownPixels = [&] {
        const QImage img = w.renderImage(QSize(1000, 400));
        int n = 0;
        for (int y = w.plotRect().top(); y <= w.plotRect().bottom(); ++y) {
            for (int x = 0; x < w.plotRect().left(); ++x) {
                n += isDown(img.pixel(x, y), down);
            }
        }
        return n;
    };
    CHECK(gutterDownPixels() > 20);
    w.setCulpritMarksHidden(true);
    CHECK(gutterDownPixels() == 0);
    w.setCulpritMarksHidden(false);
    CHECK(gutterDownPixels() > 20);
}
