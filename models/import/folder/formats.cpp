// SPDX-License-Identifier: MIT
// The format table. A format's glue (its `parse` and `add`) is in its own folder under import/, writing into the
// folder sink and the collections its row names (`into`: the Gathered members it fills). Here too: the glue of the
// files import/folder reads itself (the mapping file) or knows and does not read, and a node tools' capture that
// holds a kernel log too, which joins two formats' glue.
// Runs on the calling thread except the `parse` functions, which touch nothing shared.
#include "import/folder/formats.h"
#include "import/common/line_scan.h"

#include "import/common/host_file.h"
#include "import/flight_recorder/flight_recorder_glue.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/infiniband/infiniband_glue.h"
#include "import/kineto/kineto_glue.h"
#include "import/kineto/kineto_trace.h"
#include "import/logs/logs_glue.h"
#include "import/nccl/nccl_glue.h"
#include "import/node_tools/node_tools.h"
#include "import/node_tools/node_tools_glue.h"
#include "import/prometheus/dcgm.h"
#include "import/prometheus/prometheus_glue.h"
#include "import/scheduler/scheduler_glue.h"

#include <functional>
#include <map>

namespace stallscope::folder {

namespace {

// Files the simulator writes beside a raw folder: recognised so they are not reported as unknown, never read.
constexpr const char* kSimulatorTruthMarker = "\"generator\": \"stallscope simulate\"";

// --- The mapping file, and files known but not read ---

std::optional<LoadIssue> addMapping(FileInput& in, Gathered& g)
{
    auto m = parseMapping(in.path.string(), in.text);
    if (!m) {
        return m.error();
    }
    g.mapping = std::move(m.value());
    g.haveMapping = true;
    if (auto it = g.mapping.timeZones.find("rank_logs"); it != g.mapping.timeZones.end()) {
        g.clock.utcOffsetNs = it->second;
    }
    g.note(in.path, "mapping file",
        std::to_string(g.mapping.ranks.size()) + " rank placements, " + std::to_string(g.mapping.timeZones.size())
            + " time zones, " + std::to_string(g.mapping.clockOffsets.size()) + " clock offsets");
    return std::nullopt;
}

bool looksLikeSimulatorTruth(const std::string& text)
{
    return findText(text, kSimulatorTruthMarker) != std::string::npos;
}

// A training exercise's sheet (docs/training.md): the briefing, read by the Training menu, not by the import.
bool looksLikeExerciseSheet(const std::string& text)
{
    return findText(text, "\"format\": \"stallscope-exercise\"") != std::string::npos;
}

std::optional<LoadIssue> noteExerciseSheet(FileInput& in, Gathered& g)
{
    g.note(in.path, "training exercise sheet", "the briefing of the exercise this folder is");
    return std::nullopt;
}

std::optional<LoadIssue> noteTruth(FileInput& in, Gathered& g)
{
    g.note(in.path, "simulator truth", "not read: it is what the analysis is checked against");
    return std::nullopt;
}

// A node tools' file, and the kernel log a capture of several commands may also hold (dmesg after ibstat): its
// lines that name no host are the file's, else the first host the tools' prompts named.
std::optional<LoadIssue> addNodeToolsCapture(FileInput& in, Gathered& g)
{
    if (auto e = addNodeTools(in, g, g.nodeTools)) {
        return e;
    }
    const auto fileHost = hostOfNodeFile(in.path.string());
    const auto& named = g.nodeTools.back().hosts;
    addHostLogWithin(in, g, g.clock, g.hostLogs, fileHost.empty() && !named.empty() ? named[0] : fileHost);
    return std::nullopt;
}

// The mapping file's time zones by source, for the glue of formats stamped in a host's local time.
const std::map<std::string, TimeNs>& timeZones(Gathered& g)
{
    return g.mapping.timeZones;
}

// A format's glue as a row's `add`: the folder sink, then what `Fields` name of `g` (its members, or functions of it).
template <auto Add, auto... Fields> std::optional<LoadIssue> into(FileInput& in, Gathered& g)
{
    return Add(in, g, std::invoke(Fields, g)...);
}

// Both rows of scrapes: the scrape's readings into the counter sink, the large ones read in pieces.
constexpr auto addScrape = into<addExposition, &Gathered::fabric, &Gathered::counters, &Gathered::progress,
    &Gathered::scratch, &Gathered::exposition>;

// Both rows of the Flight Recorder analyzer's output: alone, or within a rank log.
constexpr auto addAnalyzerOutput = into<addFrTrace, &Gathered::clock, &Gathered::logs, &Gathered::rankFromName,
    &Gathered::hostLogs, &Gathered::frTrace>;

} // namespace

const std::vector<Format>& formats()
{
    // Order matters where formats overlap: JSON kinds before the text kinds whose markers they may quote,
    // ibsim's net file before ibnetdiscover, rank logs before exposition text (a log may print metric lines).
    static const std::vector<Format> table = {
        { "Flight Recorder pickle dump", looksLikePickleDumpText, 0, parsePickleDump,
            into<addPickleDump, &Gathered::dumps> },
        // Before the scrapes of fabric counters: a DCGM scrape is exposition text too, of GPU fields.
        { "dcgm-exporter scrape", looksLikeDcgmScrape, 3, nullptr,
            into<addDcgm, &Gathered::nodeTools, &Gathered::hostLogs> },
        // Scrape files are large and unmistakable from their first sample line: recognised here, before every
        // recogniser that would scan them whole (the full test, below, finds IB series deep in a full scrape).
        { "Prometheus exposition", looksLikeExpositionHead, 0, scanExposition, addScrape, true },
        { "NCCL Inspector log", looksLikeNcclInspector, 0, parseInspector, into<addInspector, &Gathered::inspector> },
        { "NCCL RAS JSON", looksLikeRasJson, 3, nullptr,
            into<addRasJson, &Gathered::clock, timeZones, &Gathered::ras> },
        { "profiler trace", looksLikeKinetoTrace, 0, parseTrace,
            into<addTrace, &Gathered::traces, &Gathered::worldHint> },
        { "Flight Recorder JSON dump", looksLikeFlightRecorderJson, 0, parseJsonDump,
            into<addJsonDump, &Gathered::dumps> },
        { "Prometheus matrix", looksLikePrometheusMatrix, 0, nullptr,
            into<addMatrix, &Gathered::fabric, &Gathered::matrix, &Gathered::matrixSwitch> },
        { "counters CSV", looksLikeCollectorCsv, 0, nullptr, into<addCollectorCsv, &Gathered::csvs>, true },
        { "mapping file", looksLikeMapping, 0, nullptr, addMapping },
        { "simulator truth", looksLikeSimulatorTruth, 0, nullptr, noteTruth },
        { "training exercise sheet", looksLikeExerciseSheet, 0, nullptr, noteExerciseSheet },
        { "ibsim net file", looksLikeIbsimNet, 0, nullptr, into<noteIbsimNet> },
        // Before ibnetdiscover: ibswitches' "Switch\t: 0x…" lines start as ibnetdiscover's "Switch\t36 …" do.
        { "ibhosts/ibswitches node list", looksLikeIbNodeList, 0, nullptr, into<addIbNodeList, &Gathered::fabric> },
        { "ibnetdiscover topology", looksLikeIbnetdiscover, 0, nullptr, into<addIbnetdiscover, &Gathered::fabric> },
        { "iblinkinfo", looksLikeIblinkinfo, 1, nullptr, into<addIblinkinfo, &Gathered::fabric, &Gathered::linkinfo> },
        { "perfquery counters", looksLikePerfquery, 2, nullptr, into<addPerfquery, &Gathered::perfquery> },
        { "node InfiniBand tools", looksLikeNodeTools, 3, nullptr, addNodeToolsCapture },
        { "NCCL RAS output", looksLikeRasText, 3, nullptr,
            into<addRasText, &Gathered::clock, timeZones, &Gathered::ras> },
        { "OpenSM log", looksLikeOpensmLog, 3, nullptr,
            into<addOpensmLog, &Gathered::clock, timeZones, &Gathered::opensm> },
        { "Flight Recorder analyzer output", frTraceAlone, 0, nullptr, addAnalyzerOutput },
        { "Flight Recorder analyzer output", frTraceInRankLog, 3, nullptr, addAnalyzerOutput },
        { "rank log", looksLikeRankLog, 3, nullptr,
            into<addRankLog, &Gathered::clock, &Gathered::logs, &Gathered::rankFromName, &Gathered::hostLogs>, false,
            readRankLog },
        { "host log", looksLikeHostLog, 3, nullptr, into<addHostLog, &Gathered::clock, &Gathered::hostLogs>, false,
            readHostLog },
        { "rank placement", looksLikeRankPlacement, 3, nullptr, into<addRankPlacement, &Gathered::placements> },
        { "Prometheus exposition", looksLikePrometheusExposition, 0, scanExposition, addScrape },
    };
    return table;
}

const Format* recognise(const std::string& text)
{
    for (const auto& f : formats()) {
        if (f.recognise(text)) {
            return &f;
        }
    }
    return nullptr;
}

} // namespace stallscope::folder
