// SPDX-License-Identifier: MIT
// The simulator's per-host node files (`simulate --raw --node-files`: ibstat, dmesg, a /sys/class/infiniband
// copy): a folder holding only those and the topology names the flapping or degraded host port, and a healthy
// host's files name nothing.
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "analysis/node_findings.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

SimConfig scenario(const std::string& fault)
{
    auto c = *presetConfig("small");
    c.seed = 77;
    c.hosts = 8;
    c.durationNs = 240 * kNsPerSec;
    c.faults = { parseFaultSpec(fault).value() };
    return c;
}

// The host and HCA at the host end of a link.
std::pair<std::string, std::string> hostEnd(const JobSnapshot& snap, LinkId link)
{
    const auto& l = snap.topology.link(link);
    for (const auto end : { l.a, l.b }) {
        const auto& n = snap.topology.node(end.node);
        if (n.kind == NodeKind::Hca) {
            return { std::string(snap.str(n.host)), std::string(snap.str(n.hcaName)) };
        }
    }
    return {};
}

// Writes the raw folder with node files, then a folder of only nodes/ and ibnetdiscover.txt (and the hosts'
// collector CSVs when `withCounters`), opened as the CLI opens a folder.
LoadedJob openNodeFolder(const SimResult& sim, const TempDir& tmp, bool withCounters = false)
{
    RawWriteOptions options;
    options.nodeFiles = true;
    options.flightRecorder = false;
    const auto raw = tmp.path() / "raw";
    REQUIRE(writeRawFolder(*sim.snapshot, raw.string(), options).empty());
    const auto only = tmp.path() / "only-nodes";
    fs::create_directories(only);
    fs::copy(raw / "nodes", only / "nodes", fs::copy_options::recursive);
    // as `cp -a` copies: a sysfs copy is dated by its files' times
    for (const auto& e : fs::recursive_directory_iterator(raw / "nodes")) {
        if (e.is_regular_file()) {
            fs::last_write_time(only / fs::relative(e.path(), raw), e.last_write_time());
        }
    }
    fs::copy_file(raw / "ibnetdiscover.txt", only / "ibnetdiscover.txt");
    for (const auto& e : fs::directory_iterator(raw)) {
        if (withCounters && e.path().filename().string().starts_with("counters-")) {
            fs::copy_file(e.path(), only / e.path().filename());
        }
    }
    auto job = openJob(only.string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    return std::move(job.value());
}

std::vector<NodeFinding> findingsOf(const std::vector<NodeFinding>& all, const std::string& host)
{
    std::vector<NodeFinding> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out), [&](const auto& f) { return f.host == host; });
    return out;
}

bool has(const std::vector<NodeFinding>& fs, const std::string& kind, const std::string& port)
{
    return std::any_of(fs.begin(), fs.end(), [&](const auto& f) { return f.kind == kind && f.port == port; });
}

} // namespace

TEST_CASE("simulated node files of a host link flap name the flapping port and nothing on healthy hosts",
    "[core][import][sim][node_tools]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(scenario("flap:host-leaf:rank=37:at=100s:for=2s"));
    REQUIRE(sim.outages.size() == 1);
    const auto [host, device] = hostEnd(*sim.snapshot, sim.outages[0].link);
    REQUIRE_FALSE(host.empty());

    SECTION("with the hosts' counter samples, a count that did not rise while sampled is no finding")
    {
        const auto job = openNodeFolder(sim, tmp, true);
        const auto& snap = *job.snapshot;
        CHECK(std::count_if(snap.hostPorts.begin(), snap.hostPorts.end(), [](const HostPort& p) {
            return p.source == "sysfs";
        }) == 64);
        const auto all = findNodeProblems(snap);
        INFO(nodeFindingsText(all));
        const auto mine = findingsOf(all, host);
        CHECK(has(mine, "link_downed", device + "/1")); // its sysfs count rose once while sampled
        CHECK(has(mine, "kernel link down", "")); // the kernel's Port: 1 Link DOWN line
        // Every finding is on the flapping host; the link came back, so its ports are not down now.
        CHECK(std::all_of(all.begin(), all.end(), [&, h = host](const NodeFinding& f) { return f.host == h; }));
        CHECK_FALSE(has(mine, "port down", device + "/1"));

        const auto text = fabricReviewText(snap, reviewFabric(snap));
        CHECK_THAT(text, Catch::Contains("Node findings") && Catch::Contains("1 of the drops between"));
        // The copy is dated at the window's end and holds the register the collector read, so the review sees
        // one down, not a counter reset and a second flap.
        const auto review = reviewFabric(snap);
        REQUIRE(review.flapping.size() == 1);
        CHECK(review.flapping[0].flaps.size() == 1);
    }
    SECTION("from single readings alone, every count is shown, and only the flapping host has kernel lines")
    {
        const auto job = openNodeFolder(sim, tmp);
        const auto all = findNodeProblems(*job.snapshot);
        INFO(nodeFindingsText(all));
        const auto mine = findingsOf(all, host);
        CHECK(has(mine, "link_downed", device + "/1"));
        CHECK(has(mine, "kernel link down", ""));
        CHECK(std::all_of(all.begin(), all.end(), [&, h = host](const NodeFinding& f) {
            // counts from before the window, on healthy hosts: link drops, symbol errors above ibqueryerrors' 10
            return f.host == h || f.kind == "link_downed" || f.kind == "error counters";
        }));
    }
}

TEST_CASE(
    "simulated node files of a host link still down at the end show the port Down", "[core][import][sim][node_tools]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(scenario("flap:host-leaf:rank=12:at=100s:for=10m"));
    REQUIRE_FALSE(sim.outages.empty());
    const auto [host, device] = hostEnd(*sim.snapshot, sim.outages[0].link);
    const auto job = openNodeFolder(sim, tmp);
    const auto all = findNodeProblems(*job.snapshot);
    INFO(nodeFindingsText(all));
    CHECK(has(findingsOf(all, host), "port down", device + "/1"));
    CHECK(has(findingsOf(all, host), "link_downed", device + "/1"));
}

TEST_CASE("simulated node files of a degraded host link show it below its tier", "[core][import][sim][node_tools]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(scenario("degraded:host-leaf:rank=20:width=1x"));
    REQUIRE(sim.degradedLinks.size() == 1);
    const auto [host, device] = hostEnd(*sim.snapshot, sim.degradedLinks[0].second);
    const auto job = openNodeFolder(sim, tmp, true);
    const auto all = findNodeProblems(*job.snapshot);
    INFO(nodeFindingsText(all));
    CHECK(has(findingsOf(all, host), "below its tier", device + "/1"));
    CHECK(std::all_of(all.begin(), all.end(), [&, h = host](const NodeFinding& f) { return f.host == h; }));
}
