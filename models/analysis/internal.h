// SPDX-License-Identifier: MIT
#pragma once

// Internals shared by the analysis' parts. Not a public API.

#include "analysis/analysis.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <unordered_map>

namespace stallscope {
// The logs' story as the "logs" object of the analysis JSON (log_story_text.cpp).
nlohmann::ordered_json logStoryJson(const LogStory& story);
// Sorted ranks as consecutive and evenly spaced runs, at most 12 pieces and the rest counted: "0..7, 16..120 every 8
// (16 ranks)" (log_story.cpp).
std::string rankRuns(const std::vector<std::uint32_t>& ranks);
} // namespace stallscope

namespace stallscope::analysis {

// `parts`: how many slices of ranks are matched side by side (0: core/parallel.h's count); the result is the same.
std::vector<CollectiveMatch> matchCollectives(const JobSnapshot& snap, Progress& progress, unsigned parts = 0);

// Job-wide stalls and hangs (kind still Unknown/Hang/DeadRank; fabric attribution comes later).
std::vector<Incident> findStalls(
    const JobSnapshot& snap, const std::vector<CollectiveMatch>& matches, const AnalysisOptions& options);
std::vector<Incident> findStragglers(const JobSnapshot& snap, const std::vector<CollectiveMatch>& matches);

// Counter series of one port, by kind (-1 = absent).
struct PortSeries
{
    std::array<int, kCounterKindCount> series;
    PortSeries() { series.fill(-1); }
};

// Lookup tables for the fabric: port → series, port → link events, rank → leaf.
class FabricIndex
{
public:
    // `traffic`: also sum the host ports' traffic per second for fabricBytes() — it reads every host port's
    // port_xmit_data (4.6 GB of a 1 s week of 960 hosts), which the fabric review does not need.
    enum class Traffic { Sum, Skip };
    explicit FabricIndex(const JobSnapshot& snap, Traffic traffic = Traffic::Sum);
    const PortSeries* port(std::uint64_t guid, std::uint16_t port) const;
    std::vector<const LinkEvent*> events(std::uint64_t guid, std::uint16_t port) const;
    bool crosses(LinkId link, const ProcessGroup& group) const; // does the group's traffic use this link?
    // Fraction of the group's ranks placed on an HCA of the fabric (rank logs, mapping file).
    double placedFraction(const ProcessGroup& group) const;
    const JobSnapshot& snap() const { return m_snap; }
    TimeNs sampleIntervalNs(int series) const;
    std::vector<LinkId> siblingUplinks(LinkId link) const; // same lower switch, other upper switches
    // Bytes all host ports sent in (from, to], from 1-second bins of host-side port_xmit_data deltas (0 when
    // built with Traffic::Skip).
    double fabricBytes(TimeNs from, TimeNs to) const;
    // The 1 s bins behind fabricBytes: hostTrafficBins(snap, job start, 1 s, their count); empty with Traffic::Skip.
    const std::vector<double>& hostBytesPerSecond() const { return m_fabricBytes; }

private:
    static std::uint64_t key(std::uint64_t guid, std::uint16_t port) { return guid * 1315423911ULL ^ port; }
    const JobSnapshot& m_snap;
    std::unordered_map<std::uint64_t, PortSeries> m_ports;
    std::unordered_map<std::uint64_t, std::vector<const LinkEvent*>> m_events;
    std::vector<std::int32_t> m_nodeRank; // HCA node → a rank on it (-1 none)
    const std::vector<std::uint32_t>& ranksBelow(const ProcessGroup& group) const;
    void sumHostTraffic(std::size_t bins);
    void unionBelow(std::uint8_t tier);
    std::vector<std::vector<std::uint32_t>> m_switchRanks; // switch node → ranks below it (sorted)
    // Per group: per node, the group's ranks below it. Analysis thread only (not shared across threads).
    mutable std::unordered_map<const ProcessGroup*, std::vector<std::uint32_t>> m_groupBelow;
    std::vector<double> m_fabricBytes; // per 1 s bin from the job's start; bin of each sample's end time
};

// Bytes all host ports sent per bin: bin b holds the port_xmit_data increases (× 4 bytes) of the samples whose time
// falls in [start + b × binNs, start + (b + 1) × binNs); samples outside the `bins` are not counted.
std::vector<double> hostTrafficBins(const JobSnapshot& snap, TimeNs start, TimeNs binNs, std::size_t bins);

// Ranks links by evidence for one incident; sets incident.culprit / otherLinks.
// `scored(done, total)`: how many of the incident's candidate links are scored, told on the calling thread while the
// links are scored on every core (132,096 links take about a second at 131,072 ranks).
using LinksScored = std::function<void(std::size_t done, std::size_t total)>;
void attributeToFabric(const FabricIndex& fabric, Incident& incident, const LinksScored& scored = {});

std::vector<DegradedLink> findDegradedLinks(
    const JobSnapshot& snap, const FabricIndex& fabric, const std::vector<CollectiveMatch>& matches);

void priceIncident(const JobSnapshot& snap, Incident& incident);
// Each culprit link's stalls as one set of sightings: how they recur and what that costs a day (PolicyVerdict).
void priceRecurrence(const JobSnapshot& snap, std::vector<Incident>& incidents);

// host_notes.cpp: the notes (Slurm, kernel, the ranks' last words) about the incident's suspects, and Slurm's
// dead-rank story; then one clause for the summary ("Slurm: rank 21 (gpu-b005) was killed (signal 9) ...").
void attachHostNotes(const JobSnapshot& snap, Incident& incident);
// The incident a job of logs alone had (no collective record to find it from), from its logs' story; classified,
// given host notes and priced like any other (log_story.cpp).
std::optional<Incident> logIncident(const JobSnapshot& snap, const LogStory& story);
std::string hostStory(const JobSnapshot& snap, const Incident& incident);
// coverage.cpp: for an incident found from the records of some ranks only, what the other ranks' logs say of its
// window (Coverage::absentLogs), and the logs' dead ranks among them as its silent ranks.
void describeAbsentRanks(const JobSnapshot& snap, const std::optional<LogStory>& story, Incident& incident);
// With thin coverage a peer without records that arrives late in collective after collective (a straggler) makes
// every present rank wait each time: a run of such waits with no fabric evidence becomes one incident ("a peer
// without records arrived late"), not one per collective. `incidents` sorted by start.
void foldUnexplainedWaits(std::vector<Incident>& incidents);
// The incident the logs tell when no record does: in a job of logs alone, or one whose few ranks with records
// (rank 0's profiler trace keeps completed kernels only) show nothing of it. nullopt when an incident found from
// the records already covers its time, or when most ranks have records (their silence is then an answer).
std::optional<Incident> logOnlyIncident(
    const JobSnapshot& snap, const LogStory& story, const std::vector<Incident>& fromRecords);
// Cost of one outage under `policy` for a job of `worldSize` GPUs, the path restored by `recovery`.
WhatIfRow predict(
    const TimeoutPolicy& policy, TimeNs outage, Recovery recovery, TimeNs reroute, std::uint32_t worldSize);
// `fabric`: its 1 s bins serve when the counters' interval is 1 s, instead of summing every host series again.
WhyPassed whyItPassed(const JobSnapshot& snap, const std::vector<Incident>& incidents, const AnalysisOptions& options,
    const FabricIndex* fabric = nullptr);

// Increase of a counter series over the samples whose interval (t[k-1], t[k]] overlaps [from, to].
struct WindowIncrease
{
    std::uint64_t increase = 0;
    TimeNs firstFrom = kNoTime; // interval of the first sample that increased
    TimeNs firstTo = kNoTime;
    bool saturated = false;
    bool reset = false;
};
class SampleSearch;
// `search`, when given, remembers where `from` fell in the series' sample times for the next series that shares them.
WindowIncrease increaseIn(const CounterSeries& s, TimeNs from, TimeNs to, SampleSearch* search = nullptr);

// The first sample at or after a time, remembered per (array of sample times, time). A port's counters share one
// array of sample times, so scoring a link end searches each window edge once instead of once per counter; each
// search of a series of its own reads ~10 scattered cache lines. Exact for any series: a series with times of its
// own is searched. One per thread.
class SampleSearch
{
public:
    std::size_t lowerBound(std::span<const TimeNs> times, TimeNs t);

private:
    struct Entry
    {
        const TimeNs* times = nullptr;
        std::size_t size = 0;
        TimeNs t = kNoTime;
        std::size_t index = 0;
    };
    std::array<Entry, 8> m_entries {}; // a link end asks for five window edges
    std::size_t m_next = 0; // the entry to replace next
};

} // namespace stallscope::analysis
