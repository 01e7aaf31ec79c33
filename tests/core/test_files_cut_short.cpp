// SPDX-License-Identifier: MIT
// Files mapped, then cut short on disk by someone else (core/mapped_file.h): zeros and a message, never SIGBUS.
#include "bundle/writer.h"
#include "core/mapped_file.h"
#include "core/progress.h"
#include "core/scratch_file.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

// Reads through the volatile pointer so the compiler cannot drop or reorder the loads that fault.
std::uint64_t sumBytes(std::span<const std::byte> b, std::size_t from, std::size_t to)
{
    const volatile std::byte* p = b.data();
    std::uint64_t sum = 0;
    for (std::size_t i = from; i < to && i < b.size(); ++i) {
        sum += std::to_integer<std::uint8_t>(p[i]);
    }
    return sum;
}

bool anyMessageNames(const std::string& file)
{
    for (const auto& m : mappedFilesCutShort()) {
        if (m.path == file && m.format().find(file + ": cut short on disk") == 0) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("a mapped file cut short on disk reads as zeros past its new end and says so", "[core][hostile]")
{
    TempDir tmp;
    const auto path = tmp.path() / "scrape.prom";
    writeFile(path, std::string(3 * 4096, 'x'));
    std::string error;
    const auto map = MappedFile::open(path.string(), error, false);
    REQUIRE(map);
    CHECK(sumBytes(map->bytes(), 0, 10) == 10 * 'x');
    CHECK_FALSE(map->cutShort());

    fs::resize_file(path, 100); // a collector rewriting its file in place, logrotate's copytruncate
    CHECK(sumBytes(map->bytes(), 0, 100) == 100 * 'x'); // what is still in the file reads as the file
    CHECK(sumBytes(map->bytes(), 100, 4096) == 0); // the rest of the last page: the kernel's zeros
    CHECK(sumBytes(map->bytes(), 4096, 3 * 4096) == 0); // past it: SIGBUS without the guard
    REQUIRE(map->cutShort());
    CHECK(map->readableBytes() == 100);
    const auto message = map->cutShortMessage();
    CHECK(message.find("now 100 bytes, was 12288 bytes") != std::string::npos);
    CHECK(message.find("from byte 100 on is zeros") != std::string::npos);
    CHECK(anyMessageNames(path.string()));
}

TEST_CASE(
    "a mapped file another file was renamed over is still the file it was, and nothing is said", "[core][hostile]")
{
    TempDir tmp;
    const auto path = tmp.path() / "counters.bin";
    writeFile(path, std::string(3 * 4096, 'x'));
    std::string error;
    const auto map = MappedFile::open(path.string(), error, false);
    REQUIRE(map);
    writeFile(tmp.path() / "new", "short"); // `convert` writes a bundle so: a new file, renamed over the old
    fs::rename(tmp.path() / "new", path);
    CHECK(sumBytes(map->bytes(), 0, 3 * 4096) == 3 * 4096 * std::uint64_t('x'));
    CHECK_FALSE(map->cutShort());
    CHECK(map->cutShortMessage().empty());
    CHECK_FALSE(anyMessageNames(path.string()));
}

TEST_CASE("a range is intact only if every page it touches still has the file under it", "[core][hostile]")
{
    TempDir tmp;
    const auto path = tmp.path() / "f";
    writeFile(path, std::string(3 * 4096, 'x'));
    std::string error;
    const auto map = MappedFile::open(path.string(), error, false);
    REQUIRE(map);
    CHECK(map->intact(100, 3 * 4096));
    fs::resize_file(path, 4096);
    CHECK(map->intact(0, 4096));
    CHECK_FALSE(map->intact(100, 4096)); // ends 100 bytes into the second page, which is gone
    CHECK(map->readableBytes() == 4096);
}

TEST_CASE("a bus error that is not a mapped file's still ends the process", "[core][hostile]")
{
    TempDir tmp;
    writeFile(tmp.path() / "f", std::string(8192, 'x'));
    std::string error;
    const auto map = MappedFile::open((tmp.path() / "f").string(), error); // the guard is in place
    REQUIRE(map);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (const int quiet = ::open("/dev/null", O_WRONLY); quiet >= 0) {
            ::dup2(quiet, 2); // a sanitizer's report of the bus error is expected here, not a failure to read
        }
        ::raise(SIGBUS); // not a read of any mapping: the guard must pass it on
        ::_exit(0); // reached only if it was swallowed
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    INFO("status " << status);
    CHECK_FALSE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("a bundle whose files are cut short while open reads zeros past the cut and names each file",
    "[core][hostile][bundle]")
{
    auto config = tinyConfig();
    const auto sim = simulateOrFail(config);
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    const auto counters = tmp.path() / "b" / "counters.bin";
    const auto collectives = tmp.path() / "b" / "collectives.bin";
    REQUIRE(fs::file_size(counters) > 4 * 4096);
    REQUIRE(fs::file_size(collectives) > 4 * 4096);
    {
        auto job = openJob(tmp.str("b"));
        REQUIRE(job.ok());
        const auto& snap = *job->snapshot;
        CHECK_FALSE(anyMessageNames(counters.string()));

        const auto sumCounters = [&snap] { // times and values, as the views read them
            std::uint64_t sum = 0;
            for (const auto& s : snap.counters) {
                for (std::size_t i = 0; i < s.size(); ++i) {
                    sum += s.value(i) + std::uint64_t(s.timesNs[i] != 0);
                }
            }
            return sum;
        };
        CHECK(sumCounters() > 0);
        // `cp` of another bundle over this one truncates each file first: the open window's views then read. Every
        // series' values lie past the tables, so past byte 4096.
        fs::resize_file(counters, 4096);
        fs::resize_file(collectives, 4096);
        CHECK(anyMessageNames(counters.string())); // told before anything reads past the cut
        CHECK(sumCounters() == 0);
        std::size_t zeroEnds = 0;
        for (const auto& c : snap.collectives) {
            for (std::size_t i = 0; i < c.size(); ++i) {
                zeroEnds += c.endNs[i] == 0;
            }
        }
        CHECK(zeroEnds > 0); // past the cut: zeros, not the file and not a crash
        CHECK(anyMessageNames(counters.string()));
        CHECK(anyMessageNames(collectives.string()));
    }
    // The snapshot is gone: so are its mappings and their messages.
    CHECK_FALSE(anyMessageNames(counters.string()));

    SECTION("opened again, a file cut short is refused by what it lacks, naming the file")
    {
        auto again = openJob(tmp.str("b"));
        REQUIRE_FALSE(again.ok());
        CHECK(again.error().format().find("b/c") != std::string::npos);
    }
}

namespace {

// Cuts a file to `keep` bytes when the folder's reading of it in pieces first gets past `at` bytes (of both passes).
class CutWhileReading final : public Progress
{
public:
    CutWhileReading(fs::path file, std::uint64_t at, std::uintmax_t keep)
        : m_file(std::move(file))
        , m_at(at)
        , m_keep(keep)
    {
    }
    void report(std::string_view stage, std::uint64_t done, std::uint64_t) override
    {
        if (!m_cut && stage.find("in pieces") != std::string_view::npos && done >= m_at) {
            fs::resize_file(m_file, m_keep);
            m_cut = true;
        }
    }
    bool cancelled() const override { return false; }
    bool m_cut = false;

private:
    fs::path m_file;
    std::uint64_t m_at;
    std::uintmax_t m_keep;
};

} // namespace

TEST_CASE("a scrape cut short on disk while the folder reads it in pieces keeps what came before and says so",
    "[core][hostile][spill]")
{
    TempDir tmp;
    fs::create_directory(tmp.path() / "raw");
    std::string prom = "# TYPE node_infiniband_link_downed_total counter\n";
    const long long ms = 1'748'779'200'000LL;
    for (int i = 0; i < 2000; ++i) { // a reading per second, ≈ 190 KB
        prom += "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"hostA:9100\"} "
            + std::to_string(i) + " " + std::to_string(ms + 1000LL * i) + "\n";
    }
    const auto file = tmp.path() / "raw" / "hostA.prom";
    writeFile(file, prom);
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 4096;
    // In the second pass (the readings), a few pieces in: the collector rewrites its file, shorter.
    CutWhileReading cut(file, prom.size() + 16384, 32768);
    auto job = openJob(tmp.str("raw"), cut, pieces);
    REQUIRE(cut.m_cut);
    REQUIRE(job);
    std::string said;
    for (const auto& w : job->warnings) {
        said += w.format() + "\n";
    }
    INFO(said);
    CHECK_THAT(said, Catch::Contains(file.string() + ": cut short on disk while open (now 32768 bytes"));
    CHECK_THAT(said, Catch::Contains("from byte 32768 on is zeros"));
    CHECK_THAT(said, !Catch::Contains("line skipped")); // the line the cut went through is not parsed
    CHECK_THAT(said, Catch::Contains("(the readings before it are kept)"));
    REQUIRE(job->snapshot->counters.size() == 1);
    const auto& s = job->snapshot->counters.front();
    CHECK(s.size() >= 16384 / 100); // the readings of the pieces read before the cut
    CHECK(s.size() < 2000);
}

TEST_CASE("a scratch file read front to back gives back the space of its read part and keeps the rest", "[core]")
{
    TempDir tmp;
    const auto path = tmp.str("values.tmp");
    std::vector<std::uint32_t> words((8u << 20) / 4); // 8 MiB of distinct words
    for (std::size_t i = 0; i < words.size(); ++i) {
        words[i] = static_cast<std::uint32_t>(i * 2654435761u);
    }
    {
        std::FILE* out = std::fopen(path.c_str(), "wb");
        REQUIRE(out);
        REQUIRE(std::fwrite(words.data(), 4, words.size(), out) == words.size());
        REQUIRE(std::fclose(out) == 0);
    }
    const auto blocksOf = [&] {
        struct stat st
        {
        };
        REQUIRE(::stat(path.c_str(), &st) == 0);
        return std::uint64_t(st.st_blocks) * 512;
    };
    REQUIRE(blocksOf() >= words.size() * 4);
    std::FILE* in = std::fopen(path.c_str(), "r+b");
    REQUIRE(in);
    std::vector<std::uint32_t> back(words.size());
    const std::size_t half = words.size() / 2 + 1000; // 4 MiB and a bit: released up to 4 MiB
    REQUIRE(std::fread(back.data(), 4, half, in) == half);
    const bool released = releaseReadPart(in);
    const int why = errno;
    if (!released && why == EOPNOTSUPP) {
        std::fclose(in);
        WARN("this file system has no holes: nothing to measure");
        return;
    }
    REQUIRE(released);
    REQUIRE(std::fread(back.data() + half, 4, words.size() - half, in) == words.size() - half);
    std::fclose(in);
    CHECK(back == words); // what was read, and all that came after, as written
    CHECK(std::filesystem::file_size(path) == words.size() * 4); // the size stays
    CHECK(blocksOf() <= 4u << 20); // the first 4 MiB are gone from the disk
    CHECK(blocksOf() >= 3u << 20);
}
