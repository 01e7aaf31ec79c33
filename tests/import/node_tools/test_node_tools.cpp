// SPDX-License-Identifier: MIT
// The node InfiniBand tools (issue #41; docs/formats.md §5f) from our own golden files in the shapes ibstat,
// ibstatus, ibv_devinfo -v and rdma link print, wrapped as people paste them (prompts, pdsh prefixes, tabs as
// spaces, indentation stripped); the node findings over them; a node folder with no job that `analyze` must not
// call quiet; the fabric review's degraded links; perfquery without a topology.
// Over 600 lines as one file: a case per tool shape and wrapper over the folders node_tools_support.h builds.
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "analysis/node_findings.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/ib_node_list.h"
#include "import/node_tools/node_tools.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "node_tools_support.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <tuple>

using namespace stallscope;
using namespace stallscope::test;

namespace {

NodeToolsFile read(const std::string& name)
{
    return readNodeTools(name);
}

const HostPort& portOf(const NodeToolsFile& f, const std::string& device, std::size_t nth = 0)
{
    for (const auto& p : f.ports) {
        if (p.device == device && nth-- == 0) {
            return p;
        }
    }
    FAIL("no port of " << device);
    throw 0;
}

std::vector<NodeFinding> findingsOf(const NodeToolsFile& f)
{
    JobSnapshot snap;
    snap.hostPorts = f.ports;
    snap.goneHcas = f.gone;
    return findNodeProblems(snap);
}

const NodeFinding* finding(const std::vector<NodeFinding>& all, const std::string& kind, const std::string& port)
{
    return findingOf(all, kind, port);
}

} // namespace

TEST_CASE("one enum for every tool's spelling of a port state", "[node_tools]")
{
    for (const char* active : { "4: ACTIVE", "PORT_ACTIVE (4)", "Active", "ACTIVE", "4" }) {
        CHECK(parsePortState(active) == PortState::Active);
    }
    for (const char* init : { "2: INIT", "PORT_INIT (2)", "Initializing", "INIT" }) {
        CHECK(parsePortState(init) == PortState::Init);
    }
    CHECK(parsePortState("1: DOWN") == PortState::Down);
    CHECK(parsePortState("PORT_ARMED (3)") == PortState::Armed);
    CHECK_FALSE(parsePortState("invalid state (0)"));
    for (const char* up : { "5: LinkUp", "LINK_UP (5)", "LinkUp", "LINK_UP" }) {
        CHECK(parsePhysState(up) == PhysState::LinkUp);
    }
    CHECK(parsePhysState("2: Polling") == PhysState::Polling);
    CHECK(parsePhysState("POLLING") == PhysState::Polling);
    CHECK(parsePhysState("3: Disabled") == PhysState::Disabled);
    CHECK(parsePhysState("PORT_CONFIGURATION TRAINNING (4)") == PhysState::Training);
    CHECK(parsePhysState("LINK_ERROR_RECOVER") == PhysState::ErrorRecovery); // rdma link's spelling
    const auto rate = parsePortRate("200 Gb/sec (4X HDR)");
    REQUIRE(rate);
    CHECK(rate->gbps == 200);
    CHECK(rate->width == 4);
    CHECK(rate->speed == "HDR");
    CHECK(parsePortRate("40 (FDR10)")->speed == "FDR10");
}

TEST_CASE("ibstat: each CA's ports and firmware, and the device ibpanic could not reach", "[node_tools]")
{
    const auto f = read("node/gpu-b005.ibstat.txt");
    CHECK(f.tools == std::vector<std::string> { "ibstat" });
    CHECK(f.hosts == std::vector<std::string> { "gpu-b005" });
    REQUIRE(f.ports.size() == 6);
    CHECK(f.unknownLines == 0);
    const auto& up = portOf(f, "mlx5_0");
    CHECK(up.state == PortState::Active);
    CHECK(up.phys == PhysState::LinkUp);
    CHECK(up.rate.gbps == 400);
    CHECK(up.lid == 211u);
    CHECK(up.smLid == 1u);
    CHECK(up.fw == "28.39.1002");
    CHECK(up.nodeGuid == 0xb83fd20300c4a100ULL);
    CHECK(up.portGuid == 0xb83fd20300c4a100ULL);
    CHECK(up.linkLayer == "InfiniBand");
    CHECK(up.host == "gpu-b005");
    const auto& down = portOf(f, "mlx5_1");
    CHECK(down.state == PortState::Down);
    CHECK(down.phys == PhysState::Polling);
    CHECK(down.line == 26);
    CHECK(down.evidence == "State: Down, Physical state: Polling");
    CHECK(portOf(f, "mlx5_3").state == PortState::Init);
    CHECK(portOf(f, "mlx5_3").smLid == 0u);
    REQUIRE(f.gone.size() == 1);
    CHECK(f.gone[0].device == "mlx5_6");
    CHECK(f.gone[0].line == 103);
    CHECK(f.gone[0].host == "gpu-b005");

    const auto all = findingsOf(f);
    REQUIRE(finding(all, "HCA vanished", "mlx5_6"));
    REQUIRE(finding(all, "port down", "mlx5_1/1"));
    CHECK_THAT(finding(all, "port down", "mlx5_1/1")->text, Catch::Contains("not training"));
    CHECK_THAT(finding(all, "port down", "mlx5_1/1")->evidence, Catch::Contains("gpu-b005.ibstat.txt:26: State: Down"));
    REQUIRE(finding(all, "port disabled", "mlx5_2/1"));
    CHECK_FALSE(finding(all, "port down", "mlx5_2/1")); // Disabled is told apart from a cable fault
    REQUIRE(finding(all, "no subnet manager", "mlx5_3/1"));
    REQUIRE(finding(all, "below its tier", "mlx5_4/1"));
    CHECK_THAT(finding(all, "below its tier", "mlx5_4/1")->text, Catch::Contains("200 Gb/s"));
    CHECK_FALSE(finding(all, "below its tier", "mlx5_5/1"));
    CHECK(all.front().kind == "HCA vanished"); // the worst first
}

TEST_CASE("ibstatus with tabs turned to spaces behind a root prompt: hex LIDs, numbered states, rates", "[node_tools]")
{
    const auto f = read("node/ibstatus-prompt-spaces.txt");
    CHECK(f.tools == std::vector<std::string> { "ibstatus" });
    CHECK(f.hosts == std::vector<std::string> { "gpu-b006" }); // from "[root@gpu-b006 ~]#", not the file name
    REQUIRE(f.ports.size() == 3);
    const auto& a = portOf(f, "mlx5_0");
    CHECK(a.lid == 0xd3u);
    CHECK(a.smLid == 1u);
    CHECK(a.state == PortState::Active);
    CHECK(a.rate.gbps == 200);
    CHECK(a.rate.width == 4);
    CHECK(a.rate.speed == "HDR");
    CHECK(a.host == "gpu-b006");
    const auto& d = portOf(f, "mlx5_1");
    CHECK(d.state == PortState::Down);
    CHECK(d.phys == PhysState::Polling);
    CHECK(d.lid == 0xffffu);
    const auto all = findingsOf(f);
    REQUIRE(finding(all, "port down", "mlx5_1/1"));
    CHECK(finding(all, "port down", "mlx5_1/1")->host == "gpu-b006");
}

TEST_CASE("ibv_devinfo -v: capability lines read past, lanes and lane speed make the rate", "[node_tools]")
{
    const auto f = read("node/gpu-b007.ibv_devinfo-v.txt");
    CHECK(f.tools == std::vector<std::string> { "ibv_devinfo" });
    CHECK(f.unknownLines == 0);
    REQUIRE(f.ports.size() == 4);
    const auto& a = portOf(f, "mlx5_0");
    CHECK(a.fw == "20.41.1000");
    CHECK(a.nodeGuid == 0xb83fd20300c4c700ULL);
    CHECK(a.state == PortState::Active);
    CHECK(a.phys == PhysState::LinkUp);
    CHECK(a.lid == 301u);
    CHECK(a.rate.width == 4);
    CHECK(a.rate.speed == "HDR");
    CHECK(a.rate.gbps == 200);
    CHECK(portOf(f, "mlx5_1").rate.width == 1);
    CHECK(portOf(f, "mlx5_1").rate.gbps == 50);
    CHECK(portOf(f, "mlx5_3").state == PortState::Init);
    const auto all = findingsOf(f);
    REQUIRE(finding(all, "below its tier", "mlx5_1/1"));
    CHECK_THAT(finding(all, "below its tier", "mlx5_1/1")->text, Catch::Contains("1X HDR"));
    REQUIRE(finding(all, "no subnet manager", "mlx5_3/1"));
}

TEST_CASE("rdma link under pdsh: hosts from the prefixes, readings in a loop show a port flapping", "[node_tools]")
{
    const auto f = read("node/pdsh-rdma-link.txt");
    CHECK(f.tools == std::vector<std::string> { "rdma link" });
    CHECK(f.hosts == std::vector<std::string> { "gpu-c001", "gpu-c002" });
    REQUIRE(f.ports.size() == 18);
    CHECK(f.ports[0].host == "gpu-c001");
    CHECK(f.ports[0].lid == 401u);
    CHECK(f.ports[2].netdev == "ens6f0np0");
    CHECK(f.ports[3].host == "gpu-c002");
    const auto all = findingsOf(f);
    const auto* flap = finding(all, "port flapping", "mlx5_1/1");
    REQUIRE(flap);
    CHECK(flap->host == "gpu-c002");
    CHECK_THAT(flap->text, Catch::Contains("Active/LinkUp → Down/Polling → Active/LinkUp"));
    CHECK(std::none_of(all.begin(), all.end(), [](const NodeFinding& x) { return x.host == "gpu-c001"; }));
}

TEST_CASE(
    "a paste of several commands: ibstat of one port flush left, rdma link's first form, dmesg kept", "[node_tools]")
{
    const auto f = read("node/gpu-d010.paste.txt");
    CHECK(f.tools == std::vector<std::string> { "ibstat", "rdma link" });
    REQUIRE(f.ports.size() == 3);
    const auto& one = portOf(f, "mlx5_1");
    CHECK(one.host == "gpu-d010");
    CHECK(one.state == PortState::Down);
    CHECK(one.portGuid == 0xb83fd20300c4d101ULL);
    const auto& old = portOf(f, "mlx5_1", 1);
    CHECK(old.source == "rdma link");
    CHECK(old.phys == PhysState::Polling);
    CHECK(f.unknownLines == 2); // the dmesg lines: not this reader's, counted and kept
    CHECK_THAT(f.unknown[0].second, Catch::Contains("Link down"));
}

TEST_CASE("the recogniser wants a tool's structure, not one of its words", "[node_tools]")
{
    CHECK_FALSE(looksLikeNodeTools("NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0\nState: Active\n"));
    CHECK_FALSE(looksLikeNodeTools("the CA 'mlx5_0' was replaced\n"));
    CHECK_FALSE(looksLikeNodeTools("link mlx5_0/1 was flapping\n"));
    CHECK(looksLikeNodeTools("link mlx5_0/1 state DOWN physical_state POLLING\n"));
    CHECK(hostOfNodeFile("/c/gpu-b005.ibstat.txt") == "gpu-b005");
    CHECK(hostOfNodeFile("/c/node-07.rdma-link.txt") == "node-07");
    CHECK(hostOfNodeFile("/c/node017/ibstat.txt") == "node017");
    CHECK(hostOfNodeFile("/captures/node/ibstat_out.txt").empty());
    const auto none = parseNodeTools("x.txt", "hca_id:\tmlx5_0\n", "");
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.error().format(), Catch::Contains("x.txt") && Catch::Contains("no HCA port found"));
}

TEST_CASE("a node folder with no job opens and its review is not quiet over a Down port", "[node_tools]")
{
    // ibstat + dmesg (ISO stamps) + a sysfs copy under a folder not called sys/class/infiniband.
    auto job = openJob(testDataPath("node-folder/gpu-e020").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 0);
    const auto sysfs = std::count_if(
        snap.hostPorts.begin(), snap.hostPorts.end(), [](const HostPort& p) { return p.source == "sysfs"; });
    CHECK(sysfs == 2);
    const auto all = findNodeProblems(snap);
    const auto* down = finding(all, "port down", "mlx5_1/1");
    REQUIRE(down);
    CHECK(down->host == "gpu-e020");
    CHECK(std::count_if(all.begin(), all.end(), [](const NodeFinding& f) { return f.kind == "port down"; }) == 1);
    CHECK_THAT(down->evidence,
        Catch::Contains("ibstat.txt:26") && Catch::Contains("; also ")
            && Catch::Contains("phys_state 2: Polling")); // ibstat and sysfs say it alike: one finding, two lines
    const auto* kernel = finding(all, "kernel link down", "");
    REQUIRE(kernel);
    CHECK_THAT(kernel->text, Catch::Contains("2026-11-03 04:05:06.123"));
    CHECK_THAT(kernel->evidence, Catch::Contains("dmesg.txt:")); // the file and line of the last, as read
    REQUIRE(finding(all, "kernel port module event", ""));
    const auto* downed = finding(all, "link_downed", "mlx5_1/1");
    REQUIRE(downed);
    CHECK_THAT(downed->text, Catch::Contains("255") && Catch::Contains("saturated"));
    // The kernel's link-down line, dated by its ISO stamp.
    const auto note = std::find_if(
        snap.notes.begin(), snap.notes.end(), [&](const HostNote& n) { return snap.str(n.kind) == "link down"; });
    REQUIRE(note != snap.notes.end());
    CHECK(snap.str(note->host) == "gpu-e020");
    const auto review = reviewFabric(snap);
    const auto text = fabricReviewText(snap, review);
    CHECK_THAT(text, Catch::Contains("Node findings") && Catch::Contains("mlx5_1 port 1 is Down"));
    CHECK_THAT(text, !Catch::Contains("\nQuiet:"));
    CHECK_THAT(text, Catch::Contains("Not quiet"));
    CHECK_THAT(fabricReviewJson(snap, review), Catch::Contains("\"node_findings\"") && Catch::Contains("link_downed"));
}

TEST_CASE("the fabric review lists a link trained at 1x among 4x, by the job analysis' rule", "[node_tools]")
{
    TempDir dir;
    writeFile(dir.path() / "topo.txt", testData("ibnetdiscover/degraded-1x.txt"));
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto review = reviewFabric(*job->snapshot);
    REQUIRE_FALSE(review.degraded.empty());
    CHECK(review.degraded.size() == degradedLinks(*job->snapshot).size());
    const auto text = fabricReviewText(*job->snapshot, review);
    CHECK_THAT(text, Catch::Contains("Links trained below their tier") && Catch::Contains("lanes lost: 1x"));
    CHECK_THAT(text, !Catch::Contains("\nQuiet:"));
    CHECK_THAT(fabricReviewJson(*job->snapshot, review), Catch::Contains("\"degraded\""));
}

TEST_CASE("perfquery without a topology keeps its ports as LID + port and the folder opens", "[node_tools]")
{
    TempDir dir;
    writeFile(dir.path() / "perfquery.txt", testData("ibsim/perfquery.txt"));
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    CHECK_FALSE(job->snapshot->counters.empty());
    const bool kept = std::any_of(job->warnings.begin(), job->warnings.end(),
        [](const LoadIssue& w) { return w.message.find("kept as an unplaced port \"LID") != std::string::npos; });
    CHECK(kept);
    bool named = false;
    for (const auto& n : job->snapshot->topology.nodes()) {
        named = named || job->snapshot->str(n.description).rfind("LID ", 0) == 0;
    }
    CHECK(named);
}

TEST_CASE("a job's suspect host's Down port is in its incident's evidence and the analysis text", "[node_tools]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(tinyConfig());
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    std::set<std::string> hosts;
    for (const auto& r : sim.snapshot->ranks) {
        hosts.insert(sim.snapshot->str(r.host));
    }
    for (const auto& h : hosts) { // every host pasted its ibstat: mlx5_9 down, not a rail the job uses
        writeFile(tmp.path() / "raw" / (h + ".ibstat.txt"),
            "CA 'mlx5_9'\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n");
    }
    auto job = openJob(tmp.str("raw"));
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.hostPorts.size() == hosts.size());
    const auto result = analyze(snap);
    CHECK_THAT(
        analysisText(snap, result), Catch::Contains("Node findings") && Catch::Contains("mlx5_9 port 1 is Down"));
    bool shown = false;
    for (const auto& inc : result.incidents) {
        for (const auto& e : inc.hostEvidence) {
            shown = shown || e.what.find("port down: mlx5_9 port 1 is Down") != std::string::npos;
        }
    }
    CHECK(shown == std::any_of(result.incidents.begin(), result.incidents.end(), [](const Incident& i) {
        return !i.suspectRanks.empty() || !i.missingRanks.empty() || !i.firstFailedRanks.empty();
    }));
}

TEST_CASE("rdma link read in a loop while the port comes up, rdma link -d caps, old ibv_devinfo codes", "[node_tools]")
{
    // The sequence of ROCm/rccl#1423 (our own host and LID): Down/Polling, Down/LinkUp, Active/LinkUp.
    const std::string text = "link mlx5_7/1 subnet_prefix fe80:0000:0000:0000 lid 3403 sm_lid 1 lmc 0 state DOWN "
                             "physical_state POLLING \n"
                             "    caps: <CM, CAP_MASK2>\n"
                             "link mlx5_7/1 subnet_prefix fe80:0000:0000:0000 lid 3403 sm_lid 1 lmc 0 state DOWN "
                             "physical_state LINK_UP \n"
                             "link mlx5_7/1 subnet_prefix fe80:0000:0000:0000 lid 3403 sm_lid 1 lmc 0 state ACTIVE "
                             "physical_state LINK_UP \n";
    REQUIRE(looksLikeNodeTools(text));
    auto f = parseNodeTools("gpu-f001.rdma.txt", text, "gpu-f001");
    REQUIRE(f.ok());
    CHECK(f->unknownLines == 0);
    REQUIRE(f->ports.size() == 3);
    const auto all = findingsOf(f.value());
    const auto* flap = finding(all, "port flapping", "mlx5_7/1");
    REQUIRE(flap);
    CHECK_THAT(flap->text, Catch::Contains("changed state 2 times across 3 readings"));

    auto old = parseNodeTools("d.txt",
        "hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tIB\n"
        "\t\t\tactive_width:\t\tinvalid widthX (16)\n\t\t\tactive_speed:\t\tinvalid speed (64)\n",
        "");
    REQUIRE(old.ok());
    REQUIRE(old->ports.size() == 1);
    CHECK(old->ports[0].linkLayer == "InfiniBand");
    CHECK(old->ports[0].rate.width == 2);
    CHECK(old->ports[0].rate.speed == "HDR");
    CHECK(old->ports[0].rate.gbps == 100);
}

TEST_CASE("ibqueryerrors: each port above its thresholds, an HCA's host from its description", "[node_tools]")
{
    const auto f = read("node/ibqueryerrors.txt");
    CHECK(f.tools == std::vector<std::string> { "ibqueryerrors" });
    CHECK(f.unknownLines == 0);
    REQUIRE(f.errors.size() == 4);
    CHECK(f.errors[0].node == "gpu-g031 mlx5_2");
    CHECK_FALSE(f.errors[0].switchNode);
    CHECK(f.errors[0].port == std::uint16_t(1));
    REQUIRE(f.errors[0].counters.size() == 2);
    CHECK(f.errors[0].counters[1] == std::pair<std::string, std::uint64_t> { "LinkDownedCounter", 3 });
    CHECK(f.errors[1].guid == 0x9c0591030071a2b0ULL);
    CHECK_FALSE(f.errors[1].port); // port ALL
    CHECK(f.errors[3].port == std::uint16_t(17));
    JobSnapshot snap;
    snap.portErrors = f.errors;
    const auto all = findNodeProblems(snap);
    const auto* hca = finding(all, "error counters", "mlx5_2/1");
    REQUIRE(hca);
    CHECK(hca->host == "gpu-g031");
    CHECK_THAT(hca->text, Catch::Contains("LinkDownedCounter 3"));
    const auto* sw = finding(all, "error counters", "port 17");
    REQUIRE(sw);
    CHECK(sw->host == "leaf-r7");
    CHECK_THAT(sw->text, Catch::Contains("PortXmitWait 4294967295 (at its maximum)"));
    CHECK_THAT(sw->evidence, Catch::Contains("ibqueryerrors.txt:6:"));
    CHECK(std::count_if(all.begin(), all.end(), [](const NodeFinding& x) { return x.kind == "error counters"; }) == 3);
}

TEST_CASE("sminfo: the subnet manager's LID, GUID, priority and state, and a failed query", "[node_tools]")
{
    const auto f = read("node/gpu-h011.sminfo.txt");
    CHECK(f.tools == std::vector<std::string> { "sminfo" });
    CHECK(f.unknownLines == 0);
    CHECK(f.warnings.empty());
    REQUIRE(f.subnetManagers.size() == 3);
    const auto& standby = f.subnetManagers[0];
    CHECK(standby.host == "gpu-h011");
    CHECK_FALSE(standby.failed);
    CHECK(standby.lid == 7);
    CHECK(standby.guid == 0x7cfe900300b4c1d0ULL);
    CHECK(standby.activity == 88213);
    CHECK(standby.priority == 15);
    CHECK(standby.state == 2);
    CHECK(standby.stateName == "SMINFO_STANDBY");
    CHECK(standby.line == 2);
    CHECK_FALSE(standby.master());
    const auto& master = f.subnetManagers[1];
    CHECK(master.lid == 3);
    CHECK(master.guid == 0x7cfe900300b4c1e8ULL);
    CHECK(master.activity == 1204577);
    CHECK(master.priority == 14);
    CHECK(master.stateName == "SMINFO_MASTER");
    CHECK(master.master());
    const auto& failed = f.subnetManagers[2];
    CHECK(failed.host == "gpu-h012");
    CHECK(failed.failed);
    CHECK(failed.line == 6);
    CHECK(failed.evidence == "sminfo: iberror: failed: query");

    JobSnapshot snap;
    snap.subnetManagers = f.subnetManagers;
    const auto all = findNodeProblems(snap);
    CHECK(std::count_if(all.begin(), all.end(), [](const NodeFinding& x) {
        return x.kind == "no master subnet manager";
    }) == 2);
    const auto* standbyFinding = finding(all, "no master subnet manager", "");
    REQUIRE(standbyFinding);
    CHECK(standbyFinding->host == "gpu-h011");
    CHECK_THAT(standbyFinding->text, Catch::Contains("LID 7 is STANDBY"));
    CHECK_THAT(standbyFinding->evidence, Catch::Contains("gpu-h011.sminfo.txt:2:"));
    CHECK(std::any_of(all.begin(), all.end(), [](const NodeFinding& x) {
        return x.host == "gpu-h012" && x.kind == "no master subnet manager"
            && x.evidence.find("iberror: failed: query") != std::string::npos;
    }));
}

TEST_CASE("sminfo by structure under pdsh with a generic name, and a cut line is a warning", "[node_tools]")
{
    const std::string text = "gpu-h020: sminfo: sm lid 1 sm guid 0x7cfe900300b4c200, activity count 5 priority 0 "
                             "state 1 SMINFO_DISCOVER\n"
                             "gpu-h021: sminfo: sm lid 1 sm guid 0x7cfe9003\n";
    REQUIRE(looksLikeNodeTools(text));
    CHECK_FALSE(looksLikeNodeTools("we ran sminfo: it said nothing\n"));
    auto r = parseNodeTools("/c/out.txt", text, hostOfNodeFile("/c/out.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.value().subnetManagers.size() == 1);
    CHECK(r.value().subnetManagers[0].host == "gpu-h020");
    CHECK(r.value().subnetManagers[0].state == 1);
    CHECK(r.value().subnetManagers[0].stateName == "SMINFO_DISCOVER");
    REQUIRE(r.value().warnings.size() == 1);
    CHECK(r.value().warnings[0].file == "/c/out.txt");
    CHECK(r.value().warnings[0].line == 2);
    CHECK_THAT(r.value().warnings[0].format(), Catch::Contains("sminfo line cut"));
    JobSnapshot snap;
    snap.subnetManagers = r.value().subnetManagers;
    const auto all = findNodeProblems(snap);
    REQUIRE(all.size() == 1);
    CHECK_THAT(all[0].text, Catch::Contains("DISCOVERING"));
}

TEST_CASE("smpquery portinfo and pi: state, physical state, width x lane speed, LIDs", "[node_tools]")
{
    const auto f = read("node/smpquery-portinfo.txt");
    CHECK(f.tools == std::vector<std::string> { "smpquery" });
    CHECK(f.unknownLines == 0);
    CHECK(f.warnings.empty());
    REQUIRE(f.ports.size() == 2);
    const auto& up = f.ports[0];
    CHECK(up.host == "gpu-k204");
    CHECK(up.device == "lid 41");
    CHECK(up.port == 1);
    CHECK(up.source == "smpquery");
    CHECK(up.state == PortState::Active);
    CHECK(up.phys == PhysState::LinkUp);
    CHECK(up.rate.width == 4);
    CHECK(up.rate.speed == "HDR");
    CHECK(up.rate.gbps == 200);
    CHECK(up.lid == std::uint32_t(41));
    CHECK(up.smLid == std::uint32_t(3));
    CHECK(up.linkLayer == "InfiniBand");
    CHECK(up.line == 13);
    CHECK(up.evidence == "LinkState: Active");
    const auto& down = f.ports[1];
    CHECK(down.host == "gpu-k204");
    CHECK(down.device == "lid 57");
    CHECK(down.state == PortState::Down);
    CHECK(down.phys == PhysState::Polling);
    CHECK(down.rate.width == 1);
    CHECK(down.rate.speed == "SDR");
    CHECK(down.rate.gbps == 2.5);
    CHECK(down.lid == std::uint32_t(57));
    CHECK(down.smLid == std::uint32_t(0));
    CHECK(down.line == 27);
    const auto all = findingsOf(f);
    const auto* d = finding(all, "port down", "lid 57/1");
    REQUIRE(d);
    CHECK(d->host == "gpu-k204");
}

TEST_CASE("smpquery by structure: pdsh prefixes, no indentation, no host but the LID, a cut field", "[node_tools]")
{
    const std::string text = "# Port info: Lid 88 port 2\n"
                             "LinkState:.......................Initialize\n"
                             "PhysLinkState:...................LinkUp\n"
                             "LinkWidthActive:.................4X\n"
                             "LinkSpeedActive:.................10.0 Gbps\n"
                             "LinkSpeedExtActive:..............106.25 Gbps\n"
                             "SMLid:...........................0\n"
                             "Lid:.................\n"
                             "gpu-k300: # Port info: Lid 90 port 1\n"
                             "gpu-k300: LinkState:.......................Active\n"
                             "gpu-k300: PhysLinkState:...................LinkUp\n";
    REQUIRE(looksLikeNodeTools(text));
    CHECK_FALSE(looksLikeNodeTools("# Port info: Lid 88 port 2\nsomething else\n"));
    auto r = parseNodeTools("/c/dump.log", text, hostOfNodeFile("/c/dump.log"));
    REQUIRE(r.ok());
    const auto& f = r.value();
    REQUIRE(f.ports.size() == 2);
    CHECK(f.ports[0].host == "lid 88");
    CHECK(f.ports[0].port == 2);
    CHECK(f.ports[0].state == PortState::Init);
    CHECK(f.ports[0].rate.speed == "NDR");
    CHECK(f.ports[0].rate.gbps == 400);
    CHECK(f.ports[0].smLid == std::uint32_t(0));
    CHECK(f.ports[0].lid == std::uint32_t(88)); // the header's; the cut "Lid:" line is not read
    REQUIRE(f.warnings.size() == 1);
    CHECK(f.warnings[0].file == "/c/dump.log");
    CHECK(f.warnings[0].line == 8);
    CHECK(f.ports[1].host == "gpu-k300");
    CHECK(f.ports[1].state == PortState::Active);
    CHECK(finding(findingsOf(f), "no subnet manager", "lid 88/2"));
}

TEST_CASE("ibswinfo: the default table, -o vitals and -o status of unmanaged switches", "[node_tools]")
{
    const auto f = read("node/ibswinfo.txt");
    CHECK(f.unknownLines == 0);
    CHECK(f.warnings.empty());
    REQUIRE(f.switches.size() == 3);
    const auto& table = f.switches[0];
    CHECK(table.name == "leaf-b4 QM8700 row 2");
    CHECK(table.line == 2);
    CHECK(table.temperature == 97);
    CHECK(table.maxTemperature == 99);
    CHECK(table.warnLow == 95);
    CHECK(table.warnHigh == 105);
    CHECK(table.moduleTemps.empty());
    REQUIRE(table.fanRpm.size() == 3);
    CHECK(table.fanRpm[0] == std::pair<std::string, int> { "fan#1", 7112 });
    CHECK(table.fanRpm[2] == std::pair<std::string, int> { "fan#3", 7098 });
    REQUIRE(table.statuses.size() == 7);
    const std::vector<std::tuple<std::string, std::string, std::int64_t>> want
        = { { "PSU0", "OK", 16 }, { "PSU0 DC power", "OK", 19 }, { "PSU0 fan", "OK", 20 }, { "PSU1", "ERROR", 22 },
              { "PSU1 DC power", "ERROR", 25 }, { "PSU1 fan", "OK", 26 }, { "fans", "OK", 32 } };
    for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(std::tuple(table.statuses[i].part, table.statuses[i].value, table.statuses[i].line) == want[i]);
    }
    const auto& vitals = f.switches[1];
    CHECK(vitals.name == "mgmt02");
    CHECK(vitals.line == 38);
    CHECK(vitals.temperature == 61);
    CHECK(vitals.maxTemperature == 70);
    CHECK_FALSE(vitals.warnLow);
    CHECK(vitals.moduleTemps == std::vector<std::pair<std::string, int>> { { "module#01", 39 }, { "module#02", 42 } });
    CHECK(vitals.fanRpm == std::vector<std::pair<std::string, int>> { { "fan#1", 6810 }, { "fan#2", 5902 } });
    CHECK(vitals.statuses.empty());
    const auto& status = f.switches[2];
    REQUIRE(status.statuses.size() == 7);
    CHECK(status.statuses[0].part == "PSU0");
    CHECK(status.statuses[1].part == "PSU0 DC power");
    CHECK(status.statuses[5].part == "PSU1 fan");
    CHECK(std::tuple(status.statuses[6].part, status.statuses[6].value, status.statuses[6].line)
        == std::tuple(std::string("fans"), std::string("ERROR"), std::int64_t(54)));

    JobSnapshot snap;
    snap.switchVitals = f.switches;
    const auto all = findNodeProblems(snap);
    const auto* psu = finding(all, "switch PSU not OK", "PSU1");
    REQUIRE(psu);
    CHECK(psu->host == "leaf-b4 QM8700 row 2");
    CHECK_THAT(psu->evidence, Catch::Contains("ibswinfo.txt:22: PSU1 ERROR"));
    CHECK(finding(all, "switch PSU not OK", "PSU1 DC power"));
    CHECK_FALSE(finding(all, "switch PSU not OK", "PSU0"));
    const auto* hot = finding(all, "switch over temperature", "");
    REQUIRE(hot);
    CHECK_THAT(hot->text, Catch::Contains("97 C") && Catch::Contains("95 C (low)"));
    const auto* fans = finding(all, "switch fan not OK", "fans");
    REQUIRE(fans);
    CHECK(fans->host == "mgmt02");
    CHECK(all.size() == 4);
}

TEST_CASE("ibswinfo by structure: pdsh prefixes, stripped indentation, a cut temperature", "[node_tools]")
{
    const std::string text = "sw-r12: =================================================\n"
                             "sw-r12:  spine-12\n"
                             "sw-r12: =================================================\n"
                             "sw-r12: PSU0 status        | OK\n"
                             "sw-r12: DC power      | OK\n"
                             "sw-r12: fan status    | ERROR\n"
                             "sw-r12: temperature (C)    | 4\n"
                             "sw-r12: max temp (C)       | 5x\n"
                             "sw-r12: warn threshold (C) | 95/105 (low/high)\n"
                             "sw-r12: fan status         | OK\n";
    REQUIRE(looksLikeNodeTools(text));
    CHECK_FALSE(looksLikeNodeTools("PSU0 status is fine\n"));
    auto r = parseNodeTools("/c/switches.log", text, hostOfNodeFile("/c/switches.log"));
    REQUIRE(r.ok());
    const auto& f = r.value();
    REQUIRE(f.switches.size() == 1);
    CHECK(f.switches[0].name == "spine-12");
    CHECK(f.switches[0].temperature == 4);
    CHECK_FALSE(f.switches[0].maxTemperature);
    REQUIRE(f.switches[0].statuses.size() == 4);
    CHECK(f.switches[0].statuses[2].part == "PSU0 fan");
    CHECK(f.switches[0].statuses[2].value == "ERROR");
    CHECK(f.switches[0].statuses[3].part == "fans");
    REQUIRE(f.warnings.size() == 1);
    CHECK(f.warnings[0].file == "/c/switches.log");
    CHECK(f.warnings[0].line == 8);
    JobSnapshot snap;
    snap.switchVitals = f.switches;
    const auto all = findNodeProblems(snap);
    REQUIRE(all.size() == 1);
    CHECK(all[0].kind == "switch PSU not OK");
    CHECK(all[0].port == "PSU0 fan");
}

TEST_CASE("a node tool's output alone with a finding that is no port: not quiet, no made-up time span", "[node_tools]")
{
    TempDir dir;
    writeFile(dir.path() / "sminfo.txt", "$ sminfo\nsminfo: iberror: failed: query\n");
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto review = reviewFabric(*job->snapshot);
    REQUIRE(review.nodeFindings.size() == 1);
    const auto text = fabricReviewText(*job->snapshot, review);
    CHECK_THAT(text, Catch::Contains("no master subnet manager"));
    CHECK_THAT(text, !Catch::Contains("Quiet:") && Catch::Contains("Not quiet: 1 finding above"));
    CHECK_THAT(text, Catch::Contains("no link is watched by counters or events"));
    CHECK_THAT(text, Catch::Contains("time span unknown") && !Catch::Contains("1970-01-01")); // the temp folder may hold 1970
}

TEST_CASE("a GPU's Xids become findings by NVIDIA's catalog: a reset needed, a contained error, an unknown number",
    "[node_tools]")
{
    auto job = openJob(testDataPath("node-xid").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    const auto* dbe = finding(all, "GPU needs a reset (Xid 48)", "");
    REQUIRE(dbe);
    CHECK(dbe->host == "gpu-x003"); // from its folder
    CHECK(dbe->portDown);
    CHECK_THAT(dbe->evidence, Catch::Contains("dmesg.txt:1:"));
    REQUIRE(finding(all, "GPU needs a reset (Xid 63)", ""));
    CHECK_FALSE(finding(all, "GPU needs a reset (Xid 63)", "")->portDown); // pending until a reset, still working
    REQUIRE(finding(all, "GPU contained ECC error (Xid 94)", ""));
    REQUIRE(finding(all, "GPU needs a reset (Xid 119)", ""));
    const auto* other = finding(all, "GPU Xid", "");
    REQUIRE(other);
    CHECK_THAT(other->text, Catch::Contains("Xid 137"));
    // The worst first: a GPU out of service before one with a pending remap.
    CHECK(all.front().kind.rfind("GPU needs a reset (Xid", 0) == 0);
    const auto text = fabricReviewText(*job->snapshot, reviewFabric(*job->snapshot));
    CHECK_THAT(text, Catch::Contains("Not quiet: 5 findings above"));
}

TEST_CASE("sminfo's GUID without leading zeros reads, and a healthy master alone opens with no finding",
    "[node_tools]")
{
    const auto f = read("node/sminfo-unpadded-guid.txt");
    REQUIRE(f.subnetManagers.size() == 1);
    CHECK(f.subnetManagers[0].guid == 0x2c90300a1b2c3ULL);
    CHECK(f.subnetManagers[0].master());
    CHECK(f.warnings.empty());
    TempDir dir;
    writeFile(dir.path() / "sminfo.txt", testData("node/sminfo-unpadded-guid.txt"));
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    CHECK(findNodeProblems(*job->snapshot).empty());
}

TEST_CASE("smpquery: Mellanox's extended PortInfo after the port's block is read past, not taken as its speed",
    "[node_tools]")
{
    const auto f = read("node/smpquery-portinfo-mlnx-ext.txt");
    CHECK(f.warnings.empty()); // "LinkSpeedActive:....0x00" is a vendor bitmask, not a damaged field
    REQUIRE(f.ports.size() == 1);
    CHECK(f.ports[0].rate.speed == "QDR");
    CHECK(f.ports[0].rate.width == 4);
    CHECK(f.ports[0].rate.gbps == 40);
}

TEST_CASE("a kernel log alone: a GPU gone at probe over three lines, a module's cable error without the device prefix",
    "[node_tools]")
{
    auto job = openJob(testDataPath("node-kernel").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    const auto* gone = finding(all, "GPU fallen off the bus", "");
    REQUIRE(gone);
    CHECK(gone->host == "gpu-y005");
    CHECK_THAT(gone->text, Catch::Contains("0000:4c:00.0"));
    const auto* cable = finding(all, "kernel port module event", "");
    REQUIRE(cable);
    CHECK_THAT(cable->text, Catch::Contains("Cable error, High Temperature"));
    CHECK_THAT(fabricReviewText(*job->snapshot, reviewFabric(*job->snapshot)), Catch::Contains("Not quiet: 2 findings"));
}

TEST_CASE("the year of dmesg -T's and Fabric Manager's stamps is read from them, not the file's date", "[node_tools]")
{
    for (const auto& [file, line] : std::vector<std::pair<std::string, std::string>> {
             { "dmesg.txt", "[Fri May  2 03:11:07 2025] NVRM: Xid (PCI:0000:4c:00): 48, pid=1, name=x, DBE\n" },
             { "fabricmanager.log",
                 "[May 2 2025 03:11:07] [ERROR] [tid 812] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch "
                 "pci bus id 00000000:86:00.0 physical id 2 port 7\n" } }) {
        INFO(file);
        TempDir dir;
        std::filesystem::create_directories(dir.path() / "gpu-z001");
        writeFile(dir.path() / "gpu-z001" / file, line);
        auto job = openJob(dir.str());
        INFO((job ? "" : job.error().format()));
        REQUIRE(job);
        CHECK(std::none_of(job->warnings.begin(), job->warnings.end(),
            [](const LoadIssue& w) { return w.message.find("gives the year") != std::string::npos; }));
        const auto all = findNodeProblems(*job->snapshot);
        REQUIRE_FALSE(all.empty());
        CHECK_THAT(all.front().text, Catch::Contains("2025-05-02 03:11:07"));
    }
}

TEST_CASE("perfquery read once with LinkDowned above 0 and no topology: a link_downed finding, not Quiet",
    "[node_tools]")
{
    const auto reading = [](int downed) {
        return "# Port counters: Lid 12 port 1 (CapMask: 0x1300)\nPortSelect:......................1\n"
               "SymbolErrorCounter:..............0\nLinkErrorRecoveryCounter:........0\n"
               "LinkDownedCounter:..............."
            + std::to_string(downed)
            + "\nPortRcvErrors:...................0\nPortXmitDiscards:................20046\n"
              "PortXmitData:....................16056\nPortRcvData:.....................16056\n";
    };
    TempDir dir;
    writeFile(dir.path() / "perfquery.txt", reading(3));
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    const auto* downed = finding(all, "link_downed", "port 1");
    REQUIRE(downed);
    CHECK(downed->host == "LID 12");
    CHECK_THAT(downed->text, Catch::Contains("LinkDowned = 3"));
    CHECK_THAT(fabricReviewText(*job->snapshot, reviewFabric(*job->snapshot)), !Catch::Contains("Quiet:"));
    // The same reading at 0: nothing to say about the link going down.
    writeFile(dir.path() / "perfquery.txt", reading(0));
    auto clean = openJob(dir.str());
    REQUIRE(clean);
    CHECK_FALSE(finding(findNodeProblems(*clean->snapshot), "link_downed", "port 1"));
}

TEST_CASE("perfquery as people quote it — a mail archive's HTML, a program's string — and its error counters read "
          "once are a finding",
    "[node_tools]")
{
    struct Case
    {
        std::string file, host, port, counts;
    };
    for (const auto& c : std::vector<Case> {
             { "perfquery/lid-44.mail-archive.html", "LID 44", "port 3",
                 "link_error_recovery 17, symbol_error 1290, port_rcv_errors 388" },
             { "perfquery/lid-61.go-string.txt", "LID 61", "port 2", "port_xmit_discards 5121" } }) {
        INFO(c.file);
        REQUIRE(looksLikePerfquery(testData(c.file)));
        TempDir dir;
        std::filesystem::copy_file(testDataPath(c.file), dir.path() / "perfquery.txt");
        auto job = openJob(dir.str());
        INFO((job ? "" : job.error().format()));
        REQUIRE(job);
        const auto all = findNodeProblems(*job->snapshot);
        const auto* errors = finding(all, "error counters", c.port);
        REQUIRE(errors);
        CHECK(errors->host == c.host);
        CHECK_THAT(errors->text, Catch::Contains(c.counts + " since the counters were cleared"));
        CHECK_FALSE(finding(all, "link_downed", c.port)); // LinkDowned read 0
    }
    // A log line that names the header is no perfquery output.
    CHECK_FALSE(looksLikePerfquery("ran perfquery; Port counters: Lid 3 port 1 looked fine\n"));
}

TEST_CASE("ibswitches and ibhosts declare the fabric's nodes, so a perfquery of a switch's LID names the switch",
    "[node_tools][ib_node_list]")
{
    const auto text = testData("ibnetdiscover/ibswitches-ibhosts.txt");
    REQUIRE(looksLikeIbNodeList(text));
    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    auto r = readIbNodeList("list.txt", text, fabric, warnings);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r);
    CHECK(r->switches == 3);
    CHECK(r->cas == 3);
    REQUIRE(warnings.size() == 1); // the damaged last line, named
    CHECK(warnings[0].line == 9);
    CHECK(fabric.guidOfLid(27) == 0x9c0591030088a000ULL);
    CHECK_FALSE(looksLikeIbNodeList("we saw Ca : 0x0c42a10300aa1400 ports 1 \"gpu-r301 mlx5_0\" in the log\n"));

    TempDir dir;
    std::filesystem::copy_file(testDataPath("ibnetdiscover/ibswitches-ibhosts.txt"), dir.path() / "nodes.txt");
    writeFile(dir.path() / "perfquery.txt",
        "# Port counters: Lid 27 port 14\nPortSelect:......................14\n"
        "SymbolErrorCounter:..............63\nLinkDownedCounter:...............0\n");
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    const auto* errors = finding(all, "error counters", "port 14");
    REQUIRE(errors);
    CHECK(errors->host == "MF0;leaf-r3:MQM9700/U1");
    CHECK_THAT(errors->text, Catch::Contains("symbol_error 63"));
}

TEST_CASE("ibqueryerrors quoted in a mail reply: the quote marks go, each port above its thresholds stays",
    "[node_tools]")
{
    const auto f = read("node/ibqueryerrors-mail-quote.txt");
    REQUIRE(f.errors.size() == 4); // the switch's "port ALL" sum is kept too
    CHECK(f.errors[0].node == "gpu-s201 mlx5_0");
    CHECK(f.errors[2].port == std::uint16_t { 7 });
    CHECK(f.errors[2].switchNode);
    CHECK(f.errors[2].line == 9);
    JobSnapshot snap;
    snap.portErrors = f.errors;
    const auto all = findNodeProblems(snap);
    INFO(nodeFindingsText(all));
    REQUIRE(finding(all, "error counters", "port 7"));
    CHECK_THAT(finding(all, "error counters", "port 7")->text, Catch::Contains("SymbolErrorCounter"));
}

TEST_CASE("nvidia-smi's 'GPU is lost' is a GPU off the bus of the folder's host, 'Unknown Error' is no fault named",
    "[node_tools]")
{
    auto job = openJob(testDataPath("node-folder/gpu-w003").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    INFO(nodeFindingsText(all));
    REQUIRE(all.size() == 1);
    CHECK(all[0].kind == "GPU fallen off the bus");
    CHECK(all[0].host == "gpu-w003"); // the folder's name: "nvidia-smi" is the tool's, not a host
    CHECK_THAT(all[0].text, Catch::Contains("GPU is lost (nvidia-smi)") && Catch::Contains("0000:5e:00"));
    CHECK_THAT(all[0].evidence, Catch::Contains("nvidia-smi.txt:2: Unable to determine the device handle"));
}

TEST_CASE("ibv_devices: each device a host's verbs library sees, and a header with none under it is every device "
          "gone",
    "[node_tools]")
{
    const auto f = read("node/ibv_devices-two-hosts.txt");
    CHECK(f.unknownLines == 0);
    REQUIRE(f.ports.size() == 2);
    CHECK(f.ports[1].host == "gpu-t020");
    CHECK(f.ports[1].device == "mlx5_1");
    CHECK(f.ports[1].port == 0); // its ports not listed
    CHECK(f.ports[1].nodeGuid == 0xb83fd20300d1e001ULL);
    REQUIRE(f.gone.size() == 1);
    CHECK(f.gone[0].host == "gpu-t021");
    CHECK(f.gone[0].line == 7);
    const auto all = findingsOf(f);
    const auto* gone = finding(all, "HCA vanished", "every RDMA device");
    REQUIRE(gone);
    CHECK(gone->host == "gpu-t021");
    CHECK(std::none_of(all.begin(), all.end(), [](const NodeFinding& x) { return x.host == "gpu-t020"; }));
}
