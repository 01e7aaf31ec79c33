// SPDX-License-Identifier: MIT
// torchrun's failure table (ChildFailedError): every failed rank and the root cause it observed first, read from
// the launcher's output as it is printed, under srun labels and as pasted in threads, and joined to the job: the
// root cause is the dead rank unless it merely aborted. Golden files: tests/data/logs/torchrun-failures.log and
// tests/data/logs-only/torchrun/ (our own hosts and values, torchrun's layout).
#include "analysis/analysis.h"
#include "import/logs/host_log.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace stallscope;

namespace {

const std::filesystem::path kData = STALLSCOPE_TEST_DATA_DIR;

TimeNs utc(int y, int mo, int d, int h, int mi, int s)
{
    return logTimeNs(LogClock { y, 0 }, y, mo, d, h, mi, s, 0);
}

std::vector<HostEvent> torchrunEvents(const HostLogFacts& f)
{
    std::vector<HostEvent> out;
    std::copy_if(f.events.begin(), f.events.end(), std::back_inserter(out), [](const HostEvent& e) {
        return e.kind == HostEventKind::RankFailed || e.kind == HostEventKind::RankFailedFirst;
    });
    return out;
}

// A temporary folder holding the given files (name, text).
struct Folder
{
    test::TempDir dir;
    explicit Folder(const std::vector<std::pair<std::string, std::string>>& files)
    {
        for (const auto& [name, text] : files) {
            test::writeFile(dir.path() / name, text);
        }
    }
};

} // namespace

TEST_CASE("torchrun's failure table gives each failed rank and the first observed failure", "[host_log][torchrun]")
{
    const auto text = test::readFile(kData / "logs" / "torchrun-failures.log");
    REQUIRE(looksLikeHostLog(text));
    const LogClock clock { 2026, 0 };
    auto f = parseHostLog("torchrun-failures.log", text, clock);
    INFO((f ? std::string() : f.error().format()));
    REQUIRE(f);
    CHECK(f->warnings.empty());
    const auto events = torchrunEvents(f.value());
    REQUIRE(events.size() == 3);
    // Failures first, in the order printed, then the root cause.
    CHECK(events[0].kind == HostEventKind::RankFailed);
    CHECK(events[0].firstTask == 19);
    CHECK(events[0].code == -6);
    CHECK(events[0].host == "gpu-k014.cluster.example");
    CHECK(events[0].text == "exitcode -6 (local_rank 3, pid 61203): Signal 6 (SIGABRT) received by PID 61203");
    CHECK(events[1].firstTask == 20);
    CHECK(events[1].code == 1);
    // A Python traceback: its last line (the exception) is what the rank said.
    CHECK_THAT(events[1].text,
        Catch::EndsWith("torch.distributed.DistBackendError: NCCL error in: "
                        "ProcessGroupNCCL.cpp:1970, remote process exited or there was a "
                        "network error"));
    CHECK(events[2].kind == HostEventKind::RankFailedFirst);
    CHECK(events[2].firstTask == 18);
    CHECK(events[2].lastTask == 18);
    CHECK(events[2].code == -6);
    CHECK(events[2].timeNs == utc(2026, 6, 11, 8, 41, 1));
    CHECK_THAT(events[2].evidence, Catch::Contains("rank      : 18 (local_rank: 2)"));
    CHECK(events[2].line == 38);
    // The agent's own lines and the traceback above the table are other lines, kept as such.
    CHECK(f->unknownLines > 0);
}

TEST_CASE("torchrun's table is read under srun labels, quote markers and a local clock", "[host_log][torchrun]")
{
    const std::string text = "> 3: ============================================================\n"
                             "> 3: train.py FAILED\n"
                             "> 3: ------------------------------------------------------------\n"
                             "> 3: Failures:\n"
                             "> 3:   <NO_OTHER_FAILURES>\n"
                             "> 3: ------------------------------------------------------------\n"
                             "> 3: Root Cause (first observed failure):\n"
                             "> 3: [0]:\n"
                             "> 3:   time      : 2026-03-09_22:10:40\n"
                             "> 3:   host      : node-17\n"
                             "> 3:   rank      : 27 (local_rank: 3)\n"
                             "> 3:   exitcode  : -9 (pid: 811)\n"
                             "> 3:   error_file: <N/A>\n"
                             "> 3:   traceback : Signal 9 (SIGKILL) received by PID 811\n"
                             "> 3: ============================================================\n";
    const LogClock cet { 2026, 3600LL * 1'000'000'000 }; // the folder's zone: UTC+1
    auto f = parseHostLog("pasted.txt", text, cet);
    REQUIRE(f);
    const auto events = torchrunEvents(f.value());
    REQUIRE(events.size() == 1);
    CHECK(events[0].kind == HostEventKind::RankFailedFirst);
    CHECK(events[0].firstTask == 27);
    CHECK(events[0].code == -9);
    CHECK(events[0].host == "node-17");
    CHECK(events[0].timeNs == utc(2026, 3, 9, 21, 10, 40));
    CHECK(f->unknownLines == 3); // the two rules and "train.py FAILED" before "Failures:"
}

TEST_CASE("a torchrun entry without its rank is a warning naming the file and line, and a table cut short still "
          "gives what it holds",
    "[host_log][torchrun]")
{
    const std::string text = "Root Cause (first observed failure):\n"
                             "[0]:\n"
                             "  time      : 2026-03-09_22:10:40\n"
                             "  host      : node-17\n"
                             "  rank      : \n"
                             "  exitcode  : 1 (pid: 811)\n"
                             "[1]:\n"
                             "  host      : node-18\n"
                             "  rank      : 30 (local_rank: 6)\n"
                             "  exitcode  : 1 (pid: 9";
    auto f = parseHostLog("cut.txt", text, LogClock { 2026, 0 });
    REQUIRE(f);
    const auto events = torchrunEvents(f.value());
    REQUIRE(events.size() == 1);
    CHECK(events[0].firstTask == 30);
    CHECK(events[0].host == "node-18");
    CHECK(events[0].timeNs == kNoTime);
    CHECK(events[0].code == 1); // the pid is cut, the exitcode is there
    REQUIRE(f->warnings.size() == 1);
    CHECK(f->warnings[0].file == "cut.txt");
    CHECK(f->warnings[0].line == 2);
    CHECK_THAT(f->warnings[0].message, Catch::Contains("rank : N"));
}

TEST_CASE("a torchrun entry without an exitcode says so, and names no cause", "[host_log][torchrun][logs_job]")
{
    const std::string agent = "Root Cause (first observed failure):\n[0]:\n  host      : node-2\n  rank      : 4\n";
    Folder folder({ { "agent.log", agent } });
    auto job = openJob(folder.dir.path().string());
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.notes.size() == 1);
    CHECK(snap.notes[0].code == kNoExitCode);
    CHECK(snap.str(snap.notes[0].text) == "exitcode unknown");
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    CHECK_THAT(r.logStory->summary, Catch::Contains("rank 4 (node-2) failed (its exitcode not said)"));
    for (const auto& inc : r.incidents) {
        CHECK_FALSE(inc.launcherRank);
    }
}

TEST_CASE("a line saying \"Failures:\" outside a table is no table", "[host_log][torchrun]")
{
    const std::string text = "Failures:\n"
                             "the nightly run had no failures\n"
                             "srun: error: gpu-b003: task 12: Killed\n";
    auto f = parseHostLog("x.txt", text, LogClock { 2026, 0 });
    REQUIRE(f);
    REQUIRE(f->events.size() == 1);
    CHECK(f->events[0].kind == HostEventKind::TaskSignal);
    CHECK(f->unknownLines == 1);
}

TEST_CASE("logs alone: torchrun's root cause is the dead rank, with its host, and srun's tasks are nodes",
    "[logs_job][torchrun]")
{
    auto job = openJob((kData / "logs-only" / "torchrun").string());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 16); // NCCL's nranks
    // srun's label "1: " is torchrun's node 1: its lines are ranks 8 and 10, as NCCL's init lines say, not rank 1.
    CHECK(snap.str(snap.ranks[0].host) == "gpu-c001");
    CHECK(snap.str(snap.ranks[8].host) == "gpu-c002");
    CHECK(snap.str(snap.ranks[10].host) == "gpu-c002");
    CHECK(snap.ranks[10].localGpu == 2);
    CHECK(snap.str(snap.ranks[1].host).empty());
    // srun's "task 1" is torchrun's node 1, not rank 1.
    for (const auto& n : snap.notes) {
        if (snap.str(n.source) == "slurm") {
            CHECK(n.rank == kNoRank);
        }
    }
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->firstFailure);
    CHECK(r.logStory->firstFailure->rank == 10);
    CHECK(r.logStory->firstFailure->exitCode == 1);
    CHECK(r.logStory->launcherFailures == 1);
    REQUIRE(r.incidents.size() == 1);
    const auto& inc = r.incidents[0];
    CHECK(inc.kind == IncidentKind::DeadRank);
    REQUIRE(inc.launcherRank);
    CHECK(*inc.launcherRank == 10);
    CHECK(inc.suspectRanks == std::vector<std::uint32_t> { 10 });
    CHECK(inc.startNs == utc(2026, 11, 3, 14, 22, 8));
    const auto text = analysisText(snap, r);
    CHECK_THAT(text, Catch::Contains("RuntimeError: CUDA error: an illegal memory access was encountered"));
    CHECK_THAT(text, Catch::Contains("torchrun's first observed failure: rank 10 (gpu-c002) exited with code 1"));
    CHECK_THAT(text, !Catch::Contains("looks healthy"));
    CHECK_THAT(text, !Catch::Contains("seq 0 all_reduce")); // no collective is named: none is made up
    const auto json = nlohmann::json::parse(analysisJson(snap, r));
    CHECK(json["incidents"][0]["launcher_rank"] == 10);
}

TEST_CASE("an aborted root cause is reported with its caveat and names no dead rank", "[logs_job][torchrun]")
{
    Folder folder({ { "torchrun.log", test::readFile(kData / "logs" / "torchrun-failures.log") } });
    auto job = openJob(folder.dir.path().string());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 21); // the table's highest rank is 20
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    CHECK(r.logStory->launcherFailures == 3);
    REQUIRE(r.logStory->firstFailure);
    CHECK(r.logStory->firstFailure->rank == 18);
    CHECK_THAT(r.logStory->summary, Catch::Contains("killed by signal 6 (SIGABRT) (an abort"));
    for (const auto& inc : r.incidents) {
        CHECK_FALSE(inc.launcherRank);
    }
    const auto json = nlohmann::json::parse(analysisJson(snap, r));
    CHECK(json["logs"]["first_failure"]["rank"] == 18);
    CHECK(json["logs"]["first_failure"]["exitcode"] == -6);
    CHECK(json["logs"]["launcher_failures"] == 3);
}
