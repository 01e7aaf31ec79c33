// SPDX-License-Identifier: MIT
#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <fstream>

#include <csignal>
#include <filesystem>
#include <map>
#include <sys/resource.h>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

void requireSameCollectives(const JobSnapshot& a, const JobSnapshot& b)
{
    REQUIRE(a.collectives.size() == b.collectives.size());
    for (std::size_t r = 0; r < a.collectives.size(); ++r) {
        const auto& x = a.collectives[r];
        const auto& y = b.collectives[r];
        REQUIRE(x.size() == y.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            REQUIRE(x.enqueueNs[i] == y.enqueueNs[i]);
            REQUIRE(x.startNs[i] == y.startNs[i]);
            REQUIRE(x.endNs[i] == y.endNs[i]);
            REQUIRE(x.seq[i] == y.seq[i]);
            REQUIRE(x.state[i] == y.state[i]);
            REQUIRE(a.shapes[x.shape[i]] == b.shapes[y.shape[i]]);
        }
    }
}

void requireSameCounters(const JobSnapshot& a, const JobSnapshot& b)
{
    REQUIRE(a.counters.size() == b.counters.size());
    // JSON Lines regroups series by (guid, port, counter); compare as a map.
    std::map<std::tuple<std::uint64_t, int, int>, const CounterSeries*> bySeries;
    for (const auto& s : b.counters) {
        const auto& p = b.counterPorts[s.port];
        bySeries[{ p.guid, p.port, int(s.kind) }] = &s;
    }
    for (const auto& s : a.counters) {
        const auto& p = a.counterPorts[s.port];
        const auto* t = bySeries.at({ p.guid, p.port, int(s.kind) });
        REQUIRE(t->bits == s.bits);
        REQUIRE(t->size() == s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            REQUIRE(t->timesNs[i] == s.timesNs[i]);
            REQUIRE(t->value(i) == s.value(i));
        }
    }
}

} // namespace

TEST_CASE("binary and JSON Lines bundles round-trip to the same snapshot", "[core][bundle]")
{
    auto config = tinyConfig();
    config.hosts = 2; // JSON Lines is for small bundles
    config.faults[0].rank = 5;
    std::string error;
    config.policy.adaptive = *parseAdaptiveRetransmission("init=10..13,ranges=13..17x2,18..20x3", error);
    const auto sim = simulateOrFail(config);
    TempDir tmp;
    BundleWriteOptions jsonl;
    jsonl.collectives = jsonl.counters = ColumnFormat::JsonLines;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("bin")).empty());
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("jsonl"), jsonl).empty());
    CHECK(fs::exists(tmp.path() / "bin" / "collectives.bin"));
    CHECK(fs::exists(tmp.path() / "jsonl" / "collectives.jsonl"));

    auto bin = openJob(tmp.str("bin"));
    auto txt = openJob(tmp.str("jsonl"));
    INFO((bin ? "" : bin.error().format()) << (txt ? "" : txt.error().format()));
    REQUIRE(bin.ok());
    REQUIRE(txt.ok());
    CHECK(bin->warnings.empty());
    CHECK(txt->warnings.empty());
    requireSameCollectives(*sim.snapshot, *bin->snapshot);
    requireSameCollectives(*sim.snapshot, *txt->snapshot);
    requireSameCounters(*sim.snapshot, *bin->snapshot);
    requireSameCounters(*sim.snapshot, *txt->snapshot);
    CHECK(bin->snapshot->linkEvents.size() == sim.snapshot->linkEvents.size());
    // The subnet manager's route updates travel in events.jsonl beside the link events.
    REQUIRE_FALSE(sim.snapshot->routeUpdates.empty());
    REQUIRE(bin->snapshot->routeUpdates.size() == sim.snapshot->routeUpdates.size());
    CHECK(bin->snapshot->routeUpdates.front().timeNs == sim.snapshot->routeUpdates.front().timeNs);
    CHECK(bin->snapshot->str(bin->snapshot->routeUpdates.front().source) == "opensm");
    CHECK(txt->snapshot->topology.links().size() == sim.snapshot->topology.links().size());
    CHECK(bin->snapshot->job.name == sim.snapshot->job.name);
    CHECK(bin->snapshot->policy.retryBudgetNs() == sim.snapshot->policy.retryBudgetNs());
    CHECK(bin->snapshot->policy.adaptive == sim.snapshot->policy.adaptive); // the manifest keeps the ADP profile
    CHECK(txt->snapshot->policy.adaptive == sim.snapshot->policy.adaptive);
    // Ranks resolve to their HCA in the topology by node description.
    for (const auto& r : bin->snapshot->ranks) {
        REQUIRE(r.hcaNode.has_value());
    }
    // Binary collectives are mapped in place: 32 bytes per record plus small tables.
    CHECK(double(bin->collectiveBytes) / double(bin->snapshot->collectiveCount()) < 32.5);

    SECTION("writing a binary bundle back gives identical bytes")
    {
        REQUIRE(writeBundle(*bin->snapshot, tmp.str("again")).empty());
        CHECK(readFile(tmp.path() / "again" / "collectives.bin") == readFile(tmp.path() / "bin" / "collectives.bin"));
        CHECK(readFile(tmp.path() / "again" / "counters.bin") == readFile(tmp.path() / "bin" / "counters.bin"));
    }
}

TEST_CASE("model invariants hold for a simulated job", "[core][model]")
{
    const auto sim = simulateOrFail(tinyConfig());
    const auto& snap = *sim.snapshot;
    REQUIRE(snap.collectives.size() == snap.job.worldSize);
    std::map<std::uint32_t, std::size_t> ranksPerSeq;
    for (const auto& c : snap.collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (i > 0) {
                REQUIRE(c.enqueueNs[i - 1] <= c.enqueueNs[i]);
            }
            if (c.stateAt(i) == CollectiveState::Completed) {
                REQUIRE(c.enqueueNs[i] <= c.startNs[i]);
                REQUIRE(c.startNs[i] < c.endNs[i]);
            }
            REQUIRE(c.shape[i] < snap.shapes.size());
            ++ranksPerSeq[c.seq[i]];
        }
    }
    // Every collective sequence number was entered by every rank (nothing died in this scenario).
    for (const auto& [seq, n] : ranksPerSeq) {
        REQUIRE(n == snap.job.worldSize);
    }
    CHECK(snap.topology.switchCount() == 8 + 4);
    CHECK(snap.topology.hcaCount() == 64);
}

TEST_CASE("an existing bundle is replaced atomically, a non-bundle folder is not touched", "[core][bundle]")
{
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty()); // replace
    CHECK(openJob(tmp.str("b")).ok());
    fs::create_directories(tmp.path() / "precious");
    writeFile(tmp.path() / "precious" / "notes.txt", "keep me");
    const auto err = writeBundle(*sim.snapshot, tmp.str("precious"));
    CHECK_THAT(err, Catch::Contains("not a Stallscope bundle"));
    CHECK(readFile(tmp.path() / "precious" / "notes.txt") == "keep me");
    // No temporary folders are left behind.
    for (const auto& e : fs::directory_iterator(tmp.path())) {
        CHECK(e.path().filename().string().find(".partial") == std::string::npos);
    }
}

TEST_CASE("a failed save leaves the previous file intact", "[core][bundle]")
{
    TempDir tmp;
    const auto file = tmp.path() / "session.json";
    REQUIRE(writeFileAtomic(file.string(), "old").empty());
    // Inject "disk full": a file-size limit makes write() fail with EFBIG, also for root.
    struct rlimit saved
    {
    };
    ::getrlimit(RLIMIT_FSIZE, &saved);
    auto* previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit tiny = saved;
    tiny.rlim_cur = 16;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &tiny) == 0);
    const auto err = writeFileAtomic(file.string(), std::string(4096, 'x'));
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    CHECK_FALSE(err.empty());
    CHECK(readFile(file) == "old");
    for (const auto& e : fs::directory_iterator(tmp.path())) {
        CHECK(e.path().filename() == "session.json"); // the temporary file was removed
    }
}

TEST_CASE("the notes (Slurm fates) travel in events.jsonl, a note for a rank outside the job is refused by line",
    "[core][bundle]")
{
    auto config = tinyConfig();
    config.hosts = 2;
    config.faults = { parseFaultSpec("dead-rank:rank=5:at=20s").value() };
    const auto sim = simulateOrFail(config);
    REQUIRE(sim.snapshot->notes.size() == sim.snapshot->ranks.size()); // srun's account: one fate per task
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    auto back = openJob(tmp.str("b"));
    REQUIRE(back.ok());
    const auto& a = *sim.snapshot;
    const auto& b = *back->snapshot;
    REQUIRE(b.notes.size() == a.notes.size());
    for (std::size_t i = 0; i < a.notes.size(); ++i) {
        CHECK(b.notes[i].rank == a.notes[i].rank);
        CHECK(b.notes[i].code == a.notes[i].code);
        CHECK(b.notes[i].timeNs == kNoTime);
        CHECK(b.str(b.notes[i].text) == a.str(a.notes[i].text));
        CHECK(b.str(b.notes[i].source) == "slurm");
    }
    CHECK(b.notes[5].code == 9); // the dead rank was killed; the others aborted
    CHECK(b.notes[4].code == 6);

    std::ofstream(tmp.path() / "b" / "link_events.jsonl", std::ios::app)
        << R"({"t_ns":null,"note":"killed by signal","host":"x","rank":99999,"code":9,"text":"t","source":"slurm"})"
        << '\n';
    auto bad = openJob(tmp.str("b"));
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().format(), Catch::Contains("link_events.jsonl:") && Catch::Contains("below the world size"));
}
