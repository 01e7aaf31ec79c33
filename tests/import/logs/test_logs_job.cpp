// SPDX-License-Identifier: MIT
// A folder of logs without a Flight Recorder dump or profiler trace opens as a job, and the analysis reads its story
// from the lines (issue #40). Golden folders: tests/data/logs-only/ (our own hosts and values, real line shapes).
#include "analysis/analysis.h"
#include "core/snapshot_summary.h"
#include "import/open_job.h"
#include "import/logs/paste_wrappers.h"
#include "import/logs/rank_log.h"
#include "view/heatmap_model.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace stallscope;
using namespace stallscope::test;

namespace {

const std::filesystem::path kLogs = std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only";

LoadedJob open(const std::string& name)
{
    auto job = openJob((kLogs / name).string());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    return std::move(job.value());
}

bool anyWarning(const LoadedJob& job, const std::string& part)
{
    return std::any_of(job.warnings.begin(), job.warnings.end(),
        [&](const LoadIssue& w) { return w.format().find(part) != std::string::npos; });
}

} // namespace

TEST_CASE("logs alone: a combined srun log opens as a job of its ranks, first error on its own host", "[logs_job]")
{
    const auto job = open("link");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 4);
    CHECK(anyWarning(job, "opened as a job of 4 rank(s) from their logs alone"));
    CHECK(snap.str(snap.ranks[0].host) == "gpu-k001");
    CHECK(snap.str(snap.ranks[3].host) == "gpu-k002");
    CHECK(snap.str(snap.ranks[3].hca) == "mlx5_1"); // cudaDev 1 → the HCA at index 1
    CHECK(snap.str(snap.ranks[3].transport) == "IB");
    CHECK(snap.job.span.start == 1'773'478'801'000'000'000LL); // 2026-03-14 09:00:01 UTC, not 1970
    CHECK(snap.job.span.end > snap.job.span.start);
    CHECK(snap.collectiveCount() == 0); // no record is made up

    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    const auto& s = *r.logStory;
    REQUIRE(s.firstError);
    // The first in time (rank 3 on gpu-k002), not the most numerous (gpu-k001 has four).
    CHECK(s.firstError->rank == 3);
    CHECK(s.firstError->host == "gpu-k002");
    CHECK(s.firstError->hca == "mlx5_1");
    CHECK(s.firstError->status == 12);
    CHECK(s.firstError->vendorErr == 129);
    CHECK(s.firstError->peer == "10.20.0.1<50411>");
    CHECK(s.suspect == "gpu-k002 mlx5_1 port 1 <-> leaf-k1 port 7"); // the topology gives the switch port
    REQUIRE(s.consequences.size() == 1);
    CHECK(s.consequences[0].host == "gpu-k001");
    REQUIRE(s.hang);
    CHECK(s.hang->seq == 2207);
    CHECK(s.hang->op == "ALLREDUCE");
    CHECK(s.hang->numelIn == 25165824);
    CHECK(s.hang->timedOut == std::vector<std::uint32_t> { 0, 1, 2, 3 });
    CHECK(s.desyncs.empty());
    REQUIRE(r.incidents.size() == 1);
    CHECK(r.incidents[0].seq == 2207);
    CHECK(r.incidents[0].suspectRanks == std::vector<std::uint32_t> { 3 });

    const auto text = analysisText(snap, r);
    CHECK_THAT(text, Catch::Contains("What the logs say"));
    CHECK_THAT(text, Catch::Contains("suspect        gpu-k002 mlx5_1 port 1 <-> leaf-k1 port 7"));
    CHECK_THAT(text, !Catch::Contains("Quiet") && !Catch::Contains("No link went down"));
    CHECK_THAT(analysisJson(snap, r), Catch::Contains("\"suspect\": \"gpu-k002 mlx5_1 port 1 <-> leaf-k1 port 7\""));
}

TEST_CASE("logs alone: ranks that report different collectives for one SeqNum are a desync", "[logs_job]")
{
    const auto job = open("desync");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 4);
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    const auto& s = *r.logStory;
    REQUIRE(s.hang);
    CHECK(s.hang->pg == "2"); // from the status line "[PG ID 2 PG GUID 5 Rank N]" beside the timeout
    CHECK(s.hang->seq == 88);
    CHECK(s.hang->timedOut.size() == 4); // rank 2's from its what() alone
    REQUIRE(s.desyncs.size() == 1);
    const auto& d = s.desyncs[0];
    CHECK(d.seq == 88);
    REQUIRE(d.variants.size() == 2);
    CHECK(d.variants[0].op == "ALLREDUCE");
    CHECK(d.variants[0].ranks == std::vector<std::uint32_t> { 0, 1, 3 });
    CHECK(d.variants[1].op == "BROADCAST");
    CHECK(d.variants[1].numelIn == 4096);
    CHECK(d.variants[1].ranks == std::vector<std::uint32_t> { 2 });
    CHECK_THAT(analysisText(snap, r), Catch::Contains("desync         SeqNum 88 of group 2"));
}

TEST_CASE("logs alone: a rank whose log stops is dead, Slurm's kill and time-limit cancel are read", "[logs_job]")
{
    const auto job = open("dead");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 4);
    CHECK(snap.str(snap.ranks[3].host) == "gpu-m002");
    CHECK(snap.str(snap.ranks[3].transport) == "RoCE");
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    const auto& s = *r.logStory;
    REQUIRE(s.hang);
    CHECK(s.hang->seq == 512);
    CHECK(s.hang->op == "_ALLGATHER_BASE");
    CHECK(s.hang->neverReached == std::vector<std::uint32_t> { 3 });
    CHECK(s.deadRanks == std::vector<std::uint32_t> { 3 });
    REQUIRE(s.crashedRank);
    CHECK(*s.crashedRank == 3);
    CHECK_THAT(s.timeLimit, Catch::Contains("DUE TO TIME LIMIT"));
    CHECK(s.tasksEnded == 4);
    REQUIRE(r.incidents.size() == 1);
    CHECK(r.incidents[0].kind == IncidentKind::DeadRank);
    CHECK(r.incidents[0].suspectRanks == std::vector<std::uint32_t> { 3 });
}

TEST_CASE("logs alone: the heatmap draws what the logs know, no collective made up", "[logs_job][heatmap]")
{
    const auto job = open("dead");
    const auto& snap = *job.snapshot;
    NullProgress none;
    const auto model = HeatmapModel::build(job.snapshot, {}, none);
    const TimeAxisMapping map { snap.job.span, 100 };
    auto at = [&](std::uint32_t rank, TimeNs t) { return model->cellAt(map, rank, int(map.x(t))); };
    const TimeNs rank3Stops = snap.ranks[3].logLastNs;
    const TimeNs timeouts = snap.ranks[0].logLastNs; // ranks 0..2 end at their watchdog timeout
    REQUIRE(rank3Stops != kNoTime);
    REQUIRE(timeouts > rank3Stops);
    CHECK(at(3, snap.job.span.start).present == 255); // alive from its first line
    CHECK(at(3, snap.job.span.start).inside == 0); // no collective pretended
    CHECK(at(3, (rank3Stops + timeouts) / 2).present == 0); // its log stopped: nothing known after
    CHECK(at(0, (rank3Stops + timeouts) / 2).present == 255);
    CHECK(at(0, (rank3Stops + timeouts) / 2).failed == 0);
    CHECK(at(0, snap.job.span.end - 1).failed > 0); // timed out at the watchdog
}

TEST_CASE("logs alone: a healthy job opens and says so, and a fallback to sockets is flagged", "[logs_job]")
{
    const auto job = open("healthy");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 2); // two processes in one file, told apart by NCCL's prefix
    CHECK(snap.str(snap.ranks[1].transport) == "Socket");
    const auto r = analyze(snap);
    CHECK(r.incidents.empty());
    REQUIRE(r.logStory);
    CHECK(r.logStory->socketFallback);
    CHECK_THAT(r.logStory->summary, Catch::Contains("looks healthy") || Catch::Contains("sockets"));
    CHECK_THAT(analysisText(snap, r), Catch::Contains("What the logs say"));
    const auto summary = summaryText(summarize("healthy", job));
    CHECK_THAT(summary, Catch::Contains("Facts") && Catch::Contains("rank logs, init: 2"));
    CHECK_THAT(summary, !Catch::Contains("1970"));
}

TEST_CASE("logs alone: a damaged nranks never sizes the job", "[logs_job][hostile]")
{
    TempDir tmp;
    writeFile(tmp.path() / "a.log",
        "gpu-z001:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4000000000 cudaDev 0 busId 1000 commId 0x2 - Init "
        "COMPLETE\n"
        "gpu-z001:2:2 [1] NCCL INFO comm 0x3 rank 1 nranks 900000 cudaDev 0 busId 1000 commId 0x4 - Init COMPLETE\n");
    auto job = openJob(tmp.str());
    REQUIRE(job);
    CHECK(job->snapshot->job.worldSize == 2); // the ranks the lines name
    CHECK(anyWarning(job.value(), "nranks 4000000000"));
    CHECK(anyWarning(job.value(), "nranks 900000"));
}

TEST_CASE("logs alone: the ranks of each transport are written as evenly spaced runs, and a long list is cut",
    "[logs_job]")
{
    // 64 ranks on 8 hosts, GPU g of each host on mlx5_g: each HCA carries every 8th rank (a rail). The story said
    // "ranks 0, 8, 16, ..." rank by rank, 13 kB a line at 16,384 ranks.
    // One rank's NCCL lines: its host (8 ranks a host), the HCA it uses, Init COMPLETE of a 64-rank job.
    const auto rankLines = [](std::uint32_t r, const std::string& hca) {
        const auto prefix = "gpu-s" + std::to_string(100 + r / 8) + ":" + std::to_string(500 + r) + ":"
            + std::to_string(500 + r) + " [" + std::to_string(r % 8) + "] NCCL INFO ";
        return prefix + "NET/IB : Using [0]" + hca + ":1/IB ; OOB ib0:10.0.0.1<0>\n" + prefix + "Using network IB\n"
            + prefix + "comm 0x1 rank " + std::to_string(r) + " nranks 64 cudaDev " + std::to_string(r % 8)
            + " busId 1000 commId 0x9 - Init COMPLETE\n";
    };
    TempDir tmp;
    std::string text;
    for (std::uint32_t r = 0; r < 64; ++r) {
        text += rankLines(r, "mlx5_" + std::to_string(r % 8));
    }
    writeFile(tmp.path() / "train.log", text);
    auto job = openJob(tmp.str());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    REQUIRE(job->snapshot->job.worldSize == 64);
    const auto r = analyze(*job->snapshot);
    REQUIRE(r.logStory);
    const auto& t = r.logStory->transports;
    REQUIRE(t.size() == 8);
    CHECK(t[0] == "IB via mlx5_0: ranks 0..56 every 8 (8 ranks)");
    CHECK(t[7] == "IB via mlx5_7: ranks 7..63 every 8 (8 ranks)");

    // The 18 primes below 64 on mlx5_9, the rest on mlx5_8: no pattern, so 12 pieces are written, the rest counted.
    std::string irregular;
    const auto prime = [](std::uint32_t n) {
        for (std::uint32_t d = 2; d * d <= n; ++d) {
            if (n % d == 0) {
                return false;
            }
        }
        return n > 1;
    };
    for (std::uint32_t r = 0; r < 64; ++r) {
        irregular += rankLines(r, prime(r) ? "mlx5_9" : "mlx5_8");
    }
    TempDir other;
    writeFile(other.path() / "train.log", irregular);
    auto second = openJob(other.str());
    REQUIRE(second);
    const auto story = analyze(*second->snapshot).logStory;
    REQUIRE(story);
    REQUIRE(story->transports.size() == 2);
    const auto& primes = story->transports[1];
    CHECK_THAT(primes, Catch::StartsWith("IB via mlx5_9: ranks 2..3, 5, 7, 11, 13") && Catch::EndsWith(" more (18 ranks)"));
    CHECK(std::count(primes.begin(), primes.end(), ',') == 11); // 12 pieces
}

TEST_CASE("rank log: PyTorch status lines, Numel fields, what() timeouts, old NCCL completion, other WARNs",
    "[rank_log]")
{
    const std::string text
        = "[rank4]:[E318 07:39:53.792772442 ProcessGroupNCCL.cpp:1785] [PG 0 (default_pg) Rank 4] Exception (either an "
          "error or timeout) detected by watchdog at work: 610, last enqueued NCCL work: 616, last completed NCCL work: "
          "609.\n"
          "[rank4]:terminate called after throwing an instance of 'c10::DistBackendError'\n"
          "[rank4]:  what():  [PG 0 Rank 4] Process group watchdog thread terminated with exception: [Rank 4] Watchdog "
          "caught collective operation timeout: WorkNCCL(SeqNum=610, OpType=_REDUCE_SCATTER_BASE, NumelIn=7098994688, "
          "NumelOut=443687168, Timeout(ms)=600000) ran for 882725 milliseconds before timing out.\n"
          "gpu-q001:77:90 [4] NCCL INFO NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n"
          "gpu-q001:77:90 [4] transport/net_ib.cc:1200 NCCL WARN NET/IB : ibv_create_qp failed: Cannot allocate "
          "memory\n";
    auto f = parseRankLog("r4.log", text);
    REQUIRE(f);
    CHECK(f->rank == 4u);
    auto find = [&](LogEventKind k) {
        return std::find_if(f->events.begin(), f->events.end(), [&](const LogEvent& e) { return e.kind == k; });
    };
    const auto status = find(LogEventKind::WatchdogFailure);
    REQUIRE(status != f->events.end());
    CHECK(status->seq == 610);
    CHECK(status->lastEnqueued == 616);
    CHECK(status->lastCompleted == 609);
    CHECK(status->pg == "0");
    const auto timeout = find(LogEventKind::WatchdogTimeout);
    REQUIRE(timeout != f->events.end());
    CHECK(timeout->seq == 610);
    CHECK(timeout->op == "_REDUCE_SCATTER_BASE");
    CHECK(timeout->numelIn == 7098994688LL);
    CHECK(timeout->numelOut == 443687168LL);
    CHECK(timeout->ranForMs == 882725);
    const auto completion = find(LogEventKind::CompletionError);
    REQUIRE(completion != f->events.end());
    CHECK(completion->status == 12);
    CHECK(completion->vendorErr == 129);
    const auto warn = find(LogEventKind::NcclWarning);
    REQUIRE(warn != f->events.end());
    CHECK_THAT(warn->text, Catch::Contains("ibv_create_qp failed"));
}

TEST_CASE("logs alone: srun labels padded to the widest task id split the ranks", "[logs_job][rank_log]")
{
    // Slurm writes "%*d: " with the width of the largest task id: " 7: " among tasks 0..10.
    TempDir tmp;
    std::string text;
    for (int r : { 0, 7, 10 }) {
        const auto label = (r < 10 ? " " : "") + std::to_string(r) + ": ";
        const auto host = "gpu-p00" + std::to_string(r / 4);
        text += label + host + ":" + std::to_string(900 + r) + ":1 [" + std::to_string(r % 4)
            + "] NCCL INFO comm 0x1 rank " + std::to_string(r) + " nranks 11 cudaDev " + std::to_string(r % 4)
            + " busId 1000 commId 0x2 - Init COMPLETE\n";
    }
    text += " 7: [rank7]:[E0601 12:00:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 7] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=5, OpType=BARRIER, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
            "for 600001 milliseconds before timing out.\n";
    writeFile(tmp.path() / "job.out", text);
    auto job = openJob(tmp.str());
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.job.worldSize == 11); // nranks, beyond the highest rank named
    CHECK(snap.str(snap.ranks[7].host) == "gpu-p001");
    CHECK(snap.str(snap.ranks[10].host) == "gpu-p002");
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->hang);
    CHECK(r.logStory->hang->timedOut == std::vector<std::uint32_t> { 7 });
}

TEST_CASE("logs alone: lines pasted with a viewer's numbers, quote markers, links and indentation read as written",
    "[logs_job][rank_log][paste]")
{
    SECTION("a log viewer's \"[52110] \" before each rank's line: each line keeps its rank and time")
    {
        const auto job = open("pasted-numbered");
        const auto& snap = *job.snapshot;
        CHECK(snap.job.worldSize == 4);
        CHECK(snap.policy.collectiveTimeoutNs == 900 * kNsPerSec); // Timeout(ms)=900000, not the 10 min default
        const auto r = analyze(snap);
        REQUIRE(r.logStory);
        REQUIRE(r.logStory->hang);
        CHECK(r.logStory->hang->seq == 812);
        CHECK(r.logStory->hang->timedOut == std::vector<std::uint32_t> { 0, 2, 3 });
        CHECK(r.logStory->hang->firstTimeoutNs != kNoTime);
        CHECK_THAT(analysisText(snap, r), Catch::Contains("at the collective timeout (15m00s)"));
    }
    SECTION("\"> \" quote markers, an indented line and a thread's autolink around the peer")
    {
        const auto job = open("pasted-quoted");
        const auto r = analyze(*job.snapshot);
        REQUIRE(r.logStory);
        REQUIRE(r.logStory->firstError);
        CHECK(r.logStory->firstError->rank == 2);
        CHECK(r.logStory->firstError->host == "gpu-q004");
        CHECK(r.logStory->firstError->hca == "mlx5_2");
        CHECK(r.logStory->firstError->peer == "10.40.3.17<52004>"); // the link's text, not its markdown
    }
}

TEST_CASE("logs alone: a logger's, Open MPI's, Ray's and pdsh's prefixes before the lines are passed over",
    "[logs_job][rank_log][paste]")
{
    const auto job = open("pasted-stamped");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 8);
    CHECK(snap.str(snap.ranks[1].host) == "gpu-q009"); // behind pdsh's "10.40.3.21: "
    CHECK(snap.str(snap.ranks[4].host) == "gpu-q008"); // behind Ray's prefix and a logger's stamp
    CHECK(snap.str(snap.ranks[7].host) == "gpu-q007"); // behind an ISO stamp and Open MPI's tag
    CHECK(snap.str(snap.ranks[1].transport) == "Socket");
    CHECK(snap.str(snap.ranks[7].transport) == "Socket");
    CHECK(snap.policy.collectiveTimeoutNs == 300 * kNsPerSec);
    // The logger's stamp before NCCL's prefix is the line's time.
    const auto init4 = std::find_if(snap.logFacts.begin(), snap.logFacts.end(),
        [](const LogFact& f) { return f.rank == 4 && f.kind == LogEventKind::Init; });
    REQUIRE(init4 != snap.logFacts.end());
    CHECK(init4->timeNs == 1'773'480'909'000'000'000LL); // 2026-03-14 09:35:09 UTC
    // An ISO stamp before Open MPI's tag is the line's time too (to the second, as NCCL's own stamp).
    const auto init7 = std::find_if(snap.logFacts.begin(), snap.logFacts.end(),
        [](const LogFact& f) { return f.rank == 7 && f.kind == LogEventKind::Init; });
    REQUIRE(init7 != snap.logFacts.end());
    CHECK(init7->timeNs == 1'773'480'910'000'000'000LL); // 2026-03-14 09:35:10 UTC
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->hang);
    CHECK(r.logStory->hang->op == "BROADCAST");
    CHECK(r.logStory->hang->timedOut == std::vector<std::uint32_t> { 5, 6 });
}

TEST_CASE("logs alone: several ranks' PyTorch messages in one file with no prefix go to the rank each names",
    "[logs_job][rank_log]")
{
    const auto job = open("message-ranks");
    const auto& snap = *job.snapshot;
    CHECK(snap.job.worldSize == 4);
    CHECK(snap.policy.collectiveTimeoutNs == 1800 * kNsPerSec);
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->hang);
    CHECK(r.logStory->hang->seq == 2210);
    // Rank 2's timeout is told only inside its watchdog's exception: it counts.
    CHECK(r.logStory->hang->timedOut == std::vector<std::uint32_t> { 1, 2, 3 });
}

TEST_CASE("paste wrappers: only lines with one are changed, line for line", "[rank_log][paste]")
{
    using logs::unwrapPastedLines;
    // Lines the readers already take are left alone: no copy at all.
    for (const char* text : { "[rank3]:[E314 09:25:03.1 ProcessGroupNCCL.cpp:632] [Rank 3] x\n",
             " 7: gpu-a001:1:1 [0] NCCL INFO x\n", "12: [default3]:x\n", "gpu-a001:1:1 [0] NCCL INFO x\n",
             "2026-03-14 09:40:11,123 - root - INFO - step 12\n", "slurmstepd: error: *** JOB 7 ON n1 CANCELLED ***\n",
             "[2026-03-14 09:00:02] gpu-k001:4101:4180 [0] NCCL INFO x\n", "Wed May 20 10:00:02 2026[1,2]<stdout>:x\n" }) {
        INFO(text);
        CHECK_FALSE(unwrapPastedLines(text));
    }
    const auto out = unwrapPastedLines("first\n>   [rank1]:x\n[4821] [rank2]:y\n10.0.0.5: gpu-a9:1:2 [0] NCCL INFO z\n"
                                       "2026-03-14T09:35:10.5Z: [1,7]<stdout>:w\n"
                                       "(W pid=3) 2026-03-14 09:35:09.220 gpu-a9:1:2 [0] NCCL INFO v\n"
                                       "peer [10.0.0.7](http://10.0.0.7/)<5> end");
    REQUIRE(out);
    CHECK(*out
        == "first\n[rank1]:x\n[rank2]:y\ngpu-a9:1:2 [0] NCCL INFO z\n[1,7]<stdout>:w\n"
           "[2026-03-14 09:35:09] gpu-a9:1:2 [0] NCCL INFO v\npeer 10.0.0.7<5> end");
}

TEST_CASE("logs alone: a failure that is neither a transport error nor a timeout is named, never called healthy",
    "[logs_job]")
{
    const auto job = open("init-failed");
    const auto& snap = *job.snapshot;
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->firstProblem);
    const auto& p = *r.logStory->firstProblem;
    CHECK(p.rank == 0); // the earliest in time: rank 1's refused connection came two seconds later
    CHECK(p.host == "gpu-r001");
    CHECK(p.text == "Call to ibv_create_qp failed");
    CHECK_THAT(r.logStory->summary, Catch::Contains("ibv_create_qp failed") && !Catch::Contains("healthy"));
    const auto json = nlohmann::json::parse(analysisJson(snap, r));
    CHECK(json["logs"]["first_problem"]["host"] == "gpu-r001");
}

TEST_CASE("logs alone: Slurm's cancellations are a job's story: time limit alone, scancel, requeue — never a crash",
    "[logs_job][slurm]")
{
    SECTION("the time limit with no task line: a job of unknown size, not fabric data")
    {
        const auto job = open("slurm-time-limit");
        CHECK(job.snapshot->job.worldSize == 1);
        CHECK(anyWarning(job, "the job's size is not known"));
        const auto r = analyze(*job.snapshot);
        REQUIRE(r.logStory);
        CHECK_THAT(r.logStory->timeLimit, Catch::Contains("JOB 88120 ON gpu-t014"));
        const auto text = analysisText(*job.snapshot, r);
        CHECK_THAT(text, Catch::Contains("Slurm cancelled the job at its time limit") && !Catch::Contains("Quiet"));
    }
    SECTION("a step cancelled with no reason: scancel; its task's SIGTERM is no crash")
    {
        const auto job = open("slurm-scancel");
        const auto r = analyze(*job.snapshot);
        REQUIRE(r.logStory);
        CHECK(r.logStory->cancelReason == "no reason given: scancel by a user or an administrator");
        CHECK_FALSE(r.logStory->crashedRank);
        CHECK(r.incidents.empty()); // nothing hung: it was stopped
    }
    SECTION("a requeue is named as one")
    {
        const auto job = open("slurm-requeue");
        const auto r = analyze(*job.snapshot);
        REQUIRE(r.logStory);
        CHECK_THAT(r.logStory->summary, Catch::Contains("requeued"));
        const auto json = nlohmann::json::parse(analysisJson(*job.snapshot, r));
        CHECK_THAT(json["logs"]["cancelled"]["line"].get<std::string>(), Catch::Contains("DUE TO JOB REQUEUE"));
    }
}

TEST_CASE("logs alone: ranks no line places on a host are counted as such, not as a host of their own",
    "[logs_job]")
{
    const auto pasted = open("pasted-quoted"); // rank 2 on gpu-q004; ranks 0 and 1 named by nothing
    const auto s = summarize("pasted-quoted", pasted);
    CHECK(s.hosts == 1);
    CHECK(s.unplacedRanks == 2);
    CHECK_THAT(summaryText(s), Catch::Contains("(3 ranks on 1 host, 2 ranks on no named host)"));
}

TEST_CASE("logs alone: PyTorch's own collective mismatch names the desync, its two sides and their ranks",
    "[logs_job][rank_log]")
{
    const auto job = open("mismatch");
    const auto& snap = *job.snapshot;
    CHECK(snap.job.worldSize == 4);
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->desyncs.size() == 1);
    const auto& d = r.logStory->desyncs[0];
    CHECK(d.seq == 344);
    REQUIRE(d.variants.size() == 2);
    CHECK(d.variants[0].op == "ALLGATHER");
    CHECK(d.variants[0].ranks == std::vector<std::uint32_t> { 2, 3 });
    CHECK(d.variants[1].op == "ALLREDUCE");
    CHECK(d.variants[1].ranks == std::vector<std::uint32_t> { 0, 1 });
    CHECK_THAT(r.logStory->summary, Catch::Contains("desync at SeqNum 344") && !Catch::Contains("healthy"));
}

TEST_CASE("logs alone: a rank told of another's timeout by the dump signal says where it waits", "[logs_job][rank_log]")
{
    const auto job = open("dump-signal");
    const auto r = analyze(*job.snapshot);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->firstProblem);
    CHECK(r.logStory->firstProblem->rank == 0);
    CHECK(r.logStory->firstProblem->text == "at work 9021, last completed 9020 (dump signal: rank 6 timed out)");
    CHECK_THAT(r.logStory->summary, !Catch::Contains("healthy"));
}

TEST_CASE("logs alone: UCX errors of two hosts in one file are two processes, a padded pid included",
    "[logs_job][rank_log]")
{
    const auto job = open("ucx-two-hosts");
    const auto& snap = *job.snapshot;
    REQUIRE(snap.job.worldSize == 2);
    std::set<std::string> hosts;
    for (const auto& r : snap.ranks) {
        hosts.insert(snap.str(r.host));
    }
    CHECK(hosts == std::set<std::string> { "gpu-u011", "gpu-u014" });
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->firstError);
    CHECK(r.logStory->firstError->host == "gpu-u011"); // line 1, the earliest in the file's order
    CHECK(r.logStory->firstError->hca == "mlx5_2");
    REQUIRE(r.logStory->consequences.size() == 1);
    CHECK(r.logStory->consequences[0].host == "gpu-u014");
}

TEST_CASE("logs alone: a watchdog's \"ran for\" draws the rank present and inside the hung collective from its start",
    "[logs_job][heatmap]")
{
    const auto job = open("pasted-numbered"); // ranks 0, 2, 3 ran 900 s in SeqNum 812; rank 1 stopped logging
    const auto& snap = *job.snapshot;
    NullProgress none;
    const auto model = HeatmapModel::build(job.snapshot, {}, none);
    const TimeAxisMapping map { snap.job.span, 200 };
    auto at = [&](std::uint32_t rank, TimeNs t) { return model->cellAt(map, rank, int(map.x(t))); };
    const TimeNs early = snap.job.span.start + 60 * kNsPerSec; // inside the hang, before any rank's first line
    for (const std::uint32_t r : { 0u, 2u, 3u }) {
        INFO("rank " << r);
        CHECK(at(r, early).present == 255);
        CHECK(at(r, early).inside > 0);
        CHECK(at(r, early).unrecorded == 0); // the log says what it did there
    }
    CHECK(at(1, early).inside == 0); // no timeout of its own: nothing says it was waiting
}

TEST_CASE("logs alone: PyTorch's 'Timeout at NCCL work' is a timeout in that work, its operation from a rank that "
          "names it",
    "[logs_job][rank_log]")
{
    const auto job = open("timeout-at-work");
    const auto& snap = *job.snapshot;
    // Rank 2 says it twice (the watchdog's line and the work's): one timeout.
    CHECK(std::count_if(snap.logFacts.begin(), snap.logFacts.end(), [](const LogFact& f) {
        return f.rank == 2 && f.kind == LogEventKind::WatchdogTimeout;
    }) == 1);
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->hang);
    CHECK(r.logStory->hang->seq == 7310);
    CHECK(r.logStory->hang->op == "ALLGATHER"); // rank 5's line names none; rank 2's does
    CHECK(r.logStory->hang->timedOut == std::vector<std::uint32_t> { 2, 5 });
    CHECK_THAT(r.logStory->summary, Catch::Contains("hang in ALLGATHER SeqNum 7310"));
}
