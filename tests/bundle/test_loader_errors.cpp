// SPDX-License-Identifier: MIT
// Every loader error path: the message names the file and the line (or byte offset) and what was
// expected; nothing crashes; nothing is written into the bundle.
#include "bundle/writer.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

// A small valid bundle (binary or JSON Lines) in a temp folder.
struct Fixture
{
    TempDir tmp;
    fs::path dir;
    explicit Fixture(ColumnFormat format = ColumnFormat::Binary)
    {
        auto c = tinyConfig();
        c.hosts = 2;
        c.faults[0].rank = 3;
        c.durationNs = 30 * kNsPerSec;
        c.faults[0].atNs = 10 * kNsPerSec;
        const auto sim = simulateOrFail(c);
        dir = tmp.path() / "bundle";
        BundleWriteOptions o;
        o.collectives = o.counters = format;
        REQUIRE(writeBundle(*sim.snapshot, dir.string(), o).empty());
    }
    std::string load() const
    {
        const auto before = folderFingerprint(dir);
        auto r = openJob(dir.string());
        REQUIRE(folderFingerprint(dir) == before); // a load never writes into the bundle
        REQUIRE_FALSE(r.ok());
        return r.error().format();
    }
    void replaceInFile(const std::string& name, const std::string& from, const std::string& to) const
    {
        auto text = readFile(dir / name);
        const auto pos = text.find(from);
        REQUIRE(pos != std::string::npos);
        text.replace(pos, from.size(), to);
        writeFile(dir / name, text);
    }
};

} // namespace

TEST_CASE("a missing folder or manifest is named", "[core][errors]")
{
    TempDir tmp;
    auto r = openJob(tmp.str("nope"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("nope") && Catch::Contains("no such folder"));
    r = openJob(tmp.str());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("manifest.json") && Catch::Contains("missing"));
}

TEST_CASE("manifest errors name the file, the line or the field", "[core][errors]")
{
    Fixture f;
    SECTION("invalid JSON gives a line number")
    {
        f.replaceInFile("manifest.json", "\"format\"", "\"format\" oops");
        CHECK_THAT(f.load(), Catch::Matches(".*manifest\\.json:[0-9]+: invalid JSON.*"));
    }
    SECTION("wrong format name")
    {
        f.replaceInFile("manifest.json", "stallscope-bundle", "something-else");
        CHECK_THAT(f.load(), Catch::Contains("manifest.json") && Catch::Contains("\"format\""));
    }
    SECTION("newer version")
    {
        f.replaceInFile("manifest.json", "\"version\": 1", "\"version\": 7");
        CHECK_THAT(f.load(), Catch::Contains("unsupported bundle version 7"));
    }
    SECTION("a rank entry without a host")
    {
        f.replaceInFile("manifest.json", "\"host\"", "\"hostname\"");
        CHECK_THAT(f.load(), Catch::Contains("manifest.json") && Catch::Contains("ranks[0].host"));
    }
    SECTION("world size disagrees with the rank list")
    {
        f.replaceInFile("manifest.json", "\"world_size\": 16", "\"world_size\": 17");
        CHECK_THAT(f.load(), Catch::Contains("world_size"));
    }
    SECTION("a file name that escapes the bundle")
    {
        f.replaceInFile("manifest.json", "\"collectives.bin\"", "\"../collectives.bin\"");
        CHECK_THAT(f.load(), Catch::Contains("plain names inside the bundle"));
    }
    SECTION("a file name that is the bundle itself, nothing, or a folder in it")
    {
        // "." opened the folder itself: "cannot open the file: No such device", or link events read as none.
        f.replaceInFile("manifest.json", "\"collectives.bin\"", "\".\"");
        CHECK_THAT(f.load(), Catch::Contains("plain names inside the bundle: ."));
        f.replaceInFile("manifest.json", "\".\"", "\"\"");
        CHECK_THAT(f.load(), Catch::Contains("expected \"files.collectives\" to name"));
        std::filesystem::create_directory(f.dir / "sub");
        f.replaceInFile("manifest.json", "\"collectives\": \"\"", "\"collectives\": \"sub\"");
        CHECK_THAT(f.load(), Catch::Contains("sub: a folder, where manifest.json names one of the bundle's files"));
    }
    SECTION("numbers of the wrong kind or past 64 bits")
    {
        f.replaceInFile("manifest.json", "\"rank\": 0", "\"rank\": 0.5");
        CHECK_THAT(f.load(), Catch::Contains("manifest.json") && Catch::Contains("\"ranks[0].rank\" to be an integer"));
        f.replaceInFile("manifest.json", "\"rank\": 0.5", "\"rank\": 18446744073709551615");
        CHECK_THAT(f.load(), Catch::Contains("18446744073709551615 does not fit 64 bits"));
        f.replaceInFile("manifest.json", "\"rank\": 18446744073709551615", "\"rank\": \"0\"");
        CHECK_THAT(f.load(), Catch::Contains("\"ranks[0].rank\" to be an integer"));
    }
    SECTION("a string field holding a number")
    {
        f.replaceInFile("manifest.json", "\"hca\": \"mlx5_0\"", "\"hca\": 5");
        CHECK_THAT(f.load(), Catch::Contains("\"ranks[0].hca\" to be a string"));
    }
    SECTION("a group's rank outside the job, negative or not a number")
    {
        f.replaceInFile("manifest.json", "\"ranks\": \"all\"", "\"ranks\": [0, 16]");
        CHECK_THAT(f.load(), Catch::Contains("\"process_groups[0].ranks\" holds a rank outside 0..world_size-1"));
        f.replaceInFile("manifest.json", "[0, 16]", "[-1]");
        CHECK_THAT(f.load(), Catch::Contains("holds a rank outside"));
        f.replaceInFile("manifest.json", "[-1]", "[\"3\"]");
        CHECK_THAT(f.load(), Catch::Contains("holds a rank outside"));
        f.replaceInFile("manifest.json", "[\"3\"]", "{}");
        CHECK_THAT(f.load(), Catch::Contains("to be \"all\" or an array of ranks"));
    }
    SECTION("nested past simdjson's depth is refused with a line; an unknown field nested less is left alone")
    {
        f.replaceInFile("manifest.json", "\"format\"",
            "\"deep\": " + std::string(200, '[') + std::string(200, ']') + ", \"format\"");
        REQUIRE(openJob(f.dir.string()).ok());
        f.replaceInFile("manifest.json", std::string(200, '['), std::string(2000, '['));
        f.replaceInFile("manifest.json", std::string(200, ']'), std::string(2000, ']'));
        CHECK_THAT(f.load(), Catch::Matches(".*manifest\\.json:[0-9]+: invalid JSON.*deeper than.*"));
    }
}

TEST_CASE("binary collectives errors give the byte offset", "[core][errors]")
{
    Fixture f;
    const auto path = f.dir / "collectives.bin";
    SECTION("truncated file")
    {
        auto bytes = readFile(path);
        writeFile(path, bytes.substr(0, bytes.size() - 100));
        const auto msg = f.load();
        CHECK_THAT(
            msg, Catch::Contains("collectives.bin") && Catch::Contains("byte offset") && Catch::Contains("truncated"));
    }
    SECTION("not a collectives file")
    {
        auto bytes = readFile(path);
        bytes[0] = 'X';
        writeFile(path, bytes);
        CHECK_THAT(f.load(), Catch::Contains("collectives.bin (byte offset 0)") && Catch::Contains("SSCOLL01"));
    }
    SECTION("empty file")
    {
        writeFile(path, "");
        CHECK_THAT(f.load(), Catch::Contains("shorter than the 64-byte header"));
    }
    SECTION("a state byte out of range")
    {
        auto bytes = readFile(path);
        // Rank 0's block: the first rank-table entry at the rank table offset (header bytes 32..40).
        std::uint64_t rankTable = 0, offset = 0, count = 0;
        std::memcpy(&rankTable, bytes.data() + 32, 8);
        std::memcpy(&offset, bytes.data() + rankTable, 8);
        std::memcpy(&count, bytes.data() + rankTable + 8, 8);
        bytes[offset + 30 * count] = char(99);
        writeFile(path, bytes);
        CHECK_THAT(f.load(), Catch::Contains("rank 0 record 0") && Catch::Contains("out of range"));
    }
    SECTION("bad records in several ranks: the lowest rank's is named, however the ranks are split over the cores")
    {
        auto bytes = readFile(path);
        std::uint64_t rankTable = 0;
        std::memcpy(&rankTable, bytes.data() + 32, 8);
        const auto block = [&](std::uint32_t r) {
            std::uint64_t entry[2];
            std::memcpy(entry, bytes.data() + rankTable + 16 * r, 16);
            return std::make_pair(entry[0], entry[1]);
        };
        const auto [last, lastCount] = block(8); // the first rank of the second slice on 2 or 4 cores: a bad state
        bytes[last + 30 * lastCount + 2] = char(99);
        const auto [third, thirdCount] = block(3); // rank 3's second record enqueued before its first
        REQUIRE(thirdCount > 2);
        std::memset(bytes.data() + third + 8, 0, 8);
        writeFile(path, bytes);
        CHECK_THAT(f.load(), Catch::Contains("rank 3 record 1") && Catch::Contains("not sorted by enqueue time"));
    }
    SECTION("a missing file")
    {
        fs::remove(path);
        CHECK_THAT(f.load(), Catch::Contains("collectives.bin") && Catch::Contains("cannot open"));
    }
}

TEST_CASE("binary counters errors give the byte offset", "[core][errors]")
{
    Fixture f;
    const auto path = f.dir / "counters.bin";
    auto bytes = readFile(path);
    writeFile(path, bytes.substr(0, 200));
    CHECK_THAT(f.load(), Catch::Contains("counters.bin") && Catch::Contains("truncated"));
}

TEST_CASE("JSON Lines errors give the line", "[core][errors]")
{
    Fixture f(ColumnFormat::JsonLines);
    const auto path = f.dir / "collectives.jsonl";
    auto lines = readFile(path);
    SECTION("broken JSON on line 3")
    {
        auto pos = lines.find('\n', lines.find('\n') + 1) + 1; // start of line 3
        lines.insert(pos, "{not json}\n");
        writeFile(path, lines);
        CHECK_THAT(f.load(), Catch::Contains("collectives.jsonl:3: invalid JSON"));
    }
    SECTION("an unknown process group on line 1")
    {
        f.replaceInFile("collectives.jsonl", "\"pg\":\"0\"", "\"pg\":\"tp-7\"");
        CHECK_THAT(f.load(), Catch::Contains("collectives.jsonl:1:") && Catch::Contains("tp-7"));
    }
    SECTION("a rank outside the job")
    {
        f.replaceInFile("collectives.jsonl", "{\"rank\":0,", "{\"rank\":4000,");
        CHECK_THAT(f.load(), Catch::Contains("collectives.jsonl:1:") && Catch::Contains("4000"));
    }
    SECTION("a bad state")
    {
        f.replaceInFile("collectives.jsonl", "\"completed\"", "\"finished\"");
        CHECK_THAT(f.load(), Catch::Contains("collectives.jsonl:1:") && Catch::Contains("expected \"state\""));
    }
    SECTION("a counter value wider than its bits")
    {
        f.replaceInFile("counters.jsonl", "\"bits\":8,", "\"bits\":8,\"x\":0,");
        auto text = readFile(f.dir / "counters.jsonl");
        const auto line = text.find("\"counter\":\"link_downed\"");
        REQUIRE(line != std::string::npos);
        const auto v = text.find("\"value\":", line);
        text.replace(v, text.find('}', v) - v, "\"value\":300");
        writeFile(f.dir / "counters.jsonl", text);
        CHECK_THAT(f.load(), Catch::Contains("counters.jsonl:") && Catch::Contains("does not fit"));
    }
}

TEST_CASE("topology errors name the field", "[core][errors]")
{
    Fixture f;
    SECTION("a node's GUID")
    {
        f.replaceInFile("topology.json", "\"guid\":\"0x", "\"guid\":\"0xZZ");
        CHECK_THAT(f.load(), Catch::Contains("topology.json") && Catch::Contains("nodes[0].guid"));
    }
    SECTION("a link's flag that is not true or false")
    {
        f.replaceInFile("topology.json", "\"speed\"", "\"ends_disagree\":\"yes\",\"speed\"");
        CHECK_THAT(
            f.load(), Catch::Contains("topology.json") && Catch::Contains("ends_disagree\" to be true or false"));
    }
    SECTION("a link's end naming no node")
    {
        const auto text = readFile(f.dir / "topology.json");
        const auto at = text.find("\"links\"");
        REQUIRE(at != std::string::npos);
        const auto guid = text.find("\"guid\":\"0x", at);
        REQUIRE(guid != std::string::npos);
        auto broken = text;
        broken.replace(guid, 12, "\"guid\":\"0x7");
        writeFile(f.dir / "topology.json", broken);
        CHECK_THAT(f.load(), Catch::Contains("links[0].a.guid") && Catch::Contains("names no node"));
    }
    SECTION("invalid JSON gives a line number")
    {
        f.replaceInFile("topology.json", "\"nodes\"", "\"nodes\" oops");
        CHECK_THAT(f.load(), Catch::Matches(".*topology\\.json:[0-9]+: invalid JSON.*"));
    }
}

TEST_CASE("inconsistent but usable input opens with warnings", "[core][errors]")
{
    Fixture f(ColumnFormat::JsonLines);
    f.replaceInFile("link_events.jsonl", "\"guid\":\"0x0", "\"guid\":\"0x7");
    auto r = openJob(f.dir.string());
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->warnings.empty());
    CHECK_THAT(r->warnings.front().format(),
        Catch::Contains("link_events.jsonl:1:") && Catch::Contains("not in the topology"));
}
