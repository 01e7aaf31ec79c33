// SPDX-License-Identifier: MIT
#include "core/time_format.h"
#include "import/logs/rank_log.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <map>

using namespace stallscope;
using namespace stallscope::test;

namespace {

// A log's events but its init facts (NCCL's "Init COMPLETE" lines, kept since issue #40).
std::vector<LogEvent> withoutInit(std::vector<LogEvent> events)
{
    std::erase_if(events, [](const LogEvent& e) { return e.kind == LogEventKind::Init; });
    return events;
}

} // namespace

TEST_CASE("a rank's log gives its host, HCAs, transport errors and timeouts", "[core][import]")
{
    LogClock clock;
    clock.year = 2025;
    auto r = parseRankLog("rank2.log", testData("logs/rank2.log"), clock);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& f = r.value();
    const auto said = withoutInit(f.events);
    REQUIRE(f.events.size() == said.size() + 1); // its "Init COMPLETE" line
    CHECK(f.rank == 2u);
    CHECK(f.host == "gpu-a017");
    CHECK(f.cudaDev == 2);
    CHECK(f.hcas == std::vector<std::string> { "mlx5_0", "mlx5_3", "mlx5_4" });
    REQUIRE(said.size() == 4);
    CHECK(said[0].kind == LogEventKind::PortError);
    CHECK(said[0].hca == "mlx5_3");
    CHECK(said[1].kind == LogEventKind::CompletionError);
    CHECK(said[1].status == 12);
    CHECK(said[1].hca == "mlx5_3");
    CHECK(formatUtc(said[1].timeNs) == "2025-06-01 12:00:31.000 UTC");
    CHECK(said[2].kind == LogEventKind::WatchdogTimeout);
    CHECK(said[2].seq == 1842);
    CHECK(said[2].op == "ALLREDUCE");
    CHECK(formatUtc(said[2].timeNs) == "2025-06-01 12:10:31.004 UTC");
    CHECK(said[2].line == 5);
    CHECK(said[2].timeoutMs == 600000);
    CHECK(said[3].kind == LogEventKind::WatchdogFailure);
    CHECK(said[3].seq == 1842);
    CHECK(said[3].lastEnqueued == 1843);
    CHECK(said[3].lastCompleted == 1841);
    CHECK(said[3].pg == "0");
}

TEST_CASE("NCCL wordings across versions are all recognised", "[core][import]")
{
    auto r = parseRankLog("nccl-variants.log", testData("logs/nccl-variants.log"));
    REQUIRE(r.ok());
    const auto& f = r.value();
    CHECK(f.host == "gpu-b003");
    CHECK(f.hcas == std::vector<std::string> { "mlx5_7" });
    REQUIRE(f.events.size() == 6);
    for (int i = 0; i < 3; ++i) {
        CHECK(f.events[i].kind == LogEventKind::CompletionError);
        CHECK(f.events[i].status == 12);
    }
    CHECK(f.events[2].hca == "mlx5_7");
    CHECK(f.events[3].kind == LogEventKind::PortError);
    CHECK(f.events[3].hca.empty()); // NCCL <= 2.19 does not name it
    CHECK(f.events[4].kind == LogEventKind::PortActive);
    CHECK(f.events[5].kind == LogEventKind::PortError);
    CHECK(f.events[5].hca == "mlx5_7");
}

TEST_CASE("a log without any known line is an error, a second rank is a warning", "[core][import]")
{
    auto r = parseRankLog("notes.txt", "hello\nworld\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("notes.txt") && Catch::Contains("no PyTorch or NCCL"));
    r = parseRankLog(
        "mixed.log", "[rank1]:[I0601 12:00:00.000000000 x.cpp:1] a\n[rank7]:[I0601 12:00:00.000000000 x.cpp:1] b\n");
    REQUIRE(r.ok());
    REQUIRE(r->warnings.size() == 1);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("mixed.log:2:") && Catch::Contains("rank 7"));
}

TEST_CASE("a log line cut in half is a warning naming its line", "[core][import]")
{
    LogClock clock;
    clock.year = 2025;
    const std::string text = "gpu-a017:48211:48211 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n"
                             "[2025-06-01 12:00:31] gpu-a017:48211:48300 [2] transport/net_ib.cc:1712 NCCL WARN "
                             "NET/IB: Got completion from peer 10.0.1.12<48133> with sta\n"
                             "[rank2]:[E0601 12:10:31.004117210 ProcessGroupNCCL.cpp:757] [Rank 2] Watchdog caught "
                             "collective operation timeout: WorkNCCL(SeqNum=18";
    auto r = parseRankLog("rank2.log", text, clock);
    REQUIRE(r.ok());
    CHECK(r->events.empty());
    REQUIRE(r->warnings.size() == 3);
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("rank2.log:2") && Catch::Contains("cut in half"));
    CHECK_THAT(r->warnings[1].format(), Catch::Contains("rank2.log:3"));
    CHECK_THAT(r->warnings[2].format(), Catch::Contains("rank2.log:3") && Catch::Contains("ends inside"));
}

TEST_CASE(
    "a combined log (srun --label, Open MPI) is split into its ranks, with the file's line numbers", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    const auto text = testData("logs/combined-srun.log");
    const auto parts = splitByRankPrefix(text);
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].rank == 0);
    CHECK(parts[1].rank == 1);
    CHECK(parts[2].rank == 9);
    auto nine = parseRankLog("combined-srun.log", parts[2].text, clock);
    REQUIRE(nine.ok());
    restoreLineNumbers(nine.value(), "combined-srun.log", parts[2].lineNumbers);
    CHECK(nine->rank == 9u);
    CHECK(nine->host == "gpu-c003");
    CHECK(nine->hcas == std::vector<std::string> { "mlx5_0", "mlx5_1" });
    const auto nineSaid = withoutInit(nine->events);
    REQUIRE(nineSaid.size() == 1);
    CHECK(nineSaid[0].kind == LogEventKind::CompletionError);
    CHECK(nineSaid[0].hca == "mlx5_1");
    CHECK(nineSaid[0].line == 7); // its line in the file, not in rank 9's share
    auto zero = parseRankLog("combined-srun.log", parts[0].text, clock);
    REQUIRE(zero.ok());
    CHECK(zero->rank == 0u);
    const auto zeroSaid = withoutInit(zero->events);
    REQUIRE(zeroSaid.size() == 1);
    CHECK(zeroSaid[0].kind == LogEventKind::WatchdogTimeout);
    CHECK(zeroSaid[0].seq == 918);
    CHECK(zero->warnings.empty());

    const auto ompi = splitByRankPrefix(testData("logs/combined-ompi.log"));
    REQUIRE(ompi.size() == 2);
    auto six = parseRankLog("combined-ompi.log", ompi[1].text, clock);
    REQUIRE(six.ok());
    CHECK(six->host == "gpu-d004");
    REQUIRE(withoutInit(six->events).size() == 1);
    CHECK(withoutInit(six->events)[0].kind == LogEventKind::PortError);

    // One rank's own log stays whole.
    CHECK(splitByRankPrefix(testData("logs/nccl-variants.log")).empty());
    CHECK(splitByRankPrefix(testData("logs/rank2.log")).empty());
}

TEST_CASE("PyTorch's watchdog, heartbeat and terminate wordings, with and without times", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    auto r = parseRankLog("pytorch-watchdog-variants.log", testData("logs/pytorch-watchdog-variants.log"), clock);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& f = r.value();
    CHECK(f.rank == 5u); // "[Rank 5]" of a line that names no other group: the default group's rank is global
    CHECK(f.warnings.empty());
    REQUIRE(f.events.size() == 7);
    const auto& timeout = f.events[0]; // the older c10 prefix has no time: placed later against the dumps
    CHECK(timeout.kind == LogEventKind::WatchdogTimeout);
    CHECK(timeout.timeNs == kNoTime);
    CHECK(timeout.seq == 77);
    CHECK(timeout.op == "ALLGATHER");
    CHECK(timeout.timeoutMs == 1800000);
    CHECK(timeout.ranForMs == 1800412);
    const auto& failure = f.events[1];
    CHECK(failure.kind == LogEventKind::WatchdogFailure);
    CHECK(failure.seq == 77);
    CHECK(failure.lastEnqueued == 78);
    CHECK(failure.lastCompleted == 76);
    CHECK(failure.pg == "0");
    const auto& heartbeat = f.events[2]; // two lines, one fact
    CHECK(heartbeat.kind == LogEventKind::HeartbeatTimeout);
    CHECK(heartbeat.stuckSeconds == 480);
    CHECK(formatUtc(heartbeat.timeNs) == "2026-11-02 03:14:16.000 UTC");
    const auto& exception = f.events[3];
    CHECK(exception.kind == LogEventKind::WatchdogException);
    CHECK(exception.pg == "3");
    CHECK_THAT(exception.text, Catch::StartsWith("NCCL error: remote process exited or there was a network error"));
    const auto& lastError = f.events[4]; // NCCL's WARN as PyTorch repeats it after "Last error:"
    CHECK(lastError.kind == LogEventKind::CompletionError);
    CHECK(lastError.status == 12);
    CHECK(lastError.vendorErr == 129);
    CHECK(lastError.peer == "10.2.0.9<41007>");
    const auto& terminated = f.events[5]; // what() completes it
    CHECK(terminated.kind == LogEventKind::Terminated);
    CHECK_THAT(terminated.text, Catch::StartsWith("c10::DistBackendError: [PG ID 3"));
    CHECK(terminated.pg == "3");
    const auto& reported = f.events[6]; // and the timeout it reports, which has no line of its own here (#40)
    CHECK(reported.kind == LogEventKind::WatchdogTimeout);
    CHECK(reported.seq == 12);
    CHECK(reported.op == "SEND");
    CHECK(reported.pg == "3");
    CHECK(reported.ranForMs == 600101);
}

TEST_CASE("NCCL lines behind a progress bar's carriage returns, hard-wrapped, and of newer versions", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    auto r = parseRankLog("nccl-wrapped.log", testData("logs/nccl-wrapped.log"), clock);
    REQUIRE(r.ok());
    const auto& f = r.value();
    for (const auto& w : f.warnings) {
        UNSCOPED_INFO(w.format());
    }
    CHECK(f.warnings.empty());
    CHECK(f.rank == 9u);
    CHECK(f.host == "gpu-e002");
    CHECK(f.hcas == std::vector<std::string> { "mlx5_2", "mlx5_5" });
    REQUIRE(f.events.size() == 7);
    CHECK(f.events[0].kind == LogEventKind::CompletionError); // glued behind two progress-bar frames
    CHECK(f.events[0].peer == "fe80::a%ib0<5000>"); // a link-local IPv6 peer with its interface
    CHECK(f.events[0].line == 1);
    CHECK(f.events[1].kind == LogEventKind::CompletionError); // wrapped inside "vendor_err"
    CHECK(f.events[1].status == 12);
    CHECK(f.events[1].vendorErr == 129);
    CHECK(f.events[1].hca == "mlx5_2");
    CHECK(f.events[1].line == 3);
    CHECK(f.events[2].text == "Recv"); // 2.18+ with RoCE gids
    CHECK(f.events[2].hca == "mlx5_2");
    CHECK(formatUtc(f.events[2].timeNs) == "2026-11-02 03:04:05.000 UTC");
    CHECK(f.events[3].kind == LogEventKind::DeviceFatal);
    CHECK(f.events[3].hca == "mlx5_5");
    CHECK(f.events[4].kind == LogEventKind::SocketError);
    CHECK(f.events[4].peer == "10.2.0.9<52113>");
    CHECK(f.events[4].text == "Broken pipe");
    CHECK(f.events[5].kind == LogEventKind::SocketError);
    CHECK(f.events[5].peer == "gpu-e009<52113>");
    CHECK(f.events[6].kind == LogEventKind::WatchdogTimeout); // wrapped at a blank the wrapper dropped
    CHECK(f.events[6].ranForMs == 600250);
    CHECK(f.events[6].line == 9);
}

TEST_CASE("NCCL output of two processes in one file, interleaved inside lines, is split by process", "[core][import]")
{
    const auto text = testData("logs/nccl-two-processes.log");
    const auto parts = splitByRankPrefix(text);
    REQUIRE(parts.size() == 2);
    std::map<std::uint32_t, RankLogFacts> byRank;
    for (const auto& p : parts) {
        auto f = parseRankLog("nccl-two-processes.log", p.text);
        REQUIRE(f.ok());
        restoreLineNumbers(f.value(), "nccl-two-processes.log", p.lineNumbers);
        REQUIRE(f->rank);
        byRank[*f->rank] = std::move(f.value());
    }
    REQUIRE(byRank.count(14));
    REQUIRE(byRank.count(15));
    CHECK(byRank[14].cudaDev == 0);
    CHECK(byRank[15].cudaDev == 1);
    CHECK(byRank[14].hcas == std::vector<std::string> { "mlx5_0", "mlx5_1" });
    CHECK(withoutInit(byRank[14].events).empty());
    REQUIRE(withoutInit(byRank[15].events).size() == 1);
    CHECK(withoutInit(byRank[15].events)[0].line == 7);
}

TEST_CASE("a host whose name ends in another host's name is not cut inside its own prefix", "[core][import][hostile]")
{
    // Hosts gpu-a1 and a1: "gpu-a1:100:100 [0] ..." once read as "gpu-" (a tail of the line before) and a line of a
    // process "a1 pid 100" that does not exist; a host whose every suffix was a host was cut a byte at a time.
    const std::string text
        = "gpu-a1:100:100 [0] NCCL INFO cudaDev 0 busId 1000 commId 0x1 rank 0 nRanks 2 - Init START\n"
          "a1:200:200 [1] NCCL INFO cudaDev 1 busId 2000 commId 0x1 rank 1 nRanks 2 - Init START\n"
          "gpu-a1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
          "a1:200:200 [1] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB ; OOB ib0:10.0.0.2<0>\n"
          "gpu-a1:100:100 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/0a1:200:200 [1] "
          "NCCL INFO Channel 00/0 : 1[1] -> 0[0] via NET/IB/0\n";
    const auto parts = splitByRankPrefix(text);
    REQUIRE(parts.size() == 2);
    std::map<std::string, std::string> textOf;
    for (const auto& p : parts) {
        textOf[p.process] = p.text;
    }
    REQUIRE(textOf.count("gpu-a1 pid 100 GPU 0"));
    REQUIRE(textOf.count("a1 pid 200 GPU 1"));
    CHECK(textOf["gpu-a1 pid 100 GPU 0"].find("Using [0]mlx5_0") != std::string::npos);
    CHECK(textOf["a1 pid 200 GPU 1"].find("gpu-") == std::string::npos);
    // The interleaved write is still cut where the second process's prefix begins, glued to "0".
    CHECK(textOf["a1 pid 200 GPU 1"].find("a1:200:200 [1] NCCL INFO Channel 00/0 : 1[1]") != std::string::npos);
}
