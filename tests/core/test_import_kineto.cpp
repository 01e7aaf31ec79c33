// SPDX-License-Identifier: MIT
#include "import/common/file_bytes.h"
#include "import/kineto/kineto_trace.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::string padded(std::string s)
{
    s.reserve(s.size() + jsonPadding());
    return s;
}

std::string kineto(const std::string& name)
{
    return std::string(STALLSCOPE_TEST_DATA_DIR) + "/kineto/" + name;
}

} // namespace

TEST_CASE("profiler traces: NCCL kernels with collective args become records", "[core][import][kineto]")
{
    const auto path = kineto("node017_48211.1727752045123456789.pt.trace.json");
    auto r = parseKinetoTrace(path, padded(readFile(path)));
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->rank == 3u);
    CHECK(r->worldSize == 4);
    CHECK(r->kernels == 3); // the send kernel is point-to-point: counted and skipped, not a broken collective
    CHECK(r->collectives.p2pSkipped == 1);
    CHECK(r->collectives.warnings.empty());
    const auto& e = r->collectives.entries;
    REQUIRE(e.size() == 2);
    const TimeNs base = 1727743122000000000LL;
    CHECK(e[0].op == CollectiveOp::AllReduce);
    CHECK(e[0].seq == 1842);
    CHECK(e[0].bytes == 262144000ULL * 2);
    CHECK(e[0].enqueueNs == base + 8923456120125LL); // the CPU op with the same External id
    CHECK(e[0].startNs == base + 8923456131870LL);
    CHECK(e[0].endNs == base + 8923456131870LL + 41230551LL);
    CHECK(e[0].state == CollectiveState::Completed);
    CHECK(e[1].op == CollectiveOp::AllGather);
    CHECK(e[1].enqueueNs == e[1].startNs); // no CPU op: arrival at the kernel start
    CHECK(r->collectives.groups.at("0").ranks == std::vector<std::uint32_t> { 0, 1, 2, 3 });
}

TEST_CASE("older profiler traces: epoch microseconds, cat Kernel", "[core][import][kineto]")
{
    const auto path = kineto("old-kineto-rank1.json");
    auto r = parseKinetoTrace(path, padded(readFile(path)));
    REQUIRE(r.ok());
    REQUIRE(r->collectives.entries.size() == 1);
    CHECK(r->collectives.entries[0].startNs == 1727752045123456500LL);
    CHECK(r->collectives.entries[0].endNs - r->collectives.entries[0].startNs == 1'500'000);
}

TEST_CASE("bad profiler traces are named, not crashed on", "[core][import][kineto]")
{
    auto r = parseKinetoTrace("t.json", padded("{\"traceEvents\": 3}"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("t.json") && Catch::Contains("not an array"));
    r = parseKinetoTrace("t.json", padded("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": "));
    CHECK_FALSE(r.ok());
    const auto good = readFile(kineto("node017_48211.1727752045123456789.pt.trace.json"));
    for (std::size_t cut = 0; cut < good.size(); cut += 97) {
        (void)parseKinetoTrace("t.json", padded(good.substr(0, cut))); // any outcome but a crash
    }
}

TEST_CASE("a folder of gzipped profiler traces opens", "[core][import][kineto]")
{
    TempDir tmp;
    const auto name = "node017_48211.1727752045123456789.pt.trace.json";
    writeFile(tmp.path() / name, readFile(kineto(name)));
    REQUIRE(std::system(("gzip " + (tmp.path() / name).string()).c_str()) == 0);
    writeFile(tmp.path() / "rank1.json", readFile(kineto("old-kineto-rank1.json")));
    auto r = openJob(tmp.str());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->snapshot->job.worldSize == 4);
    CHECK(r->snapshot->collectiveCount() == 3);
    CHECK_THAT(r->recognised.front(), Catch::Contains("2 profiler traces"));
}
