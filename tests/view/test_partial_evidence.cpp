// SPDX-License-Identifier: MIT
// Partial evidence: a folder with the Flight Recorder dumps of one host only, or the profiler trace of rank 0 only
// (what is usually retrieved after an incident), names the same incidents and culprits as a folder with every
// rank's dumps, with stall lengths within 5 %, and says how many ranks each conclusion rests on.
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "import/open_job.h"
#include "sim/raw_writer.h"
#include "view/heatmap_model.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

// 16 hosts × 8 GPUs = 128 ranks; rank 37 is on host gpu-a004.
SimConfig scenario(const std::string& fault)
{
    auto c = *presetConfig("small");
    c.seed = 44;
    c.hosts = 16;
    c.durationNs = 240 * kNsPerSec;
    c.policy.collectiveTimeoutNs = 60 * kNsPerSec; // a dead rank's hang ends inside the window
    if (!fault.empty()) {
        c.faults = { parseFaultSpec(fault).value() };
    } else {
        c.faults.clear();
    }
    return c;
}

enum class Records { Every, OneHost, RankZeroTrace };

struct Analysed
{
    LoadedJob job;
    AnalysisResult result;
};

Analysed writeAndAnalyse(const SimResult& sim, const TempDir& tmp, Records records)
{
    RawWriteOptions options;
    std::string name = "every";
    if (records == Records::OneHost) {
        options.recordRanks = { 0, 1, 2, 3, 4, 5, 6, 7 };
        name = "one-host";
    } else if (records == Records::RankZeroTrace) {
        options.recordRanks = { 0 };
        options.flightRecorder = false;
        options.kineto = true;
        name = "rank0-trace";
    }
    const auto dir = tmp.path() / name;
    REQUIRE(writeRawFolder(*sim.snapshot, dir.string(), options).empty());
    auto job = openJob(dir.string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    Analysed a { std::move(job.value()), {} };
    a.result = analyze(*a.job.snapshot);
    return a;
}

std::vector<const Incident*> jobWide(const AnalysisResult& r)
{
    std::vector<const Incident*> out;
    for (const auto& inc : r.incidents) {
        if (inc.kind != IncidentKind::Straggler) {
            out.push_back(&inc);
        }
    }
    return out;
}

std::string culpritOf(const Incident& inc)
{
    if (!inc.culprit) {
        return "none";
    }
    const auto& c = *inc.culprit;
    return c.a.node + ":" + std::to_string(c.a.port) + "<->" + c.b.node + ":" + std::to_string(c.b.port);
}

double seconds(const Incident& inc)
{
    return double(inc.endNs - inc.startNs) / 1e9;
}

// The partial folder names the same job-wide incidents, with the same kind, culprit and suspects, stall lengths
// within 5 %, and says it rests on fewer ranks.
void sameStory(const AnalysisResult& every, const Analysed& partial, std::uint32_t recorded)
{
    const auto full = jobWide(every);
    const auto part = jobWide(partial.result);
    INFO(analysisText(*partial.job.snapshot, partial.result));
    REQUIRE(!full.empty());
    REQUIRE(part.size() == full.size());
    for (std::size_t i = 0; i < full.size(); ++i) {
        CAPTURE(i, seconds(*full[i]), seconds(*part[i]));
        CHECK(part[i]->kind == full[i]->kind);
        CHECK(culpritOf(*part[i]) == culpritOf(*full[i]));
        CHECK(part[i]->suspectRanks == full[i]->suspectRanks);
        // A dead rank may have entered the collective before it died or not: its own record says which, and
        // without it the extrapolation may count it either way.
        CHECK(std::abs(double(part[i]->ranksAffected) - double(full[i]->ranksAffected)) <= 1);
        CHECK(std::abs(seconds(*part[i]) - seconds(*full[i])) <= 0.05 * seconds(*full[i]));
        CHECK(std::abs(part[i]->gpuSecondsLost - full[i]->gpuSecondsLost) <= 0.05 * full[i]->gpuSecondsLost);
        CHECK(std::abs(part[i]->startNs - full[i]->startNs) < 1 * kNsPerSec);
        CHECK(part[i]->coverage.groupRanks == 128);
        CHECK(part[i]->coverage.recorded == recorded);
        CHECK(part[i]->coverage.extrapolated);
        CHECK_FALSE(full[i]->coverage.extrapolated);
    }
}

} // namespace

TEST_CASE("a link flap or retrain is found from one host's dumps and from rank 0's trace alone, as from every rank's",
    "[core][analysis][sim][partial]")
{
    const auto fault = GENERATE(as<std::string> {}, "flap:host-leaf:rank=37:at=60s:for=2s",
        "flap:leaf-spine:leaf=3:spine=1:at=60s:for=2s", "flap:leaf-spine:leaf=3:spine=1:at=60s:for=2s:ar=off",
        "errors:leaf-spine:leaf=3:spine=1:at=60s:count=3:gap=20s:pause=3s",
        "errors:leaf-spine:leaf=3:spine=1:at=60s:count=3:gap=20s:pause=100ms:retrain=off");
    CAPTURE(fault);
    TempDir tmp;
    const auto sim = simulateOrFail(scenario(fault));
    const auto every = writeAndAnalyse(sim, tmp, Records::Every);
    const auto host = writeAndAnalyse(sim, tmp, Records::OneHost);
    const auto rank0 = writeAndAnalyse(sim, tmp, Records::RankZeroTrace);
    sameStory(every.result, host, 8);
    sameStory(every.result, rank0, 1);

    // Physics, from NCCL's documented retry rule rather than from the simulator: a link back (or retrained) well
    // inside the retry budget costs the collective one ACK timeout, 4.096 us × 2^NCCL_IB_TIMEOUT (4.29 s at 20).
    const double ackTimeout = 4.096e-6 * std::pow(2.0, 20);
    for (const auto* inc : jobWide(host.result)) {
        CHECK(std::abs(seconds(*inc) - ackTimeout) <= 0.05 * ackTimeout);
        REQUIRE(inc->culprit);
        // A symbol-error burst that dropped packets, the link never down nor retrained, is named for what it was.
        CHECK(inc->culprit->symbolBurst == (fault.find("retrain=off") != std::string::npos));
        CHECK(inc->culprit->retrained == (fault.rfind("errors:", 0) == 0 && !inc->culprit->symbolBurst));
    }
    // One rank's record cannot tell a fabric stall from a late peer: its culprit is one confidence step lower and
    // the reason is among the evidence; one host's eight ranks keep the full confidence.
    const auto fullInc = jobWide(every.result);
    const auto oneInc = jobWide(rank0.result);
    for (std::size_t i = 0; i < fullInc.size(); ++i) {
        CHECK(jobWide(host.result)[i]->culprit->confidence == fullInc[i]->culprit->confidence);
        if (fullInc[i]->culprit->confidence == "high") {
            CHECK(oneInc[i]->culprit->confidence == "medium");
        }
        CHECK(oneInc[i]->coverage.onlyRank == 0);
    }
    const auto text = analysisText(*rank0.job.snapshot, rank0.result);
    CHECK_THAT(text, Catch::Contains("seen on rank 0's record alone") && Catch::Contains("127 ranks have none"));
    const auto hostText = analysisText(*host.job.snapshot, host.result);
    CHECK_THAT(hostText,
        Catch::Contains("seen on all 8 of 8 ranks with records; 120 ranks have none")
            && Catch::Contains("extrapolated to the group's 128 ranks"));
    const auto json = nlohmann::json::parse(analysisJson(*host.job.snapshot, host.result));
    const auto& cov = json["incidents"][0]["coverage"];
    CHECK(cov["ranks_with_records"] == 8);
    CHECK(cov["group_ranks"] == 128);
    CHECK(cov["extrapolated"] == true);
    CHECK(json["incidents"][0]["coverage"]["text"].get<std::string>().find("8 of 8") != std::string::npos);
}

TEST_CASE("a dead rank is named from one host's dumps and from rank 0's trace alone, with or without Slurm's word",
    "[core][analysis][sim][partial]")
{
    TempDir tmp;
    const auto sim = simulateOrFail(scenario("dead-rank:rank=17:at=60s"));
    const auto every = writeAndAnalyse(sim, tmp, Records::Every);
    const auto host = writeAndAnalyse(sim, tmp, Records::OneHost);
    const auto rank0 = writeAndAnalyse(sim, tmp, Records::RankZeroTrace);
    REQUIRE(jobWide(every.result).size() == 1);
    CHECK(jobWide(every.result)[0]->kind == IncidentKind::DeadRank);
    CHECK(jobWide(every.result)[0]->suspectRanks == std::vector<std::uint32_t> { 17 });
    sameStory(every.result, host, 8);
    // The trace keeps completed kernels only: the hang is not in it, and the logs tell it.
    sameStory(every.result, rank0, 1);
    CHECK(jobWide(rank0.result)[0]->coverage.seen == 0);
    CHECK_THAT(analysisText(*rank0.job.snapshot, rank0.result), Catch::Contains("told by the logs"));
    // What the absent ranks' logs say of the window: the others' watchdog timeouts.
    CHECK_THAT(jobWide(host.result)[0]->coverage.absentLogs, Catch::Contains("watchdog timeout on ranks 8..16, 18..127"));

    SECTION("the heatmap draws rank 0 hung where its trace ends and its log times out, not computing")
    {
        const auto& snap = *rank0.job.snapshot;
        NullProgress none;
        const auto model = HeatmapModel::build(rank0.job.snapshot, {}, none)->withStalls(rank0.result);
        const TimeNs recordsEnd = model->unknownAfter(0);
        REQUIRE(recordsEnd != kNoTime); // the trace ends at the hang, the job does not
        TimeNs timedOut = kNoTime; // rank 0's own watchdog timeout
        for (const auto& f : snap.logFacts) {
            if (f.rank == 0 && f.kind == LogEventKind::WatchdogTimeout && f.timeNs != kNoTime) {
                timedOut = f.timeNs;
                break;
            }
        }
        REQUIRE(timedOut > recordsEnd + 10 * kNsPerSec);
        const TimeAxisMapping map { snap.job.span, 400 };
        auto at = [&](std::uint32_t rank, TimeNs t) { return model->cellAt(map, rank, int(map.x(t))); };
        const TimeNs hung = (recordsEnd + timedOut) / 2;
        for (const std::uint32_t r : { 0u, 5u }) { // traced and not: both hung by their own log's "ran for"
            INFO("rank " << r);
            CHECK(at(r, hung).inside > 0);
            CHECK(at(r, hung).stalled > 0);
            CHECK(at(r, hung).unrecorded == 0);
            CHECK(at(r, snap.job.span.end - 1).failed > 0); // the job ends just after the timeouts
        }
        CHECK(at(0, recordsEnd - 20 * kNsPerSec).unrecorded == 0); // its trace says what it did there
        CHECK(at(5, recordsEnd - 20 * kNsPerSec).unrecorded > 0); // nothing says it for rank 5
        CHECK(at(17, hung).stalled == 0); // the dead rank was not waiting in the collective
    }

    SECTION("without Slurm's output, the one log with no timeout of its own names the rank")
    {
        const auto dir = tmp.path() / "one-host";
        for (const auto& e : fs::directory_iterator(dir)) {
            if (e.path().filename().string().starts_with("slurm")) {
                fs::remove(e.path());
            }
        }
        auto job = openJob(dir.string());
        REQUIRE(job.ok());
        const auto r = analyze(*job.value().snapshot);
        const auto inc = jobWide(r);
        REQUIRE(inc.size() == 1);
        INFO(analysisText(*job.value().snapshot, r));
        CHECK(inc[0]->kind == IncidentKind::DeadRank);
        CHECK(inc[0]->silentRanks == std::vector<std::uint32_t> { 17 });
        CHECK(inc[0]->suspectRanks == std::vector<std::uint32_t> { 17 });
        CHECK(inc[0]->ranksAffected == 127);
    }
}

TEST_CASE("thin coverage raises no stall in a healthy job, and a straggler outside the records is one incident",
    "[core][analysis][sim][partial]")
{
    TempDir tmp;
    SECTION("healthy")
    {
        const auto sim = simulateOrFail(scenario(""));
        for (const auto records : { Records::OneHost, Records::RankZeroTrace }) {
            const auto a = writeAndAnalyse(sim, tmp, records);
            INFO(analysisText(*a.job.snapshot, a.result));
            CHECK(a.result.incidents.empty());
        }
    }
    SECTION("a slow rank on another host")
    {
        const auto sim = simulateOrFail(scenario("slow-rank:rank=21:at=30s:factor=1.3"));
        const auto every = writeAndAnalyse(sim, tmp, Records::Every);
        REQUIRE(every.result.incidents.size() == 1);
        CHECK(every.result.incidents[0].suspectRanks == std::vector<std::uint32_t> { 21 });
        // One host's ranks all wait for it in every step: one incident, priced as every rank's dumps price it.
        const auto host = writeAndAnalyse(sim, tmp, Records::OneHost);
        INFO(analysisText(*host.job.snapshot, host.result));
        REQUIRE(host.result.incidents.size() == 1);
        const auto& inc = host.result.incidents[0];
        CHECK(inc.kind == IncidentKind::Straggler);
        CHECK(inc.suspectRanks.empty()); // the records cannot name it
        CHECK_FALSE(inc.culprit);
        CHECK_THAT(inc.summary, Catch::Contains("a peer without records arrived late"));
        CHECK(std::abs(inc.gpuSecondsLost - every.result.incidents[0].gpuSecondsLost)
            <= 0.1 * every.result.incidents[0].gpuSecondsLost);
        // Rank 0's waits alone are near its noise: whatever it shows is a late peer, never a stall of the job.
        const auto rank0 = writeAndAnalyse(sim, tmp, Records::RankZeroTrace);
        INFO(analysisText(*rank0.job.snapshot, rank0.result));
        for (const auto& i : rank0.result.incidents) {
            CHECK(i.kind == IncidentKind::Straggler);
            CHECK(i.suspectRanks.empty());
        }
    }
}

TEST_CASE("the fabric review of the job's folder lists the job's stalls each erroring link's retrains fall in",
    "[core][analysis][sim][partial][fabric]")
{
    auto config = scenario("errors:leaf-spine:leaf=3:spine=1:at=60s:count=3:gap=20s:pause=3s");
    // A marginal cable counting symbol errors all along, never retraining: erroring, and in no stall.
    config.faults.push_back(parseFaultSpec("noisy:leaf-spine:leaf=1:spine=2:at=0s:rate=600").value());
    TempDir tmp;
    const auto sim = simulateOrFail(config);
    const auto host = writeAndAnalyse(sim, tmp, Records::OneHost);
    const auto stalls = jobWide(host.result);
    REQUIRE(stalls.size() == 3);
    auto review = reviewFabric(*host.job.snapshot);
    noteJobStalls(review, host.result, *host.job.snapshot);
    REQUIRE(review.flapping.empty());
    REQUIRE(review.erroring.size() == 2);
    const auto& retrained = review.erroring[0]; // most retrains first
    CHECK(retrained.retrains == 3);
    CHECK(retrained.retrainBrackets.size() == 3);
    CHECK(retrained.jobStalls == std::vector<int> { 1, 2, 3 });
    REQUIRE(stalls[0]->culprit); // the link the job's analysis blamed is the one the review lists them under
    const auto end = [](const LinkEndpoint& e) { return e.node + " p" + std::to_string(e.port); };
    CHECK((retrained.a + " " + retrained.b) == (end(stalls[0]->culprit->a) + " " + end(stalls[0]->culprit->b)));
    CHECK(review.erroring[1].retrains == 0);
    CHECK(review.erroring[1].jobStalls.empty());
    const auto text = fabricReviewText(*host.job.snapshot, review);
    CHECK_THAT(text, Catch::Contains("in this job's stalls 1, 2 and 3"));
    const auto json = nlohmann::json::parse(fabricReviewJson(*host.job.snapshot, review));
    CHECK(json["erroring"][0]["job_stalls"] == nlohmann::json::array({ 1, 2, 3 }));
}
