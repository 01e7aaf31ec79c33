// SPDX-License-Identifier: MIT
// Files other tools packed — archives and compressors other than gzip — in a job's folder, or opened in its place:
// named for what they are with the command that unpacks them, never read as a log (import/common/packed.h).
#include "import/common/packed.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

std::string warningsOf(const LoadedJob& job)
{
    std::string said;
    for (const auto& w : job.warnings) {
        said += fs::path(w.file).filename().string() + ": " + w.message + "\n";
    }
    return said;
}

std::string recognisedOf(const LoadedJob& job)
{
    std::string said;
    for (const auto& line : job.recognised) {
        said += line + "\n";
    }
    return said;
}

// One Flight Recorder entry of rank 1: something every folder here can open.
void writeDump(const fs::path& dir)
{
    const auto entry = testData("flight_recorder/jsonl/fr_rank_4.jsonl");
    writeFile(dir / "fr_rank_1.jsonl", entry.substr(0, entry.find('\n') + 1));
}

} // namespace

TEST_CASE("what packed a file is told by its first bytes, and only by whole signatures", "[core][hostile]")
{
    const std::pair<const char*, Packing> golden[] = {
        { "packed/job-gnu.tar", Packing::Tar },
        { "packed/job-pax.tar", Packing::Tar },
        { "packed/scrapes.tar", Packing::Tar },
        { "packed/job.zip", Packing::Zip },
        { "packed/checkpoint.pt", Packing::TorchSave },
        { "packed/rank2.log.xz", Packing::Xz },
        { "packed/rank2.log.zst", Packing::Zstd },
        { "packed/rank2.log.bz2", Packing::Bzip2 },
        { "packed/rank2.log.lz4", Packing::Lz4 },
    };
    // Called on bytes gzip was taken off: gzip there was gzip'd twice.
    CHECK(packingOf(testData("packed/rank2.log.gz.gz")) == Packing::GzipTwice);
    for (const auto& [file, packing] : golden) {
        INFO(file);
        const auto bytes = testData(file);
        CHECK(packingOf(bytes) == packing);
        // Cut anywhere before its signature ends, nothing is claimed (and nothing is read past the cut: ASan).
        const std::size_t whole = packing == Packing::Tar ? 512 : packing == Packing::TorchSave ? 30 : 4;
        for (std::size_t n = 0; n < std::min<std::size_t>(whole, 4); ++n) {
            CHECK_FALSE(packingOf(std::string_view(bytes).substr(0, n)).has_value());
        }
        CHECK_FALSE((packing == Packing::Tar && packingOf(std::string_view(bytes).substr(0, 511))));
    }
    using namespace std::string_view_literals;
    CHECK(packingOf("7z\xBC\xAF\x27\x1C\x00\x04"sv) == Packing::SevenZip);
    CHECK(packingOf("Rar!\x1A\x07\x01\x00"sv) == Packing::Rar);
    CHECK(packingOf("PK\x05\x06"sv) == Packing::Zip); // an empty zip: its end record alone
    // A log whose byte 257 begins "ustar" by chance is a log: the header checksum does not hold.
    auto log = testData("logs/rank2.log");
    log.replace(257, 5, "ustar");
    CHECK_FALSE(packingOf(log).has_value());
    // A tar header with one byte changed no longer sums to its checksum.
    auto tar = testData("packed/job-gnu.tar");
    tar[0] = static_cast<char>(tar[0] ^ 1);
    CHECK_FALSE(packingOf(tar).has_value());
    CHECK_FALSE(packingOf("BZh91AY&SX"sv).has_value()); // "BZh9" then no block signature: text
    CHECK_FALSE(packingOf(testData("logs/rank2.log")).has_value());
    CHECK_FALSE(packingOf(testData("flight_recorder/pickle/nccl_trace_rank_1")).has_value());
}

TEST_CASE("archives and other compressors in a job's folder are named with how to unpack them, never read as logs",
    "[core][hostile]")
{
    // A tar of logs reads as text with headers between the files: it was one rank log made of every file in it,
    // its zero padding "a host that stopped while writing it"; xz/zstd/bzip2 files were "not a recognised format".
    TempDir tmp;
    writeDump(tmp.path());
    for (const char* name : { "job-gnu.tar", "job-pax.tar", "job.tgz", "job.zip", "checkpoint.pt", "rank2.log.xz",
             "rank2.log.zst", "rank2.log.bz2", "rank2.log.lz4", "rank2.log.gz.gz" }) {
        writeFile(tmp.path() / name, testData(std::string("packed/") + name));
    }
    auto job = openJob(tmp.str());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto said = warningsOf(job.value());
    INFO(said);
    CHECK_THAT(said, Catch::Contains("job-gnu.tar: a tar archive: Stallscope reads the files of a folder"));
    CHECK_THAT(said, Catch::Contains("job-pax.tar: a tar archive"));
    CHECK_THAT(said, Catch::Contains("job.tgz: a tar archive")); // judged by what the gzip holds
    CHECK_THAT(said, Catch::Contains("`tar -xf`"));
    CHECK_THAT(said, Catch::Contains("job.zip: a zip archive") && Catch::Contains("`unzip -d FOLDER`"));
    CHECK_THAT(said, Catch::Contains("checkpoint.pt: a file torch.save wrote"));
    CHECK_THAT(said, Catch::Contains("rank2.log.xz: compressed with xz") && Catch::Contains("`xz -dk`"));
    CHECK_THAT(said, Catch::Contains("rank2.log.zst: compressed with zstd") && Catch::Contains("`zstd -d`"));
    CHECK_THAT(said, Catch::Contains("rank2.log.bz2: compressed with bzip2") && Catch::Contains("`bzip2 -dk`"));
    CHECK_THAT(said, Catch::Contains("rank2.log.lz4: compressed with lz4") && Catch::Contains("`lz4 -d`"));
    CHECK_THAT(said, Catch::Contains("rank2.log.gz.gz: compressed with gzip twice"));
    CHECK_THAT(said, !Catch::Contains("not a recognised format") && !Catch::Contains("zero bytes"));
    const auto recognised = recognisedOf(job.value());
    INFO(recognised);
    // The dump alone: the log of rank 2 inside the tars was not read.
    CHECK_THAT(recognised, !Catch::Contains(".tar") && !Catch::Contains(".tgz") && !Catch::Contains("rank log"));
}

TEST_CASE("a large archive is named from its head, without being read or taken for a scrape", "[core][hostile]")
{
    TempDir tmp;
    writeDump(tmp.path());
    // A tar of scrapes read in pieces (any size streams here): its first member's lines are exposition text.
    writeFile(tmp.path() / "scrapes.tar", testData("packed/scrapes.tar"));
    // A 96 MiB tarball (past the size from which binary files are judged by their head): its zeros are a hole.
    const auto big = tmp.path() / "job-folder.tar";
    writeFile(big, testData("packed/job-gnu.tar"));
    fs::resize_file(big, 96ull << 20);
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    NullProgress progress;
    auto job = openJob(tmp.str(), progress, pieces);
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    const auto said = warningsOf(job.value());
    INFO(said);
    CHECK_THAT(said, Catch::Contains("scrapes.tar: a tar archive"));
    CHECK_THAT(said, Catch::Contains("job-folder.tar: a tar archive"));
    CHECK_THAT(said, !Catch::Contains("core dump"));
    CHECK(job->snapshot->counters.empty()); // the scrape inside the tar was not read
}

TEST_CASE("an archive or a file opened in place of a folder says what to open instead", "[core][hostile]")
{
    TempDir tmp;
    writeFile(tmp.path() / "job.tgz", testData("packed/job.tgz"));
    writeFile(tmp.path() / "rank2.log", testData("logs/rank2.log"));
    auto archive = openJob((tmp.path() / "job.tgz").string());
    REQUIRE_FALSE(archive.ok());
    CHECK_THAT(archive.error().format(), Catch::Contains("job.tgz: not a folder: a tar archive"));
    CHECK_THAT(archive.error().format(), Catch::Contains("`tar -xf`") && !Catch::Contains("skipped"));
    auto log = openJob((tmp.path() / "rank2.log").string());
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().format(), Catch::Contains("rank2.log: not a folder:"));
    CHECK_THAT(log.error().format(), Catch::Contains("open the folder that holds this file"));
}

TEST_CASE("a folder with nothing readable says what its files were", "[core][hostile]")
{
    // "nothing readable was found" alone hid that the folder's one file was an archive to extract.
    TempDir tmp;
    writeFile(tmp.path() / "job.tgz", testData("packed/job.tgz"));
    writeFile(tmp.path() / "notes.bin", std::string("\x01\x02not anything", 15));
    auto job = openJob(tmp.str());
    REQUIRE_FALSE(job.ok());
    auto said = job.error().format();
    INFO(said);
    CHECK_THAT(said, Catch::Contains("nothing readable was found"));
    CHECK_THAT(said, Catch::Contains("What it holds:\n  "));
    CHECK_THAT(said, Catch::Contains("job.tgz: a tar archive") && Catch::Contains("`tar -xf`"));
    CHECK_THAT(said, Catch::Contains("notes.bin: not a recognised format"));
    // Eleven kinds of file: the first eight are listed, the rest counted.
    for (const char* name : { "job.zip", "checkpoint.pt", "rank2.log.xz", "rank2.log.zst", "rank2.log.bz2",
             "rank2.log.lz4", "rank2.log.gz.gz" }) {
        writeFile(tmp.path() / name, testData(std::string("packed/") + name));
    }
    writeFile(tmp.path() / "a.7z", std::string("7z\xBC\xAF\x27\x1C\x00\x04", 8));
    job = openJob(tmp.str());
    REQUIRE_FALSE(job.ok());
    said = job.error().format();
    INFO(said);
    CHECK(std::count(said.begin(), said.end(), '\n') == 9);
    CHECK_THAT(said, Catch::EndsWith("\n  (and 2 more kinds of warning)"));
}
