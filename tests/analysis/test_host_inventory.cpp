// SPDX-License-Identifier: MIT
// The inventory per host (analysis/host_inventory.h): a node folder's readings merged per port, hosts in trouble
// first, and the sources checked against each other (tools that disagree, a rank on a port a tool shows down).
#include "analysis/host_inventory.h"
#include "analysis/node_findings.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;

namespace {

HostPort reading(const std::string& host, const std::string& device, PortState state, PhysState phys,
    const std::string& fw, double gbps, const std::string& source)
{
    HostPort p;
    p.host = host;
    p.device = device;
    p.port = 1;
    p.state = state;
    p.phys = phys;
    p.fw = fw;
    p.rate.gbps = gbps;
    p.source = source;
    p.file = host + "/" + source + ".txt";
    p.line = 3;
    return p;
}

bool has(const std::vector<std::string>& lines, const std::string& a, const std::string& b)
{
    return std::any_of(lines.begin(), lines.end(),
        [&](const std::string& l) { return l.find(a) != std::string::npos && l.find(b) != std::string::npos; });
}

} // namespace

TEST_CASE("a node folder's inventory: one row per port with every tool that showed it, the down port's host first",
    "[host_inventory]")
{
    auto job = openJob(test::testDataPath("node-folder/gpu-e020").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    const auto hosts = hostInventory(snap, findNodeProblems(snap));
    REQUIRE_FALSE(hosts.empty());
    const auto& h = hosts.front();
    CHECK(h.host == "gpu-e020");
    CHECK(h.portDown());
    REQUIRE(h.ports.size() == 2); // ibstat and the sysfs copy each show mlx5_0/1 and mlx5_1/1: merged, not four
    const auto& down = h.ports[1];
    CHECK(inventoryPortName(down.port) == "mlx5_1/1");
    CHECK(down.port.state == PortState::Down);
    CHECK(down.port.rate.gbps == 10);
    CHECK(down.port.fw == "28.39.1002");
    CHECK(std::find(down.sources.begin(), down.sources.end(), "ibstat") != down.sources.end());
    CHECK(std::find(down.sources.begin(), down.sources.end(), "sysfs") != down.sources.end());
    CHECK(down.port.linkDowned == 255u); // from the sysfs copy; ibstat has no counter to overwrite it with
    CHECK(h.conflicts.empty()); // the tools agree on firmware, rates and LIDs
    CHECK(h.notes > 0); // the kernel's link lines
}

TEST_CASE("an inventory checks its sources against each other", "[host_inventory]")
{
    JobSnapshot snap;
    const auto a = snap.strings.intern("gpu-k001"), b = snap.strings.intern("gpu-k002");
    const auto mlx1 = snap.strings.intern("mlx5_1"), mlx2 = snap.strings.intern("mlx5_2");
    snap.job.worldSize = 4;
    snap.ranks.resize(4);
    snap.ranks[0].host = b;
    snap.ranks[0].localGpu = 0;
    snap.ranks[0].hca = mlx1;
    snap.ranks[1].host = b;
    snap.ranks[1].localGpu = 1;
    snap.ranks[1].hca = mlx2;
    snap.ranks[2].host = a;
    snap.ranks[2].localGpu = 0;
    snap.ranks[2].hca = mlx1;
    snap.ranks[3].host = a;
    snap.ranks[3].localGpu = 1;
    snap.ranks[3].hca = mlx2;
    snap.hostPorts.push_back(
        reading("gpu-k001", "mlx5_1", PortState::Active, PhysState::LinkUp, "28.39.1002", 400, "ibstat"));
    snap.hostPorts.push_back(
        reading("gpu-k001", "mlx5_1", PortState::Active, PhysState::LinkUp, "28.37.1014", 400, "ibv_devinfo"));
    snap.hostPorts.push_back(
        reading("gpu-k002", "mlx5_1", PortState::Down, PhysState::Polling, "28.39.1002", 0, "ibstat"));
    snap.goneHcas.push_back({ "gpu-k002", "mlx5_2", "ibstat", "gpu-k002/ibstat.txt", 9, "ibpanic: ..." });
    const auto hosts = hostInventory(snap, findNodeProblems(snap));
    REQUIRE(hosts.size() == 2);
    // gpu-k002 leads although its name sorts after: a port down and an HCA gone.
    CHECK(hosts[0].host == "gpu-k002");
    CHECK(hosts[0].portDown());
    CHECK(has(hosts[0].conflicts, "rank 0 (GPU 0) uses mlx5_1/1", "Down"));
    CHECK(has(hosts[0].conflicts, "rank 1 (GPU 1) uses mlx5_2/1", "could not reach"));
    REQUIRE(hosts[1].host == "gpu-k001");
    CHECK(hosts[1].findings.empty());
    REQUIRE(hosts[1].ports.size() == 1);
    CHECK(hosts[1].ports[0].sources == std::vector<std::string> { "ibstat", "ibv_devinfo" });
    CHECK(hosts[1].ports[0].port.fw == "28.37.1014"); // the later reading's
    CHECK(has(hosts[1].conflicts, "firmware 28.39.1002 (ibstat)", "28.37.1014 (ibv_devinfo)"));
    CHECK(hosts[1].ranks.size() == 2);
    CHECK(hosts[1].ranks[1].hca == "mlx5_2/1");
}

TEST_CASE("NCCL's busId is the GPU's PCI address as the kernel writes it", "[host_inventory]")
{
    CHECK(pciOfNcclBusId("41000") == "0000:41:00.0");
    CHECK(pciOfNcclBusId("1b000") == "0000:1b:00.0");
    CHECK(pciOfNcclBusId("c1001") == "0000:c1:00.1");
    CHECK(pciOfNcclBusId("141000") == "0001:41:00.0"); // a domain of its own
    CHECK(pciOfNcclBusId("0000:3B:00.0") == "0000:3b:00.0");
    CHECK(pciOfNcclBusId("") == "");
    CHECK(pciOfNcclBusId("zz") == "");
    CHECK(pciOfNcclBusId("12345678901234567890") == ""); // longer than an int64 in hex
}

TEST_CASE("each rank's GPU by PCI address, and a rank on a GPU the kernel reports is a conflict", "[host_inventory]")
{
    test::TempDir dir;
    test::writeFile(dir.path() / "rank3.log",
        "gpu-q004:9001:9001 [1] NCCL INFO comm 0x5501 rank 3 nranks 4 cudaDev 1 busId 41000 commId 0x77 - Init "
        "COMPLETE\n");
    test::writeFile(dir.path() / "rank2.log",
        "gpu-q004:9000:9000 [0] NCCL INFO comm 0x5500 rank 2 nranks 4 cudaDev 0 busId 1b000 commId 0x77 - Init "
        "COMPLETE\n");
    std::filesystem::create_directory(dir.path() / "gpu-q004");
    test::writeFile(dir.path() / "gpu-q004" / "dmesg.txt",
        "[Tue Nov  3 14:22:01 2026] NVRM: Xid (PCI:0000:41:00): 79, pid=9001, name=python3, GPU has fallen off the "
        "bus.\n");
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    const auto hosts = hostInventory(snap, findNodeProblems(snap));
    const auto h
        = std::find_if(hosts.begin(), hosts.end(), [](const HostInventory& x) { return x.host == "gpu-q004"; });
    REQUIRE(h != hosts.end());
    REQUIRE(h->ranks.size() == 2);
    CHECK(h->ranks[0].rank == 2);
    CHECK(h->ranks[0].gpuPci == "0000:1b:00.0");
    CHECK(h->ranks[1].gpuPci == "0000:41:00.0");
    INFO((h->conflicts.empty() ? std::string() : h->conflicts.front()));
    CHECK(has(h->conflicts, "rank 3 (GPU 1, 0000:41:00.0)", "Xid 79"));
    CHECK_FALSE(has(h->conflicts, "rank 2", "Xid"));
}
