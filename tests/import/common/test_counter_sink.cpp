// SPDX-License-Identifier: MIT
// The counter sink past its memory budget (issue #13): samples spilled to a scratch file and columns read from a
// mapped one must give exactly the series a sink holding everything gives; a spill that cannot be written is an
// error, never a half snapshot; and nothing is left on disk.
#include "import/common/counter_sink.h"
#include "import/folder/raw_folder.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <set>

using namespace stallscope;
using namespace stallscope::test;

namespace {

struct Fed
{
    std::uint64_t guid;
    std::uint16_t port;
    CounterKind kind;
    TimeNs t;
    std::uint64_t value;
    int bits;
};

// Time-major rows as a collector writes them (every series at each instant), with what real folders add: a file
// that repeats an instant with a newer reading, rows out of order, a port with both 32- and 64-bit data counters,
// a counter whose readings outgrow its usual width.
std::vector<Fed> feed()
{
    std::mt19937_64 rng(7);
    std::vector<Fed> out;
    const CounterKind kinds[] = { CounterKind::LinkDowned, CounterKind::SymbolError, CounterKind::PortXmitWait };
    for (int s = 0; s < 400; ++s) {
        const TimeNs t = 1'000'000'000LL * (s < 200 ? s : 599 - s); // the second half arrives newest first
        for (std::uint64_t guid = 1; guid <= 3; ++guid) {
            for (std::uint16_t port = 1; port <= 2; ++port) {
                for (auto k : kinds) {
                    out.push_back({ guid, port, k, t, rng() % (k == CounterKind::LinkDowned ? 600 : 1000), 0 });
                }
            }
        }
        out.push_back({ 9, 1, CounterKind::PortXmitData, t, std::uint64_t(s) * 1000, 32 });
        out.push_back({ 9, 1, CounterKind::PortXmitData, t, std::uint64_t(s) * 1000 + 5, 64 });
        if (s % 50 == 7) { // the same instant again from a later file: its reading stands
            out.push_back({ 2, 1, CounterKind::SymbolError, t, 77777, 0 });
        }
    }
    return out;
}

void fill(CounterSink& sink)
{
    for (const auto& f : feed()) {
        sink.sample(f.guid, f.port, f.kind, f.t, f.value, f.bits);
    }
}

std::shared_ptr<JobSnapshot> flushed(CounterSink& sink)
{
    auto snap = std::make_shared<JobSnapshot>();
    auto owned = std::make_shared<OwnedColumns>();
    const auto blocks = sink.flush(*snap, *owned);
    attachOwnedColumns(*snap, owned, blocks);
    return snap;
}

std::size_t scratchFilesIn(const std::string& dir)
{
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        n += e.path().filename().string().rfind(".stallscope-scratch-", 0) == 0;
    }
    return n;
}

} // namespace

TEST_CASE("counter sink: samples spilled past the memory budget come back as the series held ones give",
    "[core][import][spill]")
{
    TempDir tmp;
    CounterSink held; // the default budget: everything stays in memory
    fill(held);
    CounterSink spilling(ScratchPolicy { 4096, tmp.str() }); // 256 samples: spills dozens of times
    fill(spilling);
    CHECK(held.spilledBytes() == 0);
    CHECK(spilling.spilledBytes() >= feed().size() * 16 - 4096);
    const auto a = flushed(held);
    const auto b = flushed(spilling);
    REQUIRE(spilling.error().empty());
    REQUIRE(a->counters.size() == 19); // 3 × 2 ports × 3 kinds, and the 64-bit data counter (not the 32-bit one)
    CHECK(sameCounterSeries(*a, *b));
    CHECK(scratchFilesIn(tmp.str()) == 0); // unlinked at creation: nothing left however the load ends

    // What both must say, worked out from the feed itself: sorted times, one sample per instant, the later
    // reading of a repeated instant, the width widened to what the readings need.
    for (const auto* snap : { a.get(), b.get() }) {
        for (const auto& s : snap->counters) {
            REQUIRE(s.size() == 400);
            CHECK(std::is_sorted(s.timesNs.begin(), s.timesNs.end()));
            const auto& p = snap->counterPorts[s.port];
            if (p.guid == 2 && p.port == 1 && s.kind == CounterKind::SymbolError) {
                CHECK(s.value(7) == 77777);
            }
            if (s.kind == CounterKind::LinkDowned && p.guid != 9) {
                CHECK(s.bits == 16); // 8-bit counter with readings up to 599
            }
            if (s.kind == CounterKind::PortXmitData) {
                CHECK(s.bits == 64);
                CHECK(s.value(3) == 3005);
            }
        }
        // One sampler's counters of a port share one time column, in memory and in the scratch file alike.
        CHECK(snap->counters[0].timesNs.data() == snap->counters[1].timesNs.data());
    }
}

TEST_CASE("counter sink: a spill that cannot be written ends in an error naming the folder, not half a snapshot",
    "[core][import][spill]")
{
    CounterSink sink(ScratchPolicy { 1024, "/nonexistent-stallscope-dir" });
    fill(sink);
    const auto snap = flushed(sink);
    CHECK_THAT(sink.error(), Catch::Contains("/nonexistent-stallscope-dir"));
    CHECK(snap->counters.empty());
}

TEST_CASE("raw folder: counters past the memory budget open the same through scratch files", "[core][import][spill]")
{
    TempDir tmp;
    auto config = tinyConfig();
    config.fabricOnly = true;
    const auto sim = simulateOrFail(config);
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("raw")).empty());
    NullProgress none;
    auto held = openJob(tmp.str("raw"));
    std::filesystem::create_directory(tmp.str("scratch"));
    auto spilled = openJob(tmp.str("raw"), none, ScratchPolicy { 64 << 10, tmp.str("scratch") });
    REQUIRE(held);
    REQUIRE(spilled);
    CHECK(held->spilledBytes == 0);
    CHECK(spilled->spilledBytes > 0);
    CHECK(held->counterBytes > 0); // what `info` reports as the counters' memory
    CHECK(held->counterBytes == spilled->counterBytes);
    CHECK(held->snapshot->counters.size() > 100);
    CHECK(sameCounterSeries(*held->snapshot, *spilled->snapshot));
    CHECK(held->snapshot->linkEvents.size() == spilled->snapshot->linkEvents.size());
    CHECK(scratchFilesIn(tmp.str("scratch")) == 0);

    // Every scrape file read in pieces of 4 KiB of whole lines (as files of 256 MiB and more are): the same series.
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 4096;
    auto piecewise = openJob(tmp.str("raw"), none, pieces);
    REQUIRE(piecewise);
    const auto& notes = piecewise->recognised;
    CHECK(std::any_of(notes.begin(), notes.end(), [](const auto& n) { return n.find("read in pieces") != n.npos; }));
    CHECK(sameCounterSeries(*held->snapshot, *piecewise->snapshot));
    CHECK(held->snapshot->linkEvents.size() == piecewise->snapshot->linkEvents.size());
    CHECK(held->warnings.size() == piecewise->warnings.size());

    auto full = openJob(tmp.str("raw"), none, ScratchPolicy { 64 << 10, "/nonexistent-stallscope-dir" });
    REQUIRE_FALSE(full);
    CHECK_THAT(full.error().format(), Catch::Contains("/nonexistent-stallscope-dir"));
}

namespace {

// Records the stages a load reports and cancels once one starting with `at` is reported.
class CancelAt final : public Progress
{
public:
    explicit CancelAt(std::string at)
        : m_at(std::move(at))
    {
    }
    void report(std::string_view stage, std::uint64_t, std::uint64_t) override
    {
        stages.insert(std::string(stage));
        m_cancelled = m_cancelled || (!m_at.empty() && stage.rfind(m_at, 0) == 0);
    }
    bool cancelled() const override { return m_cancelled; }
    std::set<std::string> stages;

private:
    std::string m_at;
    bool m_cancelled = false;
};

} // namespace

TEST_CASE("raw folder: reading in pieces and joining the samples report progress and stop when cancelled",
    "[core][import][spill]")
{
    TempDir tmp;
    auto config = tinyConfig();
    config.fabricOnly = true;
    REQUIRE(writeRawFolder(*simulateOrFail(config).snapshot, tmp.str("raw")).empty());
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 4096;
    CancelAt none("");
    REQUIRE(openJob(tmp.str("raw"), none, pieces));
    const auto& seen = none.stages;
    CHECK(seen.count("Reading switch-counters.prom in pieces"));
    CHECK(seen.count("Reading counter CSVs"));
    CHECK(seen.count("Joining counter samples"));
    for (const auto* stage : { "Reading switch-counters.prom", "Reading counter CSVs", "Joining counter samples" }) {
        CancelAt cancel(stage);
        auto r = openJob(tmp.str("raw"), cancel, pieces);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().format(), Catch::Contains("opening cancelled"));
    }
}

TEST_CASE("raw folder: a scrape read in pieces warns of a counter going backwards as read whole, with its line",
    "[core][import][spill]")
{
    TempDir tmp;
    std::filesystem::create_directory(tmp.str("raw"));
    std::string prom = "# TYPE node_infiniband_link_downed_total counter\n";
    const long long ms = 1'748'779'200'000LL;
    for (int i = 0; i < 200; ++i) { // a reading per second; line 152 goes from 149 down to 3
        prom += "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"hostA:9100\"} "
            + std::to_string(i == 150 ? 3 : i) + " " + std::to_string(ms + 1000LL * i) + "\n";
    }
    writeFile(tmp.path() / "raw" / "hostA.prom", prom);
    const auto backwardsAt = [](const LoadedJob& job) {
        std::vector<std::int64_t> lines;
        for (const auto& w : job.warnings) {
            if (w.message.find("went backwards") != std::string::npos) {
                lines.push_back(w.line);
            }
        }
        return lines;
    };
    auto held = openJob(tmp.str("raw"));
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 1; // every line a piece: the drop and the reading before it are in different pieces
    NullProgress none;
    auto piecewise = openJob(tmp.str("raw"), none, pieces);
    REQUIRE(held);
    REQUIRE(piecewise);
    CHECK(backwardsAt(held.value()) == std::vector<std::int64_t> { 152 });
    CHECK(backwardsAt(piecewise.value()) == backwardsAt(held.value()));
}
