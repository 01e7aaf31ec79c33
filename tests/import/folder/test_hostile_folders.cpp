// SPDX-License-Identifier: MIT
// Folders as clusters leave them, beyond their files' contents: named pipes, links to nothing or to themselves,
// folders nested deep or closed to the reader (issue #17). What the listing leaves out is a warning naming it.
#include "bundle/writer.h"
#include "core/document_file.h"
#include "core/path_relation.h"
#include "core/scratch_file.h"
#include "import/common/file_bytes.h"
#include "import/common/text_encoding.h"
#include "import/open_job.h"
#include "test_support.h"
#include "view/review_session.h"

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

// One Flight Recorder entry of rank 1: something every folder here can open.
void writeDump(const fs::path& dir)
{
    const auto entry = readFile(testDataPath("flight_recorder/jsonl/fr_rank_4.jsonl"));
    writeFile(dir / "fr_rank_1.jsonl", entry.substr(0, entry.find('\n') + 1));
}

// Every warning as "name: message" lines, the name relative to `dir`.
std::string warningsOf(const LoadedJob& job, const fs::path& dir)
{
    std::string said;
    for (const auto& w : job.warnings) {
        said += fs::path(w.file).lexically_relative(dir).string() + ": " + w.message + "\n";
    }
    return said;
}

// What `run` returns when run by a user whom permissions bind: root lists any folder, so when the tests run as
// root `run` runs in a child process that drops to nobody (65534), its answer sent back through a pipe.
std::string asUnprivileged(const std::function<std::string()>& run)
{
    if (::geteuid() != 0) {
        return run();
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        const auto out = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? run() : std::string("cannot drop root");
        static_cast<void>(!::write(fds[1], out.data(), out.size()));
        ::_exit(0); // no exit handlers: the parent's test state is the parent's
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    return out;
}

} // namespace

TEST_CASE(
    "a named pipe, broken links and folders too deep are warnings naming them, and the folder opens", "[core][hostile]")
{
    // A named pipe was skipped in silence; reading one would have waited for a writer forever.
    TempDir tmp;
    writeDump(tmp.path());
    REQUIRE(::mkfifo((tmp.path() / "rank0.log").c_str(), 0644) == 0);
    fs::create_symlink("gone/rank5.log", tmp.path() / "rank5.log");
    fs::create_symlink("loop", tmp.path() / "loop");
    fs::create_directories(tmp.path() / "a/b/c/d/e");
    writeFile(tmp.path() / "a/b/c/d/e/rank3.log", testData("logs/rank2.log"));
    writeFile(tmp.path() / "a/b/c/d/rank2.log", testData("logs/rank2.log")); // four deep: read

    auto job = openJob(tmp.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto said = warningsOf(job.value(), tmp.path());
    INFO(said);
    CHECK_THAT(said, Catch::Contains("rank0.log: a named pipe (reading it would wait for a writer): skipped"));
    CHECK_THAT(said, Catch::Contains("rank5.log: a symbolic link that leads to no file (No such file or directory)"));
    CHECK_THAT(said, Catch::Contains("loop: a symbolic link that leads to no file (Too many levels of symbolic"));
    CHECK_THAT(said, Catch::Contains("1 folder nested more than 4 deep not read (a/b/c/d/e)"));
    REQUIRE_FALSE(job->recognised.empty());
    CHECK_THAT(job->recognised.front(), Catch::EndsWith(", 1 rank log")); // four deep read, five deep not
}

TEST_CASE(
    "a folder the reader may not list is named with why: as a whole an error, inside a warning", "[core][hostile]")
{
    // An unreadable folder opened as "nothing readable was found"; one inside it was left out in silence.
    TempDir tmp;
    fs::permissions(tmp.path(), fs::perms::all);
    const auto open = tmp.path() / "open";
    fs::create_directories(open / "logs");
    writeDump(open);
    writeFile(open / "logs/rank0.log", testData("logs/rank2.log"));
    fs::permissions(open / "fr_rank_1.jsonl", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(open, fs::perms::owner_all | fs::perms::group_all | fs::perms::others_all);
    fs::permissions(open / "logs", fs::perms::none);
    const auto closed = tmp.path() / "closed";
    fs::create_directories(closed);
    writeDump(closed);
    fs::permissions(closed, fs::perms::none);

    const auto said = asUnprivileged([&] {
        std::string out;
        auto inside = openJob(open.string());
        out += inside ? warningsOf(inside.value(), open) : "failed: " + inside.error().format() + "\n";
        auto whole = openJob(closed.string());
        out += whole ? "opened\n" : whole.error().format() + "\n";
        return out;
    });
    fs::permissions(open / "logs", fs::perms::owner_all); // so the temporary folder can be removed
    fs::permissions(closed, fs::perms::owner_all);
    CHECK_THAT(said, Catch::Contains("logs: cannot list the folder: Permission denied (the files in it are left out)"));
    CHECK_THAT(said, Catch::Contains(closed.string() + ": cannot list the folder: Permission denied"));
}

TEST_CASE("files read whole share half the memory: one larger is left out saying why, the rest wait their turn",
    "[core][hostile]")
{
    // Four 678 MB logs read at once in a 2 GiB cgroup had the kernel kill the process (signal 9 after 18.6 s).
    TempDir tmp;
    writeDump(tmp.path());
    const auto log = testData("logs/rank2.log");
    std::string big = log;
    while (big.size() < (200u << 10)) {
        big += "[default2]:gpu-a017:48211:48211 [2] NCCL INFO Channel 00/0 : 2 -> 3 via NET/IB/0/GDRDMA\n";
    }
    writeFile(tmp.path() / "big.log", big);
    std::string medium = log; // 40 KiB each: one or two at a time through a 64 KiB gate
    while (medium.size() < (40u << 10)) {
        medium += "[default2]:gpu-a017:48211:48211 [2] NCCL INFO Channel 00/0 : 2 -> 3 via NET/IB/0/GDRDMA\n";
    }
    for (int r = 0; r < 8; ++r) {
        writeFile(tmp.path() / ("part" + std::to_string(r) + ".log"), medium);
    }
    ScratchPolicy policy;
    policy.wholeFileBytes = 64u << 10;
    NullProgress progress;
    auto job = openJob(tmp.str(), progress, policy);
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto said = warningsOf(job.value(), tmp.path());
    INFO(said);
    CHECK_THAT(said,
        Catch::Contains("big.log: 204.8 KB is more than Stallscope reads of one file at once here "
                        "(65.5 KB, half the memory this process may use)."));
    CHECK_THAT(said, Catch::Contains("(the file is left out)"));
    REQUIRE_FALSE(job->recognised.empty());
    CHECK_THAT(job->recognised.front(), Catch::EndsWith(", 8 rank logs")); // every 40 KiB log, in turn
}

TEST_CASE("where a place to write stands to what was opened", "[core][hostile]")
{
    TempDir tmp;
    const auto in = tmp.path() / "raw";
    std::filesystem::create_directories(in / "logs");
    std::filesystem::create_directory_symlink(in / "logs", tmp.path() / "elsewhere");
    CHECK(pathRelation(in.string(), in.string()) == PathRelation::Same);
    CHECK(pathRelation(in.string(), in.string() + "/") == PathRelation::Same);
    CHECK(pathRelation(in.string() + "/", in.string()) == PathRelation::Same);
    CHECK(pathRelation(in.string(), (in / "logs" / "x.png").string()) == PathRelation::Inside);
    CHECK(pathRelation(in.string(), (in / "new" / "deeper").string()) == PathRelation::Inside); // need not exist
    CHECK(pathRelation(in.string(), (tmp.path() / "elsewhere" / "t.json").string()) == PathRelation::Inside);
    CHECK(pathRelation(in.string(), (in / ".." / "raw" / "t.json").string()) == PathRelation::Inside);
    CHECK(pathRelation(in.string(), tmp.str()) == PathRelation::Holds);
    CHECK(pathRelation(in.string(), (tmp.path() / "raw2").string()) == PathRelation::Apart); // a prefix, not a parent
    CHECK(pathRelation(in.string(), (tmp.path() / "out.png").string()) == PathRelation::Apart);
    CHECK(pathRelation("http://127.0.0.1:9090", tmp.str()) == PathRelation::Apart);
}

TEST_CASE("a bundle file or a session that is a named pipe, a device or far too large is refused, never waited on",
    "[core][hostile]")
{
    // A manifest.json that was a named pipe held `info` and the window's loader forever (Cancel could not stop a
    // blocked open); a topology.json linked to /dev/zero read until memory ran out.
    TempDir tmp;
    REQUIRE(writeBundle(*simulateOrFail(tinyConfig()).snapshot, tmp.str("b")).empty());
    const auto b = tmp.path() / "b";
    const auto refusedAs = [&](const std::string& file, const std::string& what) {
        const auto r = openJob(b.string());
        REQUIRE_FALSE(r);
        INFO(r.error().format());
        CHECK(r.error().file == (b / file).string());
        CHECK_THAT(r.error().message, Catch::Contains(what));
    };
    for (const auto* file : { "manifest.json", "topology.json", "collectives.bin", "counters.bin" }) {
        SECTION(std::string("a named pipe as ") + file)
        {
            std::filesystem::remove(b / file);
            REQUIRE(::mkfifo((b / file).c_str(), 0600) == 0);
            refusedAs(file, "is a named pipe, not a file");
        }
    }
    SECTION("a device as the topology")
    {
        std::filesystem::remove(b / "topology.json");
        std::filesystem::create_symlink("/dev/zero", b / "topology.json");
        refusedAs("topology.json", "is a character device, not a file");
    }
    SECTION("a session that is a pipe, or larger than any session")
    {
        const auto s = tmp.path() / "review.stallscope";
        REQUIRE(::mkfifo(s.c_str(), 0600) == 0);
        auto pipe = loadSession(s.string());
        REQUIRE_FALSE(pipe);
        CHECK_THAT(pipe.error().message, Catch::Contains("is a named pipe, not a file"));
        std::filesystem::remove(s);
        writeFile(s, "{}");
        std::filesystem::resize_file(s, kSmallDocumentBytes + 1); // sparse: nothing is written
        auto huge = loadSession(s.string());
        REQUIRE_FALSE(huge);
        CHECK_THAT(huge.error().message, Catch::Contains("more than a review session ever is (at most 64 MiB)"));
    }
}

namespace {

// `utf8` as UTF-16 with its byte-order mark (what Windows PowerShell 5.1's `>` writes), little- or big-endian.
std::string asUtf16(const std::string& utf8, bool littleEndian)
{
    std::string out = littleEndian ? "\xff\xfe" : "\xfe\xff";
    auto put = [&](char32_t u) {
        const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xff);
        out += littleEndian ? lo : hi;
        out += littleEndian ? hi : lo;
    };
    for (std::size_t i = 0; i < utf8.size();) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        const int n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
        for (int k = 1; k < n; ++k) {
            cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3f);
        }
        i += n;
        if (cp >= 0x10000) {
            put(0xd800 + ((cp - 0x10000) >> 10));
            put(0xdc00 + ((cp - 0x10000) & 0x3ff));
        } else {
            put(cp);
        }
    }
    return out;
}

} // namespace

TEST_CASE("text with a byte-order mark reads as UTF-8: a UTF-8 BOM dropped, UTF-16 transcoded", "[core][hostile]")
{
    std::string s = "\xef\xbb\xbf{\"a\": 1}";
    CHECK(asUtf8Text(s, 64) == TextEncoding::Utf8Bom);
    CHECK(s == "{\"a\": 1}");
    s = asUtf16("gpu-a017 \xe2\x86\x94 leaf \xf0\x9f\x98\x80\n", true); // ↔ (3 bytes in UTF-8), an emoji (a pair)
    CHECK(asUtf8Text(s, 64) == TextEncoding::Utf16Le);
    CHECK(s == "gpu-a017 \xe2\x86\x94 leaf \xf0\x9f\x98\x80\n");
    CHECK(s.capacity() >= s.size() + 64);
    s = asUtf16("x\n", false);
    CHECK(asUtf8Text(s, 0) == TextEncoding::Utf16Be);
    CHECK(s == "x\n");
    s = std::string("\xff\xfe"
                    "a\0\x00\xd8"
                    "b\0"
                    "c",
        9); // a lone high surrogate, then an odd last byte
    asUtf8Text(s, 0);
    CHECK(s
        == "a\xef\xbf\xbd"
           "b\xef\xbf\xbd");
    s = "plain \xff\xfe inside";
    CHECK(asUtf8Text(s, 0) == TextEncoding::Utf8); // no BOM at the start: never guessed at
    CHECK(s == "plain \xff\xfe inside");
}

TEST_CASE(
    "a folder of files that passed through Windows tools opens as the same files without the marks", "[core][hostile]")
{
    // A UTF-8 BOM made a profiler trace and a Flight Recorder JSON dump "not a recognised format" and cost an
    // ibnetdiscover topology its first line; UTF-16 (PowerShell 5.1's `>`) was nothing at all.
    TempDir tmp;
    const auto plain = tmp.path() / "plain", marked = tmp.path() / "marked";
    fs::create_directories(plain);
    fs::create_directories(marked);
    const std::string bom = "\xef\xbb\xbf";
    struct Part
    {
        const char* data;
        int how; // 0 as it is, 1 UTF-8 BOM, 2 UTF-16LE, 3 UTF-16BE
    };
    for (const auto& part : { Part { "kineto/node017_48211.1727752045123456789.pt.trace.json", 1 },
             Part { "flight_recorder/jsonl/fr_rank_4.jsonl", 1 }, Part { "ibnetdiscover/two-hosts.txt", 2 },
             Part { "logs/rank2.log", 3 }, Part { "flight_recorder/pickle/nccl_trace_rank_1", 0 } }) {
        const auto text = readFile(testDataPath(part.data));
        const auto name = fs::path(part.data).filename();
        writeFile(plain / name, text);
        writeFile(marked / name,
            part.how == 1       ? bom + text
                : part.how == 2 ? asUtf16(text, true)
                : part.how == 3 ? asUtf16(text, false)
                                : text);
    }
    auto a = openJob(plain.string());
    auto b = openJob(marked.string());
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const auto& sa = *a.value().snapshot;
    const auto& sb = *b.value().snapshot;
    INFO(warningsOf(b.value(), marked));
    CHECK(warningsOf(b.value(), marked).find("not a recognised format") == std::string::npos);
    CHECK(warningsOf(b.value(), marked).find("unrecognised line") == std::string::npos);
    CHECK(sb.job.worldSize == sa.job.worldSize);
    CHECK(sb.topology.nodes().size() == sa.topology.nodes().size());
    CHECK(sb.topology.links().size() == sa.topology.links().size());
    REQUIRE(sb.collectives.size() == sa.collectives.size());
    for (std::size_t r = 0; r < sa.collectives.size(); ++r) {
        CHECK(sb.collectives[r].size() == sa.collectives[r].size());
        CHECK(sb.str(sb.ranks[r].host) == sa.str(sa.ranks[r].host));
    }
    CHECK(b.value().warnings.size() == a.value().warnings.size());
}

TEST_CASE(
    "files that end in zero bytes (a host stopped while writing) read as the files without them", "[core][hostile]")
{
    // ext4 and XFS allocate blocks before they write them: a host that stops leaves a file's tail reading as zeros.
    // A profiler trace followed by 64 KiB of zeros was refused whole ("JSON document ended early"), a log's zeros
    // were one line "longer than 4096 bytes" that "the file ends inside".
    TempDir tmp;
    const auto plain = tmp.path() / "plain", zeroed = tmp.path() / "zeroed";
    fs::create_directories(plain);
    fs::create_directories(zeroed);
    for (const auto* part :
        { "kineto/node017_48211.1727752045123456789.pt.trace.json", "flight_recorder/jsonl/fr_rank_4.jsonl",
            "ibnetdiscover/two-hosts.txt", "logs/rank2.log", "flight_recorder/pickle/nccl_trace_rank_1" }) {
        const auto text = readFile(testDataPath(part));
        const auto name = fs::path(part).filename();
        writeFile(plain / name, text);
        writeFile(zeroed / name, text + std::string(65536, '\0'));
    }
    writeFile(zeroed / "never-written.log", std::string(8192, '\0'));
    writeFile(zeroed / "rotated.log", std::string(1 << 20, '\0') + readFile(testDataPath("logs/rank2.log")));
    auto a = openJob(plain.string());
    auto b = openJob(zeroed.string());
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const auto& sa = *a.value().snapshot;
    const auto& sb = *b.value().snapshot;
    const auto said = warningsOf(b.value(), zeroed);
    INFO(said);
    CHECK(sb.job.worldSize == sa.job.worldSize);
    CHECK(sb.topology.links().size() == sa.topology.links().size());
    REQUIRE(sb.collectives.size() == sa.collectives.size());
    for (std::size_t r = 0; r < sa.collectives.size(); ++r) {
        CHECK(sb.collectives[r].size() == sa.collectives[r].size());
    }
    for (const auto* name :
        { "node017_48211.1727752045123456789.pt.trace.json", "fr_rank_4.jsonl", "two-hosts.txt", "rank2.log" }) {
        CHECK_THAT(said, Catch::Contains(std::string(name) + ": ends in 65,536 zero bytes, read without them"));
    }
    CHECK_THAT(said, Catch::Contains("never-written.log: holds nothing but zero bytes (8,192)"));
    CHECK(said.find("longer than 4096") == std::string::npos);
    CHECK(said.find("ended early") == std::string::npos);
    // copytruncate under a writer that does not append: a hole of zeros, then the log as it goes on.
    CHECK_THAT(said, Catch::Contains("rotated.log: begins with 1,048,576 zero bytes, read without them"));
    CHECK(said.find("rotated.log: not a recognised") == std::string::npos);
    CHECK(sb.job.worldSize == sa.job.worldSize);
}

TEST_CASE("a launcher's log of many processes names the first and counts the rest", "[core][hostile]")
{
    // srun --label's output of a 40-process job beside one dump. A log naming 1,000,000 processes printed 1,000,000
    // lines among the files recognised, in `info` and in the window.
    TempDir tmp;
    std::string log;
    for (int r = 0; r < 40; ++r) {
        log += std::to_string(r) + ": gpu-a" + std::to_string(r / 8) + ":" + std::to_string(5000 + r) + ":"
            + std::to_string(5000 + r) + " [" + std::to_string(r % 8) + "] NCCL INFO cudaDev " + std::to_string(r % 8)
            + " busId 1000 commId 0x1 rank " + std::to_string(r) + " nRanks 40 - Init START\n";
    }
    log += "39: gpu-a4:5039:5060 [7] NCCL INFO NET/IB : Got completion from peer 10.0.0.2<43061> with status=12 "
           "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.9 remoteGids::ffff:10.0.0.2 hca mlx5_3\n";
    writeFile(tmp.path() / "slurm-1234.out", log);
    writeFile(tmp.path() / "nccl_trace_rank_1", testData("flight_recorder/pickle/nccl_trace_rank_1"));
    auto r = openJob(tmp.str());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    std::size_t named = 0;
    std::string rest;
    for (const auto& line : r->recognised) {
        if (line.rfind("slurm-1234.out: rank log, rank", 0) == 0) {
            ++named;
        } else if (line.rfind("slurm-1234.out: rank log, and", 0) == 0) {
            rest = line;
        }
    }
    CHECK(named == 16);
    CHECK_THAT(rest, Catch::Contains("and 24 more of the 40 ranks in this file") && Catch::Contains("1 of them said"));
    CHECK_THAT(r->recognised.front(), Catch::Contains("40 rank logs"));
}

TEST_CASE("a copy of /sys that kept sysfs' links says how to copy the files", "[core][hostile]")
{
    TempDir tmp;
    const auto cls = tmp.path() / "gpu-a001" / "sys" / "class" / "infiniband";
    fs::create_directories(cls);
    fs::create_symlink("../../devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0", cls / "mlx5_0");
    fs::create_symlink("nowhere.log", tmp.path() / "rank3.log"); // not sysfs: no advice about /sys
    writeFile(tmp.path() / "nccl_trace_rank_1", testData("flight_recorder/pickle/nccl_trace_rank_1"));
    auto r = openJob(tmp.str());
    REQUIRE(r.ok());
    std::string sysfs, other;
    for (const auto& w : r->warnings) {
        (w.file.find("mlx5_0") != std::string::npos ? sysfs : other) += w.message + "\n";
    }
    CHECK_THAT(sysfs, Catch::Contains("leads to no file") && Catch::Contains("cp -r --parents /sys/class/infiniband"));
    CHECK_THAT(other, Catch::Contains("leads to no file") && !Catch::Contains("/sys"));
}

namespace {

// `bytes` written at `offset` of a new file: everything before is a hole (never written), as a writer that does not
// append leaves it after logrotate's copytruncate. False when the filesystem keeps no holes (the test then skips).
bool writeAfterHole(const fs::path& p, std::uint64_t offset, const std::string& bytes)
{
    {
        std::ofstream out(p, std::ios::binary);
        out.seekp(static_cast<std::streamoff>(offset));
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    return leadingHoleBytes(p) > 0;
}

} // namespace

TEST_CASE(
    "a log that begins with a hole of gigabytes is read from its first line, the hole never read", "[core][hostile]")
{
    // 5 GiB of hole, then the log: judged by its head, it was binary (4 MiB of zeros) and left unread, or read
    // whole — 5 GiB of zeros — had it been smaller.
    TempDir tmp;
    const auto log = tmp.path() / "rank2.log";
    if (!writeAfterHole(log, 5ull << 30, testData("logs/rank2.log"))) {
        WARN("this filesystem keeps no holes (SEEK_DATA): skipped");
        return;
    }
    writeFile(tmp.path() / "nccl_trace_rank_1", testData("flight_recorder/pickle/nccl_trace_rank_1"));
    auto r = openJob(tmp.str());
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    std::string said, recognised;
    for (const auto& w : r->warnings) {
        said += w.format() + "\n";
    }
    for (const auto& line : r->recognised) {
        recognised += line + "\n";
    }
    INFO(said);
    CHECK_THAT(recognised, Catch::Contains("rank2.log: rank log"));
    CHECK_THAT(said, Catch::Contains("rank2.log: begins with 5,368,709,120 zero bytes") && !Catch::Contains("binary"));
}

TEST_CASE("a scrape read in pieces skips a hole at its start and zeros at its end, and names both", "[core][hostile]")
{
    TempDir tmp;
    std::string prom = "# TYPE node_infiniband_link_downed_total counter\n";
    const long long ms = 1'748'779'200'000LL;
    for (int i = 0; i < 200; ++i) {
        prom += "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"hostA:9100\"} "
            + std::to_string(i) + " " + std::to_string(ms + 1000LL * i) + "\n";
    }
    const auto file = tmp.path() / "hostA.prom";
    if (!writeAfterHole(file, 1u << 20, prom + std::string(65536, '\0'))) {
        WARN("this filesystem keeps no holes (SEEK_DATA): skipped");
        return;
    }
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 4096;
    NullProgress progress;
    auto job = openJob(tmp.str(), progress, pieces);
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    std::string said;
    for (const auto& w : job->warnings) {
        said += w.format() + "\n";
    }
    INFO(said);
    CHECK_THAT(said, Catch::Contains("hostA.prom: begins with 1,048,576 zero bytes"));
    CHECK_THAT(said, Catch::Contains("hostA.prom: ends in 65,536 zero bytes"));
    CHECK_THAT(said, !Catch::Contains("longer than") && !Catch::Contains("line skipped"));
    REQUIRE(job->snapshot->counters.size() == 1);
    CHECK(job->snapshot->counters.front().size() == 200);
}

TEST_CASE("files of one name in two subfolders are told apart in the list of what was read", "[core][hostile]")
{
    // Two attempts of an elastic job leave nccl_trace_rank_1 twice: "nccl_trace_rank_1: …" twice said neither which.
    TempDir tmp;
    for (const char* attempt : { "attempt_0", "attempt_1" }) {
        fs::create_directories(tmp.path() / attempt);
        writeFile(tmp.path() / attempt / "nccl_trace_rank_1", testData("flight_recorder/pickle/nccl_trace_rank_1"));
    }
    auto r = openJob(tmp.str() + "/"); // a trailing slash, as a shell completes it
    REQUIRE(r.ok());
    std::string recognised;
    for (const auto& line : r->recognised) {
        recognised += line + "\n";
    }
    CHECK_THAT(recognised, Catch::Contains("attempt_0/nccl_trace_rank_1: Flight"));
    CHECK_THAT(recognised, Catch::Contains("attempt_1/nccl_trace_rank_1: Flight"));
}
