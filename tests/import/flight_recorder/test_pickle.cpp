// SPDX-License-Identifier: MIT
#include "import/flight_recorder/entry_semantics.h"
#include "import/flight_recorder/flight_recorder.h"
#include "import/flight_recorder/pickle_reader.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <set>

#include <random>

using namespace stallscope;
using namespace stallscope::test;

namespace {

std::string pickleFile(const std::string& name)
{
    return std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/pickle/" + name;
}

std::string fromHex(const std::string& hex)
{
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    return out;
}

} // namespace

TEST_CASE("the pickle reader builds dicts, lists, tuples and scalars and honours the memo", "[core][import][pickle]")
{
    // pickle.dumps({"a": [1, -2, 300, 70000, 2**40, -(2**40), 1.5, None, True, False], "b": ("x", "x")}, 2)
    const std::string bytes
        = fromHex("80027d71002858010000006171015d7102284b014afeffffff4d2c014a701101008a060000000000018a060000000000ff47"
                  "3ff80000000000004e888965580100000062710358010000007871046804867105752e");
    auto r = parsePickle("inline", bytes);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& d = r.value();
    using T = PickleDoc::Type;
    REQUIRE(d.type(d.root()) == T::Dict);
    const auto a = d.get(d.root(), "a");
    REQUIRE(a);
    const auto xs = d.items(*a);
    REQUIRE(xs.size() == 10);
    CHECK(d.integer(xs[0]) == 1);
    CHECK(d.integer(xs[1]) == -2);
    CHECK(d.integer(xs[2]) == 300);
    CHECK(d.integer(xs[3]) == 70000);
    CHECK(d.integer(xs[4]) == (std::int64_t(1) << 40));
    CHECK(d.integer(xs[5]) == -(std::int64_t(1) << 40));
    CHECK(d.real(xs[6]) == 1.5);
    CHECK(d.type(xs[7]) == T::None);
    CHECK((d.type(xs[8]) == T::Bool && d.integer(xs[8]) == 1));
    CHECK((d.type(xs[9]) == T::Bool && d.integer(xs[9]) == 0));
    const auto b = d.get(d.root(), "b");
    REQUIRE(b);
    REQUIRE(d.type(*b) == T::Tuple);
    REQUIRE(d.items(*b).size() == 2);
    CHECK(d.items(*b)[0] == d.items(*b)[1]); // BINGET yields the memoized node itself
    CHECK(d.str(d.items(*b)[1]) == "x");
    CHECK_FALSE(d.get(d.root(), "missing"));
}

TEST_CASE("pickle Flight Recorder dumps read like their JSON form", "[core][import][pickle]")
{
    const auto path = pickleFile("nccl_trace_rank_3");
    const auto bytes = readFile(path);
    auto p = parseFlightRecorderPickle(path, bytes);
    INFO((p ? "" : p.error().format()));
    REQUIRE(p.ok());
    const auto jsonPath = std::string(STALLSCOPE_TEST_DATA_DIR) + "/flight_recorder/nccl_trace_rank_3";
    auto j = parseFlightRecorderJson(jsonPath, readFile(jsonPath));
    REQUIRE(j.ok());
    CHECK(p->rank == 3u);
    CHECK(p->version == "2.10");
    CHECK(p->p2pSkipped == 1);
    REQUIRE(p->entries.size() == j->entries.size());
    for (std::size_t i = 0; i < p->entries.size(); ++i) {
        const auto &a = p->entries[i], &b = j->entries[i];
        CHECK(a.pg == b.pg);
        CHECK(a.seq == b.seq);
        CHECK(a.op == b.op);
        CHECK(a.bytes == b.bytes);
        CHECK(a.state == b.state);
        CHECK(a.enqueueNs == b.enqueueNs);
        CHECK((a.startNs == kNoTime) == (b.startNs == kNoTime)); // None in pickle, 0 in JSON
        CHECK((a.endNs == kNoTime) == (b.endNs == kNoTime));
    }
    CHECK(p->groups.at("1").ranks == std::vector<std::uint32_t> { 2, 3 });
    REQUIRE(p->pgStatus.count("0"));
    CHECK(p->pgStatus.at("0").lastStarted == 1842); // an int in pickle
}

TEST_CASE("pickle dumps of versions 2.4 (timing off) and 2.7", "[core][import][pickle]")
{
    auto v24 = parseFlightRecorderPickle(pickleFile("nccl_trace_rank_5"), readFile(pickleFile("nccl_trace_rank_5")));
    REQUIRE(v24.ok());
    CHECK(v24->version == "2.4");
    REQUIRE(v24->entries.size() == 2);
    CHECK(v24->entries[0].startNs == kNoTime); // timing off: no start events
    CHECK(v24->entries[0].state == CollectiveState::Completed);
    CHECK(v24->entries[1].state == CollectiveState::Scheduled); // hung, not retired: stays scheduled
    auto v27
        = parseFlightRecorderPickle(pickleFile("comm_lib_trace_rank_6"), readFile(pickleFile("comm_lib_trace_rank_6")));
    REQUIRE(v27.ok());
    CHECK(v27->rank == 6u);
    REQUIRE(v27->entries.size() == 1);
    CHECK(v27->entries[0].op == CollectiveOp::Broadcast);
    CHECK(v27->entries[0].bytes == 64);
}

TEST_CASE("malformed pickles give an error with the byte offset and never run code", "[core][import][pickle]")
{
    const auto good = readFile(pickleFile("nccl_trace_rank_3"));
    SECTION("truncated before its version is whole")
    {
        auto r = parseFlightRecorderPickle("rank_3", good.substr(0, 12));
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error().format(), Catch::Contains("rank_3") && Catch::Contains("Flight Recorder dump"));
    }
    SECTION("a GLOBAL + REDUCE pickle (os.system) is refused at its first opcode")
    {
        const std::string evil("\x80\x02"
                               "cposix\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.",
            36);
        auto r = parsePickle("evil", evil);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().offset == 2);
        CHECK_THAT(r.error().message, Catch::Contains("GLOBAL") && Catch::Contains("not allowed"));
    }
    SECTION("memo get of an index never put")
    {
        auto r = parsePickle("m", std::string("\x80\x02h\x07.", 5));
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error().message, Catch::Contains("never PUT"));
    }
    SECTION("wrong types: the root is a list")
    {
        auto r = parseFlightRecorderPickle("rank_1", std::string("\x80\x02]q\x00.", 6));
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error().format(), Catch::Contains("expected a Flight Recorder dump"));
    }
    SECTION("integers wider than 64 bits")
    {
        auto r = parsePickle("big", std::string("\x80\x02\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01.", 14));
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error().message, Catch::Contains("wider than 64 bits"));
    }
    SECTION("random corruption never crashes")
    {
        std::mt19937 rng(6);
        for (int k = 0; k < 500; ++k) {
            auto bad = good;
            for (int n = 0; n < 4; ++n) {
                bad[rng() % bad.size()] = static_cast<char>(rng());
            }
            if (k % 3 == 0) {
                bad.resize(rng() % bad.size());
            }
            auto r = parseFlightRecorderPickle("rank_3", bad); // must return, error or not
            if (!r.ok()) {
                CHECK_FALSE(r.error().message.empty());
            }
        }
    }
}

TEST_CASE("a folder of pickle dumps opens as raw files", "[core][import][pickle]")
{
    TempDir tmp;
    for (const char* name : { "nccl_trace_rank_3", "nccl_trace_rank_5", "comm_lib_trace_rank_6" }) {
        writeFile(tmp.path() / name, readFile(pickleFile(name)));
    }
    auto r = openJob(tmp.str());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& s = *r->snapshot;
    CHECK(s.job.worldSize == 7);
    CHECK(s.collectiveCount() == 3 + 2 + 1);
    CHECK_THAT(r->recognised[1] + r->recognised[2], Catch::Contains("last completed"));
    CHECK(s.collectives[5].size() == 2);
    CHECK_THAT(r->recognised.front(), Catch::Contains("3 Flight Recorder pickle dumps"));
}

TEST_CASE("the streaming pickle reader gives what the tree reader gives, or hands over", "[core][import][pickle]")
{
    auto same = [](const RankRecords& a, const RankRecords& b) {
        REQUIRE(a.entries.size() == b.entries.size());
        CHECK(a.version == b.version);
        CHECK(a.rank == b.rank);
        CHECK(a.p2pSkipped == b.p2pSkipped);
        CHECK(a.warnings.size() == b.warnings.size());
        REQUIRE(a.groups.size() == b.groups.size());
        REQUIRE(a.pgStatus.size() == b.pgStatus.size());
        for (const auto& [pg, st] : a.pgStatus) {
            CHECK(b.pgStatus.at(pg).lastCompleted == st.lastCompleted);
            CHECK(b.pgStatus.at(pg).lastEnqueued == st.lastEnqueued);
        }
        for (const auto& [name, g] : a.groups) {
            CHECK(b.groups.at(name).ranks == g.ranks);
            CHECK(b.groups.at(name).desc == g.desc);
        }
        for (std::size_t i = 0; i < a.entries.size(); ++i) {
            const auto &x = a.entries[i], &y = b.entries[i];
            CHECK((x.pg == y.pg && x.seq == y.seq && x.op == y.op && x.bytes == y.bytes && x.state == y.state
                && x.enqueueNs == y.enqueueNs && x.startNs == y.startNs && x.endNs == y.endNs));
        }
    };
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const char* name : { "nccl_trace_rank_3", "nccl_trace_rank_5", "comm_lib_trace_rank_6", "nccl_trace_rank_1",
             "nccl_trace_rank_2" }) {
        inputs.emplace_back(name, readFile(pickleFile(name)));
    }
    // The simulator's dumps (PickleWriter, torch::jit::Pickler's subset), timed-out and hung entries included.
    TempDir tmp;
    auto c = tinyConfig();
    c.faults = { parseFaultSpec("flap:host-leaf:rank=3:at=60s:for=45s").value() };
    c.durationNs = 12 * 60 * kNsPerSec;
    const auto sim = simulateOrFail(c);
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    for (const char* name : { "nccl_trace_rank_0", "nccl_trace_rank_3", "nccl_trace_rank_63" }) {
        inputs.emplace_back(name, readFile(tmp.path() / "raw" / name));
    }
    for (const auto& [name, bytes] : inputs) {
        INFO(name);
        auto fast = fr_detail::parseFlightRecorderPickleStream(name, bytes);
        REQUIRE(fast.has_value()); // these are all shapes it reads
        REQUIRE(fast->ok());
        auto tree = fr_detail::parseFlightRecorderPickleTree(name, bytes);
        REQUIRE(tree.ok());
        same(fast->value(), tree.value());
    }
    // Shapes it hands over: ranks as a list, a GLOBAL opcode, a truncated file.
    CHECK_FALSE(fr_detail::parseFlightRecorderPickleStream("x", inputs[0].second.substr(0, 500)).has_value());
    const std::string evil("\x80\x02"
                           "cposix\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.",
        36);
    CHECK_FALSE(fr_detail::parseFlightRecorderPickleStream("x", evil).has_value());
}

TEST_CASE("pickle dumps of versions 2.3 and 2.5", "[core][import][pickle]")
{
    auto v23 = parseFlightRecorderPickle(pickleFile("nccl_trace_rank_1"), readFile(pickleFile("nccl_trace_rank_1")));
    REQUIRE(v23.ok());
    CHECK(v23->version == "2.3");
    REQUIRE(v23->entries.size() == 2);
    CHECK(v23->entries[1].state == CollectiveState::TimedOut); // scheduled but retired: the watchdog gave up
    auto v25 = parseFlightRecorderPickle(pickleFile("nccl_trace_rank_2"), readFile(pickleFile("nccl_trace_rank_2")));
    REQUIRE(v25.ok());
    CHECK(v25->version == "2.5");
    REQUIRE(v25->entries.size() == 1);
    CHECK(v25->entries[0].op == CollectiveOp::ReduceScatter);
    CHECK(v25->entries[0].bytes == 64ULL * 64 * 2);
}

TEST_CASE("a pickle dump cut off while written keeps its groups, its status and its whole entries",
    "[core][import][pickle][hostile]")
{
    // PyTorch writes version, pg_config, pg_status and then the entries (FlightRecorder::dump_dict), the whole
    // pickle with one write: a process killed while it writes, or a full disk, leaves the file cut anywhere.
    const auto good = readFile(pickleFile("nccl_trace_rank_3"));
    const auto whole = parseFlightRecorderPickle("nccl_trace_rank_3", good);
    REQUIRE(whole.ok());
    REQUIRE(whole->entries.size() == 3);
    CHECK(whole->warnings.empty());

    std::set<std::size_t> counts;
    std::size_t withStatus = 0;
    for (std::size_t at = 0; at < good.size(); ++at) {
        const auto r = parseFlightRecorderPickle("nccl_trace_rank_3", good.substr(0, at));
        if (!r) {
            CHECK_FALSE(r.error().message.empty());
            continue;
        }
        CAPTURE(at);
        CHECK_THAT(formatted(r.value().warnings),
            Catch::Contains("nccl_trace_rank_3 (byte offset " + std::to_string(at) + "): the dump ends"));
        CHECK(r->version == whole->version);
        REQUIRE(r->entries.size() <= whole->entries.size());
        for (std::size_t i = 0; i < r->entries.size(); ++i) { // the first entries, exactly as the whole dump has them
            CHECK(r->entries[i].seq == whole->entries[i].seq);
            CHECK(r->entries[i].startNs == whole->entries[i].startNs);
            CHECK(r->entries[i].endNs == whole->entries[i].endNs);
            CHECK(r->entries[i].state == whole->entries[i].state);
        }
        counts.insert(r->entries.size());
        if (r->pgStatus.count("0")) {
            ++withStatus;
            CHECK(r->pgStatus.at("0").lastStarted == whole->pgStatus.at("0").lastStarted);
        }
    }
    CHECK(counts == std::set<std::size_t> { 0, 1, 2, 3 }); // every entry count from none to all
    CHECK(withStatus > good.size() / 2); // what tells the stuck rank survives most cuts

    // Cut in the middle of the third entry: the two before it, the groups and the status.
    const auto third = good.find("nccl:reduce_scatter");
    REQUIRE(third != std::string::npos);
    const auto r = parseFlightRecorderPickle("nccl_trace_rank_3", good.substr(0, third));
    REQUIRE(r.ok());
    CHECK(r->groups.size() == whole->groups.size());
    CHECK(r->entries.size() == 2);
    CHECK_THAT(formatted(r.value().warnings),
        Catch::Contains("ends inside its \"entries\"") && Catch::Contains("read the 2 collectives"));
}
