// SPDX-License-Identifier: MIT
#include "import/common/file_bytes.h"
#include "import/flight_recorder/flight_recorder.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <random>
#include <set>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("Flight Recorder JSON dumps become collective records", "[core][import]")
{
    const std::string path = std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/nccl_trace_rank_3";
    auto r = parseFlightRecorderJson(path, readFile(path));
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& d = r.value();
    CHECK(d.rank == 3u);
    CHECK(d.version == "2.10");
    REQUIRE(d.groups.size() == 2);
    CHECK(d.groups.at("0").ranks == std::vector<std::uint32_t> { 0, 1, 2, 3 });
    CHECK(d.groups.at("1").ranks == std::vector<std::uint32_t> { 2, 3 }); // "[2,3]" without spaces
    CHECK(d.p2pSkipped == 1);
    REQUIRE(d.pgStatus.count("0"));
    CHECK(d.pgStatus.at("0").lastCompleted == 1841); // a string in JSON
    CHECK(d.pgStatus.at("0").lastEnqueued == 1843);
    REQUIRE(d.entries.size() == 3);
    const auto& ar = d.entries[0];
    CHECK(ar.op == CollectiveOp::AllReduce);
    CHECK(ar.seq == 1841);
    CHECK(ar.bytes == 262144000ULL * 2); // BFloat16
    CHECK(ar.state == CollectiveState::Completed);
    CHECK(ar.endNs - ar.startNs == 40'999'000);
    const auto& ag = d.entries[1];
    CHECK(ag.op == CollectiveOp::AllGather);
    CHECK(ag.bytes == 1024ULL * 1024 * 4);
    CHECK(ag.state == CollectiveState::TimedOut); // retired but not completed
    CHECK(ag.endNs == kNoTime); // 0 means "not observed"
    const auto& rs = d.entries[2];
    CHECK(rs.pg == "1");
    CHECK(rs.op == CollectiveOp::ReduceScatter);
    CHECK(rs.state == CollectiveState::Scheduled);
    CHECK(rs.startNs == kNoTime);
}

TEST_CASE("Flight Recorder names and bad dumps", "[core][import]")
{
    CHECK(opFromProfilingName("nccl:all_reduce") == CollectiveOp::AllReduce);
    CHECK(opFromProfilingName("xccl:broadcast") == CollectiveOp::Broadcast);
    CHECK(opFromProfilingName("nccl:coalesced") == CollectiveOp::Other);
    CHECK(rankFromFileName("/tmp/comm_lib_trace_rank_1023") == 1023u);
    CHECK_FALSE(rankFromFileName("/tmp/trace.json").has_value());
    CHECK(rankFromFileName("/dumps/nccl_trace_rank_12.pkl") == 12u);
    CHECK(rankFromFileName("/dumps/rank_7.json.gz") == 7u);
    CHECK(dtypeBytes("Float") == 4);
    CHECK(dtypeBytes("Quaternion") == 0);
    auto r = parseFlightRecorderJson("nccl_trace_rank_0", "{\"entries\": []}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("nccl_trace_rank_0") && Catch::Contains("version"));
    r = parseFlightRecorderJson(
        "nccl_trace_rank_0", "{\"version\": \"2.10\", \"entries\": [{\"collective_seq_id\": \"x\"}]}");
    REQUIRE(r.ok()); // a wrong type in one entry skips that entry, with a warning naming it
    CHECK(r->entries.empty());
    REQUIRE(r->warnings.size() == 1);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("nccl_trace_rank_0") && Catch::Contains("entry 0"));
    r = parseFlightRecorderJson("nccl_trace_rank_0", "{\"version\": \"2.10\", \"entries\": [{\"input_sizes\": 3}]}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("unexpected content") && Catch::Contains("entry 0"));
    r = parseFlightRecorderJson("nccl_trace_rank_0", "{\"version\": \"2.");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("invalid JSON"));
}

TEST_CASE("Flight Recorder JSON: truncation, wrong types and random damage give errors or warnings", "[core][import]")
{
    const std::string path = std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/nccl_trace_rank_3";
    const auto good = readFile(path);
    auto cut = parseFlightRecorderJson("rank_3", good.substr(0, 12)); // before its first entry: nothing to read
    REQUIRE_FALSE(cut.ok());
    CHECK_THAT(cut.error().format(), Catch::Contains("rank_3"));
    auto notList = parseFlightRecorderJson("rank_3", "{\"version\": \"2.10\", \"entries\": {}}");
    REQUIRE_FALSE(notList.ok());
    CHECK_THAT(notList.error().message, Catch::Contains("not a list"));
    auto strayEntry = parseFlightRecorderJson("rank_3", "{\"version\": \"2.10\", \"entries\": [7]}");
    REQUIRE(strayEntry.ok());
    REQUIRE(strayEntry->warnings.size() == 1);
    CHECK_THAT(strayEntry->warnings[0].message, Catch::Contains("entry 0 is not an object"));
    std::mt19937 rng(3);
    for (int k = 0; k < 300; ++k) {
        auto bad = good;
        for (int n = 0; n < 3; ++n) {
            bad[rng() % bad.size()] = "{}[]\",:0a"[rng() % 9];
        }
        (void)parseFlightRecorderJson("rank_3", bad); // an error, warnings or entries: never a crash
    }
}

TEST_CASE("Flight Recorder JSON lines: one entry a line, a cut last line is a warning with its line", "[core][import]")
{
    const std::string path = std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/jsonl/fr_rank_4.jsonl";
    auto r = parseFlightRecorderJson(path, readFile(path));
    REQUIRE(r.ok());
    CHECK(r->version == "json-lines");
    CHECK(r->rank == 4u);
    REQUIRE(r->entries.size() == 2);
    CHECK(r->entries[1].state == CollectiveState::Started);
    REQUIRE(r->warnings.size() == 1);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("fr_rank_4.jsonl:3"));
}

TEST_CASE("Flight Recorder JSON lines of one line are one entry, not a dump without a version", "[core][import]")
{
    // A rank that ran a single collective writes one line; it was read as a JSON dump and left out.
    const std::string path = std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/jsonl/fr_rank_4.jsonl";
    const auto text = readFile(path);
    const auto line = text.substr(0, text.find('\n'));
    for (const auto& one : { line, line + "\n", "\n  " + line + "\r\n" }) {
        auto r = parseFlightRecorderJson("fr_rank_4.jsonl", one);
        REQUIRE(r.ok());
        CHECK(r->version == "json-lines");
        CHECK(r->entries.size() == 1);
        CHECK(r->warnings.empty());
    }
    // A dump on one line is still a dump.
    auto dump = parseFlightRecorderJson(
        "nccl_trace_rank_4", "{\"version\": \"2.4\", \"pg_config\": {}, \"entries\": [" + line + "]}");
    REQUIRE(dump.ok());
    CHECK(dump->version == "2.4");
    CHECK(dump->entries.size() == 1);
}

TEST_CASE("a Flight Recorder JSON dump cut off while written keeps its whole entries, in either key order",
    "[core][import][hostile]")
{
    // Python's json.dump keeps the dict's order (version, pg_config, pg_status, entries); PyTorch's own dump_json
    // goes through nlohmann, whose objects sort their keys: entries come before pg_config, pg_status and version.
    for (const std::string name : { "nccl_trace_rank_3", "json_sorted/nccl_trace_rank_3" }) {
        const auto good = readFile(std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/" + name);
        const auto whole = parseFlightRecorderJson("nccl_trace_rank_3", good);
        REQUIRE(whole.ok());
        REQUIRE(whole->entries.size() == 3);
        std::set<std::size_t> counts;
        for (std::size_t at = 0; at < good.rfind('}'); ++at) {
            auto text = good.substr(0, at);
            text.reserve(text.size() + jsonPadding());
            const auto r = parseFlightRecorderJson("nccl_trace_rank_3", text);
            if (!r) {
                continue;
            }
            CAPTURE(name, at);
            CHECK_THAT(
                formatted(r.value().warnings), Catch::Contains("the dump ends") && !Catch::Contains("not an object"));
            REQUIRE(r->entries.size() <= whole->entries.size());
            for (std::size_t i = 0; i < r->entries.size(); ++i) {
                CHECK(r->entries[i].seq == whole->entries[i].seq);
                CHECK(r->entries[i].startNs == whole->entries[i].startNs);
                CHECK(r->entries[i].state == whole->entries[i].state);
            }
            counts.insert(r->entries.size());
            if (name == "nccl_trace_rank_3") { // written before the entries: kept by any cut that keeps an entry
                CHECK(r->version == whole->version);
                CHECK(r->pgStatus.size() == whole->pgStatus.size());
            } else if (r->version == "unknown") {
                CHECK_THAT(formatted(r.value().warnings), Catch::Contains("sort their keys"));
            }
        }
        CAPTURE(name);
        CHECK(counts.count(1));
        CHECK(counts.count(whole->entries.size()));
    }
}
