// SPDX-License-Identifier: MIT
#include "analysis/analysis.h"
#include "import/infiniband/ibnetdiscover.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <map>

using namespace stallscope;
using namespace stallscope::test;

namespace {
void checkTwoHosts(const ImportedTopology& t, const StringPool& s)
{
    const auto& topo = t.topology;
    CHECK(topo.switchCount() == 2);
    CHECK(topo.hcaCount() == 2);
    CHECK(topo.links().size() == 3); // two host links and one uplink, each once
    const auto leaf = topo.findNodeByGuid(0xfc6a1c0300e4f000ULL);
    const auto spine = topo.findNodeByGuid(0xfc6a1c0300e5a000ULL);
    const auto ca = topo.findNodeByGuid(0x0c42a10300a1b2c4ULL);
    REQUIRE(leaf);
    REQUIRE(spine);
    REQUIRE(ca);
    CHECK(topo.node(*leaf).tier == 1);
    CHECK(topo.node(*spine).tier == 2);
    CHECK(s.str(topo.node(*ca).host) == "node017");
    CHECK(s.str(topo.node(*ca).hcaName) == "mlx5_3");
    CHECK(s.str(topo.node(*leaf).description) == "leaf-07 Quantum-2");
    const auto link = topo.linkAt({ *ca, 1 });
    REQUIRE(link);
    const auto& l = topo.link(*link);
    CHECK(l.a.node == *ca); // lower tier first
    CHECK(l.b.node == *leaf);
    CHECK(l.b.port == 1);
    CHECK(l.width == 4);
    CHECK(s.str(l.speed) == "NDR");
    const auto uplink = topo.linkAt({ *leaf, 33 });
    REQUIRE(uplink);
    CHECK(topo.link(*uplink).b.port == 12);
}
} // namespace

TEST_CASE("ibnetdiscover plain output becomes a topology", "[core][import]")
{
    StringPool strings;
    auto r = parseIbnetdiscover("two-hosts.txt", testData("ibnetdiscover/two-hosts.txt"), strings);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->warnings.empty());
    checkTwoHosts(r.value(), strings);
}

TEST_CASE("ibnetdiscover -p output becomes the same topology", "[core][import]")
{
    StringPool strings;
    auto r = parseIbnetdiscover("two-hosts-p.txt", testData("ibnetdiscover/two-hosts-p.txt"), strings);
    REQUIRE(r.ok());
    checkTwoHosts(r.value(), strings);
}

TEST_CASE("ibnetdiscover errors and warnings name the file and line", "[core][import]")
{
    StringPool strings;
    auto r = parseIbnetdiscover("x.txt", "[1]\t\"H-0c42a10300a1b2c4\"[1]\t# \"n mlx5_0\" lid 3 4xNDR\n", strings);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("x.txt:1:") && Catch::Contains("before any"));
    r = parseIbnetdiscover("y.txt", "hello\nworld\n", strings);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("y.txt") && Catch::Contains("no Switch/Ca nodes"));
    auto text = testData("ibnetdiscover/two-hosts.txt") + "garbage line\n";
    r = parseIbnetdiscover("z.txt", text, strings);
    REQUIRE(r.ok());
    REQUIRE(r->warnings.size() == 1);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("z.txt:") && Catch::Contains("unrecognised line"));
}

TEST_CASE("links trained at 1x among 4x, or whose ends disagree, are degraded, shared CA names stay apart",
    "[core][import][analysis]")
{
    JobSnapshot snap;
    auto r = parseIbnetdiscover("degraded-1x.txt", testData("ibnetdiscover/degraded-1x.txt"), snap.strings);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    snap.topology = std::move(r->topology);
    const auto& topo = snap.topology;
    CHECK(topo.hcaCount() == 4); // the two "MT4123 ConnectX6 Mellanox Technologies" CAs are two nodes
    CHECK(topo.links().size() == 8);
    const auto found = degradedLinks(snap);
    REQUIRE(found.size() == 2);
    std::map<std::string, DegradedLink> byLink;
    for (const auto& d : found) {
        byLink[d.a.node + ":" + std::to_string(d.a.port) + "-" + d.b.node + ":" + std::to_string(d.b.port)] = d;
    }
    REQUIRE(byLink.count("leaf-a:6-spine-b:1"));
    const auto& uplink = byLink["leaf-a:6-spine-b:1"];
    CHECK(uplink.gbps == Approx(50.0)); // 1 lane of HDR
    CHECK(uplink.usualGbps == Approx(200.0));
    CHECK_FALSE(uplink.endsDisagree);
    CHECK(uplink.why.find("lanes lost") != std::string::npos);
    REQUIRE(byLink.count("gpu-04 mlx5_0:1-leaf-b:2"));
    CHECK(byLink["gpu-04 mlx5_0:1-leaf-b:2"].endsDisagree);
    CHECK(byLink["gpu-04 mlx5_0:1-leaf-b:2"].gbps == Approx(50.0)); // the slower end's report is kept
}

TEST_CASE("lane rates follow the InfiniBand speeds, by name or by iblinkinfo's signalling rate", "[core][basics]")
{
    CHECK(laneDataGbps("SDR") == Approx(2.0));
    CHECK(laneDataGbps("QDR") == Approx(8.0));
    CHECK(laneDataGbps("FDR") == Approx(13.64));
    CHECK(laneDataGbps("EDR") == Approx(25.0));
    CHECK(laneDataGbps("NDR") == Approx(100.0));
    CHECK(laneDataGbps("2.5 Gbps") == Approx(2.0));
    CHECK(laneDataGbps("14.0625 Gbps") == Approx(13.64));
    CHECK(laneDataGbps("25.78125 Gbps") == Approx(25.0));
    CHECK(laneDataGbps("53.125 Gbps") == Approx(50.0));
    CHECK(laneDataGbps("") == 0);
    CHECK(laneDataGbps("fast") == 0);
    CHECK(laneDataGbps("7 Gbps") == 0);
}
