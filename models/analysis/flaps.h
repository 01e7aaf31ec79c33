// SPDX-License-Identifier: MIT
#pragma once

// Fabric review over days (`analyze --fabric`, the Flaps panel): from counters and link events alone — no
// job needed — every time each link went down, every burst of retrains, how regularly each link flaps, and
// what its flaps would cost a job whose traffic crosses it (docs/analysis-format.md, "Fabric review").
// Pure functions of a snapshot; safe on any thread.

#include "analysis/analysis.h"
#include "analysis/node_findings.h"
#include "core/job_snapshot.h"
#include "core/progress.h"

#include <optional>
#include <string>
#include <vector>

namespace stallscope {

inline constexpr std::uint32_t kFabricOnlyJobRanks = 1024;

struct FabricReviewOptions
{
    // Price each flap for a job of this many GPUs crossing the link. 0: the open job's world size, so the review
    // and the job's incidents price a flap alike; with no job (fabric data alone) kFabricOnlyJobRanks.
    std::uint32_t jobRanks = 0;
    // Switch-to-switch links: adaptive routing moves flows in milliseconds; without it the subnet manager's
    // reroute takes `smRerouteNs` (docs/formats.md §6b). Host links always wait for the link itself.
    bool adaptiveRouting = true;
    TimeNs smRerouteNs = 5 * kNsPerSec;
    // A link that never went down is listed as erroring when it retrained, or when its symbol errors reach
    // this many per day (a heuristic: real fabrics show a trickle of symbol errors on healthy links).
    double symbolErrorsPerDay = 100;
};

// One time a link went down. Counters bracket it between two samples; a link event dates it exactly.
struct FlapSighting
{
    TimeNs earliestNs = 0;
    TimeNs latestNs = 0; // == earliestNs when a link event dated it
    TimeNs downForNs = kNoTime; // from a down event to the next up event of the same port, when both exist
    bool fromCounters = false; // link_downed stepped
    bool fromEvents = false; // a subnet manager trap, a port state sample...
    std::uint32_t symbolErrorsBefore = 0; // on either end in the 10 minutes before
    TimeNs timeNs() const { return earliestNs + (latestNs - earliestNs) / 2; }
};

// A link's flaps fall on a regular grid: t ≈ first + n × period.
struct Recurrence
{
    TimeNs periodNs = 0;
    TimeNs jitterNs = 0; // RMS distance from the grid, less what the sampling's own uncertainty explains
    TimeNs resolutionNs = 0; // the widest bracket among the flaps (0 when every flap was dated exactly)
    TimeNs firstNs = 0; // the grid's first point
    TimeNs nextNs = 0; // the next point after the data ends: when to expect the next flap
    std::uint32_t onGrid = 0; // flaps that fit
    std::uint32_t missed = 0; // grid points between the first and last flap without one
};

// Fits a grid to sorted flap times. `uncertaintyNs[i]` is the width of flap i's bracket (0 when exact).
// nullopt when the flaps are fewer than 3 or not regular (jitter above a tenth of the period, or more than
// half the grid points between first and last flap empty). `afterNs`: nextNs is the first point after it.
std::optional<Recurrence> fitRecurrence(
    const std::vector<TimeNs>& timesNs, const std::vector<TimeNs>& uncertaintyNs, TimeNs afterNs);

struct ReviewedLink
{
    std::optional<LinkId> link; // unset for a port on no known link (tier "unplaced")
    std::string a, b; // "leaf-r3 p37": node description and port of each end (lower tier first)
    std::uint64_t guidA = 0, guidB = 0;
    std::uint16_t portA = 0, portB = 0;
    std::string tier; // "host-leaf", "leaf-spine", "spine-core", "switch-switch"
    std::vector<FlapSighting> flaps; // sorted by time
    bool saturated = false; // link_downed stuck at its maximum: flaps after that are invisible
    std::uint32_t retrains = 0; // link_error_recovery steps (the link recovered without going down)
    std::vector<TimeRange> retrainBrackets; // the sample intervals those steps fell in, in time order
    std::vector<TimeRange> dropBrackets; // sample intervals in which port_rcv_errors rose (packets dropped)
    std::uint32_t errorBursts = 0; // retrains grouped: ones less than 10 minutes apart are one burst
    std::uint64_t symbolErrors = 0; // both ends, over the whole span
    TimeNs downTotalNs = 0; // over the flaps whose length is known
    std::uint32_t downKnown = 0;
    std::optional<Recurrence> recurrence;
    // The symbol-error trend: flaps preceded by symbol errors, and the rate in the 10 minutes before a flap
    // against the rate the rest of the time (per 10 minutes).
    std::uint32_t flapsWithSymbolsBefore = 0;
    double symbolsBeforePer10Min = 0;
    double symbolsOtherwisePer10Min = 0;
    // Price for a job of `jobRanks` GPUs crossing the link (flapOutcome; docs/formats.md §6b).
    double flapsPerDay = 0;
    TimeNs stallPerFlapNs = 0; // 0 when a flap would crash the job
    bool crashes = false;
    bool lengthAssumed = false; // no flap's length is known: priced as shorter than one retry period
    double gpuHoursPerFlap = 0;
    double gpuHoursPerDay = 0;
    // With a job in the same data: its job-wide stalls (incident numbers) that a flap or retrain of this link
    // falls in, whoever the job's analysis blamed (noteJobStalls).
    std::vector<int> jobStalls;
    // The price above assumes every flap finds data in flight. What the job's own records saw instead: the flaps
    // while it ran with traffic across this link, and how many of those it stalled at (noteJobStalls). A flap that
    // finds no data in flight costs nothing (docs/formats.md §6b): under adaptive routing most do.
    std::uint32_t flapsJobRanThrough = 0;
    std::uint32_t flapsJobStalledAt = 0;
};

struct FabricReview
{
    TimeRange span;
    std::uint32_t linksWatched = 0; // links with counters or events on at least one end
    std::uint32_t linksTotal = 0;
    bool singleReadings = false; // no counter has two samples: only states (events) can show a flap
    FabricReviewOptions options;
    TimeoutPolicy policy;
    std::vector<ReviewedLink> flapping; // went down at least once; costliest per day first
    std::vector<ReviewedLink> erroring; // never down, but retrained or erred; most retrains first
    // Links trained below their tier: the job analysis' rule (degradedLinks), one home for both.
    std::vector<DegradedLink> degraded;
    std::vector<NodeFinding> nodeFindings; // from node tools and sysfs copies (node_findings.h)
    double seconds = 0;
};

FabricReview reviewFabric(const JobSnapshot& snap, const FabricReviewOptions& options, Progress& progress);
FabricReview reviewFabric(const JobSnapshot& snap, const FabricReviewOptions& options = {});

// Marks each flapping or erroring link with the job's stalls its flaps or retrains fall in (a sample bracket
// overlapping the stall, a sample's width of slack): the review of a job's own folder then says which of the job's
// stalls each link coincides with. With the job's ranks placed on the fabric, also counts the flaps of links its
// traffic crosses while its records run, and those it stalled at (flapsJobRanThrough, flapsJobStalledAt).
void noteJobStalls(FabricReview& review, const AnalysisResult& job, const JobSnapshot& snap);

std::string fabricReviewText(const JobSnapshot& snap, const FabricReview& review);
std::string fabricReviewJson(const JobSnapshot& snap, const FabricReview& review); // stallscope.fabric/1

// "every 1h00m02s ± 3s, 23 times since Mon 2026-11-02 09:17"
std::string describeRecurrence(const Recurrence& r);
std::vector<TimeNs> flapTimes(const ReviewedLink& l); // each flap's time, in order
// "; in this job's stalls 1, 2 and 3" (ReviewedLink::jobStalls), or "" when it is in none.
std::string jobStallsText(const ReviewedLink& l);
// Where some flaps the job ran through passed without a stall: "; this job ran through all 4 of them without a
// stall …" or "; 1 of the 4 this job ran through stalled it"; otherwise "".
std::string flapsRanThroughText(const ReviewedLink& l);

// Flaps a day at the rate seen: one a period when they recur, else the sightings over the span, a day at least (a
// single flap in a minute is not 1,440 a day). The one rate the fabric review and a job's incidents are priced by.
double flapsPerDay(const std::optional<Recurrence>& recurrence, std::size_t sightings, TimeRange span);
// How sightings (sorted times) recur, in words: the fitted period, "once, Sun 11-01 00:05", "too few to call a
// period: 2 sightings, 1h00m00s apart" or "irregular: 5 sightings, Sun 11-01 00:05 .. Sun 11-01 09:40". The one
// wording of the Flaps panel, the incidents, the CLI and the report.
std::string describeSightings(const std::optional<Recurrence>& recurrence, const std::vector<TimeNs>& timesNs);

} // namespace stallscope
