// SPDX-License-Identifier: MIT
#include "test_support.h"
#include "view/review_session.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <sys/resource.h>

using namespace stallscope;
using namespace stallscope::test;

namespace {
ReviewSession sample()
{
    ReviewSession s;
    s.bundlePath = "bundles/hourly";
    s.window = { 100, 5'000'000'000 };
    s.rowOrder = "rail";
    s.selectedIncident = 2;
    s.plottedLinks = { { 0x0c42a10300001103ULL, 1, 0xfc6a1c0300e40300ULL, 18 } };
    s.layout = "AAAA/wAAAAD9";
    Annotation point;
    point.startNs = point.endNs = 1'000;
    point.text = "link down here — see opensm.log";
    Annotation range;
    range.startNs = 2'000;
    range.endNs = 9'000;
    range.rank = 139;
    range.link = s.plottedLinks[0];
    range.text = "stall on every rank";
    s.annotations = { point, range };
    return s;
}
} // namespace

TEST_CASE("review sessions round-trip", "[core][session]")
{
    TempDir tmp;
    const auto path = tmp.str("review.stallscope");
    const auto s = sample();
    REQUIRE(saveSession(path, s).empty());
    auto back = loadSession(path);
    REQUIRE(back.ok());
    CHECK(back.value() == s);
    CHECK(resolveBundlePath(path, s) == (tmp.path() / "bundles/hourly").string());
    auto abs = s;
    abs.bundlePath = "/data/b";
    CHECK(resolveBundlePath(path, abs) == "/data/b");
}

TEST_CASE("bad session files name the file and what is wrong", "[core][session]")
{
    TempDir tmp;
    writeFile(tmp.path() / "a.stallscope", "{\"format\": \"stallscope-session\", \"version\": 9}");
    auto r = loadSession(tmp.str("a.stallscope"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("a.stallscope") && Catch::Contains("version 9"));
    writeFile(tmp.path() / "b.stallscope", "{oops");
    r = loadSession(tmp.str("b.stallscope"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().format(), Catch::Contains("b.stallscope") && Catch::Contains("invalid JSON"));
    CHECK_FALSE(loadSession(tmp.str("missing.stallscope")).ok());
}

TEST_CASE("saving a session atomically: a failed save keeps the previous file", "[core][session]")
{
    TempDir tmp;
    const auto path = tmp.str("review.stallscope");
    auto s = sample();
    REQUIRE(saveSession(path, s).empty());
    const auto before = readFile(path);
    s.annotations.push_back({ 10, 10, std::nullopt, std::nullopt, std::string(100000, 'x') });
    struct rlimit saved
    {
    };
    ::getrlimit(RLIMIT_FSIZE, &saved);
    auto* previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit tiny = saved;
    tiny.rlim_cur = 4096; // "disk full" after 4 KiB
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &tiny) == 0);
    const auto err = saveSession(path, s);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    CHECK_FALSE(err.empty());
    CHECK(readFile(path) == before);
    CHECK(loadSession(path).ok());
}
