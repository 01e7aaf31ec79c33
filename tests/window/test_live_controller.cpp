// SPDX-License-Identifier: MIT
// File › Live as the window uses it: the action is enabled only with a server to follow, following asks for the
// same query up to now every scrape interval, and the alert words only the links that went down since the last load.
#include "analysis/flaps.h"
#include "window/live_controller.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QSignalSpy>

#include <chrono>

using namespace stallscope;

namespace {

ReviewedLink flapping(const std::string& a, std::size_t flaps)
{
    ReviewedLink l;
    l.a = a;
    l.b = "spine-01 p3";
    for (std::size_t i = 0; i < flaps; ++i) {
        FlapSighting f;
        f.earliestNs = f.latestNs = 1'793'491'200LL * kNsPerSec + TimeNs(i) * 3600 * kNsPerSec; // 00:00 UTC, hourly
        l.flaps.push_back(f);
    }
    return l;
}

TimeNs nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

TEST_CASE("Live follows a server only: it re-asks for the query up to now each interval, and stops", "[window][live]")
{
    QAction action(QStringLiteral("Live"));
    LiveController live(&action, nullptr);
    CHECK_FALSE(action.isEnabled());
    live.setOn(true); // nothing to follow
    CHECK_FALSE(live.isOn());

    PrometheusQuery q;
    q.url = "http://127.0.0.1:9090";
    q.stepNs = kNsPerSec;
    q.range = { nowNs() - 3600 * kNsPerSec, nowNs() - 600 * kNsPerSec };
    q.matchers = { "instance=~\"gpu-a0.*\"" };
    live.setSource(q);
    CHECK(action.isEnabled());
    CHECK_FALSE(live.isOn());
    QSignalSpy refreshes(&live, &LiveController::refreshRequested);
    QSignalSpy status(&live, &LiveController::statusMessage);
    action.trigger(); // the menu item, checked
    CHECK(live.isOn());
    CHECK(action.isChecked());
    REQUIRE(status.count() == 1);
    CHECK(status.at(0).at(0).toString().contains(QStringLiteral("127.0.0.1:9090")));
    const TimeNs before = nowNs();
    REQUIRE(refreshes.wait(3000));
    const auto asked = refreshes.at(0).at(0).value<PrometheusQuery>();
    CHECK(asked.url == q.url);
    CHECK(asked.matchers == q.matchers);
    CHECK(asked.range.start == q.range.start);
    CHECK(asked.range.end >= before); // up to now, not the range first opened

    // Another source (a folder) stops following and disables the action.
    live.setSource(std::nullopt);
    CHECK_FALSE(live.isOn());
    CHECK_FALSE(action.isChecked());
    CHECK_FALSE(action.isEnabled());
}

TEST_CASE("Live's alert names the links that went down since the last load, not the ones already seen",
    "[window][live]")
{
    QAction action(QStringLiteral("Live"));
    LiveController live(&action, nullptr);
    live.setSource(PrometheusQuery {});
    FabricReview review;
    review.flapping = { flapping("leaf-r1 p7", 2) };
    CHECK(live.newFlaps(review).isEmpty()); // the baseline
    CHECK(live.newFlaps(review).isEmpty()); // nothing new
    review.flapping = { flapping("leaf-r1 p7", 3), flapping("leaf-r2 p9", 1) };
    const auto fresh = live.newFlaps(review);
    REQUIRE(fresh.size() == 2);
    CHECK(fresh[0] == QStringLiteral("leaf-r1 p7 <-> spine-01 p3 went down at 02:00:00 UTC"));
    CHECK(fresh[1] == QStringLiteral("leaf-r2 p9 <-> spine-01 p3 went down at 00:00:00 UTC"));
    // A new source starts a new baseline: its flaps so far are not news.
    live.setSource(PrometheusQuery {});
    CHECK(live.newFlaps(review).isEmpty());
}
