// SPDX-License-Identifier: MIT
// Views at scale (#15). The topology's host row: hosts too narrow to tell apart are one block per group of hosts
// cabled to the same leaves, with their count and range; a double-click zooms in until each host is a named box.
// The postmortem render of a 16,384-rank job: the stall over every row, the culprit marked.
#include "analysis/analysis.h"
#include "render/postmortem_render.h"
#include "sim/config.h"
#include "test_support.h"
#include "topology/topology_widget.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QTest>

using namespace stallscope;
using namespace stallscope::test;

namespace {

// Checks what a person would read: every label inside the view, no two overlapping.
void requireReadable(const std::vector<SwitchLabel>& labels, int viewW)
{
    for (std::size_t i = 0; i < labels.size(); ++i) {
        INFO(labels[i].text.toStdString());
        CHECK(labels[i].rect.left() >= 0);
        CHECK(labels[i].rect.right() <= viewW);
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            CHECK_FALSE(labels[i].rect.intersects(labels[j].rect));
        }
    }
}

} // namespace

TEST_CASE(
    "at 2048 ranks hosts are blocks per pod with their count, and a double-click names a block's hosts", "[widget]")
{
    auto config = tinyConfig();
    config.hosts = 256; // 2,048 ranks in four pods of 64 hosts
    config.pods = 4;
    config.spines = 4;
    config.cores = 4;
    config.durationNs = 30 * kNsPerSec;
    config.faults[0].atNs = 15 * kNsPerSec;
    const SimResult sim = simulateOrFail(config);
    auto analysis = std::make_shared<AnalysisResult>(analyze(*sim.snapshot));
    REQUIRE(!analysis->incidents.empty());
    REQUIRE(analysis->incidents[0].culprit);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    TopologyWidget w(&state);
    w.resize(700, 500);
    w.setData(sim.snapshot, analysis);
    state.selectIncident(1);
    state.setCursor(analysis->incidents[0].startNs + 500 * kNsPerMs);

    // 256 hosts on ~670 px: 2.6 px each, too narrow for a name or a click.
    REQUIRE(w.hostsCompact());
    CHECK(w.hostBlockCount() == 4);
    const auto blocks = w.hostLabelsOnScreen();
    REQUIRE(blocks.size() == 4);
    for (const auto& label : blocks) {
        CHECK(label.inside);
        CHECK(label.text.startsWith(QStringLiteral("64 hosts")));
    }
    requireReadable(blocks, w.width());

    // The culprit's host is drawn in the stall colour inside its block.
    const auto& link = sim.snapshot->topology.link(analysis->incidents[0].culprit->link);
    const auto hca = sim.snapshot->topology.node(link.a.node).kind == NodeKind::Hca ? link.a.node : link.b.node;
    const auto at = w.nodeOnScreen(hca);
    REQUIRE(at);
    const QImage img = w.renderImage(w.size());
    const QColor down(0xd5, 0x5e, 0x00);
    int marked = 0;
    for (int dx = -2; dx <= 2; ++dx) {
        const QColor c = img.pixelColor(int(at->x()) + dx, int(at->y()) + 9);
        marked += std::abs(c.red() - down.red()) < 30 && std::abs(c.green() - down.green()) < 30
            && std::abs(c.blue() - down.blue()) < 30;
    }
    CHECK(marked >= 2);

    // A double-click on the culprit's block: its 64 hosts become boxes with names, none overlapping.
    int block = 0;
    while (block < 4
        && !(blocks[std::size_t(block)].rect.left() <= at->x() && at->x() <= blocks[std::size_t(block)].rect.right())) {
        ++block;
    }
    REQUIRE(block < 4);
    QTest::mouseDClick(&w, Qt::LeftButton, {}, blocks[std::size_t(block)].rect.center().toPoint());
    CHECK(w.zoom() > 1.0);
    REQUIRE_FALSE(w.hostsCompact());
    const auto names = w.hostLabelsOnScreen();
    CHECK(names.size() >= 4);
    for (const auto& label : names) {
        CHECK_FALSE(label.inside);
        CHECK(label.text.startsWith(QStringLiteral("gpu-")));
    }
    requireReadable(names, w.width());
    // The culprit's host is on screen, inside the view, once the block fills it.
    const auto zoomedAt = w.nodeOnScreen(hca);
    REQUIRE(zoomedAt);
    CHECK(zoomedAt->x() >= 0);
    CHECK(zoomedAt->x() <= w.width());
    // A double-click on empty space returns to the whole fabric, blocks again.
    QTest::mouseDClick(&w, Qt::LeftButton, {}, QPoint(4, 4));
    CHECK(w.zoom() == 1.0);
    CHECK(w.hostsCompact());
}

TEST_CASE(
    "a 16384-rank postmortem render shows the stall over every row and marks the culprit link", "[widget][render]")
{
    auto config = *presetConfig("hourly-flap"); // the job: 2,048 hosts under 32 spines, here 40 s of it
    config.hosts = 2048;
    config.spines = 32;
    config.durationNs = 40 * kNsPerSec;
    config.faults = { parseFaultSpec("flap:host-leaf:rank=1234:at=20s:for=2s").value() };
    const SimResult sim = simulateOrFail(config);
    REQUIRE(sim.snapshot->collectives.size() == 16384);
    auto analysis = std::make_shared<AnalysisResult>(analyze(*sim.snapshot));
    REQUIRE(analysis->incidents.size() == 1);
    REQUIRE(analysis->incidents[0].culprit);
    const RenderInputs in { sim.snapshot, analysis, HeatmapModel::recordsOnly(sim.snapshot, {})->withStalls(*analysis),
        nullptr, nullptr };
    RenderRequest req;
    req.incident = 1;
    for (const bool dark : { false, true }) {
        INFO((dark ? "dark" : "light"));
        req.dark = dark;
        QImage img(req.size, QImage::Format_RGB32);
        {
            QPainter p(&img);
            renderComposite(p, in, req);
        }
        const QColor down(0xd5, 0x5e, 0x00);
        const auto isDown = [&](int x, int y) {
            const QColor c = img.pixelColor(x, y);
            return std::abs(c.red() - down.red()) < 30 && std::abs(c.green() - down.green()) < 30
                && std::abs(c.blue() - down.blue()) < 30;
        };
        // The heatmap (left, under the title): columns in the stall colour from top to bottom of the rows.
        int band = 0;
        for (int x = 60; x < 1100; ++x) {
            int n = 0;
            for (int y = 90; y < 520; ++y) {
                n += isDown(x, y);
            }
            band += n >= 430 * 95 / 100;
        }
        CHECK(band > 200); // a 4 s stall in a window of about 9 s on ~1,050 columns
        // The topology (right): the culprit's line, its leaf outlined and its host's mark in the stall colour.
        int marked = 0;
        for (int x = 1130; x < req.size.width(); ++x) {
            for (int y = 40; y < 850; ++y) {
                marked += isDown(x, y);
            }
        }
        CHECK(marked > 400);
    }
}

TEST_CASE("the fabric legend wraps at a dock's width, and find zooms to a host among thousands", "[widget]")
{
    // #45: "normal idle congested erroring down degraded" ran off the dock's right edge, and find outlined a
    // host on a sub-pixel sliver without zooming to it.
    auto config = tinyConfig();
    config.hosts = 256;
    config.pods = 4;
    config.spines = 4;
    config.cores = 4;
    config.durationNs = 30 * kNsPerSec;
    config.faults[0].atNs = 15 * kNsPerSec;
    const SimResult sim = simulateOrFail(config);
    ViewState state;
    state.setSpan(sim.snapshot->job.span);
    TopologyWidget w(&state);
    w.setData(sim.snapshot, std::make_shared<AnalysisResult>(analyze(*sim.snapshot)));
    for (const int width : { 900, 260 }) {
        w.resize(width, 400);
        const auto legend = w.legendRects();
        REQUIRE(legend.size() >= 5);
        for (const auto& r : legend) {
            CHECK(r.left() >= 0);
            CHECK(r.right() <= width);
            CHECK(r.bottom() <= 400);
        }
        const bool wrapped = legend.back().top() > legend.front().top();
        CHECK(wrapped == (width == 260));
    }
    w.resize(700, 500);
    REQUIRE(w.hostsCompact());
    const auto& topo = sim.snapshot->topology;
    std::optional<NodeId> host;
    for (std::uint32_t i = 0; i < topo.nodes().size() && !host; ++i) {
        if (sim.snapshot->str(topo.nodes()[i].host) == "gpu-a200") {
            host = static_cast<NodeId>(i);
        }
    }
    REQUIRE(host);
    CHECK(w.setSearch(QStringLiteral("gpu-a200")) == 1);
    CHECK_FALSE(w.hostsCompact()); // zoomed until hosts are boxes of their own
    const auto at = w.nodeOnScreen(*host);
    REQUIRE(at);
    CHECK(at->x() > 100);
    CHECK(at->x() < 600);
}

TEST_CASE("the fabric view takes the job's link states as given and keeps them through the job's stages",
    "[widget][topology]")
{
    const auto snap = simulateOrFail(tinyConfig()).snapshot;
    const auto analysis = std::make_shared<AnalysisResult>(analyze(*snap));
    ViewState state;
    TopologyWidget w(&state);
    // Given by the loader (built off the GUI thread): used as they are.
    const auto given = std::make_shared<const LinkStates>(snap);
    w.setData(snap, nullptr, given);
    CHECK(w.linkStates() == given.get());
    // The same job's next stage, its analysis shown or hidden, the bundling toggled: not built again.
    w.setData(snap, analysis);
    CHECK(w.linkStates() == given.get());
    w.setBundling(false);
    CHECK(w.linkStates() == given.get());
    // Another job: its own states, built here when none are given.
    const auto other = simulateOrFail(tinyConfig()).snapshot;
    w.setData(other, nullptr);
    REQUIRE(w.linkStates() != nullptr);
    CHECK(w.linkStates() != given.get());
    CHECK(w.linkStates()->linkCount() == other->topology.links().size());
    w.setData(nullptr, nullptr);
    CHECK(w.linkStates() == nullptr);
    // The loader's first stage: the states are being built; nothing is built here, the view draws, and they arrive.
    w.setData(other, nullptr, nullptr, true);
    CHECK(w.linkStates() == nullptr);
    w.resize(900, 600);
    CHECK(!w.renderImage(QSize(900, 600)).isNull());
    const auto later = std::make_shared<const LinkStates>(other);
    w.setLinkStates(later);
    CHECK(w.linkStates() == later.get());
    w.setData(other, analysis); // the job's next stage keeps them
    CHECK(w.linkStates() == later.get());
}
