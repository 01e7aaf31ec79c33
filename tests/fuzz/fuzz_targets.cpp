// SPDX-License-Identifier: MIT
// Every reader of what a cluster leaves behind, as a fuzz target (issue #17). One table; each fuzz executable
// picks its row by the name it was compiled with (STALLSCOPE_FUZZ_TARGET), and the replay test of the normal suite
// (fuzz_replay.cpp) runs every kept input through the same rows, so a crash found once stays fixed.
// A target passes an input when the reader returns — a result or an error — without crashing, without a
// sanitizer report and without an exception escaping: readers must turn every bad input into a LoadIssue.
#include "fuzz_targets.h"
#include "analysis/analysis.h"

#include "core/string_pool.h"
#include "import/common/file_bytes.h"
#include "import/common/packed.h"
#include "import/common/sample_stamp.h"
#include "import/flight_recorder/flight_recorder.h"
#include "import/folder/mapping.h"
#include "import/folder/shard_codec.h"
#include "import/infiniband/collector_csv.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/ib_node_list.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/infiniband/opensm_log.h"
#include "import/kineto/kineto_trace.h"
#include "import/logs/fr_trace_text.h"
#include "import/logs/host_log.h"
#include "import/logs/paste_wrappers.h"
#include "import/logs/rank_log.h"
#include "import/nccl/inspector.h"
#include "import/nccl/ras_status.h"
#include "import/node_tools/node_tools.h"
#include "import/open_job.h"
#include "import/prometheus/dcgm.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"
#include "import/scheduler/placement.h"
#include "training/answer.h"
#include "training/exercise.h"
#include "training/folder.h"
#include "view/review_session.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace stallscope::fuzz {

namespace fs = std::filesystem;

namespace {

std::string padded(std::string_view bytes)
{
    std::string s(bytes);
    s.reserve(s.size() + jsonPadding());
    return s;
}

void rankLog(std::string_view in)
{
    // As the folder reads it: a copy's wrappers taken off first (line for line), then split and parsed.
    const auto unwrapped = logs::unwrapPastedLines(in);
    if (unwrapped && std::count(unwrapped->begin(), unwrapped->end(), '\n') != std::count(in.begin(), in.end(), '\n')) {
        __builtin_trap(); // line numbers would no longer be the file's
    }
    const std::string text = unwrapped ? *unwrapped : std::string(in);
    parseRankLog("r.log", text);
    for (const auto& part : splitByRankPrefix(text)) { // a combined log: each rank's share, as the folder reads it
        if (auto f = parseRankLog("r.log", part.text)) {
            restoreLineNumbers(f.value(), "r.log", part.lineNumbers);
        }
    }
}

void hostLog(std::string_view in)
{
    LogClock clock;
    clock.year = 2026;
    parseHostLog("h.log", std::string(in), clock, "gpu-a001");
}

void fabricTopology(std::string_view in)
{
    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    if (readIbnetdiscover("f", std::string(in), fabric, warnings)) {
        StringPool strings;
        fabric.build(strings, "f", warnings);
    }
    const std::string text(in); // ibhosts and ibswitches print ibnetdiscover's node lines
    FabricBuilder nodes;
    looksLikeIbNodeList(text);
    if (readIbNodeList("f", text, nodes, warnings)) {
        StringPool strings;
        nodes.build(strings, "f", warnings);
    }
}

void fabricLinkinfo(std::string_view in)
{
    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    readIblinkinfo("f", std::string(in), fabric, warnings);
}

void perfquery(std::string_view in)
{
    std::vector<LoadIssue> warnings;
    readPerfquery("f", std::string(in), warnings);
}

void exposition(std::string_view in)
{
    const std::string text(in);
    looksLikeDcgmScrape(text); // a DCGM scrape is exposition text too
    parseDcgmScrape("gpu-a001.prom", text, "gpu-a001");
    FabricBuilder fabric;
    if (readPrometheusExposition("f", std::string(in), fabric)) {
        StringPool strings;
        std::vector<LoadIssue> warnings;
        fabric.build(strings, "f", warnings);
    }
}

void collectorCsv(std::string_view in)
{
    CounterSink sink;
    std::vector<LoadIssue> warnings;
    readCollectorCsv(
        "f", std::string(in), [](const std::string& d) { return std::optional<std::uint64_t>(d.size()); }, sink,
        warnings);
}

void kineto(std::string_view in)
{
    parseKinetoTrace("f", padded(in));
}

void frJson(std::string_view in)
{
    const auto text = padded(in);
    parseFlightRecorderJson("f_rank_1", text);
    parseFlightRecorderJsonLines("f_rank_1", text);
}

void gzip(std::string_view in)
{
    // Small limits: the cap is the same code at any size, and a bomb inflated to 16 MiB on every run (the real
    // traces among the seeds inflate to megabytes) held the target near 100 executions a second. With a floor of
    // 1 MiB most of the time still went to zlib filling and the kernel clearing pages for output sized by the
    // trailer (594/s); every branch of the cap (ratio, floor, ceiling) is reached at 64 KiB .. 1 MiB as well.
    GzipLimits limits;
    limits.floorBytes = 64 << 10;
    limits.ceilingBytes = 1 << 20;
    limits.maxRatio = 8;
    const std::string bytes(in);
    inflateGzip("f.gz", bytes, limits);
    packingOf(inflateGzipHead(bytes, 4096)); // how a large file's head is judged (folder reading, a file opened)
    packingOf(in);
}

// A scratch folder per process on tmpfs when there is one: the folder and bundle targets write files.
fs::path scratch()
{
    static const fs::path dir = [] {
        const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
        return base / ("stallscope-fuzz-" + std::to_string(::getpid()));
    }();
    return dir;
}

// The name a part gives itself in a kNameLine (and the part without that line), or "" when it gives none.
std::string ownName(std::string_view& part)
{
    const std::string_view tag(kNameLine);
    const auto end = part.find('\n');
    if (part.substr(0, tag.size()) != tag || end == std::string_view::npos) {
        return {};
    }
    const auto name = part.substr(tag.size(), end - tag.size());
    const bool ok = !name.empty() && name.size() <= 64 && name.front() != '.'
        && std::all_of(name.begin(), name.end(),
            [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; });
    if (!ok) {
        return {};
    }
    part.remove_prefix(end + 1);
    return std::string(name);
}

// The input as several files: parts separated by kFileSeparator, written as `names` (the last name repeats with
// a number for further parts) unless a part names itself (kNameLine).
void writeParts(const fs::path& dir, std::string_view in, const std::vector<std::string>& names)
{
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    std::size_t k = 0;
    while (true) {
        const auto cut = in.find(kFileSeparator);
        auto part = in.substr(0, cut);
        auto name = ownName(part);
        if (name.empty()) {
            name = k < names.size() ? names[k] : names.back() + std::to_string(k);
        }
        std::ofstream(dir / name, std::ios::binary).write(part.data(), static_cast<std::streamsize>(part.size()));
        ++k;
        if (cut == std::string_view::npos || k > 16) {
            break;
        }
        in.remove_prefix(cut + std::string_view(kFileSeparator).size());
    }
}

void folder(std::string_view in)
{
    const auto dir = scratch() / "folder";
    writeParts(dir, in, { "nccl_trace_rank_0", "nccl_trace_rank_1", "rank0.log", "topo.txt", "counters.prom", "f" });
    NullProgress none;
    // One reading thread for seven inputs in eight, the machine's for the eighth: under ASan two threads started
    // and ended per folder took 30 % of the target's time, and what they add (files read at once, the memory
    // gates contended) does not change what a file's bytes reach.
    const unsigned threads = (in.size() / 2) % 8 == 0 ? 0 : 1;
    if (in.size() % 2 == 0) {
        ScratchPolicy usual;
        usual.readerThreads = threads;
        auto job = openJob(dir.string(), none, usual);
        if (job && job->snapshot->job.worldSize > 0 && job->snapshot->collectiveCount() == 0) {
            analyze(*job->snapshot); // a job of logs alone: its story is read from the facts (issue #40)
        }
        return;
    }
    // Odd inputs: read as a folder larger than memory is — files from 64 bytes in pieces of 1–64 bytes (scrapes,
    // collector rows), counter samples spilled past 1 KiB (issue #13).
    ScratchPolicy tight;
    tight.readerThreads = threads;
    tight.memoryBytes = 1024;
    tight.dir = scratch().string();
    tight.streamFromBytes = 64;
    tight.pieceBytes = 1 + static_cast<unsigned char>(in.empty() ? 0 : in.back()) % 64;
    openJob(dir.string(), none, tight);
}

void bundle(std::string_view in)
{
    // The files of a bundle in the order the seed writes them; the manifest names the rest.
    const auto dir = scratch() / "bundle";
    writeParts(
        dir, in, { "manifest.json", "topology.json", "collectives.bin", "counters.bin", "link_events.jsonl", "extra" });
    openJob(dir.string());
}

// A shard file (import/folder/shard_codec.h) as `convert --shard` writes it. Its CRC would refuse almost every
// mutation before a field is read, so the input is the shard without its CRC and the target appends the right one:
// the fields behind it are what is fuzzed. The input as it is is read too (a bad CRC, a short file).
void shard(std::string_view in)
{
    std::string bytes(in);
    folder::decodeShard("k.shard", bytes);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
    const auto c = static_cast<std::uint32_t>(crc);
    bytes.append(reinterpret_cast<const char*>(&c), sizeof c);
    folder::decodeShard("k.shard", bytes);
}

} // namespace

const std::vector<Target>& targets()
{
    static const std::vector<Target> table = {
        { "rank_log", rankLog },
        { "host_log", hostLog },
        { "fr_trace",
            [](std::string_view in) {
                const std::string text(in);
                looksLikeFrTraceText(text);
                parseFrTraceText("fr.txt", text);
            } },
        { "node_tools",
            [](std::string_view in) {
                const std::string text(in);
                looksLikeNodeTools(text);
                parseNodeTools("gpu-a001.ibstat.txt", text, "gpu-a001");
            } },
        { "ibnetdiscover", fabricTopology },
        { "iblinkinfo", fabricLinkinfo },
        { "perfquery", perfquery },
        { "opensm_log", [](std::string_view in) { parseOpensmLog("opensm.log", std::string(in)); } },
        { "exposition", exposition },
        { "prometheus_answer",
            [](std::string_view in) {
                readPromEnvelope(in); // as the fetcher judges an answer, then as the reader reads it
                parsePrometheusMatrix("q.json", std::string(in));
            } },
        { "mapping",
            [](std::string_view in) { // the mapping file, and the host lists that place ranks as it does
                const std::string text(in);
                parseMapping("m.json", text);
                looksLikeRankPlacement(text);
                parseRankPlacement("hostfile", text);
            } },
        { "collector_csv", collectorCsv },
        { "sample_stamp", [](std::string_view in) { parseSampleStamp(in); } },
        { "fr_pickle", [](std::string_view in) { parseFlightRecorderPickle("nccl_trace_rank_0", in); } },
        { "fr_json", frJson },
        { "kineto", kineto },
        { "nccl_inspector", [](std::string_view in) { parseNcclInspector("h-pid1.log", padded(in)); } },
        { "nccl_ras",
            [](std::string_view in) {
                const std::string text(in);
                parseRasText("ras.txt", text);
                parseRasJson("ras.json", text);
            } },
        { "gzip", gzip },
        { "session", [](std::string_view in) { parseSession("s.stallscope", std::string(in)); } },
        { "folder", folder },
        { "bundle", bundle },
        { "shard", shard },
        // Training files come from instructors and trainees: a library, an exercise sheet, an answer.
        { "exercise_library",
            [](std::string_view in) { training::parseExerciseLibrary(std::string(in), "lib.json"); } },
        { "exercise_answer",
            [](std::string_view in) {
                training::parseAnswer(std::string(in), "answer.json");
                training::parseSheet(std::string(in), "exercise.json");
            } },
    };
    return table;
}

const Target* findTarget(std::string_view name)
{
    for (const auto& t : targets()) {
        if (t.name == name) {
            return &t;
        }
    }
    return nullptr;
}

} // namespace stallscope::fuzz

#ifdef STALLSCOPE_FUZZ_TARGET
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const auto* target = stallscope::fuzz::findTarget(STALLSCOPE_FUZZ_TARGET);
    target->run(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
#endif
