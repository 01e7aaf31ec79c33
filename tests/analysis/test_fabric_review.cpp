// SPDX-License-Identifier: MIT
// The flap finder (issue #13) against the simulator's truth over seeded fabric-only weeks: every periodic
// flapper named with its period within 1 %, every flap counted, the one-off flap listed once without a period,
// the retraining link listed as erroring but never as flapping, and no healthy link listed at all. The
// recurrence fit is also checked on hand-made times (missed flaps, irregular times, the next expected flap).
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "analysis/jobs_hit.h"
#include "import/open_job.h"
#include "sim/simulator.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>

using namespace stallscope;

namespace {

constexpr TimeNs kMin = 60 * kNsPerSec;
constexpr TimeNs kHour = 3600 * kNsPerSec;
constexpr TimeNs kDay = 24 * kHour;

struct Mix
{
    SimConfig config;
    std::string name;
};

// Seeded fault mixes on a 16-host fabric (128 host links, 32 uplinks): two or three periodic flappers of
// different periods and jitter, a one-off flap, a link that retrains in bursts and never goes down.
std::vector<Mix> mixes()
{
    std::vector<Mix> out;
    const TimeNs periods[]
        = { 37 * kMin, kHour + 2 * kNsPerSec, 90 * kMin, 2 * kHour, 6 * kHour, 4 * kHour + 20 * kMin };
    const TimeNs samples[] = { 10 * kNsPerSec, 60 * kNsPerSec, 30 * kNsPerSec, 5 * kMin };
    for (std::uint64_t seed = 1; seed <= 22; ++seed) {
        auto c = *presetConfig("fabric-week");
        c.seed = seed;
        c.hosts = 16;
        c.spines = 4;
        c.durationNs = (2 + seed % 6) * kDay;
        c.counterIntervalNs = samples[seed % 4];
        c.linkEvents = seed % 3 != 0;
        c.faults.clear();
        const TimeNs p1 = periods[seed % 6], p2 = periods[(seed + 3) % 6];
        const auto at = [&](TimeNs t) { return ":at=" + std::to_string(t / kNsPerSec) + "s"; };
        const auto every = [&](TimeNs p) { return ":every=" + std::to_string(p / kNsPerSec) + "s"; };
        const auto jitter = [&](TimeNs p, double share) {
            return ":jitter=" + std::to_string(std::llround(double(p / kNsPerSec) * share)) + "s";
        };
        std::vector<std::string> specs = {
            "flap:leaf-spine:leaf=" + std::to_string(seed % 8) + ":spine=" + std::to_string(seed % 4) + at(3 * kHour)
                + ":for=2s" + every(p1) + (seed % 2 ? jitter(p1, 0.08) : ""),
            "flap:host-leaf:rank=" + std::to_string((seed * 7) % 128) + at(5 * kHour + seed * kMin)
                + ":for=" + (seed % 4 == 0 ? "40s" : "3s") + every(p2) + jitter(p2, 0.02),
            "flap:host-leaf:rank=" + std::to_string((seed * 7 + 64) % 128) + at(kDay + seed * kHour) + ":for=2s",
            "errors:leaf-spine:leaf=" + std::to_string((seed + 4) % 8) + ":spine=" + std::to_string((seed + 1) % 4)
                + at(10 * kHour) + ":count=4:gap=20s:pause=200ms:every=" + std::to_string(kDay / kNsPerSec) + "s",
        };
        if (seed % 5 == 0) { // a third flapper, a fast one
            specs.push_back("flap:leaf-spine:leaf=" + std::to_string((seed + 2) % 8)
                + ":spine=" + std::to_string((seed + 2) % 4) + at(kHour) + ":for=1s" + every(20 * kMin));
        }
        for (const auto& s : specs) {
            c.faults.push_back(parseFaultSpec(s).value());
        }
        out.push_back({ c, "seed " + std::to_string(seed) });
    }
    return out;
}

} // namespace

TEST_CASE("fabric review: every periodic flapper is named with its period within 1 %, no healthy link",
    "[fabric-review][accuracy]")
{
    std::uint32_t flappers = 0, mixesRun = 0;
    for (const auto& mix : mixes()) {
        INFO(mix.name);
        NullProgress progress;
        auto sim = simulate(mix.config, progress);
        REQUIRE(sim);
        const auto& snap = *sim->snapshot;
        REQUIRE(snap.job.worldSize == 0);
        const auto review = reviewFabric(snap);
        ++mixesRun;

        // Truth: per link, its fault and its outages.
        std::map<LinkId, std::uint32_t> faultOf;
        std::map<LinkId, std::uint32_t> outagesOf, visibleOf;
        for (const auto& o : sim->outages) {
            faultOf[o.link] = o.fault;
            outagesOf[o.link] += 1;
            // A flap after a port's last sample is in no counter (only link events show it).
            visibleOf[o.link] += o.downNs < snap.job.span.end - mix.config.counterIntervalNs;
        }
        std::set<LinkId> named;
        for (const auto& l : review.flapping) {
            INFO(l.a << " <-> " << l.b);
            REQUIRE(l.link); // every port of a simulated fabric sits on a link
            REQUIRE(faultOf.count(*l.link)); // never a healthy link
            const auto& f = mix.config.faults[faultOf[*l.link]];
            REQUIRE(f.kind == FaultKind::LinkFlap); // a retraining link never "went down"
            if (l.saturated) {
                // link_downed is 8 bits and sticks at 255: the flaps past it are invisible to counters.
                CHECK(l.flaps.size() >= 250);
                CHECK(l.flaps.size() <= outagesOf[*l.link]);
            } else {
                CHECK(l.flaps.size() >= visibleOf[*l.link]);
                CHECK(l.flaps.size() <= outagesOf[*l.link]);
            }
            named.insert(*l.link);
            if (f.everyNs > 0 && outagesOf[*l.link] >= 4) {
                REQUIRE(l.recurrence);
                const double err = std::abs(double(l.recurrence->periodNs - f.everyNs)) / double(f.everyNs);
                CHECK(err < 0.01);
                CHECK(l.recurrence->nextNs > snap.job.span.end);
                CHECK(l.recurrence->nextNs <= snap.job.span.end + f.everyNs + f.jitterNs + f.everyNs / 100);
                ++flappers;
            }
            if (f.everyNs == 0) {
                CHECK(l.flaps.size() == 1);
                CHECK_FALSE(l.recurrence);
            }
            CHECK(l.gpuHoursPerDay > 0);
        }
        for (const auto& l : review.erroring) {
            INFO(l.a << " <-> " << l.b);
            REQUIRE(l.link);
            REQUIRE(faultOf.count(*l.link));
            CHECK(mix.config.faults[faultOf[*l.link]].kind == FaultKind::ErrorBurst);
            CHECK(l.retrains == outagesOf[*l.link]);
            CHECK(l.errorBursts == (outagesOf[*l.link] + 3) / 4);
            named.insert(*l.link);
        }
        // Every faulty link is listed somewhere.
        for (const auto& [link, fault] : faultOf) {
            CHECK(named.count(link));
        }
        // The costliest link per day comes first.
        for (std::size_t i = 1; i < review.flapping.size(); ++i) {
            CHECK(review.flapping[i - 1].gpuHoursPerDay >= review.flapping[i].gpuHoursPerDay);
        }
    }
    CHECK(mixesRun >= 20);
    CHECK(flappers >= 40);
}

TEST_CASE("fabric review: a 40 s host-link flap is priced as a crash, a 2 s one as one retry period", "[fabric-review]")
{
    auto c = *presetConfig("fabric-week");
    c.hosts = 8;
    c.spines = 4;
    c.durationNs = kDay;
    c.faults = { parseFaultSpec("flap:host-leaf:rank=3:at=1h:for=40s:every=2h").value(),
        parseFaultSpec("flap:host-leaf:rank=9:at=1h:for=2s:every=3h").value() };
    NullProgress progress;
    auto sim = simulate(c, progress);
    REQUIRE(sim);
    const auto review = reviewFabric(*sim->snapshot);
    REQUIRE(review.flapping.size() == 2);
    const auto& crash = review.flapping[0];
    CHECK(crash.crashes);
    CHECK(crash.downKnown == crash.flaps.size());
    // Lost per crash: retry budget + collective timeout + half a checkpoint interval + restart, per GPU.
    const auto& p = sim->snapshot->policy;
    const double lostH
        = double(p.retryBudgetNs() + p.collectiveTimeoutNs + p.checkpointIntervalNs / 2 + p.restartTimeNs) / 3600e9
        * 1024;
    CHECK(crash.gpuHoursPerFlap == Approx(lostH).epsilon(1e-9));
    const auto& stall = review.flapping[1];
    CHECK_FALSE(stall.crashes);
    CHECK(stall.stallPerFlapNs == p.retryPeriodNs());
    CHECK(stall.flapsPerDay == Approx(8.0).epsilon(0.01));
    // "≈ 29 GPU-h/day for a 1,024-GPU job" of the issue: an hourly 2 s flap costs 24 × 4.29 s × 1,024 GPUs.
    CHECK(stall.gpuHoursPerDay == Approx(8 * 1024 * double(p.retryPeriodNs()) / 3600e9).epsilon(0.01));

    FabricReviewOptions small;
    small.jobRanks = 64;
    CHECK(reviewFabric(*sim->snapshot, small).flapping[1].gpuHoursPerDay
        == Approx(stall.gpuHoursPerDay / 16).epsilon(1e-6));
}

TEST_CASE("fitRecurrence: missed flaps, irregular times and the next expected flap", "[fabric-review]")
{
    const TimeNs t0 = 1'793'491'200LL * kNsPerSec;
    std::vector<TimeNs> times, widths;
    for (int k = 0; k < 30; ++k) {
        if (k == 7 || k == 8 || k == 20) {
            continue; // the counter missed these (or the link held)
        }
        times.push_back(t0 + k * kHour + (k % 3 - 1) * 2 * kNsPerSec);
        widths.push_back(0);
    }
    const auto r = fitRecurrence(times, widths, t0 + 30 * kHour - kMin);
    REQUIRE(r);
    CHECK(std::abs(r->periodNs - kHour) < kNsPerSec);
    CHECK(r->missed == 3);
    CHECK(r->onGrid == 27);
    CHECK(r->jitterNs > kNsPerSec);
    CHECK(r->jitterNs < 2 * kNsPerSec);
    CHECK(std::abs(r->nextNs - (t0 + 30 * kHour)) < 2 * kNsPerSec);
    CHECK(describeRecurrence(*r).find("every 1h00m00s") == 0);

    // Times with no period: flaps at random moments.
    std::vector<TimeNs> random = { t0, t0 + 5 * kMin, t0 + 3 * kHour, t0 + 3 * kHour + 40 * kMin, t0 + 11 * kHour };
    CHECK_FALSE(fitRecurrence(random, std::vector<TimeNs>(random.size(), 0), t0));
    // Two flaps are no pattern.
    CHECK_FALSE(fitRecurrence({ t0, t0 + kHour }, { 0, 0 }, t0));

    // Bracketed times (one-minute samples): the sampling's own spread is not reported as jitter.
    std::vector<TimeNs> sampled, w;
    for (int k = 0; k < 48; ++k) {
        const TimeNs truth = t0 + k * kHour + 17 * kNsPerSec * (k % 4);
        const TimeNs lo = truth / kMin * kMin; // the sample interval the flap fell in
        sampled.push_back(lo + kMin / 2);
        w.push_back(kMin);
    }
    const auto s = fitRecurrence(sampled, w, t0);
    REQUIRE(s);
    CHECK(std::abs(s->periodNs - kHour) < 2 * kNsPerSec);
    CHECK(s->jitterNs < 30 * kNsPerSec);
    CHECK(s->resolutionNs == kMin);
}

namespace {

const std::filesystem::path kData = STALLSCOPE_TEST_DATA_DIR;
const std::filesystem::path kRealCaptures = STALLSCOPE_REAL_CAPTURES_DIR;

const CounterSeries* findSeries(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port, CounterKind kind)
{
    for (const auto& s : snap.counters) {
        const auto& p = snap.counterPorts[s.port];
        if (p.guid == guid && p.port == port && s.kind == kind) {
            return &s;
        }
    }
    return nullptr;
}

bool anyWarning(const LoadedJob& job, const std::string& part)
{
    return std::any_of(job.warnings.begin(), job.warnings.end(),
        [&](const LoadIssue& w) { return w.format().find(part) != std::string::npos; });
}

} // namespace

TEST_CASE("a copy of /sys/class/infiniband opens as fabric data: GUIDs, 64-bit counters, a port found down",
    "[fabric-review][import]")
{
    // Golden tree in the shapes of the kernel's sysfs and node_exporter's / procfs' fixtures: mlx5 with its
    // node_guid and a DOWN port, mlx4 with counters_ext, an iWARP device whose counters read "N/A (no PMA)".
    auto job = openJob((kData / "sysfs-copy").string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 0);
    CHECK(anyWarning(job.value(), "opened as fabric data only"));
    CHECK(anyWarning(job.value(), "symbol_error:1: expected a decimal counter value, got \"garbage\""));
    CHECK(anyWarning(job.value(), "2 HCAs with counters are in no topology file"));
    const auto mlx5 = snap.topology.findNodeByGuid(0xb8599f0300123456ULL);
    REQUIRE(mlx5);
    CHECK(snap.str(snap.topology.node(*mlx5).description) == "gpu-c07 mlx5_0");
    const auto* downed = findSeries(snap, 0xb8599f0300123456ULL, 1, CounterKind::LinkDowned);
    REQUIRE(downed);
    CHECK(downed->value(0) == 3);
    const auto* data = findSeries(snap, 0xb8599f0300123456ULL, 1, CounterKind::PortXmitData);
    REQUIRE(data);
    CHECK(data->value(0) == 18446744073709551000ULL);
    // mlx4 has no node_guid in the copy: a made-up GUID, and the 64-bit counters_ext value over the 32-bit one.
    std::optional<std::uint64_t> mlx4;
    for (const auto& n : snap.topology.nodes()) {
        if (snap.str(n.description) == "gpu-c07 mlx4_0") {
            mlx4 = n.guid;
        }
    }
    REQUIRE(mlx4);
    CHECK((*mlx4 >> 48) == 0xfffe);
    const auto* ext = findSeries(snap, *mlx4, 1, CounterKind::PortXmitData);
    REQUIRE(ext);
    CHECK(ext->value(0) == 9876543210123ULL);
    CHECK(ext->bits == 64);
    REQUIRE(snap.linkEvents.size() == 1);
    CHECK(snap.linkEvents[0].guid == 0xb8599f0300123456ULL);
    CHECK(snap.linkEvents[0].state == LinkState::Down);
    CHECK(snap.str(snap.linkEvents[0].source) == "sysfs");

    const auto review = reviewFabric(snap);
    CHECK(review.singleReadings);
    REQUIRE(review.flapping.size() == 1);
    CHECK(review.flapping[0].a == "gpu-c07 mlx5_0 p1");
    CHECK(review.flapping[0].tier == "unplaced");
    CHECK(fabricReviewText(snap, review).find("Every counter was read once") != std::string::npos);
}

TEST_CASE("real captures of fabric data open on their own and review without a job", "[fabric-review][real]")
{
    struct Case
    {
        const char* folder;
        std::size_t minHcas, minLinks, minPorts;
    };
    const Case cases[] = { { "procfs", 3, 0, 4 }, { "node_exporter", 2, 0, 3 }, { "infiniband_exporter", 1, 4, 1 },
        { "guilbaults-infiniband-exporter", 1, 1, 1 }, { "ibnetdiscover-topologies", 100, 500, 0 } };
    for (const auto& c : cases) {
        const auto dir = kRealCaptures / c.folder;
        if (!std::filesystem::exists(dir)) {
            WARN("real capture " << dir << " is absent: skipped");
            continue;
        }
        INFO(c.folder);
        auto job = openJob(dir.string());
        INFO((job ? "" : job.error().format()));
        REQUIRE(job);
        const auto& snap = *job->snapshot;
        CHECK(snap.job.worldSize == 0);
        CHECK(snap.topology.hcaCount() >= c.minHcas);
        CHECK(snap.topology.links().size() >= c.minLinks);
        CHECK(snap.counterPorts.size() >= c.minPorts);
        const auto review = reviewFabric(snap);
        CHECK(review.linksTotal >= c.minLinks);
        CHECK(review.flapping.empty()); // the fixtures' ports are all up, their link_downed 0
        CHECK_FALSE(fabricReviewText(snap, review).empty());
    }
    const auto procfs = kRealCaptures / "procfs";
    if (std::filesystem::exists(procfs)) {
        auto job = openJob(procfs.string());
        REQUIRE(job);
        CHECK(job->snapshot->topology.findNodeByGuid(0x0a7fbc1245efd23bULL)); // mlx5_0/node_guid
    }
}

TEST_CASE(
    "jobs hit: each flap lists the jobs whose traffic crossed the link then, and the stall each saw", "[fabric-review]")
{
    // A fabric of 16 hosts; job A runs on hosts 0..7 for the first 2 hours, job B on the same hosts later.
    auto fabricConfig = *presetConfig("small");
    fabricConfig.fabricOnly = true;
    fabricConfig.hosts = 16;
    fabricConfig.durationNs = 3 * kHour;
    fabricConfig.counterIntervalNs = 10 * kNsPerSec;
    fabricConfig.faults = { parseFaultSpec("flap:host-leaf:rank=9:at=20m:for=2s:every=1h").value(),
        parseFaultSpec("flap:host-leaf:rank=100:at=30m:for=2s").value() }; // gpu-a012: no job there
    auto jobConfig = *presetConfig("small");
    jobConfig.durationNs = 2 * kHour;
    jobConfig.faults = { fabricConfig.faults[0] };
    auto lateConfig = *presetConfig("small");
    lateConfig.jobName = "late";
    lateConfig.startNs += 150 * 60 * kNsPerSec; // 02:30 .. 02:40: no flap of gpu-a001 then
    lateConfig.durationNs = 10 * 60 * kNsPerSec;
    lateConfig.faults.clear();
    NullProgress progress;
    auto fabric = simulate(fabricConfig, progress);
    auto jobA = simulate(jobConfig, progress);
    auto late = simulate(lateConfig, progress);
    REQUIRE(fabric);
    REQUIRE(jobA);
    REQUIRE(late);
    const auto review = reviewFabric(*fabric->snapshot);
    REQUIRE(review.flapping.size() == 2);
    std::vector<ReviewedJob> jobs = {
        { "A", jobA->snapshot, std::make_shared<AnalysisResult>(analyze(*jobA->snapshot)) },
        { "late", late->snapshot, std::make_shared<AnalysisResult>(analyze(*late->snapshot)) },
    };
    const auto hits = findJobsHit(*fabric->snapshot, review, jobs);
    CHECK(hits.unplacedRanks == std::vector<std::uint32_t> { 0, 0 });
    // gpu-a001's flaps at 00:20 and 01:20 hit job A (its stalls #1, #2, blamed on this very link); the one at
    // 02:20 falls in no job; gpu-a012's flap hits nobody (no job has a rank there).
    REQUIRE(hits.hits.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& h = hits.hits[i];
        const auto& l = review.flapping[h.link];
        CHECK(l.a == "gpu-a001 mlx5_1 p1");
        CHECK(h.job == 0);
        CHECK(h.ranksPlaced == 64);
        CHECK(h.incident == int(i) + 1);
        CHECK(h.blamedThisLink);
        CHECK_FALSE(h.crashed);
        CHECK(h.stallNs >= fabricConfig.policy.retryPeriodNs());
        CHECK(h.gpuHours > 0);
    }
    const auto text = jobsHitText(review, jobs, hits);
    CHECK(text.find("incident #1") != std::string::npos);
    CHECK(text.find("late") == std::string::npos);
}

TEST_CASE("fabric review: a link_downed that claims billions of flaps in one interval is capped, not allocated",
    "[fabric-review][hostile]")
{
    auto c = *presetConfig("fabric-week");
    c.hosts = 2;
    c.spines = 2;
    c.durationNs = kHour;
    c.faults.clear();
    NullProgress progress;
    auto sim = simulate(c, progress);
    REQUIRE(sim);
    // Rewrite one port's link_downed as a 64-bit series that jumps by 10^15 (a corrupt or hostile file).
    auto snap = std::make_shared<JobSnapshot>(*sim->snapshot);
    auto owned = std::make_shared<std::vector<std::uint64_t>>();
    for (auto& s : snap->counters) {
        if (s.kind == CounterKind::LinkDowned) {
            owned->assign(s.size(), 0);
            (*owned)[s.size() / 2] = 1'000'000'000'000'000ULL;
            (*owned)[s.size() / 2 + 1] = 1'000'000'000'000'000ULL;
            s.bits = 64;
            s.storageBytes = 8;
            s.values = owned->data();
            break;
        }
    }
    snap->storage.push_back(owned);
    const auto review = reviewFabric(*snap);
    REQUIRE(review.flapping.size() == 1);
    CHECK(review.flapping[0].flaps.size() == 255);
}

TEST_CASE("sightings are worded by one rule: once, too few to call a period, irregular, or the period", "[fabric]")
{
    const TimeNs t0 = 1'793'491'200 * kNsPerSec;
    const TimeNs hour = 3600 * kNsPerSec;
    CHECK(describeSightings(std::nullopt, { t0 }).rfind("once, ", 0) == 0);
    CHECK(describeSightings(std::nullopt, { t0, t0 + hour }) == "too few to call a period: 2 sightings, 1h00m00s apart");
    CHECK(describeSightings(std::nullopt, { t0, t0 + hour, t0 + 5 * hour }).rfind("irregular: 3 sightings, ", 0) == 0);
    const std::vector<TimeNs> hourly = { t0, t0 + hour, t0 + 2 * hour, t0 + 3 * hour };
    const auto fit = fitRecurrence(hourly, std::vector<TimeNs>(hourly.size(), 0), t0 + 4 * hour);
    REQUIRE(fit);
    CHECK(describeSightings(fit, hourly).rfind("every 1h00m", 0) == 0);
    // A day's rate: one a period when they recur; else what was seen, over a day at least.
    CHECK(flapsPerDay(fit, hourly.size(), { t0, t0 + 4 * hour }) == Approx(24.0));
    CHECK(flapsPerDay(std::nullopt, 2, { t0, t0 + hour }) == Approx(2.0));
    CHECK(flapsPerDay(std::nullopt, 6, { t0, t0 + 3 * 24 * hour }) == Approx(2.0));
}

TEST_CASE("with a job open the fabric review prices a flap for that job, as its incidents do", "[fabric-review]")
{
    auto c = *presetConfig("hourly-flap");
    c.hosts = 8; // 64 ranks: a price for the default 1,024 GPUs would be 16 times the job's
    c.faults[0].rank = 8 * 5 + 3; // gpu-a005 mlx5_3, 2 s down every hour
    NullProgress progress;
    auto sim = simulate(c, progress);
    REQUIRE(sim);
    const auto& snap = *sim->snapshot;
    REQUIRE(snap.job.worldSize == 64);
    const auto analysis = analyze(snap, AnalysisOptions {});
    const auto review = reviewFabric(snap);
    CHECK(review.options.jobRanks == 64);
    const Incident* flap = nullptr;
    for (const auto& inc : analysis.incidents) {
        if (inc.kind == IncidentKind::LinkFlap && inc.culprit) {
            flap = &inc;
            break;
        }
    }
    REQUIRE(flap);
    const ReviewedLink* reviewed = nullptr;
    for (const auto& l : review.flapping) {
        if (l.link == flap->culprit->link) {
            reviewed = &l;
        }
    }
    REQUIRE(reviewed);
    // The incident prices the stall it measured, the review the one its policy predicts: the same flap, the
    // same rate, so the same GPU-h a day within the measured stall's excess over the retry period.
    CHECK(reviewed->flapsPerDay == Approx(flap->policy.flapsPerDay).epsilon(0.01));
    CHECK(reviewed->gpuHoursPerDay == Approx(flap->policy.costPerDayGpuHours).epsilon(0.05));
    // Asked for another size, the review prices for that.
    FabricReviewOptions big;
    big.jobRanks = 1024;
    CHECK(reviewFabric(snap, big).options.jobRanks == 1024);
}

TEST_CASE("the job's own records weigh the review's price: flaps it ran through without a stall are told apart",
    "[fabric-review]")
{
    // A leaf-spine link down 2 s every 100 s. Under adaptive routing the switches move its flows in 50 ms and a flap
    // costs the job only when it finds data in flight on the link (docs/formats.md §6b); without it every flap
    // waits for the link. What the review counts is checked against the simulator's own record of what happened.
    for (const bool adaptive : { true, false }) {
        INFO((adaptive ? "adaptive routing" : "static routes"));
        auto c = *presetConfig("small");
        c.faults = { parseFaultSpec(
            std::string("flap:leaf-spine:leaf=3:spine=1:at=60s:for=2s:every=100s") + (adaptive ? "" : ":ar=off"))
                         .value() };
        NullProgress progress;
        auto sim = simulate(c, progress);
        REQUIRE(sim);
        const auto& snap = *sim->snapshot;
        std::set<std::size_t> stalledOutages; // the simulator's truth: outages that stopped the job
        for (const auto& st : sim->stalls) {
            for (std::size_t o = 0; o < sim->outages.size(); ++o) {
                if (st.startNs >= sim->outages[o].downNs && st.startNs <= sim->outages[o].trafficUpNs) {
                    stalledOutages.insert(o);
                }
            }
        }
        REQUIRE(sim->outages.size() == 6);
        if (adaptive) {
            REQUIRE(stalledOutages.size() < sim->outages.size()); // some flaps found no data in flight
        } else {
            REQUIRE(stalledOutages.size() == sim->outages.size());
        }
        auto review = reviewFabric(snap);
        noteJobStalls(review, analyze(snap, AnalysisOptions {}), snap);
        REQUIRE(review.flapping.size() == 1);
        const auto& l = review.flapping[0];
        CHECK(l.flaps.size() == 6);
        CHECK(l.flapsJobRanThrough == 6);
        CHECK(l.flapsJobStalledAt == stalledOutages.size());
        const auto text = fabricReviewText(snap, review);
        if (stalledOutages.empty()) {
            CHECK_THAT(text, Catch::Contains("this job ran through all 6 of them without a stall"));
        } else if (stalledOutages.size() < 6) {
            CHECK_THAT(text,
                Catch::Contains(std::to_string(stalledOutages.size()) + " of the 6 this job ran through stalled it"));
        } else { // every flap stalled it: the stalls it is in say so
            CHECK_THAT(text, Catch::Contains("in this job's stalls 1, 2, 3, 4, 5 and 6"));
            CHECK_THAT(text, !Catch::Contains("ran through"));
        }
        // The price is the one for a flap that finds data in flight, and says so when the job saw flaps that did not.
        CHECK_THAT(text,
            Catch::Contains(adaptive ? "per flap that finds data in flight: 4.29s stall" : "per flap: 4.29s stall"));
        const auto json = nlohmann::json::parse(fabricReviewJson(snap, review));
        CHECK(json["flapping"][0]["job_flaps_ran_through"] == 6);
        CHECK(json["flapping"][0]["job_flaps_stalled_at"] == stalledOutages.size());
        // Ranks not placed on the fabric: which links the job crosses is unknown, so nothing is counted.
        JobSnapshot unplaced = snap;
        for (auto& r : unplaced.ranks) {
            r.hcaNode.reset();
        }
        auto blind = reviewFabric(unplaced);
        noteJobStalls(blind, analyze(unplaced, AnalysisOptions {}), unplaced);
        REQUIRE(blind.flapping.size() == 1);
        CHECK(blind.flapping[0].flapsJobRanThrough == 0);
    }
    // Fabric data without a job's records: nothing to weigh.
    auto c = *presetConfig("small");
    c.faults = { parseFaultSpec("flap:leaf-spine:leaf=3:spine=1:at=60s:for=2s:every=100s").value() };
    NullProgress progress;
    auto sim = simulate(c, progress);
    REQUIRE(sim);
    JobSnapshot fabricOnly = *sim->snapshot;
    fabricOnly.collectives.clear();
    auto review = reviewFabric(fabricOnly);
    noteJobStalls(review, AnalysisResult {}, fabricOnly);
    REQUIRE(review.flapping.size() == 1);
    CHECK(review.flapping[0].flapsJobRanThrough == 0);
}
