// SPDX-License-Identifier: MIT
// The host-side counter collector against a fake sysfs tree.
#include "collect/sysfs_collector.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

void fakePort(const fs::path& root, const std::string& dev, const std::map<std::string, std::string>& counters,
    const std::map<std::string, std::string>& hw = {})
{
    const auto port = root / dev / "ports" / "1";
    fs::create_directories(port / "counters");
    writeFile(port / "state", "4: ACTIVE\n");
    for (const auto& [k, v] : counters) {
        writeFile(port / "counters" / k, v + "\n");
    }
    if (!hw.empty()) {
        fs::create_directories(port / "hw_counters");
        for (const auto& [k, v] : hw) {
            writeFile(port / "hw_counters" / k, v + "\n");
        }
    }
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) {
        out.push_back(l);
    }
    return out;
}

} // namespace

TEST_CASE("collect samples every port's counters into CSV", "[core][collector]")
{
    TempDir tmp;
    const auto root = tmp.path() / "sys";
    fakePort(root, "mlx5_3",
        { { "link_downed", "3" }, { "port_xmit_data", "918273645501" }, { "symbol_error", "112" } },
        { { "local_ack_timeout_err", "57" } });
    fakePort(root, "mlx5_0", { { "link_downed", "N/A (no PMA)" } });
    const auto ports = discoverPorts(root.string());
    REQUIRE(ports.size() == 2);
    CHECK(ports[0].device == "mlx5_0"); // sorted
    CHECK(ports[1].hwCounters == std::vector<std::string> { "local_ack_timeout_err" });

    CollectorOptions o;
    o.sysfsRoot = root.string();
    o.outDir = tmp.str("out");
    o.host = "gpu-a017";
    o.intervalNs = 20 * kNsPerMs;
    o.samples = 2;
    int polls = 0;
    const auto err = runCollector(o, [&] {
        if (++polls == 2) { // between the samples the link goes down once
            writeFile(root / "mlx5_3" / "ports" / "1" / "counters" / "link_downed", "4\n");
        }
        return false;
    });
    REQUIRE(err.empty());
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(o.outDir)) {
        files.push_back(e.path());
    }
    REQUIRE(files.size() == 1);
    const auto rows = lines(readFile(files[0]));
    REQUIRE(rows.size() == 1 + 2 * 2);
    CHECK(rows[0] == "t_ns,host,device,port,state,link_downed,port_xmit_data,symbol_error,hw:local_ack_timeout_err");
    CHECK_THAT(rows[1], Catch::EndsWith(",gpu-a017,mlx5_0,1,4: ACTIVE,,,,")); // N/A and absent counters are empty
    CHECK_THAT(rows[2], Catch::EndsWith(",gpu-a017,mlx5_3,1,4: ACTIVE,3,918273645501,112,57"));
    CHECK_THAT(rows[4], Catch::EndsWith(",gpu-a017,mlx5_3,1,4: ACTIVE,4,918273645501,112,57"));
    CHECK(std::stoll(rows[3].substr(0, rows[3].find(','))) > std::stoll(rows[1].substr(0, rows[1].find(','))));
}

TEST_CASE("collect rotates files and reports a missing tree", "[core][collector]")
{
    TempDir tmp;
    const auto root = tmp.path() / "sys";
    fakePort(root, "mlx5_0", { { "link_downed", "0" } });
    CollectorOptions o;
    o.sysfsRoot = root.string();
    o.outDir = tmp.str("out");
    o.host = "h";
    o.intervalNs = 1100 * kNsPerMs; // file names carry seconds: a new second per file
    o.rotateNs = 10 * kNsPerMs;
    o.samples = 2;
    REQUIRE(runCollector(o, {}).empty());
    CHECK(std::distance(fs::directory_iterator(o.outDir), fs::directory_iterator()) == 2);
    o.sysfsRoot = tmp.str("nothing-here");
    CHECK_THAT(runCollector(o, {}), Catch::Contains("no InfiniBand ports"));
}
