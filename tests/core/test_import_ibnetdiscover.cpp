// SPDX-License-Identifier: MIT
#include "import/infiniband/ibnetdiscover.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {
std::string data(const std::string& name)
{
    return readFile(std::string(STALLSCOPE_TEST_DATA_DIR) + "/" + name);
}

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
    auto r = parseIbnetdiscover("two-hosts.txt", data("ibnetdiscover/two-hosts.txt"), strings);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->warnings.empty());
    checkTwoHosts(r.value(), strings);
}

TEST_CASE("ibnetdiscover -p output becomes the same topology", "[core][import]")
{
    StringPool strings;
    auto r = parseIbnetdiscover("two-hosts-p.txt", data("ibnetdiscover/two-hosts-p.txt"), strings);
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
    auto text = data("ibnetdiscover/two-hosts.txt") + "garbage line\n";
    r = parseIbnetdiscover("z.txt", text, strings);
    REQUIRE(r.ok());
    REQUIRE(r->warnings.size() == 1);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("z.txt:") && Catch::Contains("unrecognised line"));
}
