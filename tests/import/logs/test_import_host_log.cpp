// SPDX-License-Identifier: MIT
// Slurm task fates, kernel link/module events and GPU Xids (docs/formats.md §2d), from our own golden files in the
// shapes srun, slurmstepd, journalctl, dmesg -T and syslog write.
#include "core/time_format.h"
#include "import/logs/host_log.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("srun's task fates and slurmstepd's cancellation, ranges expanded, damaged ranges refused", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    auto r = parseHostLog("slurm-srun.out", testData("logs/slurm-srun.out"), clock);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& ev = r->events;
    REQUIRE(ev.size() == 5);
    CHECK(ev[0].kind == HostEventKind::TaskSignal);
    CHECK(ev[0].host == "gpu-b005");
    CHECK(ev[0].firstTask == 21);
    CHECK(ev[0].lastTask == 21);
    CHECK(ev[0].code == 9); // "Killed": SIGKILL
    CHECK(ev[0].timeNs == kNoTime);
    CHECK(ev[1].kind == HostEventKind::StepCancelled);
    CHECK(ev[1].host == "gpu-b001");
    CHECK(formatUtc(ev[1].timeNs) == "2026-11-02 03:06:10.000 UTC");
    CHECK(ev[2].code == 6); // "Aborted (core dumped)": SIGABRT
    CHECK(ev[2].firstTask == 0);
    CHECK(ev[2].lastTask == 3);
    CHECK(ev[3].firstTask == 6);
    CHECK(ev[3].lastTask == 6);
    CHECK(ev[4].kind == HostEventKind::TaskExit);
    CHECK(ev[4].code == 1);
    CHECK(ev[4].host == "gpu-b002");
    REQUIRE(r->warnings.size() == 1); // tasks 12-999999999: a damaged line, not an allocation
    CHECK_THAT(r->warnings[0].format(), Catch::Contains("slurm-srun.out:7"));
}

TEST_CASE("kernel lines from journalctl, dmesg -T and syslog: link events, module events, Xids", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    auto j = parseHostLog("kernel-journal.log", testData("logs/kernel-journal.log"), clock);
    REQUIRE(j.ok());
    REQUIRE(j->events.size() == 4);
    CHECK(j->events[0].kind == HostEventKind::PortModule);
    CHECK_THAT(j->events[0].text, Catch::Contains("Cable error"));
    CHECK(j->events[0].device == "0000:3b:00.0");
    CHECK(j->events[1].kind == HostEventKind::LinkDown);
    CHECK(j->events[1].host == "gpu-b005");
    CHECK(j->events[1].device == "0000:3b:00.0 ib0");
    CHECK(formatUtc(j->events[1].timeNs) == "2026-11-02 03:04:57.000 UTC");
    CHECK(j->events[2].kind == HostEventKind::LinkUp);
    CHECK(formatUtc(j->events[2].timeNs) == "2026-11-02 03:04:59.000 UTC");
    CHECK(j->events[3].kind == HostEventKind::GpuXid);
    CHECK(j->events[3].code == 79);
    CHECK(j->events[3].text == "Xid 79: GPU has fallen off the bus.");
    CHECK(formatUtc(j->events[3].timeNs) == "2026-11-02 03:05:00.000 UTC"); // +01:00 in the line

    clock.utcOffsetNs = 0;
    auto d = parseHostLog("kernel-dmesg-T.txt", testData("logs/kernel-dmesg-T.txt"), clock, "gpu-b005");
    REQUIRE(d.ok());
    REQUIRE(d->events.size() == 3);
    CHECK(d->events[0].host == "gpu-b005"); // dmesg names no host: the file's
    CHECK(formatUtc(d->events[0].timeNs) == "2026-11-02 03:04:57.000 UTC");
    CHECK(d->events[2].kind == HostEventKind::GpuXid);
    CHECK(d->events[2].code == 48);
    CHECK(d->events[2].timeNs == kNoTime); // seconds since boot: no wall time

    auto s = parseHostLog("syslog-kern.log", testData("logs/syslog-kern.log"), clock);
    REQUIRE(s.ok());
    REQUIRE(s->events.size() == 2);
    CHECK(s->events[0].host == "gpu-b006");
    CHECK(s->events[0].device == "0000:3b:00.0 enp59s0f0np0");
    CHECK(s->events[1].kind == HostEventKind::LinkUp);

    CHECK_FALSE(parseHostLog("notes.txt", "nothing here\n", clock).ok());
}

TEST_CASE("dmesg --time-format iso, --decode prefixes and /dev/kmsg records: the host is the file's", "[core][import]")
{
    LogClock clock;
    clock.year = 2026;
    const std::string text
        = "2024-01-08T10:11:12,123456+00:00 mlx5_core 0000:3b:00.0 ib0: Link down\n"
          "kern  :info  : 2024-01-08T10:11:20,000001+01:00 mlx5_core 0000:3b:00.0 ib0: Link up\n"
          "6,2211,98765432,-;mlx5_core 0000:5e:00.0 ib1: Link down\n"
          " SUBSYSTEM=pci\n"
          "2024-01-08T10:12:00.500000+0000 gpu-b009 kernel: mlx5_core 0000:3b:00.0 ib0: Link down\n"
          "[ 4443.974372] mlx5_core 0000:53:00.0 mlx5_3: Port: 1 Link DOWN\n"
          "[ 4443.974400] mlx5_core 0000:53:00.0 mlx5_3: Port: 1 Link INIT\n";
    auto r = parseHostLog("gpu-b008.dmesg", text, clock, "gpu-b008");
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& ev = r->events;
    REQUIRE(ev.size() == 5);
    CHECK(ev[0].kind == HostEventKind::LinkDown);
    CHECK(ev[0].host == "gpu-b008"); // dmesg's ISO stamp is followed by the message, not a host
    CHECK(formatUtc(ev[0].timeNs) == "2024-01-08 10:11:12.123 UTC");
    CHECK(ev[1].kind == HostEventKind::LinkUp);
    CHECK(formatUtc(ev[1].timeNs) == "2024-01-08 09:11:20.000 UTC"); // +01:00
    CHECK(ev[1].host == "gpu-b008");
    CHECK(ev[2].kind == HostEventKind::LinkDown);
    CHECK(ev[2].timeNs == kNoTime); // /dev/kmsg counts µs since boot: no wall time
    CHECK(ev[2].device == "0000:5e:00.0 ib1");
    CHECK(ev[3].host == "gpu-b009"); // journalctl -o short-iso names its host
    CHECK(ev[4].kind == HostEventKind::LinkDown); // IB/core's wording; INIT after it is no event
    CHECK(ev[4].device == "0000:53:00.0 mlx5_3");
}
