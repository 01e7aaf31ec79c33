// SPDX-License-Identifier: MIT
#include "test_support.h"
#include "view/rank_search.h"
#include "view/view_state.h"

#include <catch2/catch.hpp>

#include <QSignalSpy>

using namespace stallscope;

TEST_CASE("ViewState owns the window, its history and the cursor", "[core][viewstate]")
{
    ViewState s;
    QSignalSpy windows(&s, &ViewState::timeWindowChanged);
    s.setSpan({ 0, 1000 * kNsPerSec });
    CHECK(s.window() == TimeRange { 0, 1000 * kNsPerSec });
    s.zoomIn({ 100 * kNsPerSec, 200 * kNsPerSec });
    CHECK(s.window() == TimeRange { 100 * kNsPerSec, 200 * kNsPerSec });
    CHECK(s.canGoBack());
    s.pan(-500 * kNsPerSec); // clamped to the span, width kept
    CHECK(s.window() == TimeRange { 0, 100 * kNsPerSec });
    s.back();
    CHECK(s.window() == TimeRange { 0, 1000 * kNsPerSec });
    CHECK(s.canGoForward());
    s.forward();
    CHECK(s.window() == TimeRange { 0, 100 * kNsPerSec });
    s.zoomAround(50 * kNsPerSec, 0.5);
    CHECK(s.window() == TimeRange { 25 * kNsPerSec, 75 * kNsPerSec });
    s.setWindow({ 10, 10 }); // at least the minimum width
    CHECK(s.window().delta() == ViewState::kMinWindowNs);
    s.resetZoom();
    CHECK(s.window() == s.span());
    CHECK(windows.count() >= 7);
    QSignalSpy cursor(&s, &ViewState::cursorChanged);
    s.setCursor(5);
    s.setCursor(5);
    CHECK(cursor.count() == 1);
}

TEST_CASE("go to: a rank number, a host's exact name, or the one host holding the text", "[view]")
{
    const auto sim = test::simulateOrFail(test::tinyConfig());
    const auto& snap = *sim.snapshot;
    const auto rank = findRanks(snap, " 5 ");
    CHECK(rank.ranks == std::vector<std::uint32_t> { 5 });
    CHECK(rank.what.find("rank 5 on ") == 0);
    const std::string host(snap.str(snap.ranks[12].host));
    const auto byHost = findRanks(snap, host);
    REQUIRE_FALSE(byHost.ranks.empty());
    CHECK(std::find(byHost.ranks.begin(), byHost.ranks.end(), 12u) != byHost.ranks.end());
    CHECK(findRanks(snap, "1").ranks == std::vector<std::uint32_t> { 1 }); // digits alone are a rank
    CHECK(findRanks(snap, host.substr(host.size() - 4)).ranks == byHost.ranks); // "a001" names one host
    CHECK(findRanks(snap, "gpu").ranks.empty()); // every host holds it
    CHECK(findRanks(snap, "gpu").what.find("type more of the name") != std::string::npos);
    CHECK(findRanks(snap, "4000000000").ranks.empty());
    CHECK(findRanks(snap, "").ranks.empty());
}
