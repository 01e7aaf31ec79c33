// SPDX-License-Identifier: MIT
// The sharded convert (import/folder/shard.h, issue #43): the partition of a raw folder, the merge of all shards
// giving exactly a single read's job, and every way a set of shards can be wrong.
#include "analysis/analysis.h"
#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "import/folder/raw_folder.h"
#include "import/folder/shard.h"
#include "import/folder/shard_plan.h"
#include "sim/raw_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

// Every file of a folder by its relative path, with its bytes.
std::map<std::string, std::string> filesOf(const fs::path& dir)
{
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) {
            out[e.path().lexically_relative(dir).string()] = readFile(e.path());
        }
    }
    return out;
}

std::string analysisOf(const JobSnapshot& snap)
{
    const auto json = analysisJson(snap, analyze(snap));
    return std::regex_replace(json, std::regex("\"seconds\": [0-9.e-]+"), "\"seconds\": 0");
}

// A two-minute flap of the small preset (64 ranks on 8 hosts) as raw files, with profiler traces or not, one dump
// cut short (its parse warns or fails: that must come through a shard too).
fs::path rawFlap(const TempDir& tmp, bool kineto = true)
{
    const auto sim = simulateOrFail(tinyConfig());
    RawWriteOptions options;
    options.kineto = kineto;
    const auto raw = absoluteFolder(tmp.str("raw"));
    REQUIRE(writeRawFolder(*sim.snapshot, raw.string(), options).empty());
    const auto dump = raw / "nccl_trace_rank_5";
    fs::resize_file(dump, fs::file_size(dump) / 2);
    return raw;
}

std::vector<std::string> writeShards(const fs::path& raw, const fs::path& dir, std::uint32_t n)
{
    std::vector<std::string> files;
    for (std::uint32_t k = 0; k < n; ++k) {
        NullProgress none;
        files.push_back((dir / ("s" + std::to_string(k) + ".shard")).string());
        const auto w = folder::writeShard(raw.string(), { k, n }, files.back(), none);
        INFO((w ? std::string() : w.error().format()));
        REQUIRE(w.ok());
    }
    return files;
}

std::string mergeError(const std::vector<std::string>& shards)
{
    NullProgress none;
    const auto m = folder::loadFromShards(shards, none);
    REQUIRE_FALSE(m.ok());
    return m.error().format();
}

} // namespace

TEST_CASE("shard specs are K/N with K below N", "[core][import][shard]")
{
    const auto s = folder::parseShardSpec("3/8");
    REQUIRE(s);
    CHECK((s->index == 3 && s->count == 8));
    CHECK(folder::parseShardSpec("0/1"));
    for (const char* bad : { "0/0", "9/8", "8/8", "x", "3", "/8", "3/", "-1/8", "3/8x", "1/65537", "" }) {
        INFO(bad);
        CHECK_FALSE(folder::parseShardSpec(bad));
    }
}

TEST_CASE("a raw folder's dumps are cut into shards by whole hosts", "[core][import][shard]")
{
    TempDir tmp;
    // Without traces the dumps and logs are most of the bytes: they spread over all shards (with them, the larger
    // traces would take most shards and leave the dumps to one).
    const auto raw = rawFlap(tmp, GENERATE(false, true));
    std::vector<LoadIssue> warnings;
    const auto plan = folder::planShards(raw.string(), 8, warnings);
    REQUIRE(plan.ok());
    std::map<std::uint32_t, std::int64_t> shardOfRank; // the dumps, named by rank
    std::map<std::string, std::set<std::int64_t>> shardsOfHost; // the traces, named by host
    std::set<std::int64_t> used;
    for (std::size_t i = 0; i < plan->listing.files.size(); ++i) {
        const auto name = plan->listing.files[i].filename().string();
        const auto shard = plan->shardOf[i];
        if (name.rfind("nccl_trace_rank_", 0) == 0) {
            REQUIRE(shard >= 0);
            shardOfRank[std::stoul(name.substr(16))] = shard;
        } else if (name.find(".pt.trace.json") != std::string::npos) {
            REQUIRE(shard >= 0);
            shardsOfHost[name.substr(0, name.find('_'))].insert(shard);
        } else if (name == "ibnetdiscover.txt" || name == "opensm.log") {
            CHECK(shard == -1); // no host: the merge reads it
        }
        if (shard >= 0) {
            used.insert(shard);
        }
    }
    REQUIRE(shardOfRank.size() == 64);
    for (std::uint32_t r = 0; r < 64; ++r) {
        INFO("rank " << r);
        CHECK(shardOfRank[r] == shardOfRank[r - r % 8]); // the 8 ranks of a host together
    }
    for (const auto& [host, shards] : shardsOfHost) {
        INFO(host);
        CHECK(shards.size() == 1);
    }
    CHECK(used.size() == 8); // every shard has work
    std::set<std::int64_t> dumpShards;
    for (const auto& [rank, shard] : shardOfRank) {
        dumpShards.insert(shard);
    }
    CHECK(dumpShards.size() >= (shardsOfHost.empty() ? 6u : 1u));
}

TEST_CASE("a raw folder merged from 8 shards is the job a single read gives", "[core][import][shard]")
{
    TempDir tmp;
    const auto raw = rawFlap(tmp);
    NullProgress none;
    const auto single = loadRawFolder(raw.string(), none);
    REQUIRE(single.ok());
    const auto shards = writeShards(raw, tmp.path() / "shards", 8);
    const auto merged = folder::loadFromShards(shards, none);
    INFO((merged ? std::string() : merged.error().format()));
    REQUIRE(merged.ok());
    CHECK(merged->dir == raw.string());
    CHECK(merged->fromShards == 128); // every dump and trace came from a shard, none was read again
    const auto& a = single.value();
    const auto& b = merged->job;
    CHECK(b.snapshot->job.worldSize == 64);
    CHECK(b.recognised == a.recognised);
    std::vector<std::string> wa, wb;
    for (const auto& w : a.warnings) {
        wa.push_back(w.format());
    }
    for (const auto& w : b.warnings) {
        wb.push_back(w.format());
    }
    CHECK(wb == wa);
    CHECK(std::any_of(
        wa.begin(), wa.end(), [](const std::string& w) { return w.find("nccl_trace_rank_5") != std::string::npos; }));
    REQUIRE(writeBundle(*a.snapshot, tmp.str("single")).empty());
    REQUIRE(writeBundle(*b.snapshot, tmp.str("merged")).empty());
    const auto fa = filesOf(tmp.path() / "single"), fb = filesOf(tmp.path() / "merged");
    CHECK(fa.size() == fb.size());
    for (const auto& [name, bytes] : fa) {
        INFO(name);
        CHECK((fb.count(name) && fb.at(name) == bytes)); // ranks, records, groups, clocks, topology, counters
    }
    const auto analysis = analysisOf(*b.snapshot);
    CHECK(analysis == analysisOf(*a.snapshot));
    CHECK(analysis.find("\"incidents\"") != std::string::npos);
}

TEST_CASE("a merge refuses a wrong set of shards, naming the file", "[core][import][shard]")
{
    TempDir tmp;
    const auto raw = rawFlap(tmp);
    const auto shards = writeShards(raw, tmp.path() / "shards", 4);

    SECTION("one left out")
    {
        auto three = shards;
        three.erase(three.begin() + 2);
        const auto e = mergeError(three);
        CHECK_THAT(e, Catch::Contains("shard 2/4") && Catch::Contains("missing") && Catch::Contains("--shard 2/4"));
    }
    SECTION("one given twice")
    {
        auto five = shards;
        five.push_back(shards[1]);
        CHECK_THAT(mergeError(five), Catch::Contains("shard 1/4") && Catch::Contains("give each shard once"));
    }
    SECTION("shards of another N")
    {
        const auto other = writeShards(raw, tmp.path() / "of8", 8);
        auto mixed = shards;
        mixed.back() = other[3];
        CHECK_THAT(
            mergeError(mixed), Catch::Contains(other[3]) && Catch::Contains("shard 3/8") && Catch::Contains("share N"));
    }
    SECTION("shards of another folder")
    {
        fs::copy(raw, tmp.path() / "raw2", fs::copy_options::recursive);
        const auto other = writeShards(absoluteFolder(tmp.str("raw2")), tmp.path() / "other", 4);
        auto mixed = shards;
        mixed[1] = other[1];
        CHECK_THAT(mergeError(mixed),
            Catch::Contains(other[1]) && Catch::Contains("raw2") && Catch::Contains("one raw folder"));
    }
    SECTION("a shard damaged")
    {
        auto bytes = readFile(shards[0]);
        bytes[bytes.size() / 2] ^= 0x55;
        writeFile(shards[0], bytes);
        CHECK_THAT(mergeError(shards), Catch::Contains(shards[0]) && Catch::Contains("damaged shard"));
    }
    SECTION("a shard cut short")
    {
        fs::resize_file(shards[3], fs::file_size(shards[3]) - 100);
        CHECK_THAT(mergeError(shards), Catch::Contains(shards[3]) && Catch::Contains("damaged shard"));
    }
    SECTION("not a shard")
    {
        auto wrong = shards;
        wrong[0] = (raw / "rank0.log").string();
        CHECK_THAT(mergeError(wrong), Catch::Contains("rank0.log") && Catch::Contains("not a Stallscope shard"));
    }
    SECTION("a dump changed since")
    {
        writeFile(raw / "nccl_trace_rank_9", "changed");
        CHECK_THAT(mergeError(shards), Catch::Contains("nccl_trace_rank_9") && Catch::Contains("changed since"));
    }
    SECTION("a file added since")
    {
        writeFile(raw / "late.log", "x\n");
        CHECK_THAT(mergeError(shards), Catch::Contains(raw.string()) && Catch::Contains("not as its shards found it"));
    }
}

TEST_CASE("a shard of a bundle or of no folder is refused", "[core][import][shard]")
{
    TempDir tmp;
    NullProgress none;
    const auto missing = folder::writeShard(tmp.str("nothing"), { 0, 2 }, tmp.str("s.shard"), none);
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.error().format(), Catch::Contains("nothing") && Catch::Contains("not a folder"));
    const auto sim = simulateOrFail(tinyConfig());
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    const auto bundle = folder::writeShard(tmp.str("b"), { 0, 2 }, tmp.str("s.shard"), none);
    REQUIRE_FALSE(bundle.ok());
    CHECK_THAT(bundle.error().format(), Catch::Contains("bundle"));
    CHECK_FALSE(fs::exists(tmp.str("s.shard")));
}
