// SPDX-License-Identifier: MIT
// Transport errors reported by libraries other than NCCL (UCX's mlx5 completion errors) read as the same facts as
// NCCL's completion errors and reach the log story's first error and suspect link. Golden folder:
// tests/data/logs-only/ucx/ (our own hosts and values, UCX's line shapes).
#include "analysis/analysis.h"
#include "import/logs/rank_log.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;

namespace {

const std::filesystem::path kLogs = std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only";

} // namespace

TEST_CASE("rank log: UCX ib_mlx5_log completion errors are completion errors with HCA, status and syndrome",
    "[rank_log][ucx]")
{
    const std::string text
        = "[1779273667.204518] [gpu-c012:7202:0]  ib_mlx5_log.c:179  UCX  ERROR Transport retry count exceeded on "
          "mlx5_1:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n"
          "[1779273667.204518] [gpu-c012:7202:0]  ib_mlx5_log.c:179  UCX  ERROR RC QP 0x2c41 wqe[311]: RDMA_WRITE "
          "s-e [rqpn 0x1e07 dlid 41 sl 0]\n"
          "[gpu-c012:7203:0:7240] ib_mlx5_log.c:143  Remote OP error on mlx5_2:1/RoCE (synd 0x14 vend 0x89 hw_synd "
          "0/0)\n"
          "[gpu-c012:7204:0:7241] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0x51d wqe[9]: Remote access error "
          "(synd 0x13 vend 0x88) opcode RDMA_READ\n"
          "  3: > [gpu-c012:7205:0:7242] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0 (synd 0x15)\n"
          "[gpu-c012:x:0] ib_mlx5_log.c:143  Transport retry count exceeded on :1/IB (synd 0xzzzzzzzzzzzzzzzzzzzz)\n";
    REQUIRE(looksLikeRankLog(text));
    auto f = parseRankLog("ucx.log", text);
    REQUIRE(f);
    CHECK(f->host == "gpu-c012");
    CHECK(f->firstNs == 1'779'273'667'204'518'000LL);
    std::vector<LogEvent> errors;
    std::copy_if(f->events.begin(), f->events.end(), std::back_inserter(errors),
        [](const LogEvent& e) { return e.kind == LogEventKind::CompletionError; });
    REQUIRE(errors.size() == 4); // the last line names no HCA
    CHECK(errors[0].hca == "mlx5_1");
    CHECK(errors[0].status == 12); // synd 0x15 is ibv_wc_status 12, as NCCL reports it
    CHECK(errors[0].vendorErr == 0x81);
    CHECK(errors[0].line == 1);
    CHECK(errors[0].timeNs == 1'779'273'667'204'518'000LL);
    CHECK_THAT(errors[0].text, Catch::Contains("UCX Transport retry count exceeded on mlx5_1:1/IB (synd 0x15)"));
    CHECK_THAT(errors[0].text, Catch::Contains("pid 7202"));
    CHECK_THAT(errors[0].text, Catch::Contains("RC QP 0x2c41 wqe[311]: RDMA_WRITE")); // the detail line
    CHECK(errors[1].hca == "mlx5_2");
    CHECK(errors[1].status == 11); // remote operation error
    CHECK(errors[1].vendorErr == 0x89);
    CHECK_THAT(errors[1].text, Catch::Contains("Remote OP error on mlx5_2:1/RoCE"));
    CHECK(errors[2].hca == "mlx5_3");
    CHECK(errors[2].status == 10); // remote access error
    CHECK_THAT(errors[2].text, Catch::Contains("UCX Remote access error on mlx5_3:1"));
    CHECK(errors[3].hca == "mlx5_0"); // behind an srun label and a quote, no port
    CHECK(errors[3].status == 12);
}

TEST_CASE("logs alone: a UCX transport error is the first error and names the suspect HCA port", "[logs_job][ucx]")
{
    auto job = openJob((kLogs / "ucx").string());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    REQUIRE(snap.job.worldSize == 4);
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    const auto& s = *r.logStory;
    REQUIRE(s.firstError);
    // The retry timeout on gpu-c012 came 12 s before the remote access error it caused on gpu-c011.
    CHECK(s.firstError->rank == 3);
    CHECK(s.firstError->host == "gpu-c012");
    CHECK(s.firstError->hca == "mlx5_1");
    CHECK(s.firstError->status == 12);
    CHECK(s.firstError->vendorErr == 129);
    CHECK(s.suspect == "gpu-c012 mlx5_1 port 1");
    REQUIRE(s.consequences.size() == 1);
    CHECK(s.consequences[0].host == "gpu-c011");
    REQUIRE(s.hang);
    CHECK(s.hang->seq == 918);
    CHECK(s.hang->timedOut == std::vector<std::uint32_t> { 0, 1, 2, 3 });
    CHECK_THAT(analysisText(snap, r), Catch::Contains("gpu-c012 mlx5_1 port 1"));
}

TEST_CASE("rank log: Open MPI pml_ucx errors are socket errors of the rank its prefix names", "[rank_log][ucx]")
{
    const auto path = std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs" / "ompi-pml-ucx.log";
    const auto text = stallscope::test::readFile(path);
    REQUIRE(looksLikeRankLog(text));
    auto f = parseRankLog("ompi-pml-ucx.log", text);
    REQUIRE(f);
    CHECK(f->host == "gpu-c011");
    std::vector<LogEvent> sockets;
    std::copy_if(f->events.begin(), f->events.end(), std::back_inserter(sockets),
        [](const LogEvent& e) { return e.kind == LogEventKind::SocketError; });
    REQUIRE(sockets.size() == 2); // the Warning line is read and dropped
    CHECK(sockets[0].text == "Open MPI pml_ucx: ucx send failed: Connection reset by remote peer, pid 6102");
    CHECK(sockets[0].line == 2);
    CHECK_THAT(sockets[1].text, Catch::Contains("ucp_ep_create(proc=3) failed: Connection reset by remote peer"));
    const auto ucx = std::find_if(
        f->events.begin(), f->events.end(), [](const LogEvent& e) { return e.kind == LogEventKind::CompletionError; });
    REQUIRE(ucx != f->events.end());
    CHECK(ucx->hca == "mlx5_1");
    CHECK(ucx->status == 10);
    CHECK_THAT(ucx->text, Catch::Contains("UCX Remote access on mlx5_1:1/IB"));
}

TEST_CASE("logs: Open MPI tags behind --timestamp-output stamps split the ranks", "[rank_log][ucx]")
{
    const auto text = stallscope::test::readFile(
        std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs" / "combined-ompi-timestamp.log");
    const auto parts = splitByRankPrefix(text);
    REQUIRE(parts.size() == 2);
    CHECK(parts[0].rank == 2u);
    CHECK(parts[1].rank == 5u);
    CHECK(parts[1].lineNumbers == std::vector<std::int64_t> { 2, 3 });
    auto five = parseRankLog("combined-ompi-timestamp.log", parts[1].text);
    REQUIRE(five);
    CHECK(five->host == "gpu-c022");
    CHECK(five->rank == 5u);
    const auto ucx = std::find_if(five->events.begin(), five->events.end(),
        [](const LogEvent& e) { return e.kind == LogEventKind::CompletionError; });
    REQUIRE(ucx != five->events.end());
    CHECK(ucx->hca == "mlx5_1");
    CHECK(ucx->timeNs == 1'779'273'667'881'204'000LL); // UCX's own time, not the launcher's zone-less stamp
    auto two = parseRankLog("combined-ompi-timestamp.log", parts[0].text);
    REQUIRE(two);
    CHECK(std::any_of(two->events.begin(), two->events.end(), [](const LogEvent& e) {
        return e.kind == LogEventKind::SocketError
            && e.text.find("Connection reset by remote peer") != std::string::npos;
    }));
}

TEST_CASE("rank log: damaged UCX and Open MPI lines are read without a fact or a crash", "[rank_log][ucx][hostile]")
{
    const std::string text = std::string(4000, '[') + " ib_mlx5_log.c:1  x on mlx5_0:1/IB (synd 0x15)\n"
        + "[gpu-c012:1:0] ib_mlx5_log.c:1  x on mlx5_0:1/IB (synd 0x" + std::string(3000, 'f') + " vend 0x"
        + std::string(50, '9') + ")\n" + "Wed May 20 10:41:07 2026[1,\n" + "[gpu-c012:7] pml_ucx.c:\n";
    auto f = parseRankLog("bad.log", text);
    REQUIRE(f);
    REQUIRE(f->events.size() == 2); // both lines name an HCA and a syndrome, however damaged
    CHECK(f->events[0].hca == "mlx5_0");
    CHECK(f->events[0].status == 12);
    CHECK(f->events[1].status == 21); // a syndrome too long is no known one: a general error
    // The two processes the UCX and Open MPI prefixes name (pids 1 and 7); the line of brackets names none.
    const auto parts = splitByRankPrefix(text);
    REQUIRE(parts.size() == 2);
    CHECK(parts[0].process == "gpu-c012 pid 1");
    CHECK(parts[1].process == "gpu-c012 pid 7");
}
