// SPDX-License-Identifier: MIT
// Training mode's core (issue #16): every shipped exercise is generated as a folder, opened by the real importer,
// analysed, and checked — the analysis agrees with the exercise's answer, the reference answer scores full marks,
// and a plausible wrong answer scores low with an explanation of why it is wrong.
#include "analysis/analysis.h"
#include "import/open_job.h"
#include "test_support.h"
#include "training/answer.h"
#include "training/folder.h"
#include "training/scoring.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace stallscope;
using namespace stallscope::test;
using namespace stallscope::training;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<LinkId>& v, LinkId l)
{
    return std::find(v.begin(), v.end(), l) != v.end();
}

// A link by its ends' GUIDs and ports: the same in the simulator's snapshot and in one imported from the folder
// (whose link ids differ).
using LinkKey = std::pair<std::pair<std::uint64_t, int>, std::pair<std::uint64_t, int>>;
LinkKey key(std::uint64_t g1, int p1, std::uint64_t g2, int p2)
{
    auto a = std::pair { g1, p1 };
    auto b = std::pair { g2, p2 };
    return a < b ? LinkKey { a, b } : LinkKey { b, a };
}
LinkKey key(const JobSnapshot& snap, LinkId id)
{
    const auto& l = snap.topology.link(id);
    return key(snap.topology.node(l.a.node).guid, l.a.port, snap.topology.node(l.b.node).guid, l.b.port);
}
LinkKey key(const LinkEndpoint& a, const LinkEndpoint& b)
{
    return key(a.guid, a.port, b.guid, b.port);
}

// The answer a trainee who read the reference would give.
TraineeAnswer referenceAnswer(const JobSnapshot& snap, const Reference& ref)
{
    TraineeAnswer a;
    a.verdict = ref.verdict;
    for (const auto l : ref.links) {
        a.links.push_back(linkName(snap, l).substr(0, linkName(snap, l).find(" <-> ")));
    }
    a.ranks = ref.ranks;
    a.culpritUnprovable = !ref.provable;
    a.costGpuSeconds = ref.costGpuSeconds;
    a.periodSeconds = ref.periodSeconds;
    return a;
}

// An innocent link a hurried trainee would name: the loudest one the analysis looked at and did not blame, else
// another link of the culprit's switch (for rank faults: the link of rank 0's HCA).
std::string loudestInnocentLink(const JobSnapshot& snap, const AnalysisResult& analysis, const Reference& ref)
{
    for (const auto& inc : analysis.incidents) {
        for (const auto& other : inc.otherLinks) {
            if (std::none_of(ref.links.begin(), ref.links.end(),
                    [&](LinkId l) { return key(snap, l) == key(other.a, other.b); })) {
                return other.a.node + " port " + std::to_string(other.a.port);
            }
        }
    }
    const auto& topo = snap.topology;
    const NodeId near = ref.links.empty() ? *snap.ranks.at(0).hcaNode : topo.link(ref.links.front()).b.node;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        if ((l.a.node == near || l.b.node == near) && !has(ref.links, LinkId(i))) {
            const auto& end = l.a.node == near ? l.a : l.b;
            return std::string(snap.str(topo.node(end.node).description)) + " port " + std::to_string(end.port);
        }
    }
    FAIL("no innocent link near the culprit");
    return {};
}

TraineeAnswer plausibleWrongAnswer(
    const Exercise& e, const JobSnapshot& snap, const AnalysisResult& analysis, const Reference& ref)
{
    TraineeAnswer a;
    switch (ref.verdict) {
    case Verdict::Stretched:
        a.verdict = Verdict::Crashed;
        break;
    case Verdict::Crashed:
    case Verdict::Slowed:
        a.verdict = Verdict::Stretched;
        break;
    case Verdict::NoFabricFault:
        a.verdict = Verdict::Stretched;
        a.ranks = { ref.ranks.front() == 0 ? 1u : 0u }; // rank 0's log is the one people read first
        break;
    }
    a.links = { loudestInnocentLink(snap, analysis, ref) };
    if (e.askPeriod) {
        a.periodSeconds = ref.periodSeconds.value_or(0) / 2;
    }
    if (ref.costGpuSeconds) {
        a.costGpuSeconds = *ref.costGpuSeconds * 10;
    }
    return a;
}

// The analysis of the folder agrees with the exercise's answer (or, where it deliberately cannot, says nothing
// wrong: no culprit where none can be proven).
void checkAnalysisAgrees(
    const Exercise& e, const JobSnapshot& truth, const AnalysisResult& analysis, const Reference& ref)
{
    INFO("exercise " << e.id);
    std::set<LinkKey> culprits;
    for (const auto l : ref.links) {
        culprits.insert(key(truth, l));
    }
    switch (ref.verdict) {
    case Verdict::Stretched:
    case Verdict::Crashed:
        REQUIRE_FALSE(analysis.incidents.empty());
        for (const auto& inc : analysis.incidents) {
            CHECK(inc.jobCrashed == (ref.verdict == Verdict::Crashed));
            if (ref.provable) {
                REQUIRE(inc.culprit);
                CHECK(culprits.count(key(inc.culprit->a, inc.culprit->b)));
            } else {
                CHECK_FALSE(inc.culprit);
            }
        }
        if (ref.provable) {
            for (const auto& l : culprits) { // every culprit is blamed for some stall
                CHECK(std::any_of(analysis.incidents.begin(), analysis.incidents.end(),
                    [&](const Incident& i) { return i.culprit && key(i.culprit->a, i.culprit->b) == l; }));
            }
        }
        break;
    case Verdict::NoFabricFault:
        REQUIRE(analysis.incidents.size() == 1);
        CHECK_FALSE(analysis.incidents[0].culprit);
        CHECK((analysis.incidents[0].kind == IncidentKind::DeadRank
            || analysis.incidents[0].kind == IncidentKind::Straggler));
        CHECK(std::find(analysis.incidents[0].suspectRanks.begin(), analysis.incidents[0].suspectRanks.end(),
                  ref.ranks.front())
            != analysis.incidents[0].suspectRanks.end());
        break;
    case Verdict::Slowed:
        CHECK(analysis.incidents.empty());
        REQUIRE(analysis.degradedLinks.size() == 1);
        CHECK(culprits.count(key(analysis.degradedLinks[0].a, analysis.degradedLinks[0].b)));
        break;
    }
}

void runExercise(const std::string& id)
{
    const auto& lib = builtinExercises();
    const auto* e = lib.find(id);
    REQUIRE(e);
    TempDir tmp;
    const auto dir = tmp.str("exercise");
    NullProgress progress;
    auto sim = writeExerciseFolder(lib, *e, e->sim.seed, dir, progress);
    REQUIRE(sim);

    // The folder: the briefing, no answer, the withheld sources absent, nothing left beside it.
    auto sheet = readExerciseFolder(dir);
    REQUIRE(sheet);
    CHECK(sheet.value().id == id);
    CHECK(sheet.value().seed == e->sim.seed);
    CHECK(sheet.value().briefing == e->briefing);
    CHECK_FALSE(fs::exists(fs::path(dir) / "truth.json"));
    CHECK_FALSE(fs::exists(fs::path(dir) / "fabric.net"));
    const auto sheetText = readFile(fs::path(dir) / kExerciseSheet);
    CHECK(sheetText.find("culprit") == std::string::npos);
    for (const auto s : e->withheld) {
        for (const auto& f : fs::directory_iterator(dir)) {
            const auto name = f.path().filename().string();
            INFO(name << " should be withheld as " << toString(s));
            CHECK_FALSE((s == Source::Counters && name.starts_with("counters-")));
            CHECK_FALSE((s == Source::SmLog && name == "opensm.log"));
        }
    }
    CHECK(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()) == 1);

    // Opened as a user would, and analysed.
    auto job = openJob(dir, progress);
    REQUIRE(job);
    CHECK(job.value().warnings.empty());
    const auto analysis = analyze(*job.value().snapshot);
    const auto config = simConfigFor(*e, e->sim.seed);
    const auto ref = referenceFor(*e, config, sim.value());
    CHECK(ref.links.size() + ref.ranks.size() == e->culpritFaults.size());
    checkAnalysisAgrees(*e, *sim.value().snapshot, analysis, ref);

    // The reference answer scores full marks; a plausible wrong one scores low and says why.
    const auto& snap = *sim.value().snapshot;
    const auto best = scoreAnswer(*e, config, sim.value(), ref, referenceAnswer(snap, ref));
    INFO(scoreToText(*e, ref, best));
    CHECK(best.percent() == 100);
    const auto wrong = scoreAnswer(*e, config, sim.value(), ref, plausibleWrongAnswer(*e, snap, analysis, ref));
    INFO(scoreToText(*e, ref, wrong));
    CHECK(wrong.percent() < 50);
    for (const auto& part : wrong.parts) {
        CHECK(part.got < part.max);
        CHECK(part.why.size() > 40);
    }
    if (id == "red-herring") {
        CHECK(wrong.parts[1].why.find("never went down") != std::string::npos);
    }
    if (id == "dead-rank") {
        CHECK(wrong.parts[1].why.find("victim") != std::string::npos);
        CHECK(wrong.parts[1].why.find("No link is at fault") != std::string::npos);
    }
    if (!ref.provable) {
        CHECK(wrong.parts[1].got == 0);
    }
}

} // namespace

TEST_CASE("the built-in exercise library: twelve exercises from first day to expert", "[core][training]")
{
    const auto& lib = builtinExercises();
    CHECK(lib.version >= 1);
    REQUIRE(lib.exercises.size() >= 12);
    CHECK(lib.exercises.front().level == 1);
    CHECK(std::is_sorted(lib.exercises.begin(), lib.exercises.end(),
        [](const Exercise& a, const Exercise& b) { return a.level < b.level; }));
    for (const auto& e : lib.exercises) {
        INFO(e.id);
        CHECK(e.briefing.size() > 100);
        CHECK(e.lesson.size() > 100);
        CHECK(e.hints.size() >= 2);
    }
    // Each issue-named situation is covered.
    for (const char* id : { "first-flap", "hourly-flap", "long-flap", "dead-rank", "slow-rank", "leaf-spine-ar",
             "two-links", "red-herring", "no-counters", "counter-wrap", "clock-skew", "degraded-link" }) {
        CHECK(lib.find(id));
    }
}

#define EXERCISE_TEST(id)                                                                                              \
    TEST_CASE("exercise " id ": generated, opened, analysed and checked", "[core][training]")                          \
    {                                                                                                                  \
        runExercise(id);                                                                                               \
    }

EXERCISE_TEST("first-flap")
EXERCISE_TEST("hourly-flap")
EXERCISE_TEST("long-flap")
EXERCISE_TEST("dead-rank")
EXERCISE_TEST("slow-rank")
EXERCISE_TEST("leaf-spine-ar")
EXERCISE_TEST("two-links")
EXERCISE_TEST("red-herring")
EXERCISE_TEST("no-counters")
EXERCISE_TEST("counter-wrap")
EXERCISE_TEST("clock-skew")
EXERCISE_TEST("degraded-link")

TEST_CASE("an exercise's variant moves the culprit, and its reference and the analysis follow", "[core][training]")
{
    const auto& lib = builtinExercises();
    const auto& e = *lib.find("first-flap");
    const auto c0 = simConfigFor(e, e.sim.seed);
    const auto c7 = simConfigFor(e, 7);
    CHECK(c0.faults[0].rank == e.sim.faults[0].rank);
    CHECK(c7.seed == 7);
    CHECK(c7.faults[0].rank != c0.faults[0].rank);
    CHECK(simConfigFor(e, 7).faults[0].rank == c7.faults[0].rank); // deterministic
    TempDir tmp;
    NullProgress progress;
    auto sim = writeExerciseFolder(lib, e, 7, tmp.str("v"), progress);
    REQUIRE(sim);
    const auto ref = referenceFor(e, c7, sim.value());
    REQUIRE(ref.links.size() == 1);
    auto job = openJob(tmp.str("v"), progress);
    REQUIRE(job);
    const auto analysis = analyze(*job.value().snapshot);
    REQUIRE(analysis.incidents.size() == 1);
    REQUIRE(analysis.incidents[0].culprit);
    CHECK(key(analysis.incidents[0].culprit->a, analysis.incidents[0].culprit->b)
        == key(*sim.value().snapshot, ref.links[0]));
    CHECK(readExerciseFolder(tmp.str("v")).value().seed == 7);
    // A folder that is not empty is refused, and nothing is written.
    writeFile(tmp.path() / "busy" / "x", "");
    fs::create_directories(tmp.path() / "busy");
    writeFile(tmp.path() / "busy" / "x", "keep");
    auto refused = writeExerciseFolder(lib, e, 1, tmp.str("busy"), progress);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("not empty") != std::string::npos);
    CHECK(readFile(tmp.path() / "busy" / "x") == "keep");
}

TEST_CASE("links are named the way the views show them", "[core][training]")
{
    auto sim = simulateOrFail(tinyConfig());
    const auto& snap = *sim.snapshot;
    const auto byHca = resolveLinkName(snap, "gpu-a002 mlx5_5");
    REQUIRE(byHca);
    const auto& l = snap.topology.link(byHca.value());
    const std::string leaf(snap.str(snap.topology.node(l.b.node).description));
    const auto port = std::to_string(l.b.port);
    for (const auto& name :
        { leaf + " port " + port, leaf + ":" + port, leaf + " p" + port, std::string("GPU-A002 MLX5_5"),
            formatGuid(snap.topology.node(l.b.node).guid) + ":" + port, std::string("gpu-a002 mlx5_5 port 1") }) {
        INFO(name);
        auto r = resolveLinkName(snap, name);
        REQUIRE(r);
        CHECK(r.value() == byHca.value());
    }
    auto noPort = resolveLinkName(snap, leaf);
    REQUIRE_FALSE(noPort);
    CHECK(noPort.error().find("name the port") != std::string::npos);
    auto unknown = resolveLinkName(snap, "gpu-z999 mlx5_0");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().find("no node of this fabric") != std::string::npos);
}

TEST_CASE("bad libraries and answers are refused with where and what", "[core][training]")
{
    const std::string good = R"({"format": "stallscope-exercises", "version": 3, "exercises": [{"id": "x",
        "title": "t", "level": 2, "briefing": "b", "lesson": "l", "simulate": {"preset": "small", "duration": "5m",
        "faults": ["flap:host-leaf:rank=3:at=2m:for=2s"]}, "answer": {"verdict": "stretched", "culprit_faults": [0]}}]})";
    auto lib = parseExerciseLibrary(good, "lib.json");
    REQUIRE(lib);
    CHECK(lib.value().version == 3);
    CHECK(lib.value().exercises[0].sim.durationNs == 300 * kNsPerSec);

    auto bad = [&](const std::string& from, const std::string& to) {
        auto text = good;
        REQUIRE(text.find(from) != std::string::npos);
        text.replace(text.find(from), from.size(), to);
        auto r = parseExerciseLibrary(text, "lib.json");
        REQUIRE_FALSE(r);
        return r.error();
    };
    CHECK(bad("rank=3", "rank=999")
        == "lib.json: exercises[0] (x).simulate: fault names rank 999 but the job has 64 ranks");
    CHECK(bad("flap:host", "flop:host").find("exercises[0] (x).simulate.faults[0]: unknown fault kind")
        != std::string::npos);
    CHECK(bad("[0]}}", "[1]}}").find("answer.culprit_faults: expected indexes") != std::string::npos);
    CHECK(bad("\"stretched\"", "\"fine\"").find("answer.verdict: expected stretched") != std::string::npos);
    CHECK(bad("\"5m\"", "\"soon\"").find("simulate.duration: expected a duration") != std::string::npos);
    CHECK(bad("\"preset\"", "\"presett\"").find("simulate.presett: unknown setting") != std::string::npos);
    CHECK(bad("\"level\": 2", "\"level\": 9").find("level: expected a whole number from 1 to 5") != std::string::npos);
    CHECK(bad("stallscope-exercises", "other").find("format") != std::string::npos);

    CHECK(parseAnswer(R"({"verdict": "fine"})", "a.json").error().find("a.json: verdict: expected") == 0);
    CHECK(parseAnswer(R"({"links": "leaf"})", "a.json").error().find("links: expected an array") != std::string::npos);
    CHECK(parseAnswer(R"({"ranks": [-1]})", "a.json").error().find("ranks") != std::string::npos);
    CHECK(parseAnswer(R"({"colour": 1})", "a.json").error().find("unknown field") != std::string::npos);
    CHECK(parseAnswer("{", "a.json").error().find("not JSON") != std::string::npos);
    auto ok = parseAnswer(R"({"verdict": "crashed", "links": ["leaf-r5:3"], "ranks": [4], "cost_gpu_seconds": 10,
        "period_seconds": 3600, "hints_used": 2, "culprit_unprovable": true})",
        "a.json");
    REQUIRE(ok);
    auto again = parseAnswer(answerToJson(ok.value()), "b.json");
    REQUIRE(again);
    CHECK(again.value().verdict == Verdict::Crashed);
    CHECK(again.value().links == std::vector<std::string> { "leaf-r5:3" });
    CHECK(again.value().hintsUsed == 2);
    CHECK(again.value().culpritUnprovable);
}

TEST_CASE("hints cost points, an unprovable culprit guessed as fact scores less than said honestly", "[core][training]")
{
    const auto& lib = builtinExercises();
    const auto& e = *lib.find("no-counters");
    const auto config = simConfigFor(e, e.sim.seed);
    NullProgress progress;
    auto sim = simulate(config, progress);
    REQUIRE(sim);
    const auto ref = referenceFor(e, config, sim.value());
    REQUIRE(ref.links.size() == 1);
    TraineeAnswer honest;
    honest.verdict = Verdict::Stretched;
    honest.culpritUnprovable = true;
    honest.costGpuSeconds = ref.costGpuSeconds;
    TraineeAnswer guess = honest;
    guess.culpritUnprovable = false;
    guess.links = { linkName(*sim.value().snapshot, ref.links[0]).substr(0, 15) };
    const auto h = scoreAnswer(e, config, sim.value(), ref, honest);
    const auto g = scoreAnswer(e, config, sim.value(), ref, guess);
    CHECK(h.percent() == 100);
    CHECK(g.points() < h.points());
    CHECK(g.parts[1].why.find("nothing in these files proves it") != std::string::npos);
    honest.hintsUsed = 2;
    const auto withHints = scoreAnswer(e, config, sim.value(), ref, honest);
    CHECK(withHints.points() == h.points() - 2 * kHintCost);
}
