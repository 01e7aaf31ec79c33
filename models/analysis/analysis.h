// SPDX-License-Identifier: MIT
#pragma once

// Incident analysis over one snapshot: cross-rank matching of collectives, job-wide stalls, hangs and
// crashes, stragglers, fabric attribution with evidence, and the cost of each incident against the
// timeout policy. Pure function of the snapshot; the result is immutable and shared like the snapshot.
// Cost: O(records) for matching and stall detection, plus O(links × samples in the incident windows).

#include "core/job_snapshot.h"
#include "core/progress.h"
#include "core/timeout_policy.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct AnalysisOptions
{
    double quorum = 0.9; // share of a group's ranks inside the same collective for a job-wide stall
    double stallFactor = 5.0; // "far longer": this many times the robust baseline of the same shape
    TimeNs minStallNs = 20 * kNsPerMs; // and at least this much longer than the baseline (ignores jitter)
    std::uint32_t baselineWindow = 31; // collectives of the same shape in the running median
    TimeNs healthCheckNs = 60 * kNsPerSec; // "why it passes every test": a periodic health check ...
    TimeNs healthCheckEveryNs = 6 * 3600 * kNsPerSec; // ... run this often
};

// Cross-rank view of one collective (group, seq).
struct CollectiveMatch
{
    std::uint16_t group = 0;
    std::uint32_t seq = 0;
    std::uint16_t shape = 0;
    std::uint32_t entered = 0; // ranks with a record for it
    std::uint32_t completed = 0;
    std::uint32_t failed = 0;
    std::uint32_t timedOut = 0;
    TimeNs firstArrivalNs = kNoTime; // arrival = start time, or enqueue time when start is unknown
    TimeNs lastArrivalNs = kNoTime;
    std::uint32_t firstArriver = 0;
    std::uint32_t lastArriver = 0;
    TimeNs secondLastArrivalNs = kNoTime; // for the last arriver's lead over everyone else
    TimeNs firstEndNs = kNoTime; // earliest completion
    TimeNs lastEndNs = kNoTime; // latest completion
    // Shortest time any completed rank spent inside it (end − arrival on ONE rank's clock, so free of
    // cross-host clock skew): the data phase after the last arrival, i.e. what the collective really took.
    TimeNs minInsideNs = kNoTime;
    TimeNs minInsideArrivalNs = kNoTime; // that rank's arrival (its clock)
    TimeNs firstFailureNs = kNoTime; // earliest end time of a failed record
    std::uint32_t firstFailedRank = 0;
    TimeNs lastGiveUpNs = kNoTime; // latest end of a failed or timed-out record
    TimeNs meanArrivalNs = kNoTime; // mean arrival over the ranks that entered (the heatmap's lateness)
    std::int64_t arrivalOffsetSumNs = 0; // internal: sum of (arrival - firstSeenArrivalNs)
    TimeNs firstSeenArrivalNs = kNoTime; // internal: the first arrival added, the sum's base
};

enum class IncidentKind { LinkFlap, DeadRank, Straggler, Hang, Unknown };

// How many ranks a conclusion rests on. Dumps or traces from every rank are rare after an incident (one node's
// dumps, rank 0's profiler trace), so a stall is found from the ranks that have records, and says how many those are.
struct Coverage
{
    std::uint32_t groupRanks = 0; // ranks of the incident's process group
    std::uint32_t recorded = 0; // of those, ranks with any collective record (Flight Recorder dump, profiler trace)
    std::uint32_t seen = 0; // of those, ranks whose record shows the incident (they were inside the collective)
    // Too few ranks have records for a quorum of the group: the incident was found from the ranks present, and the
    // ranks affected and the cost are the group's, extrapolated from them.
    bool extrapolated = false;
    std::uint32_t onlyRank = kNoRank; // when a single rank of the group has records: that rank
    std::string absentLogs; // what the logs of the ranks without records say of the same window ("" when none)
    bool partial() const { return recorded < groupRanks; }
};
// "seen on all 8 of 8 ranks with records; 120 ranks have none", "seen on rank 0's record alone (...)".
std::string coverageText(const Coverage& c);
std::string_view toString(IncidentKind k); // "link_flap", ...

struct EvidenceLine
{
    TimeNs timeNs = 0; // when (sample time or event time)
    std::string what; // "link_downed +1 on leaf-r3 port 18 (0x...)", readable
    double weight = 0;
};

struct LinkEndpoint
{
    std::string node; // node description as the topology names it
    std::uint64_t guid = 0;
    std::uint16_t port = 0;
};

struct LinkVerdict
{
    LinkId link {};
    LinkEndpoint a, b;
    double score = 0;
    std::string confidence; // "high", "medium", "low"
    bool retrained = false; // hard evidence is link_error_recovery only: it paused without going down
    // Hard evidence is a symbol-error burst with packets dropped at the stall's onset (port_rcv_errors): the link
    // neither went down nor retrained, but a packet lost at a message's tail costs the sender's ACK timeout.
    bool symbolBurst = false;
    bool reroutedAround = false; // leaf–spine link whose traffic moved to sibling uplinks (counter evidence)
    TimeNs downNs = kNoTime; // from link events, when seen
    TimeNs upNs = kNoTime;
    // What gave the stalled collective its path back (docs/formats.md §6b); unset when the evidence cannot
    // tell (a link back within one ACK timeout looks the same under adaptive routing and without it).
    std::optional<Recovery> recovery;
    TimeNs rerouteNs = kNoTime; // subnet-manager reroute: estimated time from the loss to the new routes
    std::string recoveryText; // one readable sentence, empty when unknown
    std::vector<EvidenceLine> evidence;
};

struct WhatIfRow
{
    bool adaptive = false; // the job's own adaptive retransmission profile (RoCE), not a fixed timer
    int ncclIbTimeout = 20;
    // How a table names the row: "ADP" for the job's adaptive profile, else the NCCL_IB_TIMEOUT value.
    std::string label() const { return adaptive ? "ADP" : std::to_string(ncclIbTimeout); }
    TimeNs retryBudgetNs = 0;
    TimeNs outageNs = 0;
    bool crash = false;
    TimeNs stallNs = 0; // expected stall when it does not crash
    double gpuSeconds = 0; // cost of one such flap
};

struct PolicyVerdict
{
    TimeNs outageNs = kNoTime; // measured outage (link down → up), when known
    std::string outageSource; // "link events", "stall duration (upper bound)"
    std::optional<Recovery> recovery; // the culprit's, when known (else the what-if assumes the link must return)
    TimeNs rerouteNs = kNoTime; // with Recovery::SubnetManager: estimated reroute time
    TimeNs pathDownNs = kNoTime; // how long no route existed: the outage, or the reroute time when shorter
    TimeNs retryBudgetNs = 0;
    bool underBudget = true;
    double stallGpuSeconds = 0;
    double crashGpuSeconds = 0; // work lost since the last checkpoint + restart, × world size (0 if no crash)
    double totalGpuSeconds = 0;
    double costPerDayIfHourlyGpuHours = 0;
    // The culprit link's stalls in this job as sightings, worded and rated as the fabric review words and rates a
    // link's flaps (flaps.h describeSightings, flapsPerDay): "too few to call a period: 2 sightings, 1h00m apart".
    std::string recurrence;
    double flapsPerDay = 0;
    double costPerDayGpuHours = 0; // totalGpuSeconds at flapsPerDay
    std::vector<WhatIfRow> whatIf;
};

struct Incident
{
    int number = 0; // 1-based, in time order; stable for a given input
    IncidentKind kind = IncidentKind::Unknown;
    TimeNs startNs = 0; // progress stopped
    TimeNs endNs = 0; // first completion, or when the job gave up
    std::uint32_t ranksAffected = 0;
    std::uint32_t heldRanks = 0; // of those, ranks of other groups that waited for this group (pod groups, §6b)
    std::uint16_t group = 0;
    std::uint32_t seq = 0;
    CollectiveOp op = CollectiveOp::AllReduce;
    std::uint64_t bytes = 0;
    TimeNs baselineNs = 0; // what this collective usually takes
    double gpuSecondsLost = 0;
    TimeNs stragglerLeadNs = 0; // stragglers: median lead of the last arriver over the second-last
    bool jobCrashed = false;
    TimeNs jobDiedNs = kNoTime;
    std::vector<std::uint32_t> missingRanks; // never entered the collective
    // Ranks without a record whose log has no timeout for this collective while the others' logs do (they never
    // reached it, LogHang::neverReached): with thin coverage, the suspects the records cannot name.
    std::vector<std::uint32_t> silentRanks;
    std::vector<std::uint32_t> suspectRanks; // missing, first failed, or straggling ranks
    std::vector<std::uint32_t> firstFailedRanks; // transport-retry failures, earliest first
    std::uint32_t timedOutRanks = 0; // gave up at the collective timeout
    std::optional<LinkVerdict> culprit; // never set without hard evidence
    std::vector<LinkVerdict> otherLinks; // links with some evidence that were not blamed, and why
    // What the suspects' ranks and hosts said around it (Slurm fates, kernel link events, GPU Xids, watchdog and
    // abort lines): time order, those without a time (timeNs == kNoTime) last. At most kMaxHostEvidence.
    std::vector<EvidenceLine> hostEvidence;
    // Slurm's story of a dead rank: the one task killed by a signal other than SIGABRT while others aborted or
    // exited after it (the survivors abort when the collective fails; the first death is the cause).
    std::optional<std::uint32_t> killedRank;
    // NCCL RAS's story: the one rank a RAS status or monitor named dead or missing from its communicator while
    // the collective hung (no link blamed). Like killedRank, it names the suspect when every rank entered.
    std::optional<std::uint32_t> rasRank;
    // torchrun's story: the rank its failure table names as the root cause (first observed failure), when that
    // rank did not merely abort (SIGABRT is how every rank ends after a watchdog timeout: no cause then).
    std::optional<std::uint32_t> launcherRank;
    std::string summary; // one line for people
    Coverage coverage; // for incidents found from collective records; recorded = 0 for one told by the logs alone
    PolicyVerdict policy;
};

inline constexpr std::size_t kMaxHostEvidence = 12;

// What an incident is, for people: "link flap", "crash: link down past the retry budget", "dead rank", "straggler",
// "hang". Tables and titles use it; toString's code names are for JSON and the CLI's machine-readable columns.
std::string incidentLabel(const Incident& inc);
// The day's price at the rate the culprit's stalls recur ("too few to call a period: 2 sightings, 1h00m00s apart:
// ≈ 2.4 GPU-h per day at that rate"), or, with no culprit link, if it recurred hourly.
std::string costPerDayText(const PolicyVerdict& p);

struct WhyPassed
{
    bool applicable = false; // there was at least one flap
    TimeNs outageNs = 0;
    TimeNs flapPeriodNs = 0; // from the bundle's flap schedule (0 = a single flap)
    TimeNs checkNs = 0;
    TimeNs checkEveryNs = 0;
    double chancePerCheck = 0; // a single health check overlaps an outage
    double chancePerDay = 0; // any check in a day does
    // Traffic dip across the first flap, percent; -1 when the data around it is too short for the window.
    double dip1MinPercent = 0; // as a 1-minute average shows it
    double dip5MinPercent = 0;
    double dipRawPercent = 0; // at the counters' own resolution
};

// A link that trained below the usual rate of its tier (fewer lanes or a slower speed than the other links
// of the same tier), or whose two ends reported different rates: found from the topology alone
// (docs/formats.md §5e). It slows every collective that crosses it, on every rank, for as long as it lasts.
struct DegradedLink
{
    LinkId link {};
    LinkEndpoint a, b;
    std::string tier; // "host links", "switch links (tier 1-2)"
    std::string rate; // "1x NDR (100 Gb/s)"
    std::string usual; // "400 Gb/s, like 31 other switch links (tier 1-2)"
    double gbps = 0; // data rate it trained at
    double usualGbps = 0; // the tier's most common rate
    std::uint32_t peers = 0; // links of the tier at the usual rate
    bool endsDisagree = false;
    std::string why; // "lanes lost: 1x where its tier is 4x", ...
    bool jobCrosses = false; // a process group's traffic uses it (ranks placed on the fabric)
    std::string impact; // what the crossing group's collectives reached, when measurable
};

// What the ranks' logs say, read from the snapshot's log facts alone (analysis/log_story.cpp): the story a person
// reading the logs finds first, whether or not dumps give collectives too. Ranks are global ranks.
struct LogHang
{
    std::string pg; // the process group the watchdog lines name ("" when they name none: the default group)
    std::int64_t seq = -1; // SeqNum of the collective most ranks timed out in
    std::string op; // OpType as PyTorch spells it
    std::int64_t numelIn = -1, numelOut = -1, timeoutMs = -1;
    TimeNs firstTimeoutNs = kNoTime, lastTimeoutNs = kNoTime;
    TimeNs startedNs = kNoTime; // the first timeout minus its "ran for": when the collective began on that rank
    std::vector<std::uint32_t> timedOut; // ranks whose watchdog fired at this SeqNum
    std::vector<std::pair<std::uint32_t, std::int64_t>> elsewhere; // ranks that timed out at another SeqNum
    std::vector<std::uint32_t> neverReached; // ranks with a log and no timeout: they never reached it
};

struct LogDesync // ranks report different collectives for one SeqNum of one group
{
    std::string pg;
    std::int64_t seq = -1;
    struct Variant
    {
        std::string op;
        std::int64_t numelIn = -1, numelOut = -1;
        std::vector<std::uint32_t> ranks;
    };
    std::vector<Variant> variants;
};

struct LogError // an NCCL or transport error as one rank's log gives it
{
    TimeNs timeNs = kNoTime;
    std::uint32_t rank = kNoRank;
    std::string host, hca, peer, kind, file;
    int status = -1, vendorErr = -1;
    std::int64_t line = 0;
    std::string text; // what the line said, for a failure that is not a transport error (firstProblem)
};

struct LogLauncherFailure // a failed worker as its launcher (torchrun) reports it
{
    TimeNs timeNs = kNoTime;
    std::uint32_t rank = kNoRank;
    std::string host, text; // text: "rank 21 (local_rank 5): exitcode -6 (pid 48121): Signal 6 (SIGABRT) ..."
    std::int64_t exitCode = 0; // negative: killed by that signal
};

// What the Flight Recorder analyzer (fr_trace) concluded about one collective, from every rank's dump: read from
// its saved output (import/logs/fr_trace_text.h), not from the ranks' own lines.
struct LogAnalyzerFinding
{
    std::string pg; // "group info" as fr_trace printed it: "0:default_pg", or the group's name alone
    std::int64_t seq = -1; // -1: the oldest wording gives none
    std::string op; // "nccl:all_reduce"
    std::vector<std::uint32_t> missing; // ranks that never joined it
    std::vector<std::pair<std::uint32_t, std::string>> culprits; // rank, the error type and its detail
    std::string mismatch; // a size mismatch that names no rank (all-to-all)
    std::string file;
    std::int64_t line = 0; // where fr_trace said it first
};

struct LogStory
{
    std::size_t facts = 0;
    std::vector<std::pair<std::string, std::size_t>> counts; // per kind of fact, in the order of LogEventKind
    std::optional<LogHang> hang;
    std::vector<LogDesync> desyncs;
    std::optional<LogError> firstError; // the earliest in time, not the most numerous
    std::string suspect; // "gpu-b003 mlx5_2 port 1", and "<-> leaf-07 port 12" with a topology
    std::vector<LogError> consequences; // later errors on other hosts: the first of each host
    // The earliest line that says something failed that is neither a transport error nor a timeout: a socket that
    // failed, an NCCL warning reporting a failure ("Call to ibv_create_qp failed", "Cuda failure 2"), a watchdog's
    // failure or exception, an abort. A log with one is never called healthy.
    std::optional<LogError> firstProblem;
    std::vector<std::uint32_t> deadRanks; // their log stops before the others time out, with no timeout of its own
    std::string timeLimit; // Slurm cancelled the job or step at its time limit: the line, else empty
    std::string cancelled; // ... or for another reason, or none given (scancel): the line, else empty
    std::string cancelReason; // that reason in words ("requeued: preempted …", "no reason given: scancel …")
    std::optional<std::uint32_t> crashedRank; // the one task killed by a signal other than SIGABRT
    std::string crash; // that task's fate as Slurm says it
    std::size_t tasksEnded = 0; // Slurm tasks killed by a signal or exited with an error: never "healthy" then
    // torchrun's failure table: the rank it names as the root cause (first observed failure), and how many ranks
    // its tables say failed, the root cause among them.
    std::optional<LogLauncherFailure> firstFailure;
    std::size_t launcherFailures = 0;
    std::vector<std::string> transports; // "IB via mlx5_0, mlx5_1: ranks 0..7", "Socket: ranks 8..15"
    bool socketFallback = false; // a rank's NCCL found no IB device and used TCP sockets
    std::vector<LogAnalyzerFinding> analyzer; // in the order fr_trace printed them
    std::vector<std::uint32_t> analyzerNoDump; // ranks fr_trace had no dump from ("we cannot decide ...")
    std::string summary; // one line
};

struct AnalysisResult
{
    std::vector<CollectiveMatch> collectives; // sorted by (group, seq)
    std::vector<Incident> incidents;
    std::vector<DegradedLink> degradedLinks; // links crossed by the job first, then the slowest
    WhyPassed whyPassed;
    std::optional<LogStory> logStory; // when the snapshot holds log facts or Slurm's fates
    std::uint64_t recordsScanned = 0;
    double seconds = 0;
};

using AnalysisPtr = std::shared_ptr<const AnalysisResult>;

// Each rank's lateness in one collective: its arrival minus the median arrival of the ranks that entered
// (Ravel's lateness). Ranks without a record get kNoTime. O(group size × log records per rank).
std::vector<TimeNs> rankLateness(const JobSnapshot& snap, const CollectiveMatch& match);

AnalysisResult analyze(const JobSnapshot& snap, const AnalysisOptions& options, Progress& progress);
// The windows of job-wide stalls (every incident but a straggler's): what the heatmap shades as stalled.
std::vector<TimeRange> stallWindows(const AnalysisResult& result);
AnalysisResult analyze(const JobSnapshot& snap, const AnalysisOptions& options = {});

// The logs' story (analysis/log_story.cpp); nullopt when the snapshot holds no log fact and no Slurm fate.
std::optional<LogStory> readLogStory(const JobSnapshot& snap);
std::string logStoryText(const JobSnapshot& snap, const LogStory& story);

// Degraded links from the topology alone (fabric data without a job: none is marked as crossed).
std::vector<DegradedLink> degradedLinks(const JobSnapshot& snap);

// Text for the terminal (incident list, then details) and versioned JSON (docs/analysis-format.md).
std::string analysisText(const JobSnapshot& snap, const AnalysisResult& result);
std::string analysisJson(const JobSnapshot& snap, const AnalysisResult& result);
// What an analysis without incidents says: no stall found, or that there was nothing to look in (no rank has a
// collective record and no log was read), so an empty folder is never reported as a healthy job.
std::string noIncidentText(const JobSnapshot& snap);
// One incident's details (evidence, policy verdict, cost, what-if), as in analysisText.
std::string incidentText(const JobSnapshot& snap, const Incident& incident);

} // namespace stallscope
