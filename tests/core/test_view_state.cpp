// SPDX-License-Identifier: MIT
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
