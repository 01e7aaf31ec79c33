// SPDX-License-Identifier: MIT
// The links' health over time (view/link_state.h) as the fabric view colours it: read on the loading thread with
// progress, split over the cores, stopped by a cancel.
#include "test_support.h"
#include "view/link_state.h"

#include <catch2/catch.hpp>

#include <mutex>

using namespace stallscope;
using namespace stallscope::test;

namespace {

// Records what is reported; cancels at the n-th question when asked to.
class Recording : public Progress
{
public:
    explicit Recording(int cancelAt = -1)
        : m_cancelAt(cancelAt)
    {
    }
    void report(std::string_view stage, std::uint64_t done, std::uint64_t total) override
    {
        std::lock_guard lock(m_mutex);
        stages.emplace_back(stage);
        lastDone = done;
        lastTotal = total;
    }
    bool cancelled() const override { return m_cancelAt >= 0 && ++m_asked > m_cancelAt; }
    std::vector<std::string> stages;
    std::uint64_t lastDone = 0, lastTotal = 0;

private:
    std::mutex m_mutex;
    int m_cancelAt;
    mutable std::atomic<int> m_asked { 0 };
};

// A 2 s host-leaf flap at +60 s and an error burst on a leaf-spine link at +30 s.
SimConfig flapAndBurst()
{
    auto config = tinyConfig();
    FaultSpec burst;
    burst.kind = FaultKind::ErrorBurst;
    burst.tier = LinkTier::LeafSpine;
    burst.atNs = 30 * kNsPerSec;
    burst.count = 2;
    config.faults.push_back(burst);
    return config;
}

} // namespace

TEST_CASE(
    "the links' states read with progress are the states read without, and a cancel stops the reading", "[core][view]")
{
    auto config = flapAndBurst();
    config.hosts = 136; // 1,088 host links and the uplinks: several reports (one per 256 links) on each core
    const auto sim = simulateOrFail(config);
    const SnapshotPtr snap = sim.snapshot;
    const auto links = snap->topology.links().size();
    REQUIRE(links > 1024);

    const LinkStates plain(snap);
    Recording progress;
    const LinkStates reported(snap, progress);
    REQUIRE(reported.linkCount() == links);
    REQUIRE_FALSE(progress.stages.empty());
    CHECK(progress.stages.front() == "Reading the links' states");
    CHECK(progress.lastTotal == links);
    std::size_t down = 0, erroring = 0;
    for (TimeNs t = snap->job.span.start; t < snap->job.span.end; t += kNsPerSec / 2) {
        for (std::uint32_t l = 0; l < links; ++l) {
            const auto state = reported.stateAt(static_cast<LinkId>(l), t);
            REQUIRE(state == plain.stateAt(static_cast<LinkId>(l), t));
            down += state == LinkHealth::Down;
            erroring += state == LinkHealth::Erroring;
        }
    }
    CHECK(down > 0); // the flap
    CHECK(erroring > 0); // the burst's retrains

    Recording cancelling(0); // cancelled at its first question
    const LinkStates stopped(snap, cancelling);
    CHECK(cancelling.stages.size() == 1); // asked once, then stopped: no second report
}

TEST_CASE("the links' states read for one window are the whole job's inside it, and quiet outside", "[core][view]")
{
    const auto sim = simulateOrFail(flapAndBurst());
    const SnapshotPtr snap = sim.snapshot;
    const auto links = snap->topology.links().size();
    const LinkStates whole(snap);
    // Find when the burst's samples show erroring, then read a window around its first one and one well before.
    TimeNs firstErroring = kNoTime;
    for (TimeNs t = snap->job.span.start; t < snap->job.span.end && firstErroring == kNoTime; t += kNsPerSec / 4) {
        for (std::uint32_t l = 0; l < links; ++l) {
            if (whole.stateAt(static_cast<LinkId>(l), t) == LinkHealth::Erroring) {
                firstErroring = t;
                break;
            }
        }
    }
    REQUIRE(firstErroring != kNoTime);
    NullProgress quiet;
    const TimeRange around { firstErroring - 3 * kNsPerSec, firstErroring + 3 * kNsPerSec };
    const LinkStates windowed(snap, quiet, around);
    std::size_t erroringInside = 0;
    for (TimeNs t = around.start; t <= around.end; t += kNsPerSec / 8) {
        for (std::uint32_t l = 0; l < links; ++l) {
            const auto state = windowed.stateAt(static_cast<LinkId>(l), t);
            REQUIRE(state == whole.stateAt(static_cast<LinkId>(l), t));
            erroringInside += state == LinkHealth::Erroring;
        }
    }
    CHECK(erroringInside > 0);
    // At a window's two edges: the sample that holds the edge is kept.
    for (const TimeRange edge : { TimeRange { firstErroring, firstErroring + 60 * kNsPerSec },
             TimeRange { firstErroring - 60 * kNsPerSec, firstErroring } }) {
        const LinkStates edged(snap, quiet, edge);
        std::size_t erroring = 0;
        for (std::uint32_t l = 0; l < links; ++l) {
            const auto state = edged.stateAt(static_cast<LinkId>(l), firstErroring);
            REQUIRE(state == whole.stateAt(static_cast<LinkId>(l), firstErroring));
            erroring += state == LinkHealth::Erroring;
        }
        CHECK(erroring > 0);
    }
    // A window before the burst keeps none of its samples: asked at the burst, no link reads erroring.
    const LinkStates before(snap, quiet, { snap->job.span.start, firstErroring - 10 * kNsPerSec });
    for (std::uint32_t l = 0; l < links; ++l) {
        CHECK(before.stateAt(static_cast<LinkId>(l), firstErroring) != LinkHealth::Erroring);
    }
}
