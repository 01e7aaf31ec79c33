// SPDX-License-Identifier: MIT
// CLI end to end: the real `stallscope` binary (STALLSCOPE_BINARY) and the commands as functions.
// Over 600 lines as one file: every command, end to end, against the one built binary.
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "open/load_job.h"
#include "core/atomic_file.h"
#include "sim/config.h"
#include "stallscope_version.h"
#include "view/review_session.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QSvgRenderer>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

using namespace stallscope;
using namespace stallscope::test;

namespace {

struct Run
{
    int code = -1;
    std::string out;
    std::string err;
};

Run runBinary(const std::vector<std::string>& argv)
{
    QStringList args;
    for (const auto& a : argv) {
        args << QString::fromStdString(a);
    }
    QProcess p;
    p.start(QStringLiteral(STALLSCOPE_BINARY), args);
    REQUIRE(p.waitForFinished(300000));
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput().toStdString(),
        p.readAllStandardError().toStdString() };
}

// A 2-minute small job with a 2 s host-leaf flap of rank 12 at 60 s, simulated into tmp/b.
std::string simulateTwoMinuteFlap(const TempDir& tmp)
{
    const auto bundle = tmp.str("b");
    REQUIRE(runBinary(
                { "simulate", "--duration", "2m", "--fault", "flap:host-leaf:rank=12:at=60s:for=2s", "--out", bundle })
                .code
        == 0);
    return bundle;
}

Run runInProcess(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    const int code = cli::runSubcommand(args, out, err);
    return { code, out.str(), err.str() };
}

} // namespace

TEST_CASE("argument parsing is GNU style", "[cli]")
{
    const std::vector<cli::OptionSpec> specs = { { "out", true, "" }, { "json", false, "" } };
    auto a = cli::parseArgs({ "--out=x", "pos", "--json", "--", "--literal" }, specs);
    CHECK(a.error.empty());
    CHECK(a.options["out"] == std::vector<std::string> { "x" });
    CHECK(a.options.count("json"));
    CHECK(a.positional == std::vector<std::string> { "pos", "--literal" });
    CHECK(cli::parseArgs({ "--out" }, specs).error == "option --out needs a value");
    CHECK(cli::parseArgs({ "--bogus" }, specs).error == "unknown option --bogus");
    CHECK(cli::parseArgs({ "--json=1" }, specs).error == "option --json takes no value");
    CHECK(cli::parseArgs({ "-h" }, specs).help);
}

TEST_CASE("simulate and info work end to end through the real binary", "[cli]")
{
    TempDir tmp;
    const auto out = tmp.str("b");
    auto r = runBinary({ "simulate", "--preset", "small", "--duration", "90s", "--fault",
        "flap:host-leaf:rank=3:at=30s:for=2s", "--out", out });
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("1 stall(s)"));
    const auto truth = nlohmann::json::parse(readFile(tmp.path() / "b" / "truth.json"));
    CHECK(truth["faults"][0]["link"]["a"]["desc"] == "gpu-a000 mlx5_3");
    CHECK(truth["stalls"].size() == 1);

    r = runBinary({ "info", out, "--json" });
    REQUIRE(r.code == 0);
    const auto info = nlohmann::json::parse(r.out);
    CHECK(info["version"] == STALLSCOPE_VERSION);
    CHECK(nlohmann::json::parse(readFile(tmp.path() / "b" / "manifest.json"))["written_by"]
        == "stallscope " STALLSCOPE_VERSION);
    CHECK(info["ranks"] == 64);
    CHECK(info["hosts"] == 8);
    CHECK(info["links"] == 64 + 8 * 4);
    CHECK(info["collectives"].get<std::uint64_t>() > 64 * 85 * 5);
    CHECK(info["bytes_per_collective"].get<double>() < 33.0);
    CHECK(info["start_ns"].get<std::int64_t>() < info["end_ns"].get<std::int64_t>());
    CHECK(info["warnings"].empty());

    r = runBinary({ "info", out });
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("64 ranks on 8 hosts") && Catch::Contains("bytes/record"));

    SECTION("a preset resized by --hosts is named by its new size")
    {
        auto resized = runBinary({ "simulate", "--preset", "hourly-flap", "--hosts", "16", "--duration", "20s",
            "--no-faults", "--out", tmp.str("r") });
        REQUIRE(resized.code == 0);
        CHECK_THAT(resized.out, Catch::Contains("Simulated llm-pretrain-128:"));
        resized = runBinary({ "simulate", "--preset", "hourly-flap", "--hosts", "16", "--duration", "20s",
            "--no-faults", "--job-name", "mine", "--out", tmp.str("r2") });
        CHECK_THAT(resized.out, Catch::Contains("Simulated mine:"));
    }
    SECTION("same seed, same bytes through the CLI too")
    {
        REQUIRE(runBinary({ "simulate", "--preset", "small", "--duration", "90s", "--fault",
                              "flap:host-leaf:rank=3:at=30s:for=2s", "--out", tmp.str("b2") })
                    .code
            == 0);
        CHECK(readFile(tmp.path() / "b" / "collectives.bin") == readFile(tmp.path() / "b2" / "collectives.bin"));
        CHECK(readFile(tmp.path() / "b" / "truth.json") == readFile(tmp.path() / "b2" / "truth.json"));
    }
}

TEST_CASE("exit codes: 0 ok, 1 bad input, 2 usage", "[cli]")
{
    TempDir tmp;
    CHECK(runInProcess({ "info", "--help" }).code == 0);
    CHECK(runInProcess({ "simulate", "--help" }).code == 0);
    CHECK_THAT(runInProcess({ "simulate", "--help" }).out, Catch::Contains("--fault"));
    CHECK(runInProcess({ "info" }).code == 2);
    CHECK(runInProcess({ "info", "--frobnicate", "x" }).code == 2);
    CHECK(runInProcess({ "simulate", "--preset", "nope", "--out", tmp.str("x") }).code == 2);
    CHECK(runInProcess({ "simulate", "--preset", "small" }).code == 2); // --out is required
    CHECK(runInProcess({ "simulate", "--out", tmp.str("x"), "--fault", "dead-rank:rank=9999:at=1s" }).code == 2);
    CHECK(runInProcess({ "simulate", "--out", tmp.str("x"), "--duration", "ten minutes" }).code == 2);
    const auto bad = runInProcess({ "info", tmp.str("missing") });
    CHECK(bad.code == 1);
    CHECK_THAT(bad.err, Catch::Contains("missing") && Catch::Contains("no such folder"));
    CHECK(runBinary({ "--no-such-flag" }).code == 2);
    CHECK(runBinary({ "info" }).code == 2);
}

TEST_CASE("analyze: text, JSON and exit codes through the real binary", "[cli]")
{
    TempDir tmp;
    const auto out = tmp.str("b");
    REQUIRE(
        runBinary({ "simulate", "--duration", "3m", "--fault", "flap:host-leaf:rank=12:at=60s:for=2s", "--out", out })
            .code
        == 0);
    auto r = runBinary({ "analyze", out });
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(
        r.out, Catch::Contains("1 incident(s)") && Catch::Contains("gpu-a001 mlx5_4") && Catch::Contains("leaf-r4"));
    r = runBinary({ "analyze", out, "--json", "--health-check", "120s", "--health-check-every", "1h" });
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["schema"] == "stallscope.analysis/1");
    REQUIRE(j["incidents"].size() == 1);
    CHECK(j["incidents"][0]["kind"] == "link_flap");
    CHECK(j["incidents"][0]["under_budget"] == true);
    CHECK(j["why_passed"]["health_check_ns"] == 120 * kNsPerSec);

    // A healthy job: exit 0 and no incidents.
    REQUIRE(runBinary({ "simulate", "--duration", "1m", "--no-faults", "--out", tmp.str("ok") }).code == 0);
    r = runBinary({ "analyze", tmp.str("ok"), "--json" });
    CHECK(r.code == 0);
    CHECK(nlohmann::json::parse(r.out)["incidents"].empty());

    // Bad input names the file; usage errors are 2.
    writeFile(tmp.path() / "b" / "manifest.json", "{\n  \"format\": oops\n}\n");
    r = runBinary({ "analyze", out });
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("manifest.json:2"));
    CHECK(runBinary({ "analyze" }).code == 2);
    CHECK(runBinary({ "analyze", out, "--stall-factor", "0.5" }).code == 2);
}

TEST_CASE("render: deterministic PNG with the stall band and the culprit, SVG and PDF", "[cli][render]")
{
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    auto r = runBinary({ "render", bundle, "--incident", "1", "--out", tmp.str("a.png"), "--size", "1200x800" });
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(
        runBinary({ "render", bundle, "--incident", "1", "--out", tmp.str("b.png"), "--size", "1200x800" }).code == 0);
    CHECK(readFile(tmp.path() / "a.png") == readFile(tmp.path() / "b.png")); // same inputs, same bytes
    QImage img(QString::fromStdString(tmp.str("a.png")));
    REQUIRE(img.size() == QSize(1200, 800));
    // The stall band: many pixels in the stall colour (#d55e00).
    int stall = 0;
    for (int y = 0; y < img.height(); y += 2) {
        for (int x = 0; x < img.width(); x += 2) {
            const QRgb c = img.pixel(x, y);
            stall += std::abs(qRed(c) - 0xd5) < 12 && std::abs(qGreen(c) - 0x5e) < 12 && qBlue(c) < 20;
        }
    }
    CHECK(stall > 10000);
    // The culprit link is marked in the topology (right-hand 30 %): a vermillion line there.
    int marked = 0;
    for (int y = 60; y < img.height() - 140; ++y) {
        for (int x = img.width() * 7 / 10 + 4; x < img.width(); ++x) {
            const QRgb c = img.pixel(x, y);
            marked += std::abs(qRed(c) - 0xd5) < 30 && std::abs(qGreen(c) - 0x5e) < 30 && qBlue(c) < 50;
        }
    }
    CHECK(marked > 100);

    REQUIRE(runBinary({ "render", bundle, "--incident", "1", "--out", tmp.str("a.svg"), "--theme", "dark" }).code == 0);
    const auto svg = readFile(tmp.path() / "a.svg");
    CHECK(svg.find("<svg") != std::string::npos);
    QSvgRenderer svgBack(QString::fromStdString(tmp.str("a.svg")));
    CHECK(svgBack.isValid()); // parses back
    CHECK(svgBack.viewBox() == QRect(0, 0, 1600, 1000));
    // The fabric image of a two-minute job gives its length as a duration, not as 0.00 days.
    REQUIRE(runBinary({ "render", bundle, "--fabric", "--out", tmp.str("f.svg") }).code == 0);
    CHECK_THAT(readFile(tmp.path() / "f.svg"), Catch::Contains("fabric review, 2m") && !Catch::Contains(" days, "));
    REQUIRE(
        runBinary({ "render", bundle, "--window", "50s..70s", "--out", tmp.str("a.pdf"), "--views", "heatmap" }).code
        == 0);
    const auto pdf = readFile(tmp.path() / "a.pdf");
    CHECK(pdf.rfind("%PDF", 0) == 0);
    CHECK(pdf.find("%%EOF") != std::string::npos);
    CHECK(pdf.find("/Type /Page") != std::string::npos);

    CHECK(runBinary({ "render", bundle, "--incident", "9", "--out", tmp.str("x.png") }).code == 1);
    CHECK(runBinary({ "render", bundle, "--out", tmp.str("x.png") }).code == 2);
    CHECK(runBinary({ "render", bundle, "--incident", "1", "--out", tmp.str("x.gif") }).code == 1);
}

TEST_CASE("export-trace writes Chrome trace JSON with the expected events", "[cli]")
{
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    auto r = runBinary(
        { "export-trace", bundle, "--out", tmp.str("t.json"), "--window", "50s..70s", "--ranks", "0-3,12" });
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(readFile(tmp.path() / "t.json"));
    std::map<std::string, int> byPhase;
    std::set<int> tids;
    for (const auto& e : j["traceEvents"]) {
        ++byPhase[e["ph"].get<std::string>()];
        if (e["ph"] == "X") {
            tids.insert(e["tid"].get<int>());
            CHECK(e["dur"].get<double>() > 0);
        }
    }
    CHECK(tids == std::set<int> { 0, 1, 2, 3, 12 });
    // ~5 collectives per step per rank over 20 s (4.3 s of which stalled in one collective), 5 ranks.
    CHECK(byPhase["X"] >= 5 * 14 * 5);
    CHECK(byPhase["X"] <= 5 * 22 * 5);
    CHECK(byPhase["i"] == 4); // down and up at both ends of the flapped link
    CHECK(byPhase["C"] > 0); // the culprit's counters
    CHECK(byPhase["M"] == 2 + 2 * 5); // process names, thread names and sort indices
    CHECK(runBinary({ "export-trace", bundle, "--out", tmp.str("x.json"), "--ranks", "0-999" }).code == 2);
    CHECK(runBinary({ "export-trace", bundle }).code == 2);
}

TEST_CASE("a --window the reader cannot use says which end and why, in render and export-trace alike", "[cli]")
{
    // A 20-digit epoch end ended both commands with an uncaught std::out_of_range ("terminate called…").
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    const std::vector<std::pair<std::string, std::string>> cases = {
        { "0..99999999999999999999", "\"99999999999999999999\" is beyond the times Stallscope holds" },
        { "0s..99999999999h", "cannot read \"99999999999h\" as a time" }, // past 2^63 ns as a duration
        { "0s..1e17", "cannot read \"1e17\" as a time" },
        { "5m..4m", "the end (4m) must come after the start (5m)" },
        { "4m", "expected START..END" },
    };
    for (const auto& [window, said] : cases) {
        for (const char* command : { "render", "export-trace" }) {
            const auto r = runInProcess({ command, bundle, "--window", window, "--out", tmp.str("w.png") });
            INFO(command << " --window " << window << ": " << r.err);
            CHECK(r.code == 2);
            CHECK_THAT(r.err, Catch::Contains("--window " + window + ": " + said));
        }
    }
}

TEST_CASE("report: HTML and Markdown that reference only files in the folder", "[cli][render]")
{
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    const auto dir = tmp.path() / "report";
    auto r = runBinary({ "report", bundle, "--out", dir.string() });
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto htmlText = readFile(dir / "report.html");
    const auto md = readFile(dir / "report.md");
    CHECK(htmlText.find("<!DOCTYPE html>") == 0);
    CHECK(htmlText.find("gpu-a001 mlx5_4") != std::string::npos);
    CHECK(htmlText.find("Why nothing caught it") != std::string::npos);
    CHECK(md.find("| 1 |") != std::string::npos);
    // Every referenced file exists in the folder; nothing points outside it or to the network.
    for (const auto* text : { &htmlText, &md }) {
        CHECK(text->find("http://") == std::string::npos);
        CHECK(text->find("https://") == std::string::npos);
    }
    std::size_t pos = 0, images = 0;
    while ((pos = htmlText.find("src=\"", pos)) != std::string::npos) {
        pos += 5;
        const auto name = htmlText.substr(pos, htmlText.find('"', pos) - pos);
        CHECK(name.find('/') == std::string::npos);
        CHECK(std::filesystem::exists(dir / name));
        ++images;
    }
    CHECK(images == 2); // the incident, and the fabric review of the job's span (its host link went down)
    CHECK(htmlText.find("<h2 id=\"fabric\">Fabric review</h2>") != std::string::npos);
    CHECK(md.find("`stallscope report` " STALLSCOPE_VERSION) != std::string::npos);
    CHECK(runBinary({ "report", bundle }).code == 2);
    // --session is in the usage line and read below; the option list accepts it (a missing file is bad input).
    r = runBinary({ "report", bundle, "--out", tmp.str("r2"), "--session", tmp.str("none.stallscope") });
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("none.stallscope"));
}

TEST_CASE("stallscope --version prints the project's version and build, and nothing else", "[cli]")
{
    const auto r = runBinary({ "--version" });
    CHECK(r.code == 0);
    CHECK(r.out == "stallscope " STALLSCOPE_VERSION_BUILD "\n");
    CHECK(r.err.empty());
}

TEST_CASE("fabric data alone: simulate --fabric-only, analyze reviews the fabric, render and report its mode",
    "[cli][fabric]")
{
    TempDir tmp;
    const auto bundle = tmp.str("week");
    auto sim = runBinary({ "simulate", "--preset", "small", "--fabric-only", "--ports", "400", "--duration", "2d",
        "--counter-interval", "30s", "--fault", "flap:leaf-spine:leaf=2:spine=1:at=1h:for=2s:every=90m:jitter=20s",
        "--fault", "flap:host-leaf:rank=5:at=30h:for=40s", "--out", bundle });
    INFO(sim.err);
    REQUIRE(sim.code == 0);
    CHECK_THAT(sim.out, Catch::Contains("fabric only, 400 ports"));
    // The link heatmap's level 0 is kept beside the bundle, and convert keeps one beside its copy.
    CHECK(std::filesystem::file_size(bundle + "/link_levels.bin") > 64);
    const auto copy = tmp.str("copy");
    REQUIRE(runBinary({ "convert", bundle, "--out", copy, "--quiet" }).code == 0);
    CHECK(std::filesystem::file_size(copy + "/link_levels.bin")
        == std::filesystem::file_size(bundle + "/link_levels.bin"));
    auto text = runBinary({ "analyze", bundle });
    INFO(text.err);
    REQUIRE(text.code == 0);
    CHECK_THAT(text.out,
        Catch::Contains("Flapping links (2)") && Catch::Contains("every 1h30m00s") && Catch::Contains("the job crashes")
            && Catch::Contains("GPU-h/day"));
    auto json = runBinary({ "analyze", bundle, "--json", "--job-ranks", "256" });
    REQUIRE(json.code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["schema"] == "stallscope.fabric/1");
    CHECK(j["priced_for"]["job_ranks"] == 256);
    REQUIRE(j["flapping"].size() == 2);
    const auto& crash = j["flapping"][0]; // a crash costs more than a few 4 s stalls
    CHECK(crash["tier"] == "host-leaf");
    CHECK(crash["cost"]["crashes"] == true);
    const auto& hourly = j["flapping"][1];
    CHECK(std::abs(hourly["recurrence"]["period_ns"].get<double>() - 5400e9) < 5400e9 * 0.01);
    CHECK(runBinary({ "analyze", bundle, "--job-ranks", "0" }).code == 2);

    const auto png = tmp.str("fabric.png");
    auto render = runBinary({ "render", bundle, "--out", png });
    INFO(render.err);
    REQUIRE(render.code == 0);
    QImage img(QString::fromStdString(png));
    REQUIRE(img.width() == 1600);
    // The down colour (vermillion) is drawn: the flapper's row in the link heatmap, the link in the topology.
    int down = 0;
    for (int y = 0; y < img.height(); ++y) {
        for (int x = 0; x < img.width(); ++x) {
            const QRgb c = img.pixel(x, y);
            down += std::abs(qRed(c) - 0xd5) < 20 && std::abs(qGreen(c) - 0x5e) < 20 && qBlue(c) < 30;
        }
    }
    CHECK(down > 200);
    CHECK(runBinary({ "render", bundle, "--fabric", "--incident", "1", "--out", png }).code == 2);

    const auto dir = tmp.path() / "report";
    auto report = runBinary({ "report", bundle, "--out", dir.string() });
    REQUIRE(report.code == 0);
    const auto md = readFile(dir / "report.md");
    CHECK_THAT(md, Catch::Contains("# Fabric report") && Catch::Contains("![fabric](fabric.png)"));
    CHECK(std::filesystem::exists(dir / "fabric.png"));
}

TEST_CASE("simulate --raw, info, analyze and convert on a folder of raw files", "[cli][import]")
{
    TempDir tmp;
    const auto raw = tmp.str("incident");
    auto sim = runBinary({ "simulate", "--preset", "small", "--duration", "3m", "--fault",
        "flap:host-leaf:rank=9:at=60s:for=2s", "--raw", "--fr-format", "json", "--out", raw });
    INFO(sim.err);
    REQUIRE(sim.code == 0);
    const auto before = folderFingerprint(raw);
    auto info = runBinary({ "info", raw });
    REQUIRE(info.code == 0);
    CHECK_THAT(info.out,
        Catch::Contains("64 Flight Recorder JSON dumps") && Catch::Contains("64 rank logs")
            && Catch::Contains("1 ibnetdiscover topology") && Catch::Contains("Prometheus exposition")
            && Catch::Contains("; files read ")); // not "bundle": a folder of raw files
    auto analysis = runBinary({ "analyze", raw });
    REQUIRE(analysis.code == 0);
    CHECK_THAT(analysis.out, Catch::Contains("culprit      gpu-a001 mlx5_1"));
    const auto bundle = tmp.str("bundle");
    auto conv = runBinary({ "convert", raw, "--out", bundle });
    INFO(conv.err);
    REQUIRE(conv.code == 0);
    CHECK_THAT(conv.out, Catch::Contains("Converted") && Catch::Contains("64 ranks"));
    // The rank heatmap's level 0 is kept beside the bundle: a 64-byte header and 4 bytes a cell.
    CHECK(std::filesystem::file_size(bundle + "/rank_levels.bin") > 64 + 64 * 256 * 4);
    auto again = runBinary({ "analyze", bundle });
    REQUIRE(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("culprit      gpu-a001 mlx5_1"));
    // With 1 MiB for counter samples the convert spills them beside the bundle and writes the same analysis.
    const auto tight = tmp.str("tight");
    auto spilled = runBinary({ "convert", raw, "--out", tight, "--memory-mb", "1" });
    INFO(spilled.err);
    REQUIRE(spilled.code == 0);
    CHECK_THAT(spilled.out, Catch::Contains("outgrew 1.0 MB") && Catch::Contains("scratch file in " + tmp.str()));
    const auto untimed = [](std::string text) { // "analysed N records in 0.00 s" is the one line that varies
        const auto at = text.find(" records in ");
        return at == std::string::npos ? text : text.erase(at, text.find('\n', at) - at);
    };
    CHECK(untimed(runBinary({ "analyze", tight }).out) == untimed(again.out));
    CHECK(runBinary({ "convert", raw, "--out", tmp.str("b3"), "--memory-mb", "0" }).code == 2);
    // "--out b4/": the scratch files go beside b4, not into the folder not made yet.
    CHECK(runBinary({ "convert", raw, "--out", tmp.str("b4") + "/", "--memory-mb", "1" }).code == 0);
    CHECK(runBinary({ "convert", raw, "--out", raw }).code == 2); // never writes over what it reads
    CHECK(runBinary({ "convert", raw }).code == 2);
    CHECK(runBinary({ "convert", tmp.str("missing"), "--out", tmp.str("b2") }).code == 1);
    CHECK(folderFingerprint(raw) == before); // reading never modified the folder
}

TEST_CASE("prometheus input: usage errors are caught before any request, an absent server is a clear error",
    "[cli][prometheus]")
{
    CHECK(runBinary({ "info", "--prometheus", "http://127.0.0.1:9" }).code == 2); // no --from/--to
    auto r = runBinary({ "analyze", "--prometheus", "http://127.0.0.1:9", "--from", "yesterday", "--to", "1" });
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--from/--to"));
    CHECK(runBinary({ "info", "/tmp", "--from", "1793491200" }).code == 2); // --from without --prometheus
    CHECK(runBinary({ "convert", "--prometheus", "http://x", "--from", "1", "--to", "2" }).code == 2); // no --out
    auto down = runBinary({ "info", "--prometheus", "http://127.0.0.1:9", "--from", "2026-11-01T00:00:00Z", "--to",
        "2026-11-01T01:00:00Z", "--step", "15s" });
    CHECK(down.code == 1);
    CHECK_THAT(down.err, Catch::Contains("http://127.0.0.1:9") || Catch::Contains("query_range"));
}

TEST_CASE("exercise: list, new, hint and check through the real binary, as an instructor uses them", "[cli][training]")
{
    auto list = runBinary({ "exercise", "list", "--json" });
    REQUIRE(list.code == 0);
    const auto j = nlohmann::json::parse(list.out);
    REQUIRE(j.size() >= 12);
    CHECK(j[0]["id"] == "first-flap");

    TempDir tmp;
    const auto dir = tmp.str("student-1");
    auto made = runBinary({ "exercise", "new", "red-herring", "--out", dir, "--seed", "808" });
    INFO(made.err);
    REQUIRE(made.code == 0);
    CHECK_THAT(made.out, Catch::Contains("colleague already points at an uplink"));
    CHECK_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "truth.json"));
    CHECK(runBinary({ "exercise", "new", "red-herring", "--out", dir }).code == 1); // never over a folder
    CHECK(runBinary({ "exercise", "new", "no-such", "--out", tmp.str("x") }).code == 2);

    auto hint = runBinary({ "exercise", "hint", dir, "2" });
    REQUIRE(hint.code == 0);
    CHECK_THAT(hint.out, Catch::Contains("Hint 2 of 2") && Catch::Contains("link_downed"));

    // A trainee who blamed the loud uplink, and one who found the flap.
    writeFile(tmp.path() / "wrong.json", R"({"verdict": "stretched", "links": ["spine-03 port 2"]})");
    auto wrong = runBinary({ "exercise", "check", dir, "--answer", tmp.str("wrong.json") });
    INFO(wrong.err);
    REQUIRE(wrong.code == 0);
    CHECK_THAT(wrong.out, Catch::Contains("never went down") && Catch::Contains("Score 30 of 90"));
    CHECK_THAT(
        wrong.out, Catch::Contains("What the analysis finds") && Catch::Contains("culprit      gpu-a002 mlx5_5"));
    writeFile(tmp.path() / "right.json",
        R"({"verdict": "stretched", "links": ["leaf-r5 port 3"], "cost_gpu_seconds": 270, "hints_used": 1})");
    auto right = runBinary({ "exercise", "check", dir, "--answer", tmp.str("right.json"), "--json" });
    REQUIRE(right.code == 0);
    const auto score = nlohmann::json::parse(right.out);
    CHECK(score["points"] == 85);
    CHECK(score["percent"] == 94);
    CHECK(score["answer"]["links"][0] == "gpu-a002 mlx5_5 port 1 <-> leaf-r5 port 3");

    writeFile(tmp.path() / "bad.json", R"({"verdict": "fine"})");
    auto bad = runBinary({ "exercise", "check", dir, "--answer", tmp.str("bad.json") });
    CHECK(bad.code == 1);
    CHECK_THAT(bad.err, Catch::Contains("bad.json: verdict: expected stretched"));
    CHECK(runBinary({ "exercise", "check", tmp.str("nowhere"), "--answer", tmp.str("right.json") }).code == 1);
}

TEST_CASE("names and text that are not clean UTF-8 print escaped and write valid JSON in every command", "[cli]")
{
    // A file named in Latin-1 ended `info --json` with an uncaught nlohmann type_error.316 (abort); a file named with
    // an ESC sequence and a newline was printed raw by `info` (colours, a title, a split line on the terminal).
    TempDir tmp;
    const auto dir = tmp.path() / "raw";
    std::filesystem::create_directory(dir);
    for (const auto* part :
        { "flight_recorder/pickle/nccl_trace_rank_1", "flight_recorder/pickle/nccl_trace_rank_2", "logs/rank2.log" }) {
        std::filesystem::copy_file(testDataPath(part), dir / std::filesystem::path(part).filename());
    }
    auto topology = testData("ibnetdiscover/two-hosts.txt");
    for (auto at = topology.find("node017"); at != std::string::npos; at = topology.find("node017")) {
        topology.replace(at, 7,
            "n\xe9"
            "de017"); // a host name in a node description: Latin-1, not UTF-8
    }
    writeFile(dir / "two-hosts.txt", topology);
    writeFile(dir / "caf\xe9.prom", "junk");
    writeFile(dir / "weird\x1b[31mname\nline2.prom", "junk");

    const auto info = runInProcess({ "info", dir.string() });
    REQUIRE(info.code == 0);
    CHECK(info.out.find('\x1b') == std::string::npos);
    CHECK_THAT(info.out, Catch::Contains("weird\\x1b[31mname\\nline2.prom"));

    const auto json = runInProcess({ "info", dir.string(), "--json" });
    INFO(json.err);
    REQUIRE(json.code == 0);
    const auto summary = nlohmann::json::parse(json.out); // throws on invalid UTF-8 or any JSON error
    CHECK_THAT(summary["warnings"].dump(), Catch::Contains("caf\xef\xbf\xbd.prom")); // U+FFFD for the Latin-1 byte

    const auto bundle = tmp.str("b");
    const auto convert = runInProcess({ "convert", dir.string(), "--out", bundle });
    INFO(convert.err);
    REQUIRE(convert.code == 0);
    CHECK_THAT(readFile(std::filesystem::path(bundle) / "topology.json"),
        Catch::Contains("n\xef\xbf\xbd"
                        "de017"));
    const auto reopened = runInProcess({ "info", bundle });
    INFO(reopened.err);
    CHECK(reopened.code == 0);
    const auto analyze = runInProcess({ "analyze", bundle, "--json" });
    CHECK(analyze.code <= 1);
    CHECK_NOTHROW(nlohmann::json::parse(analyze.out));
    const auto trace = runInProcess({ "export-trace", bundle, "--out", tmp.str("t.json") });
    INFO(trace.err);
    REQUIRE(trace.code == 0);
    CHECK_NOTHROW(nlohmann::json::parse(readFile(tmp.path() / "t.json")));
}

TEST_CASE("a report of hosts and a job named with Markdown's own characters keeps its tables and headings", "[cli]")
{
    // A host named "gpu|a001" split the incident table's row into a cell too many; a job name holding a newline and
    // "# " made a heading of its own; "<script>" reached renderers that pass inline HTML.
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    const std::string host = "gpu|a001*<script>x</script>\\u001b[31m"; // as JSON spells ESC
    for (const auto* name : { "topology.json", "manifest.json" }) {
        auto text = readFile(std::filesystem::path(bundle) / name);
        for (auto at = text.find("gpu-a001"); at != std::string::npos; at = text.find("gpu-a001", at + host.size())) {
            text.replace(at, 8, host);
        }
        if (std::string(name) == "manifest.json") {
            const auto at = text.find("\"sim-small\"");
            REQUIRE(at != std::string::npos);
            text.replace(at, 11, "\"sim\\n# injected\"");
        }
        writeFile(std::filesystem::path(bundle) / name, text);
    }
    const auto dir = tmp.path() / "report";
    const auto r = runBinary({ "report", bundle, "--out", dir.string() });
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto md = readFile(dir / "report.md");
    INFO(md);
    CHECK(md.find('\x1b') == std::string::npos);
    // Outside code blocks (where nothing acts) no line is a heading of the job name's making or holds markup.
    std::string fence;
    std::istringstream all(md);
    for (std::string line; std::getline(all, line);) {
        if (line.rfind("```", 0) == 0) {
            fence = fence.empty() ? line : (line == fence ? std::string() : fence);
        } else if (fence.empty()) {
            CHECK(line.rfind("# injected", 0) == std::string::npos);
            for (auto at = line.find("<script>"); at != std::string::npos; at = line.find("<script>", at + 1)) {
                CHECK((at > 0 && line[at - 1] == '\\')); // "\<script>" is text
            }
        }
    }
    CHECK(fence.empty());
    CHECK_THAT(md, Catch::Contains("# Incident report: sim\\\\n\\# injected\n"));
    CHECK_THAT(md, Catch::Contains("gpu\\|a001\\*\\<script>x\\</script>"));
    // Every row of the incident table has the header's eight cells: nine bars that are not escaped.
    auto bars = [](const std::string& line) {
        int n = 0;
        for (std::size_t i = 0; i < line.size(); ++i) {
            n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
        }
        return n;
    };
    std::istringstream lines(md);
    int rows = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| 1 |", 0) == 0) {
            CHECK(bars(line) == 9);
            ++rows;
        }
    }
    CHECK(rows == 1);
    const auto html = readFile(dir / "report.html");
    CHECK(html.find("<script>") == std::string::npos);
    CHECK_THAT(html, Catch::Contains("gpu|a001*&lt;script&gt;"));
    CHECK(html.find('\x1b') == std::string::npos);
    // The terminal's text: the escape shown, not obeyed.
    const auto analyze = runBinary({ "analyze", bundle });
    CHECK(analyze.out.find('\x1b') == std::string::npos);
    CHECK_THAT(analyze.out, Catch::Contains("gpu|a001*<script>x</script>\\x1b[31m"));
}

TEST_CASE(
    "no command writes into what it reads: --out inside the bundle or folder is refused, nothing written", "[cli]")
{
    // `report B --out B` wrote report.html and PNGs into the bundle; `export-trace RAW --out RAW/t.json` left a Chrome
    // trace that the next open of RAW takes for a profiler trace.
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    const auto before = folderFingerprint(bundle);
    std::filesystem::create_symlink(bundle, tmp.path() / "link");
    const std::vector<std::vector<std::string>> cases = {
        { "report", bundle, "--out", bundle }, { "report", bundle, "--out", bundle + "/images" },
        { "render", bundle, "--incident", "1", "--out", bundle + "/i.png" },
        { "render", bundle, "--incident", "1", "--out", tmp.str("link") + "/i.png" }, // by another name
        { "export-trace", bundle, "--out", bundle + "/../b/t.json" }, { "convert", bundle, "--out", bundle + "/" },
        { "convert", bundle, "--out", bundle + "/again" },
        { "convert", bundle, "--out", tmp.str() }, // holds the input: replacing it would take the input along
    };
    for (const auto& args : cases) {
        const auto r = runInProcess(args);
        INFO(args[0] << " " << args.back() << ": " << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("which this command reads"));
    }
    CHECK(folderFingerprint(bundle) == before);
    CHECK(std::filesystem::exists(tmp.path() / "link"));
    // Beside it is fine.
    CHECK(runInProcess({ "export-trace", bundle, "--out", tmp.str("t.json") }).code == 0);
    CHECK(runInProcess({ "convert", bundle, "--out", tmp.str("b2") }).code == 0);
}

TEST_CASE("a report of fr_trace output alone says the time is unknown rather than dating it at the epoch",
    "[cli][logs_job][fr_trace]")
{
    TempDir tmp;
    const auto dir = (std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only" / "fr-trace").string();
    const auto out = tmp.path() / "report";
    auto r = runBinary({ "report", dir, "--out", out.string() });
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto md = test::readFile(out / "report.md");
    CHECK_THAT(md, Catch::Contains("8 ranks, time unknown."));
    CHECK_THAT(md, Catch::Contains("## Incident 1: dead rank, time unknown"));
    CHECK_THAT(md, !Catch::Contains("1970"));
    CHECK_THAT(test::readFile(out / "report.html"), !Catch::Contains("1970"));
}

TEST_CASE("logs alone through the CLI: info lists the facts, analyze says what the logs say, --json refusals parse",
    "[cli][logs_job]")
{
    const auto dir = (std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only" / "link").string();
    const auto info = runInProcess({ "info", dir });
    REQUIRE(info.code == 0);
    CHECK_THAT(info.out, Catch::Contains("(4 ranks on 2 hosts)"));
    CHECK_THAT(info.out, Catch::Contains("rank logs, completion error: 5"));
    CHECK_THAT(info.out, Catch::Contains("2026-03-14 09:41:07.000 UTC rank 3 gpu-k002: status 12, vendor err 129"));
    CHECK_THAT(info.out, !Catch::Contains("1970-01-01"));
    CHECK_THAT(info.out, Catch::Contains("rank 3 (gpu-k002): IB via mlx5_1"));
    const auto text = runInProcess({ "analyze", dir });
    REQUIRE(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("What the logs say") && Catch::Contains("first error"));
    CHECK_THAT(text.out, !Catch::Contains("Quiet") && !Catch::Contains("No link went down"));
    const auto json = runInProcess({ "analyze", dir, "--json" });
    REQUIRE(json.code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["logs"]["first_error"]["host"] == "gpu-k002");
    CHECK(j["logs"]["hang"]["seq"] == 2207);

    TempDir tmp;
    writeFile(tmp.path() / "notes.txt", "nothing here\n");
    for (const char* cmd : { "info", "analyze" }) {
        const auto refused = runInProcess({ cmd, tmp.str(), "--json" });
        CHECK(refused.code == 1);
        const auto e = nlohmann::json::parse(refused.out); // stdout holds a JSON object, not nothing
        CHECK_THAT(e["error"].get<std::string>(), Catch::Contains("nothing readable"));
    }
}

TEST_CASE("simulate --raw --no-flight-recorder: a folder of logs names the same culprit as with dumps",
    "[cli][import][logs_job]")
{
    TempDir tmp;
    const auto raw = tmp.str("logs-only");
    auto sim = runBinary({ "simulate", "--preset", "small", "--duration", "3m", "--fault",
        "flap:host-leaf:rank=9:at=60s:for=2s", "--raw", "--no-flight-recorder", "--out", raw });
    INFO(sim.err);
    REQUIRE(sim.code == 0);
    auto analysis = runBinary({ "analyze", raw });
    INFO(analysis.out);
    REQUIRE(analysis.code == 0);
    CHECK_THAT(analysis.out, Catch::Contains("64 ranks"));
    CHECK_THAT(analysis.out, Catch::Contains("culprit      gpu-a001 mlx5_1")); // as the dumps' analysis above
    CHECK_THAT(analysis.out, Catch::Contains("What the logs say"));
}

TEST_CASE("simulate --raw --node-files: each host's ibstat, dmesg and sysfs copy, and the folder still analyses",
    "[cli][import][node_tools]")
{
    TempDir tmp;
    const auto raw = tmp.str("with-nodes");
    auto sim = runBinary({ "simulate", "--preset", "small", "--duration", "3m", "--fault",
        "flap:host-leaf:rank=9:at=60s:for=2s", "--raw", "--node-files", "--out", raw });
    INFO(sim.err);
    REQUIRE(sim.code == 0);
    const std::filesystem::path nodes = std::filesystem::path(raw) / "nodes";
    CHECK_THAT(test::readFile(nodes / "gpu-a001" / "dmesg.txt"),
        Catch::Contains("mlx5_1: Port: 1 Link DOWN") && Catch::Contains("mlx5_1: Port: 1 Link ACTIVE"));
    CHECK_THAT(test::readFile(nodes / "gpu-a000" / "dmesg.txt"), !Catch::Contains("Link DOWN"));
    // The register the host's collector read last: the drops from before the window, and this one.
    std::string lastDowned, first;
    std::istringstream csv(test::readFile(std::filesystem::path(raw) / "counters-gpu-a001.csv"));
    for (std::string row; std::getline(csv, row);) {
        if (row.find(",gpu-a001,mlx5_1,1,") != std::string::npos) {
            std::vector<std::string> cells;
            std::istringstream cs(row);
            for (std::string cell; std::getline(cs, cell, ',');) {
                cells.push_back(cell);
            }
            REQUIRE(cells.size() > 5); // t_ns,host,device,port,state,link_downed,...
            first = first.empty() ? cells[5] : first;
            lastDowned = cells[5];
        }
    }
    REQUIRE_FALSE(lastDowned.empty());
    CHECK(std::stoull(lastDowned) == std::stoull(first) + 1);
    CHECK(test::readFile(nodes / "gpu-a001" / "sys/class/infiniband/mlx5_1/ports/1/counters/link_downed")
        == lastDowned + "\n");
    CHECK(test::readFile(nodes / "gpu-a001" / "sys/class/infiniband/mlx5_1/ports/1/state") == "4: ACTIVE\n");
    CHECK(test::readFile(nodes / "gpu-a001" / "sys/class/infiniband/mlx5_1/ports/1/rate") == "400 Gb/sec (4X NDR)\n");
    CHECK_THAT(test::readFile(nodes / "gpu-a000" / "ibstat.txt"),
        Catch::Contains("CA 'mlx5_7'")
            && Catch::Contains("\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n"));
    auto analysis = runBinary({ "analyze", raw });
    INFO(analysis.out);
    REQUIRE(analysis.code == 0);
    CHECK_THAT(analysis.out, Catch::Contains("culprit      gpu-a001 mlx5_1"));
}

TEST_CASE("SIGTERM ends the window with its exercise folder removed from the temp folder", "[cli][training]")
{
    // #45: `kill` left /tmp/stallscope-exercise-XXXXXX behind (no destructor ran).
    test::TempDir tmp;
    QProcess gui;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("TMPDIR"), QString::fromStdString(tmp.str()));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), QString::fromStdString(tmp.str("config")));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), QString::fromStdString(tmp.str("cache")));
    gui.setProcessEnvironment(env);
    gui.start(QStringLiteral(STALLSCOPE_BINARY), { QStringLiteral("--exercise"), QStringLiteral("first-flap") });
    REQUIRE(gui.waitForStarted(10000));
    const auto exerciseFolders = [&] {
        int n = 0;
        for (const auto& e : std::filesystem::directory_iterator(tmp.str())) {
            n += e.path().filename().string().rfind("stallscope-exercise-", 0) == 0;
        }
        return n;
    };
    for (int i = 0; i < 600 && exerciseFolders() == 0; ++i) {
        gui.waitForFinished(100);
    }
    REQUIRE(exerciseFolders() == 1);
    gui.terminate(); // SIGTERM
    REQUIRE(gui.waitForFinished(30000));
    CHECK(gui.exitStatus() == QProcess::NormalExit);
    CHECK(exerciseFolders() == 0);
}

TEST_CASE("render --session draws the session's window, row order and colouring as the window showed them",
    "[cli][render]")
{
    TempDir tmp;
    const auto bundle = simulateTwoMinuteFlap(tmp);
    const auto analyzed = runBinary({ "analyze", bundle, "--json" });
    REQUIRE(analyzed.code == 0);
    const TimeNs start = nlohmann::json::parse(analyzed.out)["job"]["start_ns"];
    ReviewSession s;
    s.bundlePath = bundle;
    s.window = { start + 50 * kNsPerSec, start + 70 * kNsPerSec };
    REQUIRE(saveSession(tmp.str("rank.stallscope"), s).empty());
    s.rowOrder = "first-stuck";
    REQUIRE(saveSession(tmp.str("stuck.stallscope"), s).empty());

    // No --incident and no --window: the session's window is the one drawn.
    auto r = runBinary({ "render", bundle, "--session", tmp.str("rank.stallscope"), "--out", tmp.str("s.png") });
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto window = std::to_string(s.window.start) + ".." + std::to_string(s.window.end);
    REQUIRE(runBinary({ "render", bundle, "--window", window, "--out", tmp.str("w.png") }).code == 0);
    CHECK(readFile(tmp.path() / "s.png") == readFile(tmp.path() / "w.png"));
    // The session's row order is drawn too: first-stuck rows are not rank rows.
    REQUIRE(
        runBinary({ "render", bundle, "--session", tmp.str("stuck.stallscope"), "--out", tmp.str("f.png") }).code == 0);
    CHECK(readFile(tmp.path() / "f.png") != readFile(tmp.path() / "s.png"));
    // An explicit window still wins over the session's.
    REQUIRE(runBinary({ "render", bundle, "--session", tmp.str("rank.stallscope"), "--window", "10s..20s", "--out",
                          tmp.str("e.png") })
                .code
        == 0);
    CHECK(readFile(tmp.path() / "e.png") != readFile(tmp.path() / "s.png"));
}

TEST_CASE("a simulation is written as a bundle one way, for simulate and the window's demo alike", "[cli]")
{
    test::TempDir out;
    const auto dir = out.str("sim");
    auto config = *presetConfig("small");
    NullProgress progress;
    auto sim = simulate(config, progress);
    REQUIRE(sim);
    const auto written = writeSimulatedBundle(config, sim.value(), dir);
    CHECK(written.error.empty());
    CHECK(written.warning.empty());
    CHECK(std::filesystem::exists(dir + "/manifest.json"));
    CHECK(std::filesystem::file_size(dir + "/link_levels.bin") > 64); // the demo's copy once went without
    CHECK(std::filesystem::file_size(dir + "/rank_levels.bin") > 64);
    {
        // Opening it for the window reads the rank heatmap's level 0 from the file; without the file, from the
        // records.
        SharedProgress opening;
        const auto opened = openPath(dir, opening);
        REQUIRE(opened.error.empty());
        CHECK(opened.heatmap->levelsFromFile());
        REQUIRE(opened.linkStates); // built with the job, for the fabric view
        CHECK(opened.linkStates->linkCount() == opened.snapshot->topology.links().size());
        const auto copy = out.str("copy");
        std::filesystem::copy(dir, copy);
        std::filesystem::remove(copy + "/rank_levels.bin");
        SharedProgress again;
        const auto built = openPath(copy, again);
        REQUIRE(built.error.empty());
        CHECK_FALSE(built.heatmap->levelsFromFile());
        CHECK(built.heatmap->levels() == opened.heatmap->levels());
    }
    CHECK(std::filesystem::file_size(dir + "/truth.json") > 2);
    // Into a path that cannot be a folder: the error says why, and no truth is left half written.
    const auto blocked = out.str("file");
    REQUIRE(writeFileAtomic(blocked, "x").empty());
    CHECK_FALSE(writeSimulatedBundle(config, sim.value(), blocked + "/sim").error.empty());
}

TEST_CASE("simulate --memory-mb 1 spills its records to scratch files beside --out and writes the same bundle", "[cli]")
{
    TempDir tmp;
    const std::vector<std::string> job = { "simulate", "--preset", "small", "--duration", "4m" };
    auto held = job, spilled = job;
    held.insert(held.end(), { "--out", tmp.str("held") });
    spilled.insert(spilled.end(), { "--out", tmp.str("spilled"), "--memory-mb", "1" });
    REQUIRE(runInProcess(held).code == 0);
    const auto r = runInProcess(spilled);
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(std::filesystem::file_size(tmp.path() / "spilled" / "collectives.bin") > (2 << 20)); // 2 chunks at least
    for (const auto* name : { "collectives.bin", "counters.bin", "manifest.json", "rank_levels.bin", "truth.json" }) {
        INFO(name);
        CHECK(readFile(tmp.path() / "held" / name) == readFile(tmp.path() / "spilled" / name));
    }
    // Nothing is left beside the bundles: the scratch folders went with their chunks.
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path())) {
        left.push_back(e.path().filename().string());
    }
    std::sort(left.begin(), left.end());
    CHECK(left == std::vector<std::string> { "held", "spilled" });
    CHECK(runInProcess({ "simulate", "--out", tmp.str("x"), "--memory-mb", "0" }).code == 2);
}

TEST_CASE("simulate --raw --shard K/N writes its hosts' files, and the folder's own in shard 0 only", "[cli][shard]")
{
    TempDir tmp;
    const std::vector<std::string> job = { "simulate", "--preset", "small", "--duration", "60s", "--raw" };
    auto first = job, second = job;
    first.insert(first.end(), { "--out", tmp.str("raw"), "--shard", "0/2" });
    second.insert(second.end(), { "--out", tmp.str("raw"), "--shard", "1/2" });
    REQUIRE(runInProcess(second).code == 0);
    CHECK_FALSE(std::filesystem::exists(tmp.path() / "raw" / "truth.json"));
    CHECK_FALSE(std::filesystem::exists(tmp.path() / "raw" / "ibnetdiscover.txt"));
    CHECK(std::filesystem::exists(tmp.path() / "raw" / "rank63.log"));
    CHECK_FALSE(std::filesystem::exists(tmp.path() / "raw" / "rank0.log"));
    REQUIRE(runInProcess(first).code == 0);
    CHECK(std::filesystem::exists(tmp.path() / "raw" / "truth.json"));
    CHECK(std::filesystem::exists(tmp.path() / "raw" / "rank0.log"));
    auto whole = job;
    whole.insert(whole.end(), { "--out", tmp.str("whole") });
    REQUIRE(runInProcess(whole).code == 0);
    std::size_t files = 0, same = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path() / "whole")) {
        ++files;
        same += readFile(e.path()) == readFile(tmp.path() / "raw" / e.path().filename());
    }
    CHECK(same == files);
    // Usage: K/N as convert takes it, and only with --raw.
    CHECK(
        runInProcess({ "simulate", "--preset", "small", "--duration", "20s", "--out", tmp.str("b"), "--shard", "0/2" })
            .code
        == 2);
    CHECK(runInProcess({ "simulate", "--preset", "small", "--duration", "20s", "--raw", "--out", tmp.str("c"),
                           "--shard", "2/2" })
              .code
        == 2);
}

TEST_CASE("simulate refuses a bad --raw option before it simulates", "[cli][import]")
{
    // The records are spilled past 1 MiB into a folder beside --out, which cannot be made where a file stands in for
    // the parent: a simulation that runs fails there. Each bad option must be what is reported, with the usage exit
    // code.
    TempDir tmp;
    writeFile(tmp.path() / "file", "not a folder");
    const auto out = (tmp.path() / "file" / "raw").string();
    const std::vector<std::vector<std::string>> bad = { { "--fr-format", "msgpack" }, { "--fr-entries", "many" },
        { "--records-from", "0-99999" }, { "--shard", "3/2" } };
    for (const auto& option : bad) {
        std::vector<std::string> args = { "simulate", "--preset", "small", "--memory-mb", "1", "--raw", "--out", out };
        args.insert(args.end(), option.begin(), option.end());
        const auto r = runInProcess(args);
        INFO(option[0] << ": " << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains(option[0] + ":"));
        CHECK_THAT(r.err, !Catch::Contains("records-0.chunk"));
    }
    // The same command with good options reaches the simulation, which fails at the spill folder.
    const auto r = runInProcess({ "simulate", "--preset", "small", "--memory-mb", "1", "--raw", "--out", out });
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("records-0.chunk"));
}

TEST_CASE("render of a folder where few ranks have records draws their rows unless --rows all says otherwise",
    "[cli][render][partial]")
{
    TempDir tmp;
    const auto dir = tmp.str("one-host");
    const auto sim = test::simulateOrFail(test::tinyConfig());
    REQUIRE(sim.snapshot->job.worldSize > 32);
    test::writePartialRawFolder(*sim.snapshot, dir, 8);
    auto render = [&](const std::vector<std::string>& extra, const std::string& out) {
        std::vector<std::string> args { "render", dir, "--incident", "1", "--out", tmp.str(out) };
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = runBinary(args);
        INFO(r.err);
        REQUIRE(r.code == 0);
        return readFile(tmp.path() / out);
    };
    const auto automatic = render({}, "auto.png");
    CHECK(automatic == render({ "--rows", "recorded" }, "recorded.png"));
    CHECK(automatic != render({ "--rows", "all" }, "all.png"));
    const auto bad = runBinary({ "render", dir, "--incident", "1", "--rows", "some", "--out", tmp.str("x.png") });
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--rows: expected all or recorded"));
}

TEST_CASE("opening for the window: a job's heatmap comes before its link states, fabric data's states come first",
    "[cli][open]")
{
    test::TempDir out;
    struct Seen
    {
        bool heatmap = false, states = false, linkHeatmap = false;
    };
    const auto stagesOf = [](const std::string& dir, OpenedJob& opened) {
        std::mutex mutex; // stage 1 comes from the loading thread, the others from the levels' thread
        std::vector<Seen> seen;
        SharedProgress progress;
        opened = openPath(dir, progress, [&](const OpenedJob& partial) {
            std::lock_guard lock(mutex);
            seen.push_back(
                { partial.heatmap != nullptr, partial.linkStates != nullptr, partial.linkHeatmap != nullptr });
        });
        return seen;
    };
    SECTION("a job: the first frame does not wait for every link's state")
    {
        const auto sim = simulateOrFail(tinyConfig());
        const auto dir = out.str("job");
        REQUIRE(writeSimulatedBundle(tinyConfig(), sim, dir).error.empty());
        OpenedJob opened;
        const auto seen = stagesOf(dir, opened);
        REQUIRE(opened.error.empty());
        REQUIRE(seen.size() == 4);
        CHECK((!seen[0].heatmap && !seen[0].states)); // stage 1: the snapshot alone
        CHECK((seen[1].heatmap && !seen[1].states)); // the rank heatmap, the states still being read
        CHECK((seen[2].heatmap && seen[2].states && !seen[2].linkHeatmap));
        CHECK((seen[3].heatmap && seen[3].states && seen[3].linkHeatmap));
        REQUIRE(opened.linkStates); // and the opened job has them
        CHECK(opened.linkStates->linkCount() == opened.snapshot->topology.links().size());
    }
    SECTION("fabric data: its main view is the links, drawn with their states from the first stage")
    {
        auto config = tinyConfig();
        config.fabricOnly = true;
        const auto sim = simulateOrFail(config);
        const auto dir = out.str("fabric");
        REQUIRE(writeSimulatedBundle(config, sim, dir).error.empty());
        OpenedJob opened;
        const auto seen = stagesOf(dir, opened);
        REQUIRE(opened.error.empty());
        REQUIRE(seen.size() == 2);
        CHECK((seen[0].states && !seen[0].heatmap));
        CHECK((seen[1].states && seen[1].heatmap && seen[1].linkHeatmap));
        CHECK(opened.linkStates);
    }
}
