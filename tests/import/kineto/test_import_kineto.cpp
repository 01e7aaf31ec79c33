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

namespace {

std::string warningsOf(const KinetoTrace& t)
{
    return formatted(t.collectives.warnings);
}

// Where `mark` ends in `text` (the byte after it), failing the test when it is not there.
std::size_t after(const std::string& text, const std::string& mark)
{
    const auto at = text.find(mark);
    REQUIRE(at != std::string::npos);
    return at + mark.size();
}

} // namespace

TEST_CASE("a profiler trace cut off while written keeps its whole events and says where it stops",
    "[core][import][kineto][hostile]")
{
    const auto good = readFile(kineto("node017_48211.1727752045123456789.pt.trace.json"));
    const auto whole = parseKinetoTrace("t.json", padded(good));
    REQUIRE(whole.ok());
    REQUIRE(whole->collectives.entries.size() == 2);

    // Cut in the middle of the AllGather kernel's args, the way a killed writer leaves it: the AllReduce before it
    // is whole and read exactly as in the whole file.
    const auto cut = after(good, "\"In msg nelems\": 1048576,");
    const auto name = "node017_48211.1727752045123456789.pt.trace.json.tmp";
    auto r = parseKinetoTrace(name, padded(good.substr(0, cut)));
    INFO((r ? warningsOf(r.value()) : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->rank == 3u);
    REQUIRE(r->collectives.entries.size() == 1);
    CHECK(r->collectives.entries[0].seq == 1842);
    CHECK(r->collectives.entries[0].startNs == whole->collectives.entries[0].startNs);
    CHECK(r->collectives.entries[0].endNs == whole->collectives.entries[0].endNs);
    CHECK(r->collectives.entries[0].enqueueNs == whole->collectives.entries[0].enqueueNs);
    const auto said = warningsOf(r.value());
    CHECK_THAT(said,
        Catch::Contains("ends inside its events at byte") && Catch::Contains("read the 4 whole events")
            && Catch::Contains("a .tmp file"));

    // Cut between the events and the traceName behind them: every event is read, the cut is still named.
    const auto late = after(good, " ],");
    r = parseKinetoTrace("t.json", padded(good.substr(0, late + 3)));
    REQUIRE(r.ok());
    CHECK(r->collectives.entries.size() == 2);
    CHECK_THAT(warningsOf(r.value()),
        Catch::Contains("ends after its events") && Catch::Contains("read all 7 events")
            && Catch::Contains("copied before it was whole"));

    // A cut before the first event is whole, or before the events begin: refused, saying so.
    r = parseKinetoTrace("t.json", padded(good.substr(0, after(good, "\"traceEvents\": [\n  {\"ph\": \"M\""))));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("before its first event is whole"));
    r = parseKinetoTrace("t.json", padded(good.substr(0, after(good, "\"distributedInfo\": {"))));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("ends before its \"traceEvents\" begin"));

    // At every cut, what is read is the whole file's first collectives, never more, and never anything else.
    std::size_t readable = 0;
    for (std::size_t at = 0; at <= good.rfind('}'); ++at) { // the file without its last '}' and after
        const auto part = parseKinetoTrace("t.json", padded(good.substr(0, at)));
        if (!part) {
            continue;
        }
        ++readable;
        const auto& e = part->collectives.entries;
        REQUIRE(e.size() <= whole->collectives.entries.size());
        for (std::size_t i = 0; i < e.size(); ++i) {
            CHECK(e[i].startNs == whole->collectives.entries[i].startNs);
        }
        CAPTURE(at);
        CHECK_FALSE(part->collectives.warnings.empty()); // every cut is named
    }
    CHECK(readable > good.size() / 2);
}

TEST_CASE("a profiler trace that writes its base time after the events cannot place its times once cut",
    "[core][import][kineto][hostile]")
{
    // The 2024 layout (learned from HolisticTraceAnalysis' nccl_parser_config trace): ts counts µs from
    // baseTimeNanoseconds, and that key comes last.
    const auto good = readFile(kineto("base-after-events-rank0.json"));
    auto r = parseKinetoTrace("rank0.json", padded(good));
    REQUIRE(r.ok());
    CHECK_THAT(warningsOf(r.value()), Catch::Contains("carry no Seq") && !Catch::Contains("ends"));
    REQUIRE(r->collectives.entries.size() == 2);
    CHECK(r->collectives.entries[0].startNs == 1762160000000000000LL + 5120000000130500LL);
    CHECK(r->collectives.entries[1].endNs - r->collectives.entries[1].startNs == 2300750000LL);

    // Cut after the second kernel: whole events, but times with nothing to count from. Left out, saying why,
    // rather than placed in 1970.
    r = parseKinetoTrace("rank0.json", padded(good.substr(0, after(good, "\"Record Window End\""))));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(
        r.error().format(), Catch::Contains("rank0.json (byte offset") && Catch::Contains("baseTimeNanoseconds"));
}

TEST_CASE("a folder holding a profiler's unfinished .tmp trace opens with what the trace holds",
    "[core][import][kineto][hostile]")
{
    TempDir tmp;
    const auto name = std::string("node017_48211.1727752045123456789.pt.trace.json");
    const auto good = readFile(kineto(name));
    writeFile(tmp.path() / (name + ".tmp"), good.substr(0, after(good, "\"In msg nelems\": 1048576,")));
    auto r = openJob(tmp.str());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->snapshot->collectiveCount() == 1);
    std::string warnings;
    for (const auto& w : r->warnings) {
        warnings += w.format() + "\n";
    }
    CHECK_THAT(warnings, Catch::Contains(name + ".tmp: the trace ends inside its events"));
}

TEST_CASE("process groups past 30 members: PyTorch's cut member lists are filled in, or left to who ran them",
    "[core][import][kineto]")
{
    // torch/csrc/profiler/util.cpp format_list: past 30 members, the first 29, "...", and the last.
    auto list = [](std::uint32_t first, std::uint32_t step, std::uint32_t n) {
        std::string s = "[";
        for (std::uint32_t k = 0; k < 29; ++k) {
            s += std::to_string(first + step * k) + ", ";
        }
        return s + "..., " + std::to_string(first + step * (n - 1)) + "]";
    };
    auto all = parseGroupRanks(list(0, 1, 1024), 1024, 1'000'000);
    REQUIRE(all);
    REQUIRE(all->size() == 1024);
    CHECK(all->back() == 1023);
    auto strided = parseGroupRanks(list(3, 8, 512), 0, 1'000'000); // a data-parallel group: every 8th rank
    REQUIRE(strided);
    REQUIRE(strided->size() == 512);
    CHECK((*strided)[100] == 803);
    CHECK_FALSE(parseGroupRanks(list(0, 1, 1024), 1000, 1'000'000)); // the size beside it disagrees
    CHECK_FALSE(parseGroupRanks(list(0, 1, 1024), 0, 512)); // more members than any job has
    CHECK_FALSE(parseGroupRanks("[0, 2, 3, ..., 63]", 0, 1'000'000)); // does not step evenly
    CHECK(parseGroupRanks("[4, 5, 6]", 0, 1'000'000) == std::vector<std::uint32_t> { 4, 5, 6 }); // whole

    const auto path = kineto("cut-group-ranks-rank5.json");
    auto r = parseKinetoTrace(path, padded(readFile(path)));
    INFO((r ? warningsOf(r.value()) : r.error().format()));
    REQUIRE(r.ok());
    const auto& g = r->collectives.groups;
    REQUIRE(g.count("0"));
    CHECK(g.at("0").ranks.size() == 64); // not the 30 the list shows
    REQUIRE(g.count("7"));
    CHECK(g.at("7").ranks == std::vector<std::uint32_t> { 5, 13, 21, 29, 37, 45, 53, 61 });
    CHECK_FALSE(g.count("9")); // members unknown: the ranks that ran it
    CHECK_THAT(warningsOf(r.value()), Catch::Contains("process group \"9\"") && Catch::Contains("PyTorch keeps 30"));
}

TEST_CASE("distributedInfo.pg_config gives whole member lists", "[core][import][kineto]")
{
    auto text = readFile(kineto("cut-group-ranks-rank5.json"));
    std::string cfg = "\"world_size\": 64, \"pg_config\": [{\"pg_name\": \"9\", \"pg_desc\": \"ep\", \"pg_size\": 3, "
                      "\"ranks\": [5, 40, 63]}, {\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"pg_size\": 64, "
                      "\"ranks\": \"[0, 1, ..., 63]\"}]";
    const auto at = text.find("\"world_size\": 64");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("\"world_size\": 64").size(), cfg);
    auto r = parseKinetoTrace("t.json", padded(text));
    REQUIRE(r.ok());
    const auto& g = r->collectives.groups;
    REQUIRE(g.count("9"));
    CHECK(g.at("9").ranks == std::vector<std::uint32_t> { 5, 40, 63 });
    CHECK(g.at("9").desc == "ep");
    CHECK(g.at("0").ranks.size() == 64); // a cut string in pg_config is filled in the same way
    CHECK(warningsOf(r.value()).find("process group") == std::string::npos);
}

TEST_CASE("cut member lists fill in no more than a bounded number of members", "[core][import][kineto][hostile]")
{
    // Twenty bytes, "[0, 1, ..., 999999]", stand for 4 MB of ranks: forty such groups would be 160 MB from a trace
    // of a few kilobytes. The fill-in stops at 16,777,216 members; the groups past it are left to who ran them.
    std::string events;
    for (int g = 0; g < 40; ++g) {
        events += std::string(events.empty() ? "" : ",")
            + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", "
              "\"ts\": "
            + std::to_string(1000 + g) + ", \"dur\": 1, \"args\": {\"Collective name\": \"allreduce\", "
            + "\"Process Group Name\": \"" + std::to_string(g) + "\", \"Group size\": 1000000, "
            + "\"Process Group Ranks\": \"[0, 1, ..., 999999]\", \"Seq\": 1}}";
    }
    const auto text = "{\"distributedInfo\": {\"rank\": 0}, \"baseTimeNanoseconds\": 1762160000000000000, "
                      "\"traceEvents\": ["
        + events + "]}";
    auto r = parseKinetoTrace("t.json", padded(text));
    REQUIRE(r.ok());
    std::uint64_t members = 0;
    for (const auto& [pg, g] : r->collectives.groups) {
        members += g.ranks.size();
    }
    CHECK(members <= (1u << 24));
    CHECK(r->collectives.groups.size() == 16);
    CHECK_THAT(warningsOf(r.value()), Catch::Contains("process group \"39\""));
}
