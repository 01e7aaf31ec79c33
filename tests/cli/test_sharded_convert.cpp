// SPDX-License-Identifier: MIT
// The sharded convert end to end (issue #43): N `convert --shard K/N` processes side by side, then `merge`, give the
// bundle, the warnings and the analysis of one `convert`; wrong shard specs and sets are refused with a message.
#include "core/atomic_file.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QProcess>
#include <QStringList>

#include <filesystem>
#include <map>
#include <memory>
#include <regex>

using namespace stallscope;
using namespace stallscope::test;
namespace fs = std::filesystem;

namespace {

struct Run
{
    int code = -1;
    std::string out;
    std::string err;
};

std::unique_ptr<QProcess> start(const std::vector<std::string>& argv)
{
    QStringList args;
    for (const auto& a : argv) {
        args << QString::fromStdString(a);
    }
    auto p = std::make_unique<QProcess>();
    p->start(QStringLiteral(STALLSCOPE_BINARY), args);
    return p;
}

Run finish(QProcess& p)
{
    REQUIRE(p.waitForFinished(300000));
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput().toStdString(),
        p.readAllStandardError().toStdString() };
}

Run run(const std::vector<std::string>& argv)
{
    auto p = start(argv);
    return finish(*p);
}

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

std::string analysisOf(const std::string& bundle)
{
    const auto a = run({ "analyze", bundle, "--json" });
    REQUIRE(a.code == 0);
    return std::regex_replace(a.out, std::regex("\"seconds\": [0-9.e-]+"), "\"seconds\": 0");
}

// A 2-minute flap of the small preset as raw files with profiler traces, at an absolute path.
std::string simulateRaw(const TempDir& tmp)
{
    const auto raw = absoluteFolder(tmp.str("raw")).string();
    REQUIRE(run({ "simulate", "--preset", "small", "--duration", "2m", "--fault",
                    "flap:host-leaf:rank=12:at=60s:for=2s", "--raw", "--kineto", "--out", raw })
                .code
        == 0);
    return raw;
}

} // namespace

TEST_CASE(
    "8 convert --shard processes side by side and merge give the bundle and analysis of one convert", "[cli][shard]")
{
    TempDir tmp;
    const auto raw = simulateRaw(tmp);
    const auto before = folderFingerprint(raw);
    const auto single = run({ "convert", raw, "--out", tmp.str("single") });
    REQUIRE(single.code == 0);

    std::vector<std::unique_ptr<QProcess>> tasks; // as a job array's tasks: all at once
    for (int k = 0; k < 8; ++k) {
        tasks.push_back(start({ "convert", raw, "--shard", std::to_string(k) + "/8", "--out",
            tmp.str("shards") + "/" + std::to_string(k) + ".shard" }));
    }
    for (auto& t : tasks) {
        const auto r = finish(*t);
        INFO(r.err);
        REQUIRE(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("of " + raw) && Catch::Contains("MB/s"));
    }
    const auto merged = run({ "merge", tmp.str("shards"), "--out", tmp.str("merged") });
    INFO(merged.err);
    REQUIRE(merged.code == 0);
    CHECK_THAT(
        merged.out, Catch::Contains("Merged 8 shards") && Catch::Contains("128 dumps and traces from the shards"));
    CHECK(merged.err == single.err); // the same warnings
    const auto a = filesOf(tmp.path() / "single"), b = filesOf(tmp.path() / "merged");
    REQUIRE(a.size() == b.size());
    for (const auto& [name, bytes] : a) {
        INFO(name);
        CHECK((b.count(name) && b.at(name) == bytes));
    }
    const auto analysis = analysisOf(tmp.str("merged"));
    CHECK(analysis == analysisOf(tmp.str("single")));
    CHECK_THAT(analysis, Catch::Contains("gpu-a001")); // rank 12's host: the flap is found
    CHECK(folderFingerprint(raw) == before); // nothing written into the raw folder

    // Seven of the eight: refused, naming the missing one.
    fs::remove(tmp.path() / "shards" / "5.shard");
    const auto seven = run({ "merge", tmp.str("shards"), "--out", tmp.str("m2") });
    CHECK(seven.code == 1);
    CHECK_THAT(seven.err, Catch::Contains("shard 5/8") && Catch::Contains("missing"));
    CHECK_FALSE(fs::exists(tmp.str("m2")));
}

TEST_CASE("convert --shard and merge refuse bad arguments", "[cli][shard]")
{
    TempDir tmp;
    const auto raw = simulateRaw(tmp);
    for (const char* bad : { "0/0", "9/8", "x", "8/8", "1" }) {
        INFO(bad);
        const auto r = run({ "convert", raw, "--shard", bad, "--out", tmp.str("s.shard") });
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--shard: expected K/N") && Catch::Contains(bad));
    }
    CHECK(run({ "convert", raw, "--shard", "0/2", "--out", raw + "/s.shard" }).code == 2); // never into the input
    CHECK(run({ "convert", "--shard", "0/2", "--out", tmp.str("s.shard") }).code == 2); // no folder
    CHECK(run({ "convert", tmp.str("none"), "--shard", "0/2", "--out", tmp.str("s.shard") }).code == 1);
    CHECK(run({ "merge", "--out", tmp.str("m") }).code == 2); // no shard
    REQUIRE(run({ "convert", raw, "--shard", "0/1", "--out", tmp.str("one.shard"), "--quiet" }).code == 0);
    const auto into = run({ "merge", tmp.str("one.shard"), "--out", raw + "/bundle" });
    CHECK(into.code == 2);
    CHECK_THAT(into.err, Catch::Contains("inside"));
    writeFile(tmp.path() / "junk.shard", "not a shard");
    const auto junk = run({ "merge", tmp.str("junk.shard"), "--out", tmp.str("m") });
    CHECK(junk.code == 1);
    CHECK_THAT(junk.err, Catch::Contains("junk.shard") && Catch::Contains("not a Stallscope shard"));
    const auto one = run({ "merge", tmp.str("one.shard"), "--out", tmp.str("m"), "--quiet" });
    CHECK(one.code == 0); // N = 1: a shard of the whole folder
    CHECK(fs::exists(tmp.path() / "m" / "manifest.json"));
}
