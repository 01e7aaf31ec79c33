// SPDX-License-Identifier: MIT
// A node's GPU and fabric state from the logs engineers read first (issue #41; docs/formats.md §2d, §5f): the
// kernel's NVIDIA, NVSwitch, PCIe, segfault and nvidia-peermem lines and Fabric Manager's log, from our own golden
// files (tests/data/node-folder/gpu-b12), as facts with host, time and line and as node findings with their
// evidence; lines no reader knows counted, damaged ones warned about by file and line.
#include "analysis/flaps.h"
#include "analysis/node_findings.h"
#include "core/time_format.h"
#include "import/logs/host_log.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;
using namespace stallscope::test;

namespace {

HostLogFacts readGolden(const std::string& name, const std::string& host = "gpu-b12")
{
    LogClock clock; // UTC: the folder's zone when no mapping says otherwise
    clock.year = 2026;
    const auto text = testData("node-folder/" + host + "/" + name);
    REQUIRE(looksLikeHostLog(text));
    auto r = parseHostLog(name, text, clock, host);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    return std::move(r.value());
}

void checkEvent(const HostEvent& e, HostEventKind kind, const std::string& when, std::int64_t line,
    const std::string& device, const std::string& textHas)
{
    INFO("line " << e.line << ": " << e.evidence);
    CHECK(e.kind == kind);
    CHECK(e.host == "gpu-b12");
    CHECK(formatUtc(e.timeNs) == when);
    CHECK(e.line == line);
    CHECK(e.device == device);
    CHECK_THAT(e.text, Catch::Contains(textHas));
    CHECK_FALSE(e.evidence.empty());
}

const NodeFinding* finding(const std::vector<NodeFinding>& all, const std::string& kind, const std::string& host = {})
{
    const auto it = std::find_if(all.begin(), all.end(),
        [&](const NodeFinding& f) { return f.kind == kind && (host.empty() || f.host == host); });
    return it == all.end() ? nullptr : &*it;
}

// What a test says of an event read from a journal: its kind, host, time, line, device and text.
void checkJournalEvent(const HostEvent& e, HostEventKind kind, const std::string& host, const std::string& when,
    std::int64_t line, const std::string& device, const std::string& textHas)
{
    INFO("line " << e.line << ": " << e.evidence);
    CHECK(e.kind == kind);
    CHECK(e.host == host);
    CHECK(formatUtc(e.timeNs) == when);
    CHECK(e.line == line);
    CHECK(e.device == device);
    CHECK_THAT(e.text, Catch::Contains(textHas));
    CHECK(isFabricManager(e.kind));
}

} // namespace

TEST_CASE("dmesg: SXids, AER, hot-plug link downs, a GPU off the bus without an Xid, GPU-library segfaults, peermem",
    "[node][node_logs]")
{
    const auto f = readGolden("dmesg.txt");
    const auto& ev = f.events;
    REQUIRE(ev.size() == 10);
    checkEvent(ev[0], HostEventKind::PcieCorrected, "2026-12-04 03:02:40.118 UTC", 3, "0000:40:01.1",
        "AER: Corrected error received: 0000:41:00.0");
    checkEvent(ev[1], HostEventKind::SxidNonFatal, "2026-12-04 03:04:50.731 UTC", 6, "nvidia-nvswitch1 0000:a6:00.0",
        "SXid 12028, non-fatal: Link 32");
    CHECK(ev[1].code == 12028);
    // The same SXid's "Severity …" and "Data {…}" lines (7, 8) are read, not facts of their own.
    checkEvent(ev[2], HostEventKind::SxidFatal, "2026-12-04 03:04:55.002 UTC", 9, "nvidia-nvswitch1 0000:a6:00.0",
        "SXid 20034, fatal: Link 33");
    CHECK(ev[2].code == 20034);
    checkEvent(ev[3], HostEventKind::PcieUncorrected, "2026-12-04 03:05:01.440 UTC", 10, "0000:c0:03.1",
        "Uncorrected (Fatal)");
    CHECK(ev[3].code == 1);
    checkEvent(ev[4], HostEventKind::PcieLinkDown, "2026-12-04 03:05:01.440 UTC", 12, "0000:c0:03.1", "Surprise Down");
    checkEvent(ev[5], HostEventKind::PcieLinkDown, "2026-12-04 03:05:01.512 UTC", 13, "0000:c0:03.1",
        "pciehp slot 17: Link Down");
    checkEvent(
        ev[6], HostEventKind::PcieLinkDown, "2026-12-04 03:05:01.512 UTC", 14, "0000:c0:03.1", "Card not present");
    // No Xid line before it: the driver's own line is the fact, with the UUID "NVRM: GPU at" gave.
    checkEvent(ev[7], HostEventKind::GpuOffBus, "2026-12-04 03:05:01.690 UTC", 17, "0000:c1:00.0",
        "GPU has fallen off the bus (GPU-5e1f0c2a-77b3-4d90-a1c8-0b9e3d2f6a41)");
    checkEvent(
        ev[8], HostEventKind::PeermemError, "2026-12-04 03:05:03.100 UTC", 19, "", "ERROR detected invalid context");
    checkEvent(ev[9], HostEventKind::LibSegfault, "2026-12-04 03:05:07.881 UTC", 20, "libnccl.so.2",
        "pt_main_thread[48213] segfault in libnccl.so.2 (error 4)");
    CHECK(ev[9].code == 48213);
    CHECK_THAT(ev[9].evidence, Catch::StartsWith("2026-12-04T03:05:07,881400+00:00 pt_main_thread[48213]: segfault"));
    // The driver's banner, peermem's load line and the segfault's code bytes: no reader's, counted and kept. A
    // segfault in python itself is read (not a GPU library's) and is no fact.
    CHECK(f.unknownLines == 3);
    REQUIRE(f.unknown.size() == 3);
    CHECK(f.unknown[0].first == 1);
    CHECK(f.unknown[2].first == 21);
    CHECK(f.warnings.empty());
}

TEST_CASE("fabricmanager.log: error lines are facts dated by their prefix, INFO lines and field lines are read",
    "[node][node_logs]")
{
    const auto f = readGolden("fabricmanager.log");
    const auto& ev = f.events;
    REQUIRE(ev.size() == 8);
    checkEvent(ev[0], HostEventKind::FmNvSwitchNonFatal, "2026-12-04 03:04:50.000 UTC", 7, "0000:a6:00.0 port 32",
        "detected NVSwitch non-fatal error 12028");
    CHECK(ev[0].code == 12028);
    checkEvent(ev[1], HostEventKind::FmNvSwitchFatal, "2026-12-04 03:04:55.000 UTC", 8, "0000:a6:00.0 port 33",
        "detected NVSwitch fatal error 20034");
    CHECK(ev[1].code == 20034);
    checkEvent(ev[2], HostEventKind::FmTrunkLink, "2026-12-04 03:04:55.000 UTC", 9, "", "Trunk port failure");
    // The record's field lines name the GPU and its port.
    checkEvent(ev[3], HostEventKind::FmGpuNvlink, "2026-12-04 03:04:56.000 UTC", 10, "GPU 0x7c2a91f00d3e5b10",
        "GPU NVL Fatal error on GPU 0x7c2a91f00d3e5b10 port 11");
    checkEvent(ev[4], HostEventKind::FmNvlinkTraining, "2026-12-04 03:04:57.000 UTC", 19, "", "NVLink training failed");
    // Line 20, a WARNING about a slow query, names no failure: read, no fact.
    checkEvent(ev[5], HostEventKind::FmNvlinkDown, "2026-12-04 03:04:58.000 UTC", 21, "", "NVLink 11 is down");
    checkEvent(ev[6], HostEventKind::FmError, "2026-12-04 03:04:59.000 UTC", 22, "", "unable to reconfigure");
    checkEvent(ev[7], HostEventKind::FmStopped, "2026-12-04 03:05:00.000 UTC", 23, "", "Fabric Manager is exiting");
    CHECK(std::all_of(ev.begin(), ev.end(), [](const HostEvent& e) { return isFabricManager(e.kind); }));
    CHECK(f.unknownLines == 0); // INFO lines, the inband message's payload line and the record's fields are read
    CHECK(f.warnings.empty());
}

TEST_CASE("a node folder of dmesg and fabricmanager.log: notes from both sources, GPU and fabric node findings",
    "[node][node_logs]")
{
    auto job = openJob(testDataPath("node-folder/gpu-b12").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    const auto fm = std::count_if(snap.notes.begin(), snap.notes.end(),
        [&](const HostNote& n) { return snap.str(n.source) == "fabric manager"; });
    CHECK(fm == 8);
    const auto kernel = std::count_if(
        snap.notes.begin(), snap.notes.end(), [&](const HostNote& n) { return snap.str(n.source) == "kernel"; });
    CHECK(kernel == 10);
    CHECK(std::all_of(snap.notes.begin(), snap.notes.end(), [&](const HostNote& n) {
        return snap.str(n.host) == "gpu-b12" && n.timeNs != kNoTime && !snap.str(n.evidence).empty();
    }));

    const auto all = findNodeProblems(snap);
    INFO(nodeFindingsText(all));
    const auto* offBus = finding(all, "GPU fallen off the bus");
    REQUIRE(offBus);
    CHECK(offBus->host == "gpu-b12");
    CHECK(offBus->portDown);
    CHECK_THAT(offBus->text, Catch::Contains("2026-12-04 03:05:01.690") && Catch::Contains("GPU-5e1f0c2a"));
    CHECK_THAT(offBus->evidence, Catch::Contains("dmesg.txt:17: ") && Catch::Contains("GPU has fallen off the bus."));
    // The kernel's SXid and Fabric Manager's line say the same fatal error: one finding, a line of each.
    const auto* fatal = finding(all, "NVSwitch fatal error");
    REQUIRE(fatal);
    CHECK_THAT(fatal->text, Catch::Contains("2 lines"));
    CHECK_THAT(fatal->evidence,
        Catch::Contains("dmesg.txt:9: ") && Catch::Contains("; also ") && Catch::Contains("fabricmanager.log:8: "));
    const auto* pcie = finding(all, "PCIe link down");
    REQUIRE(pcie);
    CHECK_THAT(pcie->text, Catch::Contains("3 lines") && Catch::Contains("Card not present"));
    CHECK_THAT(pcie->evidence, Catch::Contains("dmesg.txt:14: "));
    for (const char* kind : { "Fabric Manager stopped", "NVSwitch trunk link failure", "NVLink training failed",
             "NVLink down", "GPU NVLink error", "PCIe uncorrected error", "segfault in a GPU library",
             "nvidia-peermem error", "NVSwitch non-fatal error", "Fabric Manager error", "PCIe corrected errors" }) {
        INFO(kind);
        CHECK(finding(all, kind));
    }
    const auto* segv = finding(all, "segfault in a GPU library");
    REQUIRE(segv);
    CHECK_THAT(segv->evidence, Catch::Contains("dmesg.txt:20: ") && Catch::Contains("libnccl.so.2"));
    CHECK_FALSE(segv->portDown);
    // Worst first: the GPU off the bus leads the host's findings, corrected PCIe errors come last.
    CHECK(all.front().kind == "GPU fallen off the bus");
    CHECK(all.back().kind == "PCIe corrected errors");
    CHECK(std::none_of(all.begin(), all.end(), [](const NodeFinding& f) { return f.kind == "GPU Xid"; }));
    // No node tool describes this host, yet its review is not quiet: a GPU and a switch are out of service.
    const auto review = reviewFabric(snap);
    CHECK_THAT(fabricReviewText(snap, review), Catch::Contains("Not quiet") && !Catch::Contains("\nQuiet:"));
    // With no counter or event, the hosts' notes date the folder: its span is theirs, not 1970.
    const auto first = std::min_element(snap.notes.begin(), snap.notes.end(),
        [](const HostNote& a, const HostNote& b) { return a.timeNs < b.timeNs; });
    CHECK(snap.job.span.start == first->timeNs);
    CHECK(snap.job.span.end > snap.job.span.start);
    CHECK_THAT(fabricReviewText(snap, review), Catch::Contains("2026-12-04") && !Catch::Contains("1970"));
    CHECK_THAT(fabricReviewJson(snap, review), Catch::Contains("\"GPU fallen off the bus\""));
}

TEST_CASE(
    "host logs keep what they cannot read: other lines counted, cut lines warned by file and line", "[node][node_logs]")
{
    LogClock clock;
    clock.year = 2026;
    const std::string text
        = "   [Dec 04 2026 03:04:55] [ERROR] [tid 12] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch "
          "pci bus id 00000000:86:00.0 physical id 3 port 33\n"
          "gpu-b13: [Dec 04 2026 03:05:00] [ERROR] [tid 7] Fabric Manager is exiting\n"
          "[Dec 04 2026 03:0\n"
          "gpu-b13: 2026-12-04T03:05:01,000001+00:00 NVRM: Xid (PCI:0000:3b\n"
          "2026-12-04T03:05:02,000001+00:00 nvidia-nvswitch0: SXid (PCI:0000:86:00.0): \n"
          "2026-12-04T03:05:03,000001+00:00 some other driver said something\n"
          "nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 8 no time prefix\n"
          "\n";
    auto r = parseHostLog("gpu-b12/mixed.log", text, clock, "gpu-b12");
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& ev = r->events;
    REQUIRE(ev.size() == 3);
    CHECK(ev[0].kind == HostEventKind::FmNvSwitchFatal); // leading whitespace passed over
    CHECK(ev[0].host == "gpu-b12");
    CHECK(ev[1].kind == HostEventKind::FmStopped);
    CHECK(ev[1].host == "gpu-b13"); // a pdsh prefix names the line's host
    CHECK(formatUtc(ev[1].timeNs) == "2026-12-04 03:05:00.000 UTC");
    CHECK(ev[2].kind == HostEventKind::SxidNonFatal); // "nvidia-nvswitch0: " is no pdsh host: no time follows it
    CHECK(ev[2].host == "gpu-b12");
    CHECK(ev[2].timeNs == kNoTime);
    // The cut Fabric Manager prefix (in a file with Fabric Manager's lines), the cut Xid and the SXid without its
    // number: one warning each, naming the file and the line; and each counted with the lines nobody reads.
    REQUIRE(r->warnings.size() == 3);
    const auto warned = [&](std::int64_t line, const std::string& has) {
        return std::any_of(r->warnings.begin(), r->warnings.end(), [&](const LoadIssue& w) {
            const auto text = w.format();
            return w.line == line && text.find("gpu-b12/mixed.log:" + std::to_string(line)) != std::string::npos
                && text.find(has) != std::string::npos;
        });
    };
    CHECK(warned(3, "Fabric Manager"));
    CHECK(warned(4, "Xid"));
    CHECK(warned(5, "NVIDIA"));
    CHECK(r->unknownLines == 4);
    REQUIRE(r->unknown.size() == 4);
    CHECK(r->unknown[3].first == 6);
    CHECK_THAT(r->unknown[3].second, Catch::Contains("some other driver"));
}

TEST_CASE("Fabric Manager's log is recognised by its prefix, not its words", "[node][node_logs]")
{
    // A line that only starts like the prefix, in a log with no Fabric Manager line: counted, no warning.
    const auto other
        = parseHostLog("job.out", "[Jun 1 step 20] loss 0.5\nsrun: error: gpu-b1: task 3: Killed\n", LogClock {});
    REQUIRE(other.ok());
    CHECK(other->warnings.empty());
    CHECK(other->unknownLines == 1);
    CHECK(looksLikeHostLog("[Feb 25 2025 13:59:45] [INFO] [tid 1803] Received an inband message\n"));
    CHECK(looksLikeHostLog("gpu-b12: [Feb 25 2025 13:59:45] [INFO] [tid 1803] multicast group 0 is freed.\n"));
    CHECK_FALSE(looksLikeHostLog("[Feb 25 2025] we restarted the fabric manager\n"));
    CHECK_FALSE(looksLikeHostLog("[Mon Nov  2 03:04:57 2026] usb 1-1: new high-speed USB device\n"));
    const auto none = parseHostLog("fm.log", "[Feb 25 2025 13:59:45] [INFO] [tid 1803] all well\n", LogClock {});
    REQUIRE_FALSE(none.ok()); // INFO lines only: nothing to say
    CHECK_THAT(none.error().format(), Catch::Contains("fm.log"));
}

TEST_CASE("journalctl -u nvidia-fabricmanager: the journal's host and time, the message read as Fabric Manager's",
    "[node][node_logs][journal]")
{
    const auto f = readGolden("journalctl-fabricmanager.txt", "gpu-f031");
    const auto& ev = f.events;
    REQUIRE(ev.size() == 8);
    const std::string h = "gpu-f031";
    checkJournalEvent(ev[0], HostEventKind::FmNvSwitchNonFatal, h, "2026-12-05 10:21:33.000 UTC", 6,
        "0000:86:00.0 port 61", "detected NVSwitch non-fatal error 12028");
    CHECK(ev[0].code == 12028);
    CHECK(ev[0].text.find("nv-fabricmanager") == std::string::npos); // the message, not the journal's prefix
    CHECK_THAT(ev[0].evidence, Catch::StartsWith("Dec 05 10:21:33 gpu-f031 nv-fabricmanager[2311]: "));
    checkJournalEvent(ev[1], HostEventKind::FmNvSwitchFatal, h, "2026-12-05 10:21:40.000 UTC", 7,
        "0000:86:00.0 port 62", "detected NVSwitch fatal error 20034");
    CHECK(ev[1].code == 20034);
    checkJournalEvent(ev[2], HostEventKind::FmNvlinkTraining, h, "2026-12-05 10:21:41.000 UTC", 8,
        "0000:86:00.0 port 62", "NVLink training failed");
    // The start script's lines: Fabric Manager's own failure, then the script's word on it.
    checkJournalEvent(ev[3], HostEventKind::FmError, h, "2026-12-05 10:26:04.000 UTC", 12, "",
        "failed with error:WARNING Nothing to do");
    checkJournalEvent(ev[4], HostEventKind::FmError, h, "2026-12-05 10:26:04.000 UTC", 13, "", "failed! Exit code: 1");
    // systemd's lines about the unit: the failed start, in its three lines.
    checkJournalEvent(ev[5], HostEventKind::FmStopped, h, "2026-12-05 10:26:04.000 UTC", 14, "", "status=1/FAILURE");
    checkJournalEvent(ev[6], HostEventKind::FmStopped, h, "2026-12-05 10:26:04.000 UTC", 15, "", "Failed with result");
    checkJournalEvent(ev[7], HostEventKind::FmStopped, h, "2026-12-05 10:26:04.000 UTC", 16, "",
        "Failed to start NVIDIA fabric manager service.");
    // "-- Logs begin … --", "-- Boot … --", the milestones ("Connected to 1 node.", "Successfully configured …")
    // and the unit's Starting/Started lines are read, and are no facts and no unknown lines.
    CHECK(f.unknownLines == 0);
    CHECK(f.warnings.empty());
}

TEST_CASE("journalctl -o short-iso and short-precise behind pdsh: each line's host from the journal, no entries read",
    "[node][node_logs][journal]")
{
    const auto f = readGolden("pdsh-journalctl-fm.txt", "gpu-f031");
    const auto& ev = f.events;
    REQUIRE(ev.size() == 2);
    checkJournalEvent(ev[0], HostEventKind::FmNvSwitchNonFatal, "gpu-f031", "2026-12-05 10:21:33.000 UTC", 1,
        "0000:86:00.0 port 61", "non-fatal error 12028");
    checkJournalEvent(ev[1], HostEventKind::FmNvSwitchFatal, "gpu-f033", "2026-12-05 10:22:07.481 UTC", 3,
        "0000:a6:00.0 port 33", "fatal error 20034");
    CHECK(f.unknownLines == 0); // "gpu-f032: -- No entries --" and the milestone are read
    CHECK(f.warnings.empty());
}

TEST_CASE("journal lines: other processes stay unknown, damaged Fabric Manager lines never crash or become facts",
    "[node][node_logs][journal]")
{
    LogClock clock;
    clock.year = 2026;
    const std::string text = "Dec 05 10:21:33 gpu-f031 nv-fabricmanager[2311]: detected NVSwitch fatal error\n"
                             "Dec 05 10:21:34 gpu-f031 nv-fabricmanager[23\n"
                             "Dec 05 10:21:35 gpu-f031 nv-fabricmanager[2311]: \n"
                             "Dec 05 10:21:3\n"
                             "Dec 05 10:21:36 gpu-f031 sshd[812]: Failed password for root\n"
                             "Dec 05 10:21:37 gpu-f031 systemd[1]: Started Session 4 of user root.\n"
                             "Dec 05 10:21:38 gpu-f031 systemd[1]: nvidia-fabricmanager.service: Main process exited, "
                             "code=exited, status=0/SUCCESS\n";
    REQUIRE(looksLikeHostLog(text));
    auto r = parseHostLog("journal.txt", text, clock, "");
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    REQUIRE(r->events.size() == 1); // the fatal error without its number or switch: still the fact
    CHECK(r->events[0].kind == HostEventKind::FmNvSwitchFatal);
    CHECK(r->events[0].code == -1);
    CHECK(r->events[0].host == "gpu-f031");
    // The cut process tag, the cut time and other processes' lines are no reader's: counted. Fabric Manager's empty
    // line and the unit's clean exit are read.
    CHECK(r->unknownLines == 4);
    CHECK_FALSE(looksLikeHostLog("we restarted nvidia-fabricmanager today\nDec 05 10:21:36 h sshd[1]: hi\n"));
}

TEST_CASE("SXid Data lines: a fact of unknown severity alone, none after their severity line", "[node][node_logs]")
{
    LogClock clock;
    clock.year = 2026;
    const std::string text
        = "[   41.200311] nvidia-nvswitch5: SXid (PCI:0000:0b:00.0): 22013, Data {0x00000007, 0x00000007}\n"
          "[   41.200390] nvidia-nvswitch5: SXid (PCI:0000:0b:00.0): 22013, Non-fatal, Link 08 Minion Link DLREQ\n"
          "[   41.200402] nvidia-nvswitch5: SXid (PCI:0000:0b:00.0): 22013, Severity 0 Engine instance 08\n"
          "[   41.200417] nvidia-nvswitch5: SXid (PCI:0000:0b:00.0): 22013, Data {0x00000008, 0x00000008}\n"
          "[   41.300100] nvidia-nvswitch2: SXid (PCI:0000:0e:00.0): 20034, Fatal, Link 19 LTSSM Fault Up\n"
          "[   41.300151] nvidia-nvswitch5: SXid (PCI:0000:0b:00.0): 22013, Data {0x00000009, 0x00000009}\n"
          "[   41.300190] nvidia-nvswitch2: SXid (PCI:0000:0e:00.0): 20034, Data {0x00000013}\n"
          "gpu-b14: [   41.400000] nvidia-nvswitch2: SXid (PCI:0000:0e:00.0): 20034, Data {0x00000013}\n"
          "[   41.500000] nvidia-nvswitch2: SXid (PCI:0000:0e:00.0): 20034, Data\n";
    auto r = parseHostLog("gpu-b13/dmesg.txt", text, clock, "gpu-b13");
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& ev = r->events;
    REQUIRE(ev.size() == 6);
    // Its severity line is not in the paste (cut off above it): the SXid, its severity unknown — not a guess.
    CHECK(ev[0].kind == HostEventKind::SxidUnknown);
    CHECK(ev[0].code == 22013);
    CHECK(ev[0].device == "nvidia-nvswitch5 0000:0b:00.0");
    CHECK(ev[0].text == "SXid 22013, severity not in the log");
    CHECK(ev[0].line == 1);
    CHECK(ev[1].kind == HostEventKind::SxidNonFatal); // lines 3 and 4 are the same SXid's: no second fact
    CHECK(ev[1].line == 2);
    CHECK(ev[2].kind == HostEventKind::SxidFatal);
    CHECK(ev[2].line == 5);
    CHECK(ev[3].kind == HostEventKind::SxidUnknown); // switch 5's record ended at its Data line: a new SXid
    CHECK(ev[3].line == 6);
    // Line 7 completes switch 2's fatal SXid; line 8 is another host's (pdsh), line 9 that SXid again.
    CHECK(ev[4].kind == HostEventKind::SxidUnknown);
    CHECK(ev[4].host == "gpu-b14");
    CHECK(ev[4].line == 8);
    CHECK(ev[5].line == 9);
    CHECK(ev[5].host == "gpu-b13");
    CHECK(toString(HostEventKind::SxidUnknown) == "NVSwitch SXid, severity not logged");
    CHECK(r->warnings.empty());
}

TEST_CASE("a node folder of journalctl and dmesg -l err pastes: Fabric Manager and SXid node findings",
    "[node][node_logs][journal]")
{
    auto job = openJob(testDataPath("node-folder/gpu-f031").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    const auto fm = std::count_if(snap.notes.begin(), snap.notes.end(),
        [&](const HostNote& n) { return snap.str(n.source) == "fabric manager"; });
    CHECK(fm == 10); // 8 from the unit's journal, 2 from the pdsh paste
    CHECK(std::all_of(snap.notes.begin(), snap.notes.end(), [&](const HostNote& n) {
        return snap.str(n.host).starts_with("gpu-f03") && n.timeNs != kNoTime && !snap.str(n.evidence).empty();
    }));

    const auto all = findNodeProblems(snap);
    INFO(nodeFindingsText(all));
    const auto* fatal = finding(all, "NVSwitch fatal error", "gpu-f031");
    REQUIRE(fatal);
    CHECK(fatal->portDown);
    CHECK_THAT(fatal->text, Catch::Contains("1 line,") && Catch::Contains("2026-12-05 10:21:40"));
    CHECK_THAT(fatal->evidence, Catch::Contains("journalctl-fabricmanager.txt:7: "));
    CHECK(finding(all, "NVSwitch fatal error", "gpu-f033"));
    const auto* stopped = finding(all, "Fabric Manager stopped", "gpu-f031");
    REQUIRE(stopped);
    CHECK(stopped->portDown);
    CHECK_THAT(stopped->text, Catch::Contains("3 lines") && Catch::Contains("Failed to start"));
    CHECK_THAT(stopped->evidence, Catch::Contains("journalctl-fabricmanager.txt:16: "));
    // The Data lines alone: an SXid finding that says the severity is not known, not a fatal one.
    const auto* sxid = finding(all, "NVSwitch SXid", "gpu-f031");
    REQUIRE(sxid);
    CHECK_FALSE(sxid->portDown);
    CHECK_THAT(sxid->text, Catch::Contains("not in the log") && Catch::Contains("2 lines"));
    CHECK_THAT(sxid->evidence, Catch::Contains("dmesg-err.txt:2: "));
    for (const char* kind : { "Fabric Manager error", "NVLink training failed", "NVSwitch non-fatal error" }) {
        INFO(kind);
        CHECK(finding(all, kind, "gpu-f031"));
    }
    const auto* nonFatal = finding(all, "NVSwitch non-fatal error", "gpu-f031");
    REQUIRE(nonFatal);
    CHECK_THAT(nonFatal->text, Catch::Contains("2 lines")); // the unit's journal and the pdsh paste
}
