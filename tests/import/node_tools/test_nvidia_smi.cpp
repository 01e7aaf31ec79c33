// SPDX-License-Identifier: MIT
// nvidia-smi's topo -m and nvlink lists (docs/formats.md §5g) from our own golden files in the shapes people paste:
// the newer matrix with NIC columns and a NIC legend, the older one with HCA names as columns and SOC, quoted as a
// script's comments, a header whose separators were lost; nvlink --status and -e. The GPU findings over them, the
// NIC nearest each GPU in the inventory and in NCCL's rank placement.
#include "analysis/flaps.h"
#include "analysis/host_inventory.h"
#include "analysis/node_findings.h"
#include "import/node_tools/node_tools.h"
#include "import/open_job.h"
#include "import/prometheus/dcgm.h"
#include "node_tools_support.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;

namespace {

NodeToolsFile read(const std::string& name)
{
    return readNodeTools(name);
}

std::vector<NodeFinding> findingsOf(const NodeToolsFile& f)
{
    JobSnapshot snap;
    snap.gpuPaths = f.gpuPaths;
    snap.nvlinks = f.nvlinks;
    return findNodeProblems(snap);
}

const NodeFinding* finding(const std::vector<NodeFinding>& all, const std::string& kind, const std::string& port)
{
    return findingOf(all, kind, port);
}

std::size_t count(const std::vector<NodeFinding>& all, const std::string& kind)
{
    return static_cast<std::size_t>(
        std::count_if(all.begin(), all.end(), [&](const NodeFinding& f) { return f.kind == kind; }));
}

const GpuPath* path(const NodeToolsFile& f, std::uint16_t gpu, const std::string& peer)
{
    for (const auto& p : f.gpuPaths) {
        if (p.gpu == gpu && p.peer == peer) {
            return &p;
        }
    }
    return nullptr;
}

} // namespace

TEST_CASE("topo -m with NIC columns: the NIC legend names them, each GPU's nearest NIC, a GPU off NVLink",
    "[nvidia_smi]")
{
    const auto f = read("node/gpu-k014.topo-m.txt");
    CHECK(f.tools == std::vector<std::string> { "nvidia-smi topo -m" });
    CHECK(f.hosts == std::vector<std::string> { "gpu-k014" });
    CHECK(f.unknownLines == 0);
    REQUIRE(f.gpuPaths.size() == 8 * (7 + 9)); // each GPU row: 7 other GPUs, 9 NICs; NIC rows add nothing
    CHECK(std::none_of(f.gpuPaths.begin(), f.gpuPaths.end(), [](const GpuPath& p) { return p.peer.starts_with("NIC"); }));
    const auto* p = path(f, 1, "mlx5_3"); // NIC1 in the legend
    REQUIRE(p);
    CHECK(p->path.kind == GpuPathKind::Pix);
    CHECK(p->line == 4);
    CHECK(p->host == "gpu-k014");
    REQUIRE(path(f, 0, "GPU1"));
    CHECK(path(f, 0, "GPU1")->path.nvlinks == 18);
    CHECK(path(f, 0, "mlx5_bond_0")->path.kind == GpuPathKind::Node);

    const auto nearest = nearestNics(f.gpuPaths);
    REQUIRE(nearest.size() == 8);
    CHECK(nearest.at({ "gpu-k014", 6 }).nic == "mlx5_10");
    CHECK(nearest.at({ "gpu-k014", 6 }).path.kind == GpuPathKind::Pix);
    CHECK_FALSE(nearest.at({ "gpu-k014", 6 }).tied);

    const auto all = findingsOf(f);
    const auto* off = finding(all, "GPU without NVLink", "GPU 3");
    REQUIRE(off);
    CHECK(off->portDown);
    CHECK_THAT(off->text, Catch::Contains("over PCIe (NODE, SYS) while they reach each other over NV18"));
    CHECK_THAT(off->evidence, Catch::Contains("gpu-k014.topo-m.txt:6: topo -m row of GPU 3"));
    // GPU 3 spoils its pair with every GPU: only it is blamed, and the one thin pair is named as a pair.
    CHECK(count(all, "GPU without NVLink") == 1);
    REQUIRE(count(all, "fewer NVLinks") == 1);
    const auto* thin = finding(all, "fewer NVLinks", "GPU 5 ↔ GPU 6");
    REQUIRE(thin);
    CHECK_THAT(thin->text, Catch::Contains("over NV12 where the other GPU pairs have NV18"));
}

TEST_CASE("topo -m quoted in a script's comments, HCA names as columns, SOC: a mesh wired unevenly is no finding",
    "[nvidia_smi]")
{
    const auto f = read("node/gpu-m003.place.sh");
    CHECK(f.hosts == std::vector<std::string> { "gpu-m003" });
    REQUIRE(f.gpuPaths.size() == 8 * (7 + 4));
    CHECK(path(f, 0, "GPU5")->path.kind == GpuPathKind::Sys); // SOC, the older name
    CHECK(path(f, 0, "GPU3")->path.nvlinks == 2);
    const auto nearest = nearestNics(f.gpuPaths);
    CHECK(nearest.at({ "gpu-m003", 2 }).nic == "mlx5_2"); // the columns in the host's order, not sorted
    CHECK(nearest.at({ "gpu-m003", 4 }).nic == "mlx5_1");
    CHECK(nearest.at({ "gpu-m003", 7 }).nic == "mlx5_3");
    // DGX-1's hybrid cube mesh has NV1, NV2 and SOC pairs by design: nothing is down.
    CHECK(findingsOf(f).empty());
}

TEST_CASE("topo -m whose header lost its separators, in a markdown fence", "[nvidia_smi]")
{
    const auto f = read("node/gpu-p021.topo-run-together.txt");
    REQUIRE(f.gpuPaths.size() == 4 * (3 + 1));
    CHECK(path(f, 2, "mlx4_0")->path.kind == GpuPathKind::Phb);
    CHECK(path(f, 0, "GPU1")->path.kind == GpuPathKind::Phb);
    const auto nearest = nearestNics(f.gpuPaths);
    CHECK(nearest.at({ "gpu-p021", 0 }).path.kind == GpuPathKind::Sys);
    CHECK(findingsOf(f).empty()); // no NVLink at all: nothing to be missing
}

TEST_CASE("nvlink --status: a GPU with every link inactive and one with two, each with its line", "[nvidia_smi]")
{
    const auto f = read("node/gpu-k014.nvlink-status.txt");
    CHECK(f.tools == std::vector<std::string> { "nvidia-smi nvlink" });
    REQUIRE(f.nvlinks.size() == 8);
    CHECK(f.unknownLines == 0);
    const auto& g5 = f.nvlinks[5];
    CHECK(g5.gpu == 5);
    CHECK(g5.model == "NVIDIA H100 80GB HBM3");
    CHECK(g5.uuid.starts_with("GPU-1f0c2a91"));
    CHECK(g5.host == "gpu-k014");
    REQUIRE(g5.links.size() == 18);
    CHECK(g5.links[0].second == Approx(26.562));
    CHECK(g5.inactive() == 2);

    const auto all = findingsOf(f);
    const auto* all3 = finding(all, "NVLink inactive", "GPU 3");
    REQUIRE(all3);
    CHECK(all3->portDown);
    CHECK_THAT(all3->text, Catch::Contains("18 NVLinks are all inactive"));
    const auto* two = finding(all, "NVLink inactive", "GPU 5");
    REQUIRE(two);
    CHECK_THAT(two->text, Catch::Contains("2 of 18 NVLinks inactive (links 7, 12) while the others run at 26.562 GB/s"));
    CHECK_THAT(two->evidence, Catch::EndsWith("gpu-k014.nvlink-status.txt:" + std::to_string(1 + 5 * 19 + 1 + 8)
        + ": Link 7: <inactive>"));
    CHECK_FALSE(finding(all, "NVLink inactive", "GPU 0"));
    CHECK(count(all, "NVLink inactive") == 3); // GPUs 3, 5 and 6
}

TEST_CASE("nvlink -e in a loop with echo lines, the UUID elided: errors above zero are a finding", "[nvidia_smi]")
{
    const auto f = read("node/gpu-m003.nvlink-e.txt");
    REQUIRE(f.nvlinks.size() == 2);
    CHECK(f.nvlinks[0].errors.empty());
    CHECK(f.nvlinks[0].counterReadings == 18);
    CHECK(f.nvlinks[1].uuid == "...");
    REQUIRE(f.nvlinks[1].errors.size() == 2);
    const auto all = findingsOf(f);
    REQUIRE(all.size() == 1);
    CHECK(all[0].kind == "NVLink error counters");
    CHECK(all[0].port == "GPU 1");
    CHECK_FALSE(all[0].portDown);
    CHECK_THAT(all[0].text, Catch::Contains("link 2 3 Replay Errors, link 2 41 CRC Errors"));
}

TEST_CASE("what nvidia-smi prints otherwise is not taken for topo -m or nvlink", "[nvidia_smi]")
{
    // nvidia-smi -L lists GPUs with UUIDs but no links; a log that names GPU0 is no matrix.
    CHECK_FALSE(looksLikeNodeTools("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aa)\nGPU 1: NVIDIA A100-SXM4-80GB (UUID: "
                                   "GPU-bb)\n"));
    CHECK_FALSE(looksLikeNodeTools("[rank0] using GPU0 GPU1 for the pipeline\nGPU0 is busy\n"));
    CHECK(looksLikeNodeTools("\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\nGPU0\t X \tNV4\tPIX\t0-7\n"));
    // A header with no rows after it: recognised by its row only.
    CHECK_FALSE(looksLikeNodeTools("\tGPU0\tGPU1\tNIC0\tCPU Affinity\n"));
}

TEST_CASE("a node folder of topo -m, nvlink and NCCL logs: each rank's HCA is its GPU's nearest NIC, the inventory "
          "lists the GPUs, and the review is not quiet",
    "[nvidia_smi]")
{
    TempDir dir;
    const auto host = dir.path() / "gpu-k014";
    std::filesystem::create_directories(host);
    std::filesystem::copy_file(testDataPath("node/gpu-k014.topo-m.txt"), host / "topo.txt");
    std::filesystem::copy_file(testDataPath("node/gpu-k014.nvlink-status.txt"), host / "nvlink.txt");
    // NCCL lists the HCAs in the verbs device order, not GPU order: index 6 is mlx5_6, but GPU 6's nearest is
    // mlx5_10.
    for (int r = 0; r < 8; ++r) {
        writeFile(dir.path() / ("rank" + std::to_string(r) + ".log"),
            "gpu-k014:" + std::to_string(9100 + r) + ":" + std::to_string(9100 + r) + " [" + std::to_string(r)
                + "] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_10:1/IB [2]mlx5_11:1/IB [3]mlx5_3:1/IB "
                  "[4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_9:1/IB ; OOB ib0:10.9.0.14<0>\n"
                + "gpu-k014:" + std::to_string(9100 + r) + ":" + std::to_string(9100 + r) + " [" + std::to_string(r)
                + "] NCCL INFO comm 0x7f01 rank " + std::to_string(r) + " nranks 8 cudaDev " + std::to_string(r)
                + " busId " + std::to_string(18 + r) + "000 commId 0x5e - Init COMPLETE\n");
    }
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.ranks.size() == 8);
    CHECK(snap.str(snap.ranks[6].hca) == "mlx5_10");
    CHECK(snap.str(snap.ranks[1].hca) == "mlx5_3");
    CHECK(snap.str(snap.ranks[0].hca) == "mlx5_0");

    const auto findings = findNodeProblems(snap);
    const auto hosts = hostInventory(snap, findings);
    REQUIRE(hosts.size() == 1);
    const auto& h = hosts[0];
    REQUIRE(h.gpus.size() == 8);
    CHECK(h.gpus[6].nearestNic == "mlx5_10");
    CHECK(h.gpus[6].nearestPath == "PIX");
    CHECK(h.gpus[6].model == "NVIDIA H100 80GB HBM3");
    CHECK(h.gpus[3].inactiveNvlinks == 18);
    CHECK(h.ranks[6].nearestNic == "mlx5_10");
    CHECK(h.conflicts.empty()); // every rank uses its GPU's nearest HCA
    CHECK(h.portDown());
    CHECK_THAT(fabricReviewText(snap, reviewFabric(snap)), Catch::Contains("Not quiet"));
}

TEST_CASE("a rank whose NCCL uses an HCA farther from its GPU than topo -m's nearest is a conflict", "[nvidia_smi]")
{
    const auto f = read("node/gpu-k014.topo-m.txt");
    JobSnapshot snap;
    snap.gpuPaths = f.gpuPaths;
    snap.ranks.resize(2);
    const auto host = snap.strings.intern("gpu-k014");
    snap.ranks[0].host = host;
    snap.ranks[0].localGpu = 0;
    snap.ranks[0].hca = snap.strings.intern("mlx5_6"); // SYS from GPU 0: across the CPUs
    snap.ranks[0].hcaPort = 1;
    snap.ranks[1].host = host;
    snap.ranks[1].localGpu = 1;
    snap.ranks[1].hca = snap.strings.intern("mlx5_3"); // its nearest
    snap.ranks[1].hcaPort = 1;
    const auto hosts = hostInventory(snap, {});
    REQUIRE(hosts.size() == 1);
    REQUIRE(hosts[0].conflicts.size() == 1);
    CHECK(hosts[0].conflicts[0]
        == "rank 0 (GPU 0) uses mlx5_6/1, SYS from its GPU in topo -m, where mlx5_0 is PIX");
}

TEST_CASE("a dcgm-exporter scrape: its GPUs, the last Xid as the kernel's, NVLink error totals, blanks and "
          "unconvertible values read past",
    "[nvidia_smi][dcgm]")
{
    const auto name = "prometheus/gpu-k014.dcgm.prom";
    const auto text = testData(name);
    REQUIRE(looksLikeDcgmScrape(text));
    auto r = parseDcgmScrape(testDataPath(name).string(), text, "");
    INFO((r ? "" : r.error().format()));
    REQUIRE(r);
    CHECK(r->hosts == std::vector<std::string> { "gpu-k014" });
    CHECK(r->gpus == 4);
    REQUIRE(r->nvlinks.size() == 4);
    CHECK(r->nvlinks[1].model == "NVIDIA H100 80GB HBM3");
    REQUIRE(r->nvlinks[1].errors.size() == 2);
    CHECK(r->nvlinks[1].errors[0].link == GpuNvlinks::kAllLinks);
    CHECK(r->nvlinks[1].errors[0].counter == "CRC_FLIT_ERROR_COUNT_TOTAL");
    CHECK(r->nvlinks[1].errors[0].value == 1207);
    CHECK(r->nvlinks[0].errors.empty()); // zeros, and the blank sentinel of the bandwidth field
    CHECK(r->nvlinks[3].errors.empty()); // NaN: no count
    REQUIRE(r->xids.size() == 1);
    CHECK(r->xids[0].gpu == 2);
    CHECK(r->xids[0].code == 79);
    CHECK(r->xids[0].pci == "0000:3a:00.0");
    CHECK(r->xids[0].line == 12);
    // Fabric counters' scrapes and rank logs are not DCGM's.
    CHECK_FALSE(looksLikeDcgmScrape(testData("prometheus/node-exporter-gpu-a017.prom")));

    // In a folder: the Xid is a finding by NVIDIA's catalog, the NVLink errors another, and the GPUs are the host's.
    TempDir dir;
    std::filesystem::copy_file(testDataPath(name), dir.path() / "metrics.prom");
    auto job = openJob(dir.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto all = findNodeProblems(*job->snapshot);
    INFO(nodeFindingsText(all));
    const auto off = std::find_if(all.begin(), all.end(), [](const NodeFinding& f) {
        return f.kind == "GPU fallen off the bus" && f.host == "gpu-k014";
    });
    REQUIRE(off != all.end());
    CHECK_THAT(off->evidence, Catch::Contains("metrics.prom:12: DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",Hostname=\"gpu-k014\","
                                              "pci_bus_id=\"00000000:3A:00.0\",…} 79"));
    CHECK_THAT(off->text, Catch::Contains("Xid 79 (dcgm-exporter's last Xid of GPU 2) (PCI:0000:3a:00.0)"));
    const auto* nvlink = finding(all, "NVLink error counters", "GPU 1");
    REQUIRE(nvlink);
    CHECK_THAT(nvlink->text, Catch::Contains("1207 CRC_FLIT_ERROR_COUNT_TOTAL, 3 RECOVERY_ERROR_COUNT_TOTAL"));
    const auto hosts = hostInventory(*job->snapshot, all);
    REQUIRE(hosts.size() == 1);
    CHECK(hosts[0].gpus.size() == 4);
}
