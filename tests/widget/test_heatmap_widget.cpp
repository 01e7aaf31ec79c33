// SPDX-License-Identifier: MIT
// The heatmap widget offscreen: zoom around the pointer, one cursor for all views, tooltips, and the
// rendered image showing a full-height stall band at the flap (#4).
// Over 600 lines as one file: the widget cases share the simulated jobs and helpers here, the topology's among them.
#include "analysis/analysis.h"
#include "panels/counter_plot_widget.h"
#include "heatmap/heatmap_palette.h"
#include "heatmap/heatmap_widget.h"
#include "import/open_job.h"
#include "panels/incidents_panel.h"
#include "panels/link_list_panel.h"
#include "sim/raw_writer.h"
#include "test_support.h"
#include "theme.h"
#include "time_ticks.h"
#include "topology/topology_widget.h"
#include "view/counter_plot_data.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QTableView>
#include <QThread>

#include <cmath>
#include <filesystem>
#include <limits>

#include <QApplication>
#include <QTest>
#include <QTextBrowser>
#include <QWheelEvent>

#include <numeric>

using namespace stallscope;
using namespace stallscope::test;

namespace {

struct Fixture
{
    SimResult sim = simulateOrFail(tinyConfig());
    std::shared_ptr<const AnalysisResult> analysis = std::make_shared<AnalysisResult>(analyze(*sim.snapshot));
    std::shared_ptr<const HeatmapModel> model;
    ViewState state;
    Fixture()
    {
        std::vector<TimeRange> stalls;
        for (const auto& inc : analysis->incidents) {
            stalls.push_back({ inc.startNs, inc.endNs });
        }
        NullProgress none;
        model = HeatmapModel::build(sim.snapshot, stalls, none);
        state.setSpan(sim.snapshot->job.span);
    }
};

// Columns of the plot where at least `share` of the rows have the stall colour.
std::vector<int> stallColumns(const QImage& img, const QRect& plot, QRgb stall, double share)
{
    std::vector<int> cols;
    for (int x = plot.left(); x <= plot.right(); ++x) {
        int n = 0;
        for (int y = plot.top(); y <= plot.bottom(); ++y) {
            const QRgb c = img.pixel(x, y);
            n += std::abs(qRed(c) - qRed(stall)) < 40 && std::abs(qGreen(c) - qGreen(stall)) < 40
                && std::abs(qBlue(c) - qBlue(stall)) < 40;
        }
        if (n >= share * plot.height()) {
            cols.push_back(x);
        }
    }
    return cols;
}

} // namespace

TEST_CASE("wheel zoom keeps the time under the pointer", "[widget]")
{
    Fixture f;
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 400);
    const auto before = f.state.window();
    const QPoint pos(w.plotRect().left() + 300, 200);
    const TimeNs atBefore = w.mapping().t(300);
    QWheelEvent wheel(
        pos, w.mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &wheel);
    const auto after = f.state.window();
    CHECK(after.delta() == Approx(double(before.delta()) * 0.8).epsilon(0.001));
    CHECK(std::llabs(w.mapping().t(300) - atBefore) <= TimeNs(w.mapping().nsPerPx()));
}

TEST_CASE("the hover time is shared by every view, and only a click pins the cursor", "[widget]")
{
    Fixture f;
    HeatmapWidget a(&f.state), b(&f.state);
    a.setModel(f.model, f.analysis);
    b.setModel(f.model, f.analysis);
    a.resize(800, 300);
    b.resize(600, 300);
    QMouseEvent move(QEvent::MouseMove, QPointF(a.plotRect().left() + 200, 100), QPointF(), Qt::NoButton, Qt::NoButton,
        Qt::NoModifier);
    QApplication::sendEvent(&a, &move);
    CHECK(f.state.cursor() == kNoTime); // hovering pins nothing
    const TimeNs t = f.state.hover();
    REQUIRE(t != kNoTime);
    CHECK(std::llabs(t - a.mapping().t(200.5)) <= 1);
    // View b draws the same cursor at the same relative position of its own (narrower) axis.
    const double relA = a.mapping().x(t) / double(a.plotRect().width());
    const double relB = b.mapping().x(t) / double(b.plotRect().width());
    CHECK(relB == Approx(relA).margin(0.002));
    const QPointF at(a.plotRect().left() + 300, 100);
    QMouseEvent press(QEvent::MouseButtonPress, at, QPointF(), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QMouseEvent release(QEvent::MouseButtonRelease, at, QPointF(), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&a, &press);
    QApplication::sendEvent(&a, &release);
    CHECK(std::llabs(f.state.cursor() - a.mapping().t(300.5)) <= 1);
}

TEST_CASE("the tooltip names rank, host, time and collective", "[widget]")
{
    Fixture f;
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 400);
    const auto& inc = f.analysis->incidents.at(0);
    f.state.setWindow({ inc.startNs - kNsPerSec, inc.endNs + kNsPerSec });
    const int x = int(w.mapping().x(inc.startNs + (inc.endNs - inc.startNs) / 2));
    const QString tip = w.tooltipAt(QPoint(w.plotRect().left() + x, w.plotRect().top() + 1));
    CHECK(tip.contains(QStringLiteral("rank 0")));
    CHECK(tip.contains(QStringLiteral("gpu-a000")));
    CHECK(tip.contains(QStringLiteral("all_reduce")));
    CHECK(tip.contains(QStringLiteral("stalled")));
    CHECK(tip.contains(QStringLiteral("UTC")));
}

TEST_CASE("the rendered heatmap shows a full-height stall band at the flap, light and dark", "[widget]")
{
    Fixture f;
    for (const bool dark : { false, true }) {
        HeatmapWidget w(&f.state);
        w.setPalette(themePalette(dark));
        w.setModel(f.model, f.analysis);
        w.resize(1200, 600);
        const QImage img = w.renderImage(QSize(1200, 600));
        const QRect plot = w.plotRect();
        const auto stall = HeatmapPalette::fromPalette(themePalette(dark)).color(HeatCell { 255, 255, 0, 255 });
        const auto cols = stallColumns(img, plot, stall, 0.98);
        REQUIRE_FALSE(cols.empty());
        // Every full-height stall column lies on the incident, and the incident has one.
        const auto& inc = f.analysis->incidents.at(0);
        const auto map = w.mapping();
        for (int x : cols) {
            const TimeNs t0 = map.t(x - plot.left());
            const TimeNs t1 = map.t(x - plot.left() + 1);
            CHECK(t1 >= inc.startNs);
            CHECK(t0 <= inc.endNs);
        }
        // Nowhere else: no column away from the incident is mostly stalled.
        CHECK(stallColumns(img, plot, stall, 0.2).size() == cols.size());
    }
}

TEST_CASE("the counter tracks draw a line for each of the first 256 notes, however many a session holds", "[widget]")
{
    // Each line is a QCustomPlot item and registering items is quadratic: a session of 100,000 notes held `render`
    // past two minutes (now 2 s, the heatmap still marking every note).
    Fixture f;
    CounterPlotWidget plot(&f.state);
    plot.setSnapshot(f.sim.snapshot);
    const auto& inc = f.analysis->incidents.at(0);
    REQUIRE(inc.culprit.has_value());
    f.state.selectLink(inc.culprit->link);
    // QCustomPlot's items are QObjects under the plot: counted by class name, without QCustomPlot's header (which
    // only counter_plot_widget.cpp may include).
    const auto lines = [&] {
        int n = 0;
        for (const auto* o : plot.findChildren<QObject*>()) {
            n += QByteArray(o->metaObject()->className()) == "QCPItemStraightLine";
        }
        return n;
    };
    const auto rects = [&] {
        int n = 0;
        for (const auto* o : plot.findChildren<QObject*>()) {
            n += QByteArray(o->metaObject()->className()) == "QCPAxisRect";
        }
        return n;
    }();
    REQUIRE(rects > 0);
    const int base = lines();
    const auto notes = [&](int n) {
        std::vector<Annotation> a;
        for (int i = 0; i < n; ++i) {
            const TimeNs t = inc.startNs + i * 1'000'000LL;
            a.push_back({ t, t, std::nullopt, std::nullopt, "n" + std::to_string(i) });
        }
        const TimeNs far = std::numeric_limits<TimeNs>::min();
        a.insert(a.begin(), { far, far, std::nullopt, std::nullopt, "far" }); // drawn far off: no overflow
        f.state.setAnnotations(a);
        return lines() - base;
    };
    CHECK(notes(9) == 10 * rects);
    CHECK(notes(5000) == 256 * rects);
}

TEST_CASE("selecting a link plots its counters with the down interval shaded and the stall hatched", "[widget]")
{
    Fixture f;
    CounterPlotWidget plot(&f.state);
    plot.setSnapshot(f.sim.snapshot);
    CHECK(plot.plottedLinks() == 0);
    const auto& inc = f.analysis->incidents.at(0);
    REQUIRE(inc.culprit.has_value());
    f.state.selectLink(inc.culprit->link);
    CHECK(plot.plottedLinks() == 1);
    f.state.setWindow({ inc.startNs - 10 * kNsPerSec, inc.endNs + 10 * kNsPerSec });
    const QImage img = plot.renderImage(QSize(900, 360));
    // The shaded down interval (vermillion at ~35 % over the base colour) is visible.
    int shaded = 0;
    for (int y = 0; y < img.height(); y += 2) {
        for (int x = 0; x < img.width(); x += 2) {
            const QRgb c = img.pixel(x, y);
            shaded += qRed(c) > qBlue(c) + 40 && qRed(c) > 180;
        }
    }
    CHECK(shaded > 200);
    // The job's stall hatched over the tracks (it outlasts the outage: the retry that finds the link back).
    plot.setStalls(stallWindows(*f.analysis));
    const QImage hatched = plot.renderImage(QSize(900, 360));
    int changed = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x) {
            changed += img.pixel(x, y) != hatched.pixel(x, y);
        }
    }
    CHECK(changed > 1000);
    plot.setStalls({});
    CHECK(plot.renderImage(QSize(900, 360)) == img);
    const auto downs = linkDownIntervals(*f.sim.snapshot, inc.culprit->link);
    REQUIRE(downs.size() == 1);
    CHECK(std::llabs(downs[0].delta() - 2 * kNsPerSec) < 10 * kNsPerMs);
    // Rates across a window: traffic is zero inside the stall and positive outside.
    const auto& l = f.sim.snapshot->topology.link(inc.culprit->link);
    const auto* s = findSeries(
        *f.sim.snapshot, f.sim.snapshot->topology.node(l.a.node).guid, l.a.port, CounterKind::PortXmitData);
    REQUIRE(s != nullptr);
    const auto pts = counterRate(*s, { inc.startNs - 10 * kNsPerSec, inc.endNs + 10 * kNsPerSec }, 800, 4.0, 0);
    REQUIRE(pts.keys.size() > 10);
    CHECK(*std::max_element(pts.values.begin(), pts.values.end()) > 1e8);
    CHECK(*std::min_element(pts.values.begin(), pts.values.end()) == 0);
}

TEST_CASE("decimation keeps a one-sample spike at any zoom", "[widget]")
{
    std::vector<TimeNs> t;
    std::vector<std::uint64_t> v;
    std::uint64_t total = 0;
    for (int i = 0; i < 100000; ++i) {
        t.push_back(TimeNs(i) * kNsPerSec);
        total += i == 54321 ? 1000000 : 10;
        v.push_back(total);
    }
    CounterSeries s;
    s.bits = 64;
    s.storageBytes = 8;
    s.timesNs = t;
    s.values = v.data();
    const auto pts = counterRate(s, { 0, t.back() }, 500, 1.0, 0);
    CHECK(pts.keys.size() <= 2 * 500 + 2);
    CHECK(*std::max_element(pts.values.begin(), pts.values.end()) == Approx(1000000.0));
}

TEST_CASE("selecting the incident marks the culprit link in the topology view", "[widget]")
{
    Fixture f;
    TopologyWidget topo(&f.state);
    topo.setData(f.sim.snapshot, f.analysis);
    CHECK_FALSE(topo.markedLink().has_value());
    f.state.selectIncident(1);
    REQUIRE(topo.markedLink().has_value());
    const auto truthLink = f.sim.outages.at(0).link;
    CHECK(*topo.markedLink() == truthLink);
    // Link states at moments of the story.
    LinkStates states(f.sim.snapshot);
    const auto& o = f.sim.outages.at(0);
    CHECK(states.stateAt(truthLink, o.downNs + kNsPerSec) == LinkHealth::Down);
    CHECK(states.stateAt(truthLink, o.downNs - 30 * kNsPerSec) != LinkHealth::Down);
    const auto other = f.sim.snapshot->topology.linkAt({ *f.sim.snapshot->ranks[0].hcaNode, 1 });
    REQUIRE(other.has_value());
    CHECK(states.stateAt(*other, o.downNs + kNsPerSec) != LinkHealth::Down);
    // The rendered view shows the marked link in the "down" colour when the cursor sits in the outage.
    f.state.setCursor(o.downNs + kNsPerSec);
    const QImage img = topo.renderImage(QSize(700, 420));
    int down = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x) {
            const QRgb c = img.pixel(x, y);
            down += std::abs(qRed(c) - 0xd5) < 20 && std::abs(qGreen(c) - 0x5e) < 25 && qBlue(c) < 40;
        }
    }
    CHECK(down > 100);
}

TEST_CASE("ctrl+wheel zooms the rows, the link list filters and plots", "[widget]")
{
    Fixture f;
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 400);
    CHECK(w.visibleRows().second == 0); // all rows
    const QPoint pos(w.plotRect().left() + 100, w.plotRect().top() + 10);
    const auto window = f.state.window();
    QWheelEvent wheel(
        pos, w.mapToGlobal(pos), QPoint(), QPoint(0, 360), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &wheel);
    CHECK(w.visibleRows().second > 0);
    CHECK(w.visibleRows().second < 64);
    CHECK(f.state.window() == window); // the time window is untouched
    CHECK(w.rankAt(pos).has_value());

    LinkListPanel links(&f.state);
    links.setSnapshot(f.sim.snapshot);
    CHECK(links.visibleCount() == int(f.sim.snapshot->topology.links().size()));
    links.setFilter(QStringLiteral("gpu-a004 mlx5_5"));
    CHECK(links.visibleCount() == 1);
    links.setFilter(QStringLiteral("spine-02 leaf-r1"));
    CHECK(links.visibleCount() == 1);
    CHECK(links.degradedCount() == 0);
    // With the analysis, the incident's culprit leads the table as "down" (#45: the list showed no state).
    links.setFilter(QString());
    links.setSnapshot(f.sim.snapshot, f.analysis);
    CHECK(links.cellText(0, LinkListPanel::kState) == QStringLiteral("down"));
    CHECK(links.cellText(1, LinkListPanel::kState) == QStringLiteral("ok"));
    // In a dock as narrow as the window's default, the name keeps a readable width (tier and rate scroll).
    links.resize(240, 400);
    QCoreApplication::processEvents();
    CHECK(links.columnWidth(LinkListPanel::kLink)
        >= links.fontMetrics().horizontalAdvance(QStringLiteral("gpu-a000 mlx5_0 p1")));
    links.setFilter(QStringLiteral("down"));
    CHECK(links.visibleCount() == 1);
}

TEST_CASE("the link list puts a degraded link first, marked, and finds it by \"degraded\"", "[widget]")
{
    auto config = *presetConfig("small");
    config.durationNs = 60 * kNsPerSec;
    config.faults = { parseFaultSpec("degraded:leaf-spine:leaf=2:spine=1:width=1x").value() };
    NullProgress none;
    auto sim = simulate(config, none);
    REQUIRE(sim.ok());
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*sim->snapshot));
    REQUIRE(analysis->degradedLinks.size() == 1);
    ViewState state;
    LinkListPanel links(&state);
    links.setSnapshot(sim->snapshot, analysis);
    CHECK(links.degradedCount() == 1);
    CHECK(links.visibleCount() == int(sim->snapshot->topology.links().size()));
    links.setFilter(QStringLiteral("degraded"));
    CHECK(links.visibleCount() == 1);
    links.setFilter(QStringLiteral("1x"));
    CHECK(links.visibleCount() == 1);
    links.setFilter(QStringLiteral("leaf-r2 spine-02"));
    CHECK(links.visibleCount() == 1);
    // #45: a table, not a bare list — the degraded link's row leads with its tier, rate and state.
    links.setFilter(QString());
    CHECK(links.cellText(0, LinkListPanel::kLink).contains(QStringLiteral("leaf-r2")));
    CHECK(links.cellText(0, LinkListPanel::kTier) == QStringLiteral("leaf-spine"));
    CHECK(links.cellText(0, LinkListPanel::kRate).startsWith(QStringLiteral("1x")));
    CHECK(links.cellText(0, LinkListPanel::kState) == QStringLiteral("degraded"));
    CHECK(links.cellText(1, LinkListPanel::kState) == QStringLiteral("ok"));
    // The row under the pointer is the link: activating the first row (Enter, a double click) plots the degraded
    // link, found again by its GUID, which only its tooltip holds.
    auto* view = links.findChild<QTableView*>();
    REQUIRE(view);
    CHECK(view->model()
              ->data(view->model()->index(0, LinkListPanel::kLink), Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("trained at")));
    emit view->activated(view->model()->index(0, LinkListPanel::kRate));
    REQUIRE(state.selectedLinks().size() == 1);
    const auto link = state.selectedLinks().front();
    const auto& topo = sim->snapshot->topology;
    const auto guid = QString::fromStdString(formatGuid(topo.node(topo.link(link).a.node).guid));
    CHECK(links.cellText(0, LinkListPanel::kLink)
              .startsWith(QString::fromStdString(sim->snapshot->str(topo.node(topo.link(link).a.node).description))));
    links.setFilter(guid);
    const auto node = topo.link(link).a.node;
    const auto touching = std::count_if(
        topo.links().begin(), topo.links().end(), [&](const auto& l) { return l.a.node == node || l.b.node == node; });
    CHECK(links.visibleCount() == int(touching)); // every link of that switch, and no other
    // A click on a header sorts by that column; Rate puts the 1x link before every 4x one.
    links.setFilter(QString());
    view->sortByColumn(LinkListPanel::kRate, Qt::AscendingOrder);
    CHECK(links.cellText(0, LinkListPanel::kRate).startsWith(QStringLiteral("1x")));
    view->sortByColumn(LinkListPanel::kRate, Qt::DescendingOrder);
    CHECK(links.cellText(links.visibleCount() - 1, LinkListPanel::kRate).startsWith(QStringLiteral("1x")));
}

TEST_CASE("hourly-flap at 1,024 ranks: a full-height stall band at each flap and nowhere else", "[widget][slow]")
{
    NullProgress none;
    auto sim = simulate(*presetConfig("hourly-flap"), none);
    REQUIRE(sim.ok());
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*sim->snapshot));
    REQUIRE(analysis->incidents.size() == 2);
    std::vector<TimeRange> stalls;
    for (const auto& inc : analysis->incidents) {
        stalls.push_back({ inc.startNs, inc.endNs });
    }
    const auto model = HeatmapModel::build(sim->snapshot, stalls, none);
    ViewState state;
    state.setSpan(sim->snapshot->job.span);
    HeatmapWidget w(&state);
    w.setModel(model, analysis);
    w.resize(1600, 1100); // 1,024 ranks fit: about one pixel row each
    const QImage img = w.renderImage(QSize(1600, 1100));
    const QRect plot = w.plotRect();
    const auto stall = HeatmapPalette::fromPalette(w.palette()).color(HeatCell { 255, 255, 0, 255 });
    const auto cols = stallColumns(img, plot, stall, 0.99);
    const auto map = w.mapping();
    for (const auto& inc : analysis->incidents) {
        INFO("incident " << inc.number);
        const bool found = std::any_of(cols.begin(), cols.end(),
            [&](int x) { return map.t(x - plot.left() + 1) >= inc.startNs && map.t(x - plot.left()) <= inc.endNs; });
        CHECK(found);
    }
    for (int x : cols) {
        const TimeNs t0 = map.t(x - plot.left()), t1 = map.t(x - plot.left() + 1);
        CHECK(std::any_of(analysis->incidents.begin(), analysis->incidents.end(),
            [&](const Incident& inc) { return t1 >= inc.startNs && t0 <= inc.endNs; }));
    }
    // Zoomed to incident 1, the band fills the incident's columns top to bottom.
    const auto& inc = analysis->incidents[0];
    state.setWindow({ inc.startNs - 3 * kNsPerSec, inc.endNs + 3 * kNsPerSec });
    const QImage zoomed = w.renderImage(QSize(1600, 1100));
    const auto zoomedCols = stallColumns(zoomed, w.plotRect(), stall, 0.99);
    const double expected = double(inc.endNs - inc.startNs) / w.mapping().nsPerPx();
    CHECK(double(zoomedCols.size()) == Approx(expected).margin(3));
}

// #44: a rank with no collective record is unknown, not idle.
TEST_CASE("the unknown colour differs from every other state, light and dark, and is hatched", "[widget]")
{
    auto distance
        = [](QRgb a, QRgb b) { return std::hypot(qRed(a) - qRed(b), qGreen(a) - qGreen(b), qBlue(a) - qBlue(b)); };
    for (const bool dark : { false, true }) {
        INFO((dark ? "dark" : "light"));
        const auto pal = HeatmapPalette::fromPalette(themePalette(dark));
        HeatCell unknown {};
        unknown.present = 255;
        unknown.unrecorded = 255;
        HeatCell idle {};
        idle.present = 255;
        const QRgb u = pal.color(unknown);
        CHECK(u == pal.unknown.rgb());
        CHECK(u != pal.color(idle));
        // Apart from each state by its lightness or its hue (colour-blind safe: not by hue alone where it is close).
        CHECK(std::abs(QColor(u).lightness() - QColor(pal.color(idle)).lightness()) >= 20);
        CHECK(std::abs(QColor(u).lightness() - pal.background.lightness()) >= 20);
        // Computing (the rank ran, outside any collective) is not "no data" (the window's own colour).
        CHECK(std::abs(pal.computing.lightness() - pal.background.lightness()) >= 10);
        for (const QColor& other : { pal.background, pal.computing, pal.inside, pal.stalled, pal.held, pal.failed }) {
            INFO(other.name().toStdString());
            CHECK(distance(u, other.rgb()) >= 40);
        }
        // A failure, a stall or a hold of the rank (or of a recorded rank in the same folded row) outranks unknown.
        for (auto alarm : { &HeatCell::failed, &HeatCell::stalled, &HeatCell::held }) {
            HeatCell with = unknown, without = idle;
            with.*alarm = without.*alarm = 255;
            CHECK(pal.color(with) == pal.color(without));
            CHECK_FALSE(pal.isUnknown(with));
        }
        // The hatch: a line every kHatchPx along x + y, over unknown cells only.
        int lines = 0;
        for (int y = 0; y < 8; ++y) {
            for (int x = 0; x < 8; ++x) {
                lines += pal.colorAt(unknown, x, y, HeatmapPalette::kHatchPx) == pal.unknownHatch.rgb();
                CHECK(pal.colorAt(idle, x, y, HeatmapPalette::kHatchPx) == pal.color(idle));
            }
        }
        CHECK(lines == 64 / HeatmapPalette::kHatchPx);
        CHECK(distance(pal.unknownHatch.rgb(), u) >= 20);
        CHECK(distance(pal.unknownHatch.rgb(), pal.computing.rgb()) >= 40);
    }
}

TEST_CASE("a folder with some ranks' dumps draws the others unknown, never computing, and says why", "[widget]")
{
    constexpr std::uint32_t kRecorded = 8;
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    writePartialRawFolder(*sim.snapshot, tmp.path(), kRecorded);
    auto job = openJob(tmp.str());
    REQUIRE(job);
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*job->snapshot));
    NullProgress none;
    const auto model = HeatmapModel::build(job->snapshot, stallWindows(*analysis), none);
    ViewState state;
    state.setSpan(job->snapshot->job.span);
    for (const bool dark : { false, true }) {
        INFO((dark ? "dark" : "light"));
        HeatmapWidget w(&state);
        w.setPalette(themePalette(dark));
        w.setModel(model, analysis);
        w.resize(1200, 600);
        const auto pal = HeatmapPalette::fromPalette(themePalette(dark));
        const QRect plot = w.plotRect();
        for (const auto metric : { HeatmapMetric::State, HeatmapMetric::TimeInCollectives }) {
            w.setMetric(metric);
            const QImage img = w.renderImage(QSize(1200, 600));
            const QRgb idle = metric == HeatmapMetric::State ? pal.computing.rgb() : HeatmapPalette::rampColor(0);
            int unknownRecorded = 0, unknownOthers = 0, idleOthers = 0;
            for (int y = plot.top(); y <= plot.bottom(); ++y) {
                const auto rank = w.rankAt(QPoint(plot.left(), y));
                REQUIRE(rank);
                for (int x = plot.left(); x <= plot.right(); ++x) {
                    const QRgb c = img.pixel(x, y);
                    const bool unknown = c == pal.unknown.rgb() || c == pal.unknownHatch.rgb();
                    (*rank < kRecorded ? unknownRecorded : unknownOthers) += unknown;
                    idleOthers += *rank >= kRecorded && c == idle;
                }
            }
            CHECK(unknownRecorded == 0);
            CHECK(unknownOthers > plot.width() * plot.height() / 2);
            CHECK(idleOthers == 0);
            // The legend explains the hatch: the unknown colours below the rows.
            int legend = 0;
            for (int y = plot.bottom() + 1; y < img.height(); ++y) {
                for (int x = 0; x < img.width(); ++x) {
                    legend += img.pixel(x, y) == pal.unknown.rgb();
                }
            }
            CHECK(legend > 0);
        }
        const int x = plot.left() + plot.width() / 4;
        auto rowOf = [&](std::uint32_t rank) { return plot.top() + int((rank + 0.5) * plot.height() / model->rows()); };
        const QString unrecorded = w.tooltipAt(QPoint(x, rowOf(20)));
        CHECK(unrecorded.contains(QStringLiteral("rank 20")));
        CHECK(unrecorded.contains(QStringLiteral("no collective record")));
        CHECK(unrecorded.contains(QStringLiteral("known from its log only")));
        CHECK_FALSE(w.tooltipAt(QPoint(x, rowOf(3))).contains(QStringLiteral("no collective record")));
    }
    // A full job's legend has no such entry (nor its colour anywhere).
    Fixture f;
    HeatmapWidget full(&f.state);
    full.setModel(f.model, f.analysis);
    full.resize(1200, 600);
    const QImage img = full.renderImage(QSize(1200, 600));
    const auto pal = HeatmapPalette::fromPalette(full.palette());
    int unknown = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x) {
            unknown += img.pixel(x, y) == pal.unknown.rgb();
        }
    }
    CHECK(unknown == 0);
}

TEST_CASE("colour by time in collectives, a host selected in the topology lights up its ranks", "[widget]")
{
    Fixture f;
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 500);
    const auto& inc = f.analysis->incidents.at(0);
    f.state.setWindow({ inc.startNs - 2 * kNsPerSec, inc.endNs + 2 * kNsPerSec });
    const QImage state = w.renderImage(QSize(900, 500));
    w.setMetric(HeatmapMetric::TimeInCollectives);
    const QImage ramp = w.renderImage(QSize(900, 500));
    CHECK(state != ramp);
    // Inside the stall every rank sits in the collective: the ramp's top colour (viridis yellow).
    const int x = w.plotRect().left() + int(w.mapping().x(inc.startNs + (inc.endNs - inc.startNs) / 2));
    const QRgb c = ramp.pixel(x, w.plotRect().center().y());
    CHECK(c == HeatmapPalette::rampColor(255));

    TopologyWidget topo(&f.state);
    topo.setData(f.sim.snapshot, f.analysis);
    topo.resize(700, 420);
    // Click the first host box: its 8 ranks are selected.
    const double hostW = (700 - 32) / 8.0;
    QTest::mouseClick(&topo, Qt::LeftButton, Qt::NoModifier, QPoint(16 + int(hostW / 2), int(420 * 0.78) + 9));
    CHECK(f.state.selectedRanks() == std::vector<std::uint32_t> { 0, 1, 2, 3, 4, 5, 6, 7 });
}

TEST_CASE("lateness colouring finds the straggler", "[widget]")
{
    auto c = tinyConfig();
    c.faults = { parseFaultSpec("slow-rank:rank=9:at=10s:factor=1.5").value() };
    const auto sim = simulateOrFail(c);
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*sim.snapshot));
    NullProgress none;
    const auto base = HeatmapModel::build(sim.snapshot, {}, none);
    CHECK_FALSE(base->hasLateness());
    const auto model = base->withLateness(*analysis);
    REQUIRE(model->hasLateness());
    CHECK(model->memoryBytes() > base->memoryBytes());
    const TimeAxisMapping map {
        { sim.snapshot->job.span.start + 30 * kNsPerSec, sim.snapshot->job.span.start + 90 * kNsPerSec }, 400
    };
    std::vector<HeatCell> cells;
    std::vector<std::uint32_t> order(64);
    std::iota(order.begin(), order.end(), 0u);
    model->rasterize(map, 64, order, cells);
    auto rowMaxLate = [&](int row) {
        int m = 0;
        for (int x = 0; x < 400; ++x) {
            m = std::max<int>(m, cells[std::size_t(row) * 400 + std::size_t(x)].late);
        }
        return m;
    };
    CHECK(rowMaxLate(9) >= quantizeLateness(200 * kNsPerMs)); // ~0.45 s late at the last bucket
    for (int r : { 0, 8, 10, 63 }) {
        CHECK(rowMaxLate(r) < quantizeLateness(60 * kNsPerMs)); // jitter and skew only
    }
    CHECK(quantizeLateness(0) == 0);
    CHECK(quantizeLateness(kNsPerSec) == 255);
}

TEST_CASE("a host expands into its HCAs, clicking one selects its rank", "[widget]")
{
    Fixture f;
    TopologyWidget topo(&f.state);
    topo.setData(f.sim.snapshot, f.analysis);
    topo.resize(700, 420);
    const double hostW = (700 - 32) / 8.0;
    const QPoint host4(16 + int(hostW * 4.5), int(420 * 0.78) + 9); // gpu-a004
    QTest::mouseDClick(&topo, Qt::LeftButton, Qt::NoModifier, host4);
    CHECK(topo.expandedHost() == 4);
    // The HCA row sits under the hosts: 8 boxes centred; click the 6th (mlx5_5 = rank 37, the flapped one).
    const double boxW = std::min(70.0, (700 - 32.0) / 8 - 4);
    const double left = std::max(16.0, (700 - 8 * (boxW + 4)) / 2);
    QTest::mouseClick(
        &topo, Qt::LeftButton, Qt::NoModifier, QPoint(int(left + 5 * (boxW + 4) + boxW / 2), int(420 * 0.62) + 65));
    CHECK(f.state.selectedRanks() == std::vector<std::uint32_t> { 37 });
    REQUIRE(f.state.selectedLinks().size() == 1);
    CHECK(f.state.selectedLinks()[0] == f.sim.outages.at(0).link); // rank 37's HCA link: the flapped one
    const QImage img = topo.renderImage(QSize(700, 420));
    CHECK_FALSE(img.isNull());
    if (const char* dir = std::getenv("STALLSCOPE_TEST_IMAGES")) {
        img.save(QString::fromLocal8Bit(dir) + QStringLiteral("/topology-expanded.png"));
    }
    QTest::mouseDClick(&topo, Qt::LeftButton, Qt::NoModifier, QPoint(host4.x(), int(420 * 0.62) + 9));
    CHECK(topo.expandedHost() == -1);
}

TEST_CASE("heatmap time ticks sit on the wall-clock time their label says", "[widget]")
{
    // A job that starts at 00:00:00.566 UTC: the tick labelled "00:04:00" must be at 00:04:00.000, where the
    // counter plots (QCustomPlot, UTC) put it — not 0.566 s later.
    const TimeNs start = 1'793'491'200LL * kNsPerSec + 566 * kNsPerMs;
    for (const TimeNs step : { kNsPerSec, 10 * kNsPerSec, 60 * kNsPerSec, 3600 * kNsPerSec }) {
        const TimeNs t = firstTick(start + 239 * kNsPerSec, step);
        INFO(step);
        CHECK(t % step == 0);
        CHECK(t <= start + 239 * kNsPerSec);
        CHECK(t + step > start + 239 * kNsPerSec);
    }
    const TimeNs minute = firstTick(start + 239 * kNsPerSec, 60 * kNsPerSec) + 60 * kNsPerSec;
    CHECK(tickLabel(minute, 60 * kNsPerSec) == QStringLiteral("00:04:00"));
    CHECK(minute == 1'793'491'200LL * kNsPerSec + 240 * kNsPerSec);
}

TEST_CASE("rank rows are labelled with round numbers, never on top of each other", "[widget]")
{
    for (const std::uint32_t hosts : { 8u, 128u }) { // 64 and 1,024 ranks
        auto config = tinyConfig();
        config.hosts = hosts;
        config.spines = 8;
        config.durationNs = 60 * kNsPerSec;
        config.faults.clear();
        SimResult sim = simulateOrFail(config);
        NullProgress none;
        auto model = HeatmapModel::build(sim.snapshot, {}, none);
        ViewState state;
        state.setSpan(sim.snapshot->job.span);
        HeatmapWidget w(&state);
        w.setModel(model, nullptr);
        w.resize(900, 500);
        const auto labels = w.rankLabels();
        INFO(hosts * 8 << " ranks");
        REQUIRE(labels.size() >= 4);
        CHECK(labels.front().second == 0);
        const std::uint32_t step = labels[1].second - labels[0].second;
        CHECK((step == 1 || step == 2 || step == 5 || step == 10 || step == 20 || step == 50 || step == 100
            || step == 200 || step == 500));
        const double pxPerRow = double(w.plotRect().height()) / (hosts * 8);
        for (std::size_t i = 1; i < labels.size(); ++i) {
            CHECK(labels[i].second % step == 0);
            CHECK((labels[i].first - labels[i - 1].first) * pxPerRow >= 40);
        }
    }
}

TEST_CASE("the incident detail is a structured page whose evidence times move the cursor", "[widget]")
{
    Fixture f;
    IncidentsPanel panel(&f.state);
    panel.setAnalysis(f.sim.snapshot, f.analysis);
    REQUIRE(panel.rowCount() == 1);
    f.state.selectIncident(1);
    const auto text = panel.detailText();
    CHECK(text.contains(QStringLiteral("Incident 1")));
    CHECK(text.contains(QStringLiteral("under budget")));
    CHECK(text.contains(QStringLiteral("Evidence")));
    CHECK(text.contains(QStringLiteral("What if")));
    CHECK(text.contains(QStringLiteral("GPU-h")));
    auto* browser = panel.findChild<QTextBrowser*>();
    REQUIRE(browser);
    CHECK(browser->toHtml().contains(QStringLiteral("<table")));
    const auto& evidence = f.analysis->incidents[0].culprit->evidence;
    REQUIRE_FALSE(evidence.empty());
    const TimeNs t = evidence.back().timeNs;
    emit browser->anchorClicked(QUrl(QStringLiteral("t:%1").arg(t)));
    CHECK(f.state.cursor() == t);
    CHECK(f.state.window().start <= t);
    CHECK(f.state.window().end >= t);
}

TEST_CASE("an incident of a job no file gave a time is listed as \"time unknown\", not at the epoch", "[widget]")
{
    auto job = openJob((std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only" / "fr-trace").string());
    REQUIRE(job);
    std::shared_ptr<const JobSnapshot> snap = job->snapshot;
    REQUIRE(snap->job.untimed());
    ViewState state;
    IncidentsPanel panel(&state);
    panel.setAnalysis(snap, std::make_shared<AnalysisResult>(analyze(*snap)));
    REQUIRE(panel.rowCount() == 1);
    CHECK(panel.cellText(0, 1) == QStringLiteral("time unknown"));
    CHECK(panel.cellText(0, 2) == QStringLiteral("unknown"));
}

TEST_CASE("an incident found from a few ranks' records says so in the list and the detail", "[widget][partial]")
{
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    writePartialRawFolder(*sim.snapshot, tmp.path(), 8);
    auto job = openJob(tmp.str());
    REQUIRE(job);
    std::shared_ptr<const JobSnapshot> snap = job->snapshot;
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*snap));
    REQUIRE_FALSE(analysis->incidents.empty());
    REQUIRE(analysis->incidents[0].coverage.extrapolated);
    ViewState state;
    IncidentsPanel panel(&state);
    panel.setAnalysis(snap, analysis);
    const auto world = QString::number(analysis->incidents[0].ranksAffected);
    CHECK(panel.cellText(0, 3) == QStringLiteral("%1 (8 with records)").arg(world));
    state.selectIncident(1);
    CHECK(panel.detailText().contains(QStringLiteral("Coverage")));
    CHECK(panel.detailText().contains(QStringLiteral("seen on all 8 of 8 ranks with records")));

    SECTION("every rank's records: the plain count, no coverage row")
    {
        TempDir full;
        REQUIRE(writeRawFolder(*sim.snapshot, full.str()).empty());
        auto all = openJob(full.str());
        REQUIRE(all);
        const auto a = std::make_shared<AnalysisResult>(analyze(*all->snapshot));
        REQUIRE_FALSE(a->incidents.empty());
        panel.setAnalysis(all->snapshot, a);
        CHECK(panel.cellText(0, 3) == QString::number(a->incidents[0].ranksAffected));
        state.selectIncident(1);
        CHECK_FALSE(panel.detailText().contains(QStringLiteral("Coverage")));
    }
}

namespace {

// Four pods of 4 hosts (128 ranks), 8 spines per pod under 8 cores: 256 core links, the three-tier cases' fabric.
SimConfig fourPodConfig()
{
    auto config = tinyConfig();
    config.hosts = 16;
    config.pods = 4;
    config.spines = 8;
    config.cores = 8;
    return config;
}

} // namespace

TEST_CASE("the topology shows a spine-core culprit over every other link of a three-tier fabric", "[widget]")
{
    // Four pods of spines under eight cores: 256 core links drawn; the one that flapped must stay visible.
    auto config = fourPodConfig();
    config.faults = { parseFaultSpec("flap:spine-core:pod=2:spine=3:core=5:at=60s:for=2s:ar=off").value() };
    SimResult sim = simulateOrFail(config);
    auto analysis = std::make_shared<AnalysisResult>(analyze(*sim.snapshot));
    REQUIRE(analysis->incidents.size() == 1);
    REQUIRE(analysis->incidents[0].culprit);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    TopologyWidget w(&state);
    w.setData(sim.snapshot, analysis);
    state.selectIncident(1);
    state.setCursor(analysis->incidents[0].startNs + 500 * kNsPerMs); // inside the outage
    const QImage img = w.renderImage(QSize(700, 500));
    const QColor down(0xd5, 0x5e, 0x00);
    int n = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            n += std::abs(c.red() - down.red()) < 30 && std::abs(c.green() - down.green()) < 30
                && std::abs(c.blue() - down.blue()) < 30;
        }
    }
    // The culprit's line (~4 px wide over a spine-core span) and its two outlined switches.
    INFO(n << " pixels in the stall colour");
    CHECK(n > 600);
}

TEST_CASE("the topology of a three-tier fabric names its pods and bundles healthy switch links", "[widget]")
{
    auto config = fourPodConfig();
    SimResult sim = simulateOrFail(config);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    state.setCursor(sim.snapshot->job.span.start + 30 * kNsPerSec);
    TopologyWidget w(&state);
    w.setData(sim.snapshot, nullptr);
    REQUIRE(w.podCount() == 4);
    for (int pod = 0; pod < 4; ++pod) {
        CHECK(w.podName(pod) == QStringLiteral("leaf-p%1").arg(pod)); // named as the fabric names them
    }
    CHECK(w.bundled()); // 256 core links and 256 leaf-spine links
    // Ink between the core row and the spine row: 256 lines drawn one by one, or one bundle per pod and core.
    const auto ink = [&] {
        const QImage img = w.renderImage(QSize(700, 500));
        const QColor base = w.palette().color(QPalette::Base);
        int n = 0;
        for (int y = 45; y < 100; ++y) {
            for (int x = 0; x < img.width(); ++x) {
                n += img.pixelColor(x, y) != base;
            }
        }
        return n;
    };
    const int bundled = ink();
    w.setBundling(false);
    CHECK_FALSE(w.bundled());
    const int every = ink();
    INFO(bundled << " pixels bundled, " << every << " one by one");
    CHECK(bundled < every * 0.7);
    CHECK(bundled > 0);
}

TEST_CASE("on screen the heatmap rasterizes off the GUI thread, showing the last raster scaled meanwhile", "[widget]")
{
    Fixture f;
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 400);
    (void)w.grab(); // the first paint starts a job and returns: nothing to show yet but the axes
    CHECK(w.rasterPending());
    w.waitForRaster();
    CHECK_FALSE(w.rasterPending());
    const QRect plot = w.plotRect();
    const QImage whole = w.grab().toImage();
    const auto ink = [&](const QImage& img) {
        int n = 0;
        const QRgb base = img.pixel(1, 1); // the view's background
        for (int y = plot.top(); y <= plot.bottom(); y += 3) {
            for (int x = plot.left(); x <= plot.right(); x += 3) {
                n += img.pixel(x, y) != base;
            }
        }
        return n;
    };
    REQUIRE(ink(whole) > 0);
    // Zoom in to the middle half: the paint does not wait; it shows the previous raster stretched.
    const auto span = f.state.window();
    f.state.setWindow({ span.start + span.delta() / 4, span.end - span.delta() / 4 });
    const QImage placeholder = w.grab().toImage();
    CHECK(w.rasterPending());
    CHECK(ink(placeholder) > 0); // not a blank plot while the new raster is made
    w.waitForRaster();
    CHECK_FALSE(w.rasterPending());
    // Settled, on screen and as an image (renderImage rasterizes synchronously) the view is the same.
    const QImage settled = w.grab().toImage();
    const QImage rendered = w.renderImage(w.size());
    int differ = 0;
    for (int y = plot.top(); y <= plot.bottom(); y += 2) {
        for (int x = plot.left(); x <= plot.right(); x += 2) {
            differ += settled.pixel(x, y) != rendered.pixel(x, y);
        }
    }
    CHECK(differ == 0);
}

TEST_CASE("a window finer than the levels over many ranks is drawn coarse from the levels first, then fine", "[widget]")
{
    Fixture f; // 64 ranks: the threshold is lowered to them
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    w.resize(900, 400);
    (void)w.grab();
    w.waitForRaster();
    const QRect plot = w.plotRect();
    // Half a second around the middle: level 0's buckets (a few ms) are wider than two columns, so a fine frame
    // reads the records.
    const auto span = f.state.window();
    const TimeNs mid = span.start + span.delta() / 2;
    const auto waitForJob = [&] {
        for (int i = 0; i < 5000 && w.rasterPending(); ++i) {
            QCoreApplication::processEvents();
            QThread::msleep(1);
        }
        REQUIRE_FALSE(w.rasterPending());
    };
    const auto differing = [&](const QImage& a, const QImage& b) {
        int n = 0;
        for (int y = plot.top(); y <= plot.bottom(); ++y) {
            for (int x = plot.left(); x <= plot.right(); ++x) {
                n += a.pixel(x, y) != b.pixel(x, y);
            }
        }
        return n;
    };
    SECTION("at the usual threshold 64 ranks are drawn fine at once")
    {
        f.state.setWindow({ mid, mid + kNsPerSec / 2 });
        (void)w.grab();
        waitForJob();
        CHECK_FALSE(w.rasterCoarse());
    }
    SECTION("over the threshold the first frame is coarse, and the fine one follows as the image is")
    {
        w.setCoarseFirstRanks(64);
        f.state.setWindow({ mid, mid + kNsPerSec / 2 });
        (void)w.grab(); // starts the coarse job
        waitForJob();
        REQUIRE(w.rasterCoarse());
        const QImage coarse = w.grab().toImage(); // shows it, and starts the fine job
        CHECK(w.rasterPending());
        w.waitForRaster();
        CHECK_FALSE(w.rasterCoarse());
        const QImage fine = w.grab().toImage();
        CHECK(differing(fine, w.renderImage(w.size())) == 0);
        CHECK(differing(coarse, fine) > 0); // level 0's buckets, several columns wide
    }
}

TEST_CASE("the heatmap says how many ranks a pixel row folds when ranks outnumber pixels", "[widget]")
{
    Fixture f; // 64 ranks
    HeatmapWidget w(&f.state);
    w.setModel(f.model, f.analysis);
    CHECK(w.foldNote(400).isEmpty()); // 64 ranks on 400 px: a rank per row or more
    CHECK(w.foldNote(64).isEmpty());
    CHECK(w.foldNote(32) == QStringLiteral(", 2 ranks per pixel row (worst shown)"));
    CHECK(w.foldNote(30) == QStringLiteral(", 3 ranks per pixel row (worst shown)")); // rounded up
}

TEST_CASE("the topology zooms around the pointer, pans, and finds switches and hosts by name", "[widget]")
{
    auto config = fourPodConfig();
    SimResult sim = simulateOrFail(config);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    TopologyWidget w(&state);
    w.setData(sim.snapshot, nullptr);
    w.resize(700, 500);
    const auto& topo = sim.snapshot->topology;
    std::optional<NodeId> spine;
    for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
        if (topo.nodes()[i].kind == NodeKind::Switch && topo.nodes()[i].tier == 2) {
            spine = static_cast<NodeId>(i);
            break;
        }
    }
    REQUIRE(spine);
    const QPointF before = *w.nodeOnScreen(*spine);
    w.setZoom(4.0, before.x()); // the spine under the anchor stays there
    CHECK(w.zoom() == 4.0);
    CHECK(std::abs(w.nodeOnScreen(*spine)->x() - before.x()) < 1.0);
    // A drag pans: the spine moves with the pointer.
    QMouseEvent press(
        QEvent::MouseButtonPress, QPointF(350, 250), QPointF(350, 250), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &press);
    QMouseEvent move(
        QEvent::MouseMove, QPointF(300, 250), QPointF(300, 250), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &move);
    QMouseEvent release(
        QEvent::MouseButtonRelease, QPointF(300, 250), QPointF(300, 250), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &release);
    CHECK(std::abs(w.nodeOnScreen(*spine)->x() - (before.x() - 50)) < 1.0);
    // Find: the eight leaves of pod p3 (and no other node); the view pans to the first when it is off screen.
    CHECK(w.setSearch(QStringLiteral("LEAF-P3")) == 8);
    CHECK(w.setSearch(QStringLiteral("gpu-a001")) == 1); // a host once, not once per HCA
    const auto hostNode = [&] {
        for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
            if (sim.snapshot->str(topo.nodes()[i].host) == "gpu-a001") {
                return static_cast<NodeId>(i);
            }
        }
        return NodeId {};
    }();
    const double x = w.nodeOnScreen(hostNode)->x();
    CHECK(x >= 0);
    CHECK(x <= 700);
    CHECK(w.setSearch(QString()) == 0);
    // The same job's next stage (its analysis, its links' states) keeps the zoom and the pan; another job does not.
    const double zoomedX = w.nodeOnScreen(*spine)->x();
    const double zoom = w.zoom();
    REQUIRE(zoom > 1.0);
    w.setData(sim.snapshot, std::make_shared<const AnalysisResult>(analyze(*sim.snapshot)));
    CHECK(w.zoom() == zoom);
    CHECK(w.nodeOnScreen(*spine)->x() == zoomedX);
    w.setData(std::make_shared<const JobSnapshot>(*sim.snapshot), nullptr);
    CHECK(w.zoom() == 1.0);
    // Exports draw the whole fabric whatever the zoom on screen.
    w.setZoom(1.0, 0);
    const QImage whole = w.renderImage(QSize(700, 500));
    w.setZoom(8.0, 350);
    CHECK(w.renderImage(QSize(700, 500)) == whole);
}

TEST_CASE("switch names that do not fit their box keep their distinctive end, not an elided start", "[widget]")
{
    const QFontMetrics fm(QApplication::font());
    const auto fits = [&](const char* text) { return fm.horizontalAdvance(QString::fromLatin1(text)) + 1; };
    CHECK(fitSwitchName(QStringLiteral("spine-p2-02"), fm, fits("spine-p2-02")) == QStringLiteral("spine-p2-02"));
    CHECK(fitSwitchName(QStringLiteral("spine-p2-02"), fm, fits("p2-02")) == QStringLiteral("p2-02"));
    CHECK(fitSwitchName(QStringLiteral("spine-p2-02"), fm, fits("02")) == QStringLiteral("02"));
    CHECK(fitSwitchName(QStringLiteral("leaf_p5_r3"), fm, fits("r3")) == QStringLiteral("r3"));
    CHECK(fitSwitchName(QStringLiteral("spine-05"), fm, fits("05")) == QStringLiteral("05"));
    // Nothing left to drop: the last token elided, never the name's start.
    const auto tight = fitSwitchName(QStringLiteral("spine-p2-0123456"), fm, fits("0123"));
    CHECK(tight.startsWith(QStringLiteral("01")));
    CHECK(tight.endsWith(QChar(0x2026)));
}

TEST_CASE("switch labels: inside roomy boxes, every k-th number under a row too narrow for names, never overlapping",
    "[widget]")
{
    const QFontMetrics fm(QApplication::font());
    auto row = [](int n, const char* prefix) {
        QStringList names;
        for (int i = 1; i <= n; ++i) {
            names << QStringLiteral("%1-%2").arg(QLatin1String(prefix)).arg(i, 2, 10, QLatin1Char('0'));
        }
        return names;
    };
    auto centres = [](int n, double pitch) {
        std::vector<double> c;
        for (int i = 0; i < n; ++i) {
            c.push_back(20 + pitch * i);
        }
        return c;
    };
    const auto roomy = switchRowLabels(row(8, "spine"), centres(8, 100), 50, 60, fm);
    REQUIRE(roomy.size() == 8);
    CHECK(roomy[0].inside);
    CHECK(roomy[0].text == QStringLiteral("spine-01"));

    // 64 spines 10 px apart: boxes of 8 px hold no name. Their numbers go under the row, every k-th.
    const auto narrow = switchRowLabels(row(64, "spine"), centres(64, 10), 50, 8, fm);
    REQUIRE(narrow.size() >= 8);
    CHECK(narrow.size() < 64);
    CHECK_FALSE(narrow[0].inside);
    CHECK(narrow[0].text == QStringLiteral("01"));
    CHECK(narrow[0].rect.top() > 50 + 9); // under the boxes, not on them
    for (std::size_t i = 1; i < narrow.size(); ++i) {
        CHECK_FALSE(narrow[i].rect.intersects(narrow[i - 1].rect));
        CHECK(narrow[i].rect.width() >= fm.horizontalAdvance(narrow[i].text));
    }
    const auto step = narrow[1].text.toInt() - narrow[0].text.toInt();
    CHECK(step >= 2);
    CHECK(narrow.back().text.toInt() > 64 - step - 1); // the numbering reaches the end of the row
}

TEST_CASE("at 16 pods the topology's captions stand apart and each pod is numbered from its first switch", "[widget]")
{
    auto config = tinyConfig();
    config.hosts = 64; // four hosts in each of 16 pods
    config.pods = 16;
    config.spines = 4;
    config.cores = 8;
    SimResult sim = simulateOrFail(config);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    TopologyWidget w(&state);
    w.setData(sim.snapshot, nullptr);
    REQUIRE(w.podCount() == 16);
    // Numbers along a row read up within a pod and start again at the next: never "01 04 03 02".
    const auto numberedByPod = [](const std::vector<SwitchLabel>& labels) {
        for (std::size_t i = 1; i < labels.size(); ++i) {
            const auto v = labels[i].text.toInt(), before = labels[i - 1].text.toInt();
            if (v <= before && v != labels[0].text.toInt()) {
                return false;
            }
        }
        return true;
    };
    for (const QSize size : { QSize(520, 360), QSize(900, 500), QSize(1600, 700) }) {
        w.resize(size);
        INFO("topology " << size.width() << "x" << size.height());
        const auto pods = w.podCaptionsOnScreen();
        REQUIRE(pods.size() >= 2);
        for (std::size_t i = 0; i < pods.size(); ++i) {
            CHECK(pods[i].rect.left() >= 0);
            CHECK(pods[i].rect.right() <= size.width());
            for (std::size_t j = i + 1; j < pods.size(); ++j) {
                CHECK_FALSE(pods[i].rect.intersects(pods[j].rect));
            }
        }
        CHECK((pods[0].text == QStringLiteral("leaf-p0") || pods[0].text == QStringLiteral("p0")
            || pods[0].text == QStringLiteral("1")));
        for (const int tier : { 1, 2, 3 }) {
            const auto labels = w.switchLabelsOnScreen(tier);
            INFO("tier " << tier);
            REQUIRE_FALSE(labels.empty());
            for (std::size_t i = 1; i < labels.size(); ++i) {
                CHECK_FALSE(labels[i].rect.intersects(labels[i - 1].rect));
            }
            if (!labels[0].inside && tier == 2) {
                CHECK(numberedByPod(labels));
            }
        }
    }
    const QFontMetrics fm(QApplication::font());
    // Sixteen pods 30 px apart: the names collide, the part that tells them apart does not.
    QStringList names;
    std::vector<std::pair<double, double>> spans;
    for (int pod = 0; pod < 16; ++pod) {
        names << QStringLiteral("leaf-p%1").arg(pod);
        spans.emplace_back(10 + 30 * pod, 30 + 30 * pod);
    }
    const auto tight = podCaptions(names, spans, 100, 500, fm);
    REQUIRE(tight.size() == 16);
    CHECK(tight[5].text == QStringLiteral("p5"));
    // 6 px apart: only every k-th pod's number, from the first.
    for (int pod = 0; pod < 16; ++pod) {
        spans[std::size_t(pod)] = { 2 + 6 * pod, 6 + 6 * pod };
    }
    const auto sparse = podCaptions(names, spans, 100, 100, fm);
    REQUIRE(sparse.size() >= 2);
    CHECK(sparse.size() < 16);
    CHECK(sparse[0].text == QStringLiteral("1"));
    for (std::size_t i = 1; i < sparse.size(); ++i) {
        CHECK_FALSE(sparse[i].rect.intersects(sparse[i - 1].rect));
    }
}

TEST_CASE("a time range names the end's day only when it is another day", "[widget]")
{
    // A window rendered to the end of time read "2026-11-01 00:00:00.000 .. 23:47:16.854 UTC", as if one day.
    const TimeNs day = 86'400 * kNsPerSec;
    const TimeNs start = 1'793'491'200'000'000'000; // 2026-11-01 00:00:00 UTC
    CHECK(utcRange(start, start + 90 * kNsPerSec) == "2026-11-01 00:00:00 .. 00:01:30 UTC");
    CHECK(utcRange(start, start + 7 * day) == "2026-11-01 00:00:00 .. 2026-11-08 00:00:00 UTC");
    CHECK(utcRange(start, std::numeric_limits<TimeNs>::max()) == "2026-11-01 00:00:00 .. 2262-04-11 23:47:16 UTC");
    // #45: a 4.4 s window read "00:04 .. 00:04"; under ten seconds the ends keep their milliseconds.
    CHECK(utcRange(start + 240 * kNsPerSec, start + 244'400 * kNsPerMs)
        == "2026-11-01 00:04:00.000 .. 00:04:04.400 UTC");
}

TEST_CASE("both ends of a link stay visible where their counters are the same", "[widget]")
{
    // Two switch ports are sampled together and an all-reduce's traffic is symmetric, so a leaf-spine link's two
    // ends often report the same rates: the end drawn second hid the first (a core link at 16,384 ranks showed one
    // line for two ends in the legend).
    auto config = tinyConfig();
    config.faults = { parseFaultSpec("flap:leaf-spine:leaf=1:spine=2:at=60s:for=2s:ar=off").value() };
    const auto sim = simulateOrFail(config);
    const auto analysis = analyze(*sim.snapshot);
    REQUIRE(!analysis.incidents.empty());
    const auto& inc = analysis.incidents.at(0);
    REQUIRE(inc.culprit.has_value());
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    CounterPlotWidget plot(&state);
    plot.setSnapshot(sim.snapshot);
    state.selectLink(inc.culprit->link);
    state.setWindow({ inc.startNs - 10 * kNsPerSec, inc.endNs + 10 * kNsPerSec });
    const QImage img = plot.renderImage(QSize(900, 360));
    // Pixels of a colour below the title line (whose legend squares are drawn in each end's colour too).
    const auto count = [](const QImage& image, QRgb want) {
        int n = 0;
        for (int y = 30; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                const QRgb c = image.pixel(x, y);
                n += std::abs(qRed(c) - qRed(want)) < 30 && std::abs(qGreen(c) - qGreen(want)) < 30
                    && std::abs(qBlue(c) - qBlue(want)) < 30;
            }
        }
        return n;
    };
    const QRgb deepBlue = qRgb(0x00, 0x72, 0xb2), orange = qRgb(0xe6, 0x9f, 0x00), skyBlue = qRgb(0x56, 0xb4, 0xe9);
    const int a = count(img, deepBlue), b = count(img, orange); // Okabe–Ito: end A blue, end B orange
    INFO("end A pixels " << a << ", end B pixels " << b);
    CHECK(b > 300);
    CHECK(a > b / 2);
    // On a dark base end A is the lighter sky blue: the deep blue edge was faint there.
    plot.setPalette(themePalette(true));
    plot.setSnapshot(sim.snapshot); // the plot is laid out again in the new palette
    state.selectLink(inc.culprit->link);
    const QImage dark = plot.renderImage(QSize(900, 360));
    const int sky = count(dark, skyBlue), deep = count(dark, deepBlue);
    INFO("dark: sky blue pixels " << sky << ", deep blue " << deep);
    CHECK(sky > b / 2);
    CHECK(deep < sky / 10);
}

TEST_CASE("an all-zero counter track reads 0..1 with plain labels, not 5·10⁻¹⁰", "[widget]")
{
    // #45: the errors track of a healthy stretch was ranged to 1e-9 and labelled in powers of ten.
    Fixture f;
    CounterPlotWidget plot(&f.state);
    plot.setSnapshot(f.sim.snapshot);
    const auto& inc = f.analysis->incidents.at(0);
    REQUIRE(inc.culprit.has_value());
    f.state.selectLink(inc.culprit->link);
    f.state.setWindow({ f.sim.snapshot->job.span.start, f.sim.snapshot->job.span.start + 10 * kNsPerSec });
    REQUIRE(inc.startNs > f.sim.snapshot->job.span.start + 10 * kNsPerSec);
    plot.renderImage(QSize(900, 360));
    const QStringList errors = plot.yTickLabels(1); // errors/s: no link_downed or symbol error before the flap
    INFO(errors.join(QStringLiteral(" | ")).toStdString());
    REQUIRE(!errors.isEmpty());
    CHECK(errors.contains(QStringLiteral("0")));
    CHECK(errors.contains(QStringLiteral("1")));
    for (const auto& label : errors) {
        CHECK_FALSE(label.contains(QChar(0x00b7))); // the "·" of "5·10⁻¹⁰"
        CHECK_FALSE(label.contains(QLatin1Char('e')));
    }
}
