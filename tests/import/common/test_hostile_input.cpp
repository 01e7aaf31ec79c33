// SPDX-License-Identifier: MIT
// Regression inputs for what fuzzing and probing found (issue #17): each was a crash, an uncaught exception, an
// allocation sized by the file or signed-overflow UB before its fix. Every one must now end as a warning or an
// error naming the file and line (or offset), and the rest of the input must still be read.
// Over 600 lines as one file: a case per finding, the list docs/hostile-input.md points at.
#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "core/json_depth.h"
#include "core/markdown_text.h"
#include "core/parse_number.h"
#include "core/printable.h"
#include "core/string_pool.h"
#include "core/time_format.h"
#include "core/warning_cap.h"
#include "import/common/file_bytes.h"
#include "import/common/sample_stamp.h"
#include "import/common/text_lines.h"
#include "import/flight_recorder/flight_recorder.h"
#include "import/flight_recorder/pickle_reader.h"
#include "import/folder/formats.h"
#include "import/folder/mapping.h"
#include "import/infiniband/collector_csv.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/infiniband/opensm_log.h"
#include "import/kineto/kineto_trace.h"
#include "import/logs/rank_log.h"
#include "import/open_job.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"
#include "test_support.h"
#include "training/answer.h"
#include "view/review_session.h"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <fstream>
#include <map>

using namespace stallscope;
using namespace stallscope::test;

namespace {

bool mentions(const std::vector<LoadIssue>& ws, const std::string& what)
{
    for (const auto& w : ws) {
        if (w.format().find(what) != std::string::npos) {
            return true;
        }
    }
    return false;
}

const std::string kHugeNumber = "99999999999999999999999";
const std::string kLongTail(30000, 'x');

} // namespace

TEST_CASE("finding 1: a 30,000-character line is read up to 4 KiB, never matched whole", "[core][hostile]")
{
    // std::regex recursed once per character: a line this long overflowed the stack of a release build.
    const std::string log = "gpu-a017:1234:1234 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB " + kLongTail
        + "\n[rank3]:[E1101 00:05:03.000000 ProcessGroupNCCL.cpp:1] [Rank 3] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds\n";
    auto r = parseRankLog("rank3.log", log);
    REQUIRE(r.ok());
    CHECK(r->rank == 3u);
    CHECK(r->events.size() == 1);
    CHECK(mentions(r->warnings, "rank3.log:1: 1 line longer than 4096 bytes"));

    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    const std::string topo = "Switch\t36 \"S-0002c90200000001\"\t# \"sw\" lid 1\n"
                             "[1]\t\"H-0002c90200000010\"[1](0002c90200000011)\t\t# \"h1 mlx5_0\" lid 5 4xEDR\n"
                             "[2]\t\"H-0002c90200000020\"[1](0002c90200000021)\t\t# \""
        + kLongTail + "\" lid 6 4xEDR\n";
    auto t = readIbnetdiscover("topo.txt", topo, fabric, warnings);
    CHECK(t.ok());
    CHECK(mentions(warnings, "topo.txt:3: 1 line longer"));

    CHECK_FALSE(parseSampleStamp(std::string(30000, '7')).has_value());
    CHECK_FALSE(parseUtcOffset("+" + std::string(30000, '1')).has_value());
}

TEST_CASE("finding 2: over-long numbers are warnings naming file and line, not a failed folder", "[core][hostile]")
{
    auto log = parseRankLog("rank5.log",
        "[rank5]:host:1:1 [0] NCCL INFO NET/IB : Using [" + kHugeNumber
            + "]mlx5_0:1/IB\n[rank5]:[E1101 00:05:03.000000 x.cpp:1] [Rank 5] Watchdog caught collective operation "
              "timeout: WorkNCCL(SeqNum="
            + kHugeNumber + ", OpType=ALLREDUCE)\nhost:1:1 [0] NCCL INFO comm 0x1 rank 5 nranks 8 cudaDev 0\n");
    REQUIRE(log.ok());
    CHECK(log->rank == 5u);
    CHECK(mentions(log->warnings, "rank5.log:1:"));
    CHECK(mentions(log->warnings, "rank5.log:2:"));

    FabricBuilder fabric;
    std::vector<LoadIssue> warnings;
    auto t = readIbnetdiscover("p.txt",
        "SW 1719 1 0x7cfe9003009ce5b0 4x EDR - CA " + kHugeNumber
            + " 1 0x7cfe9003009ce5b1 ( 'sw' - 'h1 mlx5_0' )\nSW 1719 2 0x7cfe9003009ce5b0 4x EDR - CA 134 1 "
              "0x7cfe9003009ce5c1 ( 'sw' - 'h2 mlx5_0' )\n",
        fabric, warnings);
    REQUIRE(t.ok());
    CHECK(mentions(warnings, "p.txt:1:"));
    CHECK(fabric.linkCount() == 1);

    warnings.clear();
    auto pq = readPerfquery("pq.txt",
        "# Port counters: Lid 17 port " + kHugeNumber + "\nLinkDownedCounter:.......1\n# Port counters: Lid 17 port 2\n"
            + "LinkDownedCounter:.......3\nXmtWait:...." + kHugeNumber + "\n",
        warnings);
    REQUIRE(pq.ok());
    CHECK(pq->size() == 1);
    CHECK(mentions(warnings, "pq.txt:1:"));
    CHECK(mentions(warnings, "pq.txt:5:"));

    auto sm = parseOpensmLog("opensm.log",
        "Nov 01 00:05:03 " + kHugeNumber
            + " [7FFFF700] 0x01 -> drop_mgr_remove_port: Removed port with GUID:0x0002c90200000011 LID range [5, 5] "
              "of node: h1 mlx5_0\nNov 01 00:05:05 000001 [7FFFF700] 0x02 -> state_mgr_report_new_ports: Discovered "
              "new port with GUID:0x0002c90200000011 LID range [5, 5] of node: h1 mlx5_0\n");
    REQUIRE(sm.ok());
    CHECK(sm->events.size() == 1);
    CHECK(mentions(sm->warnings, "opensm.log:1:"));

    CHECK_FALSE(parseSampleStamp(kHugeNumber).has_value());
    CHECK_FALSE(parseNumber<std::uint32_t>("4294967296").has_value());
    CHECK(parseNumber<std::uint32_t>("4294967295") == 4294967295u);
    CHECK_THROWS_AS(toNumber<std::uint16_t>(std::string_view("65536")), BadNumber);
}

TEST_CASE("finding 3: a JSON number out of range (1e999) is an error naming the file", "[core][hostile]")
{
    auto m = parseMapping("map.json", R"({"stallscope_mapping": 1e999})");
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.error().format(), Catch::Contains("map.json"));
    auto q = parsePrometheusMatrix("q.json",
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1e999,"1"]]}]}})");
    REQUIRE_FALSE(q.ok());
    CHECK_THAT(q.error().format(), Catch::Contains("q.json"));
}

TEST_CASE("finding 4: sizes taken from a file are checked before anything is allocated", "[core][hostile]")
{
    // NCCL's HCA index sized a vector: [100000000] took 3 GB for a 48-byte line.
    auto log = parseRankLog("r.log", "[rank1]:h:1:1 [0] NCCL INFO NET/IB : Using [100000000]mlx5_0:1/IB\n");
    REQUIRE(log.ok());
    CHECK(log->hcas.empty());
    CHECK(mentions(log->warnings, "r.log:1:"));

    // A pickle whose memo index asks for 2^26 entries (9 bytes): refused at that opcode.
    const std::string memo = std::string("\x80\x02", 2) + "N" + "r" + std::string("\x00\x00\x00\x04", 4) + ".";
    auto p = parseFlightRecorderPickle("nccl_trace_rank_0", memo);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().format(), Catch::Contains("nccl_trace_rank_0") && Catch::Contains("memo"));

    // A gzip bomb: 64 MiB of zeros in 64 KiB is inflated up to the ratio limit, then refused with a message.
    TempDir tmp;
    const auto gz = tmp.str("bomb.json.gz");
    {
        gzFile f = gzopen(gz.c_str(), "wb9");
        REQUIRE(f);
        const std::string zeros(1 << 20, '\0');
        for (int i = 0; i < 64; ++i) {
            gzwrite(f, zeros.data(), static_cast<unsigned>(zeros.size()));
        }
        gzclose(f);
    }
    GzipLimits limits;
    limits.floorBytes = 1 << 20;
    limits.maxRatio = 100;
    auto bytes = readFileBytes(gz, limits);
    REQUIRE_FALSE(bytes.ok());
    CHECK_THAT(bytes.error().format(), Catch::Contains("bomb.json.gz") && Catch::Contains("ratio"));
}

namespace {

// `text` as one gzip member (RFC 1952), in memory.
std::string gzipMember(const std::string& text)
{
    z_stream z {};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, text.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

} // namespace

TEST_CASE(
    "a gzip stream is inflated into one allocation its trailer sizes and never trusted past it", "[core][hostile]")
{
    std::string text;
    for (int i = 0; i < 20000; ++i) {
        text += "rank " + std::to_string(i) + " allreduce 4096 bytes\n";
    }
    const auto gz = gzipMember(text);
    auto whole = inflateGzip("t.json.gz", gz, GzipLimits {});
    REQUIRE(whole.ok());
    CHECK(whole.value() == text);
    // Sized once from ISIZE: no doubling left a larger buffer behind.
    CHECK(whole.value().capacity() == text.size() + jsonPadding());

    // Two members: the trailer gives the second's length only; the first still inflates whole.
    auto two = inflateGzip("t.json.gz", gz + gzipMember("tail\n"), GzipLimits {});
    REQUIRE(two.ok());
    CHECK(two.value() == text + "tail\n");

    // A trailer that lies (4 GiB - 1 for a few bytes): the reservation is held to what deflate can give these bytes.
    auto lying = gzipMember("x");
    for (int i = 1; i <= 4; ++i) {
        lying[lying.size() - i] = '\xff';
    }
    auto small = inflateGzip("x.gz", lying, GzipLimits {});
    REQUIRE(small.ok());
    CHECK(small.value() == "x");
    CHECK(small.value().capacity() <= lying.size() * 1032 + jsonPadding());
}

namespace {

// `piece` written n times: a file of n bad lines (or entries).
std::string repeated(const std::string& piece, std::size_t n)
{
    std::string out;
    out.reserve(piece.size() * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += piece;
    }
    return out;
}

// A file's warnings were held to the cap, the last one saying how many more there were.
void checkCapped(const std::vector<LoadIssue>& warnings, std::size_t bad, const std::string& file)
{
    CHECK(warnings.size() <= WarningCap::kKeptPerFile + 2); // + the count, + a cut-lines note
    std::size_t kept = 0;
    bool counted = false;
    for (const auto& w : warnings) {
        if (w.message.find("more ") != std::string::npos && w.message.find("(the first ") != std::string::npos) {
            counted = true;
            CHECK(w.file == file);
            CHECK_THAT(w.message, Catch::StartsWith(std::to_string(bad - WarningCap::kKeptPerFile) + " more"));
        } else if (w.line > 0) {
            ++kept;
        }
    }
    CHECK(kept == WarningCap::kKeptPerFile);
    CHECK(counted);
}

} // namespace

TEST_CASE("a file of bad lines keeps a bounded number of warnings and counts the rest", "[core][hostile]")
{
    // 32 MB of blank rows in a collector CSV once kept 4.5 GB of warnings (issue #17); every reader's loop is capped.
    const std::size_t bad = WarningCap::kKeptPerFile * 3 + 7;
    // Short rows warn; blank rows are nothing to say.
    const std::string rows = "t_ns,host,device,port,state,link_downed\n" + repeated("1,2,3\n\n", bad);
    CounterSink sink;
    std::vector<LoadIssue> csv { { "earlier.csv", 1, -1, "an earlier file's warning stays" } };
    readCollectorCsv(
        "c.csv", rows, [](const std::string&) { return std::optional<std::uint64_t>(1); }, sink, csv);
    CHECK(csv.front().file == "earlier.csv");
    checkCapped({ csv.begin() + 1, csv.end() }, bad, "c.csv");
    CHECK(csv[1].line == 2);
    CHECK(csv[2].line == 4); // line 3 was blank: no warning

    // Every line reader's loop (readLines): here one warning per line.
    const std::string text = repeated("x\n", bad);
    std::vector<LoadIssue> lines;
    readLines(text, "r.log", lines, [&](const std::string&, std::int64_t no) {
        lines.push_back({ "r.log", no, -1, "not a line I know" });
    });
    checkCapped(lines, bad, "r.log");

    // Scrapes: lines that look like InfiniBand samples but are not.
    const std::string scrape = "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"h:9100\"} 1\n"
        + repeated("node_infiniband_port_data_received_bytes_total{device=\n", bad);
    FabricBuilder fabric;
    auto e = readPrometheusExposition("s.prom", scrape, fabric);
    REQUIRE(e.ok());
    checkCapped(e->warnings, bad, "s.prom");

    // Flight Recorder JSON lines.
    const std::string jsonl = repeated("{\n", bad);
    auto fr = parseFlightRecorderJsonLines("nccl_trace_rank_0.jsonl", jsonl);
    REQUIRE(fr.ok());
    checkCapped(fr->warnings, bad, "nccl_trace_rank_0.jsonl");
    // JSON that is not an entry ("1"): a warning each, no exception thrown per line (those cost 3 s per MB).
    const std::string ones = repeated("1\n", bad);
    auto one = parseFlightRecorderJsonLines("nccl_trace_rank_0.jsonl", ones);
    REQUIRE(one.ok());
    checkCapped(one->warnings, bad, "nccl_trace_rank_0.jsonl");
    CHECK_THAT(one->warnings.front().message, Catch::Contains("got another JSON value"));
}

TEST_CASE(
    "a Flight Recorder dump of entries that are not entries keeps a bounded number of warnings", "[core][hostile]")
{
    // Two bytes an entry (a pickled small int, a JSON "1,") each made a warning of a hundred bytes.
    const std::size_t bad = WarningCap::kKeptPerFile * 2 + 5;
    // pickle.dumps({"version": "2.4", "entries": [1, 1, …]}, protocol=2), its list items written below.
    std::string pickle("\x80"
                       "\x02"
                       "}q\x00"
                       "(X\x07"
                       "\x00"
                       "\x00"
                       "\x00"
                       "versionq\x01"
                       "X\x03"
                       "\x00"
                       "\x00"
                       "\x00"
                       "2.4q\x02"
                       "X\x07"
                       "\x00"
                       "\x00"
                       "\x00"
                       "entriesq\x03"
                       "]q\x04"
                       "(",
        48);
    pickle += repeated("K\x01", bad);
    pickle += "eu.";
    auto p = parseFlightRecorderPickle("nccl_trace_rank_0", pickle);
    REQUIRE(p.ok());
    auto notKept = [](const std::vector<LoadIssue>& w) {
        return !w.empty() && w.back().message.find("more warnings not kept") != std::string::npos ? w.back().message
                                                                                                  : std::string();
    };
    CHECK(p->warnings.size() == WarningCap::kKeptPerFile + 1);
    CHECK_THAT(notKept(p->warnings), Catch::StartsWith(std::to_string(bad - WarningCap::kKeptPerFile) + " more"));

    std::string json = "{\"version\": \"2.4\", \"entries\": [1" + repeated(",1", bad - 1);
    json += "]}";
    json.reserve(json.size() + jsonPadding());
    auto j = parseFlightRecorderJson("nccl_trace_rank_0.json", json);
    REQUIRE(j.ok());
    CHECK(j->warnings.size() == WarningCap::kKeptPerFile + 1);
    CHECK_THAT(notKept(j->warnings), Catch::StartsWith(std::to_string(bad - WarningCap::kKeptPerFile) + " more"));
}

TEST_CASE("a folder of many files of bad lines keeps a bounded number of warnings in all", "[core][hostile]")
{
    // 300 Flight Recorder files of "1" lines (16 MB) once held 2.1 GB of warnings: 10,000 per file, every file's
    // result kept until the folder was read. Now each file keeps its share of the folder's budget.
    TempDir tmp;
    const std::size_t dumps = 150, scans = 50, bad = 1'000;
    const auto entry = readFile(testDataPath("flight_recorder/jsonl/fr_rank_4.jsonl"));
    const auto first = entry.substr(0, entry.find('\n') + 1);
    for (std::size_t r = 0; r < dumps; ++r) { // parsed on worker threads
        writeFile(tmp.path() / ("fr_rank_" + std::to_string(r) + ".jsonl"), first + repeated("1\n", bad));
    }
    for (std::size_t k = 0; k < scans; ++k) { // read on the calling thread: perfquery values that are not numbers
        writeFile(tmp.path() / ("perfquery-" + std::to_string(k) + ".txt"),
            "# Port counters: Lid 1 port 1 (CapMask: 0x1300)\nPortSelect:......................1\n"
                + repeated("PortXmitData:....................x\n", bad));
    }
    const auto hold = folder::WarningHold::forFolderOf(dumps + scans);
    REQUIRE(hold.keep == folder::WarningHold::kKeptPerFolder / (dumps + scans));
    auto job = openJob(tmp.str());
    REQUIRE(job.ok());

    std::map<std::string, std::size_t> kept;
    std::map<std::string, std::uint64_t> notKept;
    for (const auto& w : job->warnings) {
        if (const auto n = notKeptCount(w)) {
            notKept[w.file] += *n;
            CHECK_THAT(w.message, Catch::Contains("of each of this folder's 200 files are"));
        } else if (w.line > 0) {
            ++kept[w.file];
        }
    }
    CHECK(job->warnings.size() <= folder::WarningHold::kKeptPerFolder + 2 * (dumps + scans));
    REQUIRE(kept.size() == dumps + scans);
    for (const auto& [file, n] : kept) {
        INFO(file);
        CHECK(n == hold.keep);
        CHECK(notKept[file] == bad - hold.keep); // every bad line kept or counted, counted once
    }

    // A few files keep what a file alone keeps.
    CHECK(folder::WarningHold::forFolderOf(3).keep == WarningCap::kKeptPerFile);
    CHECK(folder::WarningHold::forFolderOf(1'000'000).keep == folder::WarningHold::kKeptAtLeast);
}

TEST_CASE("a gzip file's head inflates to at most what is asked, whole or cut", "[core][hostile]")
{
    std::string text;
    for (int i = 0; i < 2000; ++i) {
        text += "line " + std::to_string(i) + "\n";
    }
    const auto gz = gzipMember(text);
    CHECK(inflateGzipHead(gz, 100) == text.substr(0, 100));
    CHECK(inflateGzipHead(gz, 1 << 20) == text); // the whole stream when it is shorter than asked
    const auto cut = inflateGzipHead(gz.substr(0, gz.size() / 2), 1 << 20); // what inflated before the cut
    CHECK(cut.size() < text.size());
    CHECK(text.compare(0, cut.size(), cut) == 0);
    CHECK(inflateGzipHead("\x1f\x8b garbage", 100).empty());
}

TEST_CASE("a large binary file no format recognises is left unread, a large text file is still read", "[core][hostile]")
{
    // A 6 GiB core dump and a 3 GiB checkpoint beside two dumps were read whole to learn they were nothing: 113 s
    // and 9.5 GB. Sparse files here: the size is what matters, not the disk.
    TempDir tmp;
    const auto entry = readFile(testDataPath("flight_recorder/jsonl/fr_rank_4.jsonl"));
    writeFile(tmp.path() / "fr_rank_4.jsonl", entry.substr(0, entry.find('\n') + 1));
    {
        std::ofstream core(tmp.path() / "core.4242", std::ios::binary);
        core << "\x7f"
                "ELF"
             << '\0' << "garbage";
    }
    std::filesystem::resize_file(tmp.path() / "core.4242", 96ull << 20);
    // A tarball: gzip of a tar header (NUL bytes), the file padded to 80 MiB. Its head is inflated to be judged.
    writeFile(tmp.path() / "logs.tar.gz", gzipMember(std::string("rank0.log\0\0\0\0\0\0000644\0", 18)));
    std::filesystem::resize_file(tmp.path() / "logs.tar.gz", 80ull << 20);
    const std::string text(70ull << 20, 'x'); // text: read whole, a log may say what matters in its last line
    writeFile(tmp.path() / "stdout.txt", text);

    auto job = openJob(tmp.str());
    REQUIRE(job.ok());
    std::map<std::string, std::string> said; // file name -> its warnings
    for (const auto& w : job->warnings) {
        said[std::filesystem::path(w.file).filename().string()] += w.message + "\n";
    }
    CHECK_THAT(said["core.4242"], Catch::Contains("skipped without reading its 100.7 MB"));
    CHECK_THAT(said["logs.tar.gz"], Catch::Contains("skipped without reading its 83.9 MB"));
    CHECK_THAT(said["stdout.txt"], Catch::Contains("not a recognised format"));
    CHECK(job->bytesOnDisk < (80ull << 20)); // the text file read, the core not
    CHECK(job->bytesOnDisk >= text.size());
}

TEST_CASE("a rank number no job reaches is refused, never used to size the ranks", "[core][hostile]")
{
    // A dump named (and saying) rank 4294967295 crashed the window: rank + 1 wrapped to a world of 0 and the rank
    // was written past the ranks' array. Rank 200000000 took 4.7 GB and ended "out of memory while opening".
    TempDir tmp;
    const auto entry = readFile(testDataPath("flight_recorder/jsonl/fr_rank_4.jsonl"));
    const auto line = entry.substr(0, entry.find('\n') + 1);
    auto rankLine = [&](const std::string& r) {
        auto l = line;
        l.replace(l.find("\"rank\": 4"), 9, "\"rank\": " + r);
        return l;
    };
    writeFile(tmp.path() / "fr_rank_1.jsonl", rankLine("1"));
    writeFile(tmp.path() / "fr_rank_4294967295.jsonl", rankLine("4294967295"));
    writeFile(tmp.path() / "fr_rank_200000000.jsonl", rankLine("200000000"));
    // A dump of rank 0 whose process group lists a rank no job reaches.
    writeFile(tmp.path() / "nccl_trace_rank_0",
        "{\"version\": \"2.4\", \"pg_config\": {\"0\": {\"name\": \"0\", \"desc\": \"default_pg\", \"ranks\": "
        "\"[0, 1, 4294967295]\"}}, \"entries\": ["
            + rankLine("0") + "]}");

    auto job = openJob(tmp.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    CHECK(job->snapshot->job.worldSize == 2);
    std::string said;
    for (const auto& w : job->warnings) {
        said += w.format() + "\n";
    }
    CHECK_THAT(said, Catch::Contains("fr_rank_4294967295.jsonl: rank 4294967295 is beyond any job"));
    CHECK_THAT(said, Catch::Contains("fr_rank_200000000.jsonl: rank 200000000 is beyond any job"));
    CHECK_THAT(said, Catch::Contains("process group \"0\" lists 1 ranks beyond any job"));
}

TEST_CASE("holdWarnings folds a reader's own count into one", "[core][hostile]")
{
    std::vector<LoadIssue> w { { "other", 3, -1, "an earlier file's" } };
    for (int line = 1; line <= 5; ++line) {
        w.push_back({ "f", line, -1, "bad" });
    }
    w.push_back(notKeptWarning("f", 20, 5, "a file"));
    holdWarnings(w, 1, 5, "f", "a file"); // within the limit: as the reader left it
    REQUIRE(w.size() == 7);
    CHECK(w.back().message == "20 more warnings not kept (the first 5 of a file are)");
    holdWarnings(w, 1, 2, "f", "each of this folder's 9 files");
    REQUIRE(w.size() == 4);
    CHECK(w.front().file == "other");
    CHECK(w[2].line == 2);
    CHECK(w.back().message == "23 more warnings not kept (the first 2 of each of this folder's 9 files are)");
    CHECK(notKeptCount(w.back()) == 23u);
    CHECK_FALSE(notKeptCount(w[1]));
}

TEST_CASE("finding 5: time arithmetic on file values saturates or refuses instead of overflowing", "[core][hostile]")
{
    // 19 digits: ms/µs/ns judged by length, the multiplication would overflow int64.
    CHECK_FALSE(parseSampleStamp("9999999999999999999").has_value());
    CHECK_FALSE(parseSampleStamp("99999999999.5").has_value());
    // An exposition sample whose millisecond timestamp overflows when scaled to ns.
    FabricBuilder fabric;
    auto e = readPrometheusExposition("scrape.prom",
        "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"h:9100\"} 1 9728747100000\n"
        "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"h:9100\"} 2 1793491200000\n",
        fabric);
    REQUIRE(e.ok());
    CHECK(e->points.size() == 1);
    CHECK(mentions(e->warnings, "scrape.prom:1: a timestamp beyond"));
    // A year outside what epoch ns can hold.
    CHECK(utcCivilNs(99999, 1, 1, 0, 0, 0) == kNoTime);
    CHECK(utcCivilNs(1000, 1, 1, 0, 0, 0) == kNoTime);
    CHECK(utcCivilNs(2026, 11, 1, 0, 0, 0) == 1793491200LL * kNsPerSec);
    // Kineto: a base of 1e20 ns and µs timestamps that overflow when scaled are skipped with a warning.
    std::string trace = R"({"baseTimeNanoseconds": 1e20, "distributedInfo": {"rank": 0, "world_size": 2},
        "traceEvents": [{"ph": "X", "cat": "kernel", "name": "ncclKernel", "ts": 1e300, "dur": 5,
        "args": {"Collective name": "allreduce", "In msg nelems": 4, "dtype": "Float", "Seq": 1,
        "Process Group Name": "0"}}]})";
    trace.reserve(trace.size() + jsonPadding());
    auto k = parseKinetoTrace("t.json", trace);
    if (k.ok()) {
        CHECK(k->collectives.entries.empty());
        CHECK_FALSE(k->collectives.warnings.empty());
    } else {
        CHECK_THAT(k.error().format(), Catch::Contains("t.json"));
    }
}

TEST_CASE("a folder holding every kind of hostile file still opens, with the rest read", "[core][hostile]")
{
    TempDir tmp;
    const auto dir = tmp.str("incident");
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir + "/" + name, std::ios::binary) << text;
    };
    // One good dump so the folder is a job.
    write("nccl_trace_rank_0.json",
        R"({"version": "2.4", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0]"}},
        "entries": [{"collective_seq_id": 1, "process_group": ["0", "default_pg"], "profiling_name": "nccl:all_reduce",
        "input_sizes": [[4]], "input_dtypes": ["Float"], "time_created_ns": 1793491200000000000,
        "state": "completed", "retired": true}]})");
    write(
        "rank0.log", "[rank0]:h:1:1 [0] NCCL INFO NET/IB : Using [" + kHugeNumber + "]mlx5_0:1/IB " + kLongTail + "\n");
    write("topo.txt", "Switch\t36 \"S-0002c90200000001\"\t# \"sw\" lid " + kHugeNumber + "\n");
    write("pq.txt", "# Port counters: Lid " + kHugeNumber + " port 1\nLinkDownedCounter:....1\n");
    write("map.json", R"({"stallscope_mapping": 1, "ranks": {")" + kHugeNumber + R"(": {"host": "h"}}})");
    auto r = openJob(dir);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    CHECK(r->snapshot->ranks.size() == 1);
    CHECK(mentions(r->warnings, "rank0.log:1:"));
    CHECK(mentions(r->warnings, "pq.txt:1:"));
}

TEST_CASE(
    "a save that fails midway (disk full) leaves the previous file intact and no temporary file", "[core][hostile]")
{
    TempDir tmp;
    const auto path = tmp.str("report.md");
    REQUIRE(writeFileAtomic(path, "the first report\n").empty());
    injectWriteFailureForTesting(8); // 8 bytes, then ENOSPC
    const auto err = writeFileAtomic(path, std::string(1 << 16, 'x'));
    injectWriteFailureForTesting(std::nullopt);
    CHECK_THAT(err, Catch::Contains("report.md") && Catch::Contains("No space left on device"));
    CHECK(readFile(path) == "the first report\n");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(tmp.str())) {
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE(
    "JSON nested past any format's depth is refused before parsing, never copied level by level", "[core][hostile]")
{
    // A mapping file of 2,000,000 nested arrays crashed `info` (SIGSEGV): nlohmann parses any depth without
    // recursion, but copying the value recursed once per level and overflowed the stack.
    const std::size_t n = 1'000'000;
    const std::string deep = std::string(n, '[') + std::string(n, ']');
    CHECK(jsonTooDeepAt(deep) == kMaxJsonDepth); // the offset of the first bracket past the limit
    CHECK(
        jsonTooDeepAt(R"({"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"]"})")
        == std::string_view::npos); // brackets inside strings, an escaped quote among them, are text
    const std::string said = "JSON nested deeper than 64 levels";

    auto m = parseMapping("map.json", R"({"stallscope_mapping": 1, "ranks": )" + deep + "}");
    REQUIRE_FALSE(m.ok());
    // The { is the first level: the 64th [ is past the limit, at byte 99 (nlohmann counts from 1).
    CHECK_THAT(m.error().format(), Catch::StartsWith("map.json (byte offset 99)") && Catch::Contains(said));
    auto session = parseSession("s.stallscope", R"({"format": "stallscope-session", "version": 1, "x": )" + deep + "}");
    REQUIRE_FALSE(session.ok());
    CHECK_THAT(session.error().format(), Catch::Contains(said));
    auto answer = training::parseAnswer(R"({"answer": )" + deep + "}", "answer.json");
    REQUIRE_FALSE(answer.ok());
    CHECK_THAT(answer.error(), Catch::Contains(said));
    auto fr = parseFlightRecorderJsonLines("fr_rank_0.jsonl", "{\"x\": " + deep + "}\n");
    REQUIRE(fr.ok());
    REQUIRE(fr->warnings.size() == 1);
    CHECK_THAT(fr->warnings.front().message, Catch::Contains(said));
    // A bundle manifest: refused by the bundle reader, the message naming the manifest.
    TempDir tmp;
    writeFile(tmp.path() / "manifest.json", R"({"format": "stallscope-bundle", "x": )" + deep + "}");
    auto job = openJob(tmp.str());
    REQUIRE_FALSE(job.ok());
    CHECK_THAT(job.error().format(), Catch::Contains("manifest.json") && Catch::Contains(said));
}

TEST_CASE("text from files prints with its control characters escaped, everything else as it is", "[core][hostile]")
{
    CHECK(printable("gpu-a017 mlx5_3") == "gpu-a017 mlx5_3");
    CHECK(printable("a\x1b]0;title\x07z") == "a\\x1b]0;title\\x07z"); // a terminal's title
    CHECK(printable("one\ntwo\r") == "one\\ntwo\\r");
    CHECK(printable("one\ntwo", true) == "one\ntwo");
    CHECK(printable("tab\there") == "tab\there");
    CHECK(printable("del\x7f") == "del\\x7f");
    CHECK(printable("csi\xc2\x9b"
                    "2J")
        == "csi\\u009b2J"); // C1 CSI as UTF-8
    CHECK(printable("caf\xc3\xa9 caf\xe9") == "caf\xc3\xa9 caf\xe9"); // UTF-8 and Latin-1 letters: not controls
    CHECK(printable(std::string("nul\0x", 5)) == "nul\\x00x");
    const LoadIssue issue { "dir/we\x1b[31mird\n.log", 3, -1, "got \"\x1b[2J\"" };
    CHECK(issue.format() == "dir/we\\x1b[31mird\\n.log:3: got \"\\x1b[2J\"");
}

TEST_CASE("text from files placed in Markdown reads as itself: nothing it holds acts as Markdown", "[core][hostile]")
{
    // What stays: names as clusters spell them, so a report still reads well raw.
    CHECK(markdownText("gpu-a017 mlx5_3 port 1 <-> leaf-r3 port 18 (high)")
        == "gpu-a017 mlx5_3 port 1 <-> leaf-r3 port 18 (high)");
    CHECK(markdownText("R&D 2 < 3") == "R&D 2 < 3");
    // What would act: a cell split, a heading, emphasis, a link, inline HTML, an entity, code, strikethrough.
    CHECK(markdownText("gpu|a01") == "gpu\\|a01");
    CHECK(markdownText("x\n# fake") == "x\\\\n\\# fake"); // an escaped backslash, not a line break
    CHECK(markdownText("x\n") == "x\\\\n");
    CHECK(markdownText("*bold* _em_ a_b") == "\\*bold\\* \\_em\\_ a_b");
    CHECK(markdownText("[click](http://x)") == "\\[click\\](http://x)");
    CHECK(markdownText("<img src=x onerror=alert(1)>") == "\\<img src=x onerror=alert(1)>");
    CHECK(markdownText("</td> <!-- <?") == "\\</td> \\<!-- \\<?");
    CHECK(markdownText("&lt; &#60;") == "\\&lt; \\&\\#60;");
    CHECK(markdownText("`code` ~~gone~~") == "\\`code\\` \\~\\~gone\\~\\~");
    CHECK(markdownText("a\\b") == "a\\\\b");
    // One line, whatever the text holds.
    CHECK(markdownText("one\ntwo\r\x1b[2J").find_first_of("\n\r\x1b") == std::string::npos);

    CHECK(markdownFence("plain") == "```");
    CHECK(markdownFence("a ``` b") == "````");
    CHECK(markdownFence("`````") == "``````");
}

TEST_CASE("a Prometheus answer is judged by its envelope, its data never built", "[core][hostile][prometheus]")
{
    const auto ok = readPromEnvelope(
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"2"]]}]},)"
        R"("warnings":["PromQL info: metric might not be a counter","second"]})");
    CHECK(ok.object);
    CHECK(ok.status == "success");
    CHECK(ok.warnings == std::vector<std::string> { "PromQL info: metric might not be a counter", "second" });
    const auto refused = readPromEnvelope(
        R"({"status":"error","errorType":"execution","error":"query processing would load too many samples into memory"})");
    CHECK(refused.status == "error");
    CHECK(refused.errorType == "execution");
    CHECK(refused.error == "query processing would load too many samples into memory");
    for (const char* bad : { "<html>502 Bad Gateway</html>", "[1,2]", "", R"({"status":"success","data":{"re)" }) {
        const auto e = readPromEnvelope(bad);
        INFO(bad << " → " << e.notJson);
        CHECK_FALSE(e.object);
        CHECK_FALSE(e.notJson.empty());
    }
}

TEST_CASE("no name is longer than the string pool holds: longer ones are cut, kept apart by a hash, and said once",
    "[core][hostile]")
{
    StringPool pool;
    // "é" is two bytes: a cut at a fixed byte count would fall inside one every other time.
    std::string longA;
    while (longA.size() < 10000) {
        longA += "\xc3\xa9";
    }
    const auto longB = longA + "b"; // shares its first 10,000 bytes with longA
    const auto a = pool.intern(longA);
    const auto b = pool.intern(longB);
    CHECK(a != b);
    CHECK(pool.intern(longA) == a); // the same name is the same id
    const auto& cut = pool.str(a);
    CHECK(cut.size() <= StringPool::kMaxBytes);
    CHECK(cut.find("\xe2\x80\xa6#") != std::string::npos);
    const auto head = cut.substr(0, cut.find("\xe2\x80\xa6#"));
    CHECK(head.size() % 2 == 0); // whole characters only
    CHECK(longA.compare(0, head.size(), head) == 0);
    CHECK(pool.cutCount() == 2);
    CHECK(pool.longestCut() == longB.size());
    CHECK(pool.str(pool.intern("gpu-a017")) == "gpu-a017");

    // A bundle naming a host in 2 MB (a render took 10.7 s instead of 0.3 s) opens with the name cut and a warning.
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    const auto host = std::string(sim.snapshot->str(sim.snapshot->ranks[0].host));
    for (const auto* name : { "topology.json", "manifest.json" }) {
        auto text = readFile(tmp.path() / "b" / name);
        const std::string longName = host + std::string(2000000, 'x');
        for (auto at = text.find(host); at != std::string::npos; at = text.find(host, at + longName.size())) {
            text.replace(at, host.size(), longName);
        }
        writeFile(tmp.path() / "b" / name, text);
    }
    auto job = openJob(tmp.str("b"));
    REQUIRE(job.ok());
    const auto& snap = *job.value().snapshot;
    CHECK(snap.str(snap.ranks[0].host).size() <= StringPool::kMaxBytes);
    CHECK(snap.str(snap.ranks[0].host).rfind(host + "xxx", 0) == 0);
    std::size_t longest = 0;
    for (const auto& n : snap.topology.nodes()) {
        longest = std::max(longest, snap.str(n.description).size());
    }
    CHECK(longest <= StringPool::kMaxBytes);
    std::string said;
    for (const auto& w : job.value().warnings) {
        said += w.format() + "\n";
    }
    CHECK_THAT(said, Catch::Contains("longer than 4096 bytes") && Catch::Contains("a hash of the whole"));
}
