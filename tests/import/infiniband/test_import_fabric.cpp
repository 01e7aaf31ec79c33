// SPDX-License-Identifier: MIT
// Fabric inputs captured from a real simulated fabric (tests/data/ibsim: ibsim + opensm + infiniband-diags,
// written by tests/fabric/fabric_capture.sh) and Prometheus expositions of the three exporter conventions.
#include "import/common/fabric_builder.h"
#include "import/common/sample_stamp.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/infiniband/opensm_log.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::string data(const std::string& name)
{
    return std::string(STALLSCOPE_TEST_DATA_DIR) + "/" + name;
}

struct Built
{
    StringPool strings;
    Topology topo;
    std::vector<LoadIssue> warnings;
};

std::optional<LinkId> linkBetween(const Topology& t, const StringPool& s, const std::string& a, int pa)
{
    for (std::uint32_t i = 0; i < t.nodes().size(); ++i) {
        if (s.str(t.nodes()[i].description) == a) {
            return t.linkAt({ static_cast<NodeId>(i), static_cast<std::uint16_t>(pa) });
        }
    }
    return std::nullopt;
}

} // namespace

TEST_CASE("ibnetdiscover captures: plain, ports report and a snapshot taken during a flap merge into one fabric",
    "[core][import][fabric]")
{
    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    for (const char* f : { "ibsim/ibnetdiscover-during.txt", "ibsim/ibnetdiscover-ports.txt" }) {
        auto r = readIbnetdiscover(data(f), readFile(data(f)), fabric, warnings);
        INFO((r ? "" : r.error().format()));
        REQUIRE(r.ok());
    }
    StringPool strings;
    auto topo = fabric.build(strings, "test", warnings);
    CHECK(warnings.empty());
    CHECK(topo.switchCount() == 4);
    CHECK(topo.hcaCount() == 8); // the ports report names CAs by port GUID: joined to the node by description
    CHECK(topo.links().size() == 12); // the link missing from the "during" snapshot comes from the other one
    CHECK(linkBetween(topo, strings, "leaf-r1", 5).has_value());
    // LIDs from the switch headers and the CA port lines: perfquery and iblinkinfo name ports by LID.
    REQUIRE(fabric.guidOfLid(6).has_value());
    CHECK(strings.str(topo.node(*topo.findNodeByGuid(*fabric.guidOfLid(6))).description) == "leaf-r1");
}

TEST_CASE("iblinkinfo captures: port states, links and the -l form", "[core][import][fabric]")
{
    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    auto during = readIblinkinfo(
        data("ibsim/iblinkinfo-during.txt"), readFile(data("ibsim/iblinkinfo-during.txt")), fabric, warnings);
    INFO((during ? "" : during.error().format()));
    REQUIRE(during.ok());
    CHECK(during->stampNs == 1793491301LL * kNsPerSec); // the capture's stamp line
    std::vector<std::pair<std::string, int>> down;
    StringPool strings;
    auto topo = fabric.build(strings, "test", warnings);
    for (const auto& p : during->ports) {
        if (!p.up) {
            down.emplace_back(std::string(strings.str(topo.node(*topo.findNodeByGuid(p.guid)).description)), p.port);
        }
    }
    std::sort(down.begin(), down.end());
    CHECK(down == std::vector<std::pair<std::string, int>> { { "leaf-r1", 5 }, { "spine-01", 2 } });
    CHECK(topo.links().size() == 11);
    FabricBuilder longForm;
    auto l = readIblinkinfo(
        data("ibsim/iblinkinfo-l-before.txt"), readFile(data("ibsim/iblinkinfo-l-before.txt")), longForm, warnings);
    REQUIRE(l.ok());
    StringPool s2;
    auto t2 = longForm.build(s2, "test", warnings);
    CHECK(t2.switchCount() == 4); // spines list two ports: their descriptions say switch
    CHECK(t2.hcaCount() == 8);
    CHECK(t2.links().size() == 12);
    CHECK(warnings.empty());
}

TEST_CASE("perfquery captures: stamped rounds of standard and extended counters", "[core][import][fabric]")
{
    std::vector<LoadIssue> warnings;
    auto r = readPerfquery(data("ibsim/perfquery.txt"), readFile(data("ibsim/perfquery.txt")), warnings);
    REQUIRE(r.ok());
    CHECK(warnings.empty());
    std::map<TimeNs, std::uint64_t> downed; // LID 6 (leaf-r1) port 5
    bool extended = false;
    for (const auto& s : r.value()) {
        REQUIRE(s.timeNs != kNoTime);
        extended = extended || s.extended;
        if (s.lid == 6 && s.port == 5 && s.kind == CounterKind::LinkDowned) {
            downed[s.timeNs] = s.value;
        }
    }
    CHECK(extended);
    REQUIRE(downed.size() == 5);
    CHECK(downed.begin()->second == 0);
    CHECK(downed.rbegin()->second == 1); // PerformanceSet during the flap
    CHECK(counterKindFromPerfName("XmtData") == CounterKind::PortXmitData); // old short names
    CHECK(counterKindFromPerfName("LinkDownedCounter") == CounterKind::LinkDowned);
    auto bad = readPerfquery(
        "p.txt", "# Port counters: Lid 1 port 1 (CapMask: 0x1300)\nLinkDownedCounter:....x7\n", warnings);
    CHECK_FALSE(bad.ok());
    REQUIRE_FALSE(warnings.empty());
    CHECK_THAT(warnings.back().format(), Catch::Contains("p.txt:2") && Catch::Contains("x7"));
}

TEST_CASE("stamp lines in every form a shell wrapper writes", "[core][import]")
{
    const TimeNs t = 1748779205LL * kNsPerSec;
    CHECK(parseSampleStamp("1748779205") == t);
    CHECK(parseSampleStamp("1748779205.5") == t + 500'000'000);
    CHECK(parseSampleStamp("1748779205000") == t);
    CHECK(parseSampleStamp("1748779205000000000") == t);
    CHECK(parseSampleStamp("# 2025-06-01T12:00:05+00:00") == t);
    CHECK(parseSampleStamp("2025-06-01T14:00:05+02:00") == t);
    CHECK(parseSampleStamp("2025-06-01 12:00:05.250000000Z") == t + 250'000'000);
    CHECK(parseSampleStamp("time: Sun Jun  1 12:00:05 UTC 2025") == t);
    CHECK_FALSE(parseSampleStamp("# HELP node_infiniband_link_downed_total x").has_value());
    CHECK_FALSE(parseSampleStamp("PortSelect:......................1").has_value());
}

TEST_CASE("Prometheus exposition: node_exporter, treydock and guilbaults conventions", "[core][import][prometheus]")
{
    FabricBuilder fabric;
    SECTION("node_exporter: host from node_uname_info, bytes back to words, bad lines named")
    {
        const auto f = data("prometheus/node-exporter-gpu-a017.prom");
        auto r = readPrometheusExposition(f, readFile(f), fabric);
        REQUIRE(r.ok());
        REQUIRE(r->points.size() == 3);
        CHECK(r->sample(0).host == "gpu-a017");
        CHECK(r->sample(0).device == "mlx5_3");
        CHECK(r->sample(0).value == 3);
        CHECK(r->sample(0).timeNs == 1748779205LL * kNsPerSec);
        CHECK(r->sample(2).kind == CounterKind::PortXmitData);
        CHECK(r->sample(2).value == 918232645501ULL); // 3.672930582004e12 bytes / 4
        REQUIRE(r->warnings.size() == 1);
        CHECK_THAT(r->warnings[0].format(), Catch::Contains("node-exporter-gpu-a017.prom:14"));
    }
    SECTION("treydock: info series describe the fabric, counters join by switch GUID")
    {
        const auto f = data("prometheus/treydock-switches.prom");
        auto r = readPrometheusExposition(f, readFile(f), fabric);
        REQUIRE(r.ok());
        CHECK(r->infoSeries == 4);
        REQUIRE(r->points.size() == 4);
        CHECK(r->sample(1).value == 3);
        CHECK(r->sample(1).timeNs == 1748779260LL * 1'000'000'000);
        CHECK(r->sample(2).value == 1000); // 4000 bytes
        CHECK_FALSE(r->undated);
        CHECK(r->warnings.size() == 1); // the line without its closing brace
        StringPool s;
        std::vector<LoadIssue> w;
        auto topo = fabric.build(s, f, w);
        CHECK(topo.switchCount() == 2);
        CHECK(topo.hcaCount() == 1);
        REQUIRE(topo.links().size() == 2);
        CHECK(linkBetween(topo, s, "leaf-07 Quantum-2", 33).has_value());
        CHECK(fabric.guidOfHca("gpu-a017 mlx5_3").has_value());
    }
    SECTION("guilbaults: every sample names its cable")
    {
        const auto f = data("prometheus/guilbaults-1748779200.prom");
        auto r = readPrometheusExposition(f, readFile(f), fabric);
        REQUIRE(r.ok());
        REQUIRE(r->points.size() == 3);
        CHECK(r->sample(0).kind == CounterKind::LinkDowned);
        CHECK(r->sample(0).timeNs == 1748779200LL * kNsPerSec);
        CHECK(r->sample(1).kind == CounterKind::SymbolError);
        CHECK(r->sample(2).value == 1000); // ibqueryerrors' data counters stay in 4-byte words
        StringPool s;
        std::vector<LoadIssue> w;
        auto topo = fabric.build(s, f, w);
        CHECK(topo.switchCount() == 2);
        CHECK(topo.hcaCount() == 1);
        CHECK(topo.links().size() == 2);
    }
    SECTION("nothing InfiniBand in it")
    {
        auto r = readPrometheusExposition("x.prom", "go_goroutines 12\n", fabric);
        CHECK_FALSE(r.ok());
    }
}

TEST_CASE("the OpenSM log of the real fabric: trap-128 notices with the switch GUID", "[core][import][fabric]")
{
    LogClock clock;
    clock.year = 2026;
    auto r = parseOpensmLog(data("ibsim/opensm.log"), readFile(data("ibsim/opensm.log")), clock);
    REQUIRE(r.ok());
    REQUIRE(r->traps.size() >= 2); // the flap's down and up, from the switches at both ends
    for (const auto& t : r->traps) {
        CHECK(t.lid > 0);
        CHECK(t.guid != 0); // from the log_notice line after each trap
    }
    CHECK(r->linkStateTraps == r->traps.size());
    // Every sweep ends in "SUBNET UP": once at start, then after each trap's sweep (routes reprogrammed).
    REQUIRE(r->subnetUp.size() >= 3);
    CHECK(std::is_sorted(r->subnetUp.begin(), r->subnetUp.end()));
    for (const auto& t : r->traps) {
        // A sweep finished after each trap, within a second on this small fabric (41 ms in the capture).
        const auto after = std::upper_bound(r->subnetUp.begin(), r->subnetUp.end(), t.timeNs);
        REQUIRE(after != r->subnetUp.end());
        CHECK(*after - t.timeNs < kNsPerSec);
    }
}

TEST_CASE("query_range results of a switch-side exporter read like its scrapes", "[core][import][prometheus]")
{
    const std::string matrix = R"({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "infiniband_switch_port_link_downed_total", "guid": "0xfc6a1c0300e4f000",
                    "port": "33", "instance": "fabric-mgmt:9315", "job": "ib"},
         "values": [[1748779200, "2"], [1748779230.5, "3"]]},
        {"metric": {"__name__": "infiniband_switch_uplink_info", "guid": "0xfc6a1c0300e4f000", "port": "33",
                    "switch": "leaf-07 Quantum-2", "uplink": "spine-02 Quantum-2",
                    "uplink_guid": "0xfc6a1c0300e5a000", "uplink_port": "12", "uplink_type": "SW"},
         "values": [[1748779200, "1"]]}]}})";
    auto m = parsePrometheusMatrix("q.json", matrix);
    REQUIRE(m.ok());
    CHECK(m->series.empty());
    REQUIRE(m->switchSide.size() == 2);
    const auto& counter = m->switchSide[0];
    CHECK(counter.line
        == "infiniband_switch_port_link_downed_total{guid=\"0xfc6a1c0300e4f000\",port=\"33\",instance=\"fabric-mgmt:"
           "9315\",job=\"ib\"}");
    REQUIRE(counter.timesNs.size() == 2);
    CHECK(counter.values[1] == 3);
    CHECK(counter.timesNs[1] == 1748779230500LL * 1'000'000);
    FabricBuilder fabric;
    ExpositionFile labels;
    const auto key = readExpositionSeriesKey("q.json", counter.line, fabric, labels);
    REQUIRE(key);
    CHECK_FALSE(key->key.hostSide);
    CHECK(key->key.guid == 0xfc6a1c0300e4f000ULL);
    CHECK(key->key.port == 33);
    CHECK(key->key.kind == CounterKind::LinkDowned);
    CHECK(key->divisor == 1);
    CHECK_FALSE(readExpositionSeriesKey("q.json", m->switchSide[1].line, fabric, labels)); // an info series
    CHECK(labels.infoSeries == 1);
    CHECK(fabric.linkCount() == 1); // the uplink info series describes the cable
    const auto data = readExpositionSeriesKey(
        "q.json", "infiniband_switch_port_transmit_data_bytes_total{guid=\"0x1\",port=\"2\"}", fabric, labels);
    REQUIRE(data);
    CHECK(data->divisor == 4); // bytes on the wire, 4-byte words in the model
}

TEST_CASE(
    "OpenSM port events: times with a one-digit day, GUIDs, node names, lines without a time", "[core][import][fabric]")
{
    LogClock clock;
    clock.year = 2026;
    const std::string text
        = "Jun  1 12:00:31 123456 [7FF] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x0c42a10300000205 "
          "LID range [5, 5] of node: gpu-a002 mlx5_5  \n"
          "Jun 01 12:00:33 000250 [7FF] 0x02 -> state_mgr_report_new_ports: Discovered new port with "
          "GUID:0x0C42A10300000205 LID range [5, 5] of node: gpu-a002 mlx5_5\n"
          "12:00:35 [7FF] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x1 of node: x\n"
          "Jun 01 12:00:36 000001 [7FF] 0x02 -> SUBNET UP\n"
          "Jun 01 12:00:37 000001 [7FF] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x of node: y\n";
    auto r = parseOpensmLog("opensm.log", text, clock);
    REQUIRE(r.ok());
    REQUIRE(r->events.size() == 2);
    const TimeNs base = utcCivilNs(2026, 6, 1, 12, 0, 31);
    CHECK(r->events[0].timeNs == base + 123456 * kNsPerUs);
    CHECK_FALSE(r->events[0].up);
    CHECK(r->events[0].portGuid == 0x0c42a10300000205ULL);
    CHECK(r->events[0].nodeDescription == "gpu-a002 mlx5_5");
    CHECK(r->events[1].up);
    CHECK(r->events[1].timeNs == base + 2 * kNsPerSec + 250 * kNsPerUs);
    CHECK(r->events[1].portGuid == 0x0c42a10300000205ULL);
    REQUIRE(r->subnetUp.size() == 1);
    CHECK(r->subnetUp[0] == base + 5 * kNsPerSec + 1000);
    REQUIRE(r->warnings.size() == 1); // the line without a time; the empty GUID is not a port event at all
    CHECK(r->warnings[0].line == 3);
}
