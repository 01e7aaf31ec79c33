// SPDX-License-Identifier: MIT
#include "bundle/writer.h"
#include "core/snapshot_summary.h"
#include "import/open_job.h"
#include "summary_view.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QImage>

using namespace stallscope;
using namespace stallscope::test;

TEST_CASE("the summary view shows what loaded", "[widget]")
{
    const auto sim = simulateOrFail(tinyConfig());
    TempDir tmp;
    REQUIRE(writeBundle(*sim.snapshot, tmp.str("b")).empty());
    auto loaded = openJob(tmp.str("b"));
    REQUIRE(loaded.ok());
    SummaryView view;
    view.resize(800, 400);
    view.setSummary(summarize(tmp.str("b"), loaded.value()));
    CHECK(view.text().contains(QStringLiteral("64 ranks on 8 hosts")));
    CHECK(view.text().contains(QStringLiteral("NCCL_IB_TIMEOUT=20")));
    const QImage image = view.grab().toImage();
    CHECK(image.width() == 800);
    view.setMessage(QStringLiteral("hello"));
    CHECK(view.text() == QStringLiteral("hello"));
}
