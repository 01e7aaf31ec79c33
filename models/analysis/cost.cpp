// SPDX-License-Identifier: MIT
// What each incident cost against the timeout policy, the what-if table, and why nothing caught it.
#include "analysis/flaps.h"
#include "analysis/internal.h"
#include "core/stats.h"

#include <algorithm>
#include <map>
#include <cmath>

namespace stallscope::analysis {

namespace {

// NCCL_IB_TIMEOUT values worth comparing (docs/formats.md §6a table) and outage lengths for the what-if table.
constexpr int kTimeouts[] = { 14, 16, 18, 19, 20, 21, 22 };
constexpr TimeNs kOutages[] = { 500 * kNsPerMs, 2 * kNsPerSec, 10 * kNsPerSec, 30 * kNsPerSec, 60 * kNsPerSec };

double gpuSeconds(TimeNs ns, std::uint32_t ranks)
{
    return double(ns) / 1e9 * double(ranks);
}

} // namespace

// Cost of one outage of `outage` under `policy`, with the path restored as the incident's was
// (flapOutcome, docs/formats.md §6b): a stretched collective of whole retry periods, or a crash: the retry
// budget, the collective timeout the other ranks wait out, on average half a checkpoint interval of lost
// work, and the restart.
WhatIfRow predict(
    const TimeoutPolicy& policy, TimeNs outage, Recovery recovery, TimeNs reroute, std::uint32_t worldSize)
{
    WhatIfRow row;
    row.adaptive = policy.adaptive.on;
    row.ncclIbTimeout = policy.ncclIbTimeout;
    row.retryBudgetNs = policy.retryBudgetNs();
    row.outageNs = outage;
    const auto fate = flapOutcome(policy, outage, recovery, reroute);
    row.crash = fate.crash;
    if (row.crash) {
        const TimeNs lost = policy.retryBudgetNs() + policy.collectiveTimeoutNs + policy.checkpointIntervalNs / 2
            + policy.restartTimeNs;
        row.gpuSeconds = gpuSeconds(lost, worldSize);
    } else {
        row.stallNs = fate.stallNs;
        row.gpuSeconds = gpuSeconds(row.stallNs, worldSize);
    }
    return row;
}

void priceIncident(const JobSnapshot& snap, Incident& inc)
{
    auto& p = inc.policy;
    const auto& policy = snap.policy;
    p.retryBudgetNs = policy.retryBudgetNs();
    if (inc.culprit && inc.culprit->downNs != kNoTime && inc.culprit->upNs != kNoTime) {
        p.outageNs = inc.culprit->upNs - inc.culprit->downNs;
        p.outageSource = "link events";
    } else if (inc.kind == IncidentKind::LinkFlap && !inc.jobCrashed) {
        // The stall holds the collective's own data phase too (its baseline): take that off.
        p.outageNs = std::max<TimeNs>(1, inc.endNs - inc.startNs - inc.baselineNs);
        p.outageSource = inc.culprit && inc.culprit->symbolBurst ? "stall duration (the link never stopped; dropped packets)"
            : inc.culprit && inc.culprit->retrained ? "stall duration (upper bound of the retrain's pause)"
                                                               : "stall duration (upper bound)";
    }
    if (inc.culprit) {
        p.recovery = inc.culprit->recovery;
        p.rerouteNs = p.recovery == Recovery::AdaptiveRouting ? 0 : inc.culprit->rerouteNs;
    }
    // Without a known recovery the what-if assumes the path returns with the link (the costlier case).
    const Recovery recovery = p.recovery.value_or(Recovery::LinkUp);
    if (p.outageNs != kNoTime) {
        p.pathDownNs = flapOutcome(policy, p.outageNs, recovery, p.rerouteNs).pathDownNs;
    }
    p.underBudget
        = p.pathDownNs != kNoTime ? (policy.infiniteRetry() || p.pathDownNs <= p.retryBudgetNs) : !inc.jobCrashed;
    p.stallGpuSeconds = inc.gpuSecondsLost;
    if (inc.jobCrashed && inc.jobDiedNs != kNoTime) {
        // Work since the last checkpoint is lost; the restart costs its time on every GPU.
        const TimeNs sinceStart = inc.jobDiedNs - snap.job.clockOriginNs;
        const TimeNs interval = std::max<TimeNs>(policy.checkpointIntervalNs, 1);
        const TimeNs sinceCheckpoint = sinceStart >= 0 ? sinceStart % interval : 0;
        p.crashGpuSeconds = gpuSeconds(sinceCheckpoint + policy.restartTimeNs, snap.job.worldSize);
    }
    p.totalGpuSeconds = p.stallGpuSeconds + p.crashGpuSeconds;
    p.costPerDayIfHourlyGpuHours = p.totalGpuSeconds * 24 / 3600;
    if (inc.kind != IncidentKind::LinkFlap) {
        return;
    }
    // With adaptive retransmission the job's own profile comes first; the other rows answer "with the fixed
    // IB timer at t" (what if ADP were off).
    const int kAdaptiveRow = -1;
    std::vector<int> rows(std::begin(kTimeouts), std::end(kTimeouts));
    if (policy.adaptive.on) {
        rows.insert(rows.begin(), kAdaptiveRow);
    }
    for (const int t : rows) {
        TimeoutPolicy what = policy;
        if (t != kAdaptiveRow) {
            what.ncclIbTimeout = t;
            what.adaptive.on = false;
        }
        if (p.outageNs != kNoTime) {
            p.whatIf.push_back(predict(what, p.outageNs, recovery, p.rerouteNs, snap.job.worldSize));
        }
        for (const TimeNs o : kOutages) {
            if (o == p.outageNs) {
                continue; // the measured outage has its own column
            }
            p.whatIf.push_back(predict(what, o, recovery, p.rerouteNs, snap.job.worldSize));
        }
    }
}

void priceRecurrence(const JobSnapshot& snap, std::vector<Incident>& incidents)
{
    std::map<LinkId, std::vector<Incident*>> byLink;
    for (auto& inc : incidents) {
        if (inc.kind == IncidentKind::LinkFlap && inc.culprit) {
            byLink[inc.culprit->link].push_back(&inc);
        }
    }
    for (auto& [link, stalls] : byLink) {
        std::vector<TimeNs> times;
        for (const auto* inc : stalls) {
            times.push_back(inc->startNs); // incidents are in time order
        }
        const auto recurrence = fitRecurrence(times, std::vector<TimeNs>(times.size(), 0), snap.job.span.end);
        const double perDay = flapsPerDay(recurrence, times.size(), snap.job.span);
        const auto words = describeSightings(recurrence, times);
        for (auto* inc : stalls) {
            inc->policy.recurrence = words;
            inc->policy.flapsPerDay = perDay;
            inc->policy.costPerDayGpuHours = inc->policy.totalGpuSeconds / 3600 * perDay;
        }
    }
}

WhyPassed whyItPassed(const JobSnapshot& snap, const std::vector<Incident>& incidents, const AnalysisOptions& options,
    const FabricIndex* fabric)
{
    WhyPassed w;
    std::vector<TimeNs> outages, starts;
    for (const auto& inc : incidents) {
        if (inc.kind == IncidentKind::LinkFlap) {
            outages.push_back(inc.policy.outageNs != kNoTime ? inc.policy.outageNs : inc.endNs - inc.startNs);
            starts.push_back(inc.startNs);
        }
    }
    if (outages.empty()) {
        return w;
    }
    w.applicable = true;
    w.outageNs = median(outages);
    std::vector<TimeNs> gaps;
    for (std::size_t i = 1; i < starts.size(); ++i) {
        gaps.push_back(starts[i] - starts[i - 1]);
    }
    w.flapPeriodNs = median(gaps);
    const TimeNs period = w.flapPeriodNs > 0 ? w.flapPeriodNs : 3600 * kNsPerSec; // "if it recurs hourly"
    w.checkNs = options.healthCheckNs;
    w.checkEveryNs = options.healthCheckEveryNs;
    // A check of length L overlaps an outage of length D when the outage starts within [t - D, t + L].
    w.chancePerCheck = std::min(1.0, double(w.checkNs + w.outageNs) / double(period));
    const double checksPerDay = double(86400 * kNsPerSec) / double(std::max<TimeNs>(w.checkEveryNs, 1));
    w.chancePerDay = 1.0 - std::pow(1.0 - w.chancePerCheck, checksPerDay);

    // Job-wide traffic (sum of host-side xmit_data) in bins of the counters' own interval.
    TimeNs interval = 0; // the first host series' own sample interval
    for (const auto& s : snap.counters) {
        const auto& p = snap.counterPorts[s.port];
        if (s.kind == CounterKind::PortXmitData && p.node && snap.topology.node(*p.node).kind == NodeKind::Hca
            && s.size() > 1) {
            interval = (s.timesNs.back() - s.timesNs.front()) / static_cast<TimeNs>(s.size() - 1);
            break;
        }
    }
    if (interval <= 0 || snap.job.span.end <= snap.job.span.start) {
        return w;
    }
    const TimeNs t0 = snap.job.span.start;
    // A bin per counter interval, but at most kMaxTrafficBins: the interval is read from one series, and a series
    // whose samples are nanoseconds apart in a job of days (a broken or hostile file) must not size the bins.
    constexpr TimeNs kMaxTrafficBins = 1 << 20; // 8 MiB of doubles; 12 days at the usual 1 s
    interval = std::max(interval, (snap.job.span.end - t0) / kMaxTrafficBins + 1);
    const std::size_t bins = static_cast<std::size_t>((snap.job.span.end - t0) / interval) + 1;
    const bool sameBins = fabric && interval == kNsPerSec && fabric->hostBytesPerSecond().size() == bins;
    const auto bytes = sameBins ? fabric->hostBytesPerSecond() : hostTrafficBins(snap, t0, interval, bins);
    // Dip = 1 - (average over the window holding the stall) / (median of the windows before it).
    const auto dip = [&](TimeNs window, TimeNs atNs) {
        const std::size_t per = std::max<std::size_t>(1, static_cast<std::size_t>(window / interval));
        const auto at = static_cast<std::size_t>((atNs - t0) / interval);
        const std::size_t w0 = at / per * per; // windows aligned to the clock, as dashboards align them
        if (w0 + per > bins || w0 < per) {
            return -1.0; // not enough data around the flap for this window
        }
        const auto mean = [&](std::size_t from) {
            double sum = 0;
            for (std::size_t i = from; i < from + per; ++i) {
                sum += bytes[i];
            }
            return sum / double(per);
        };
        std::vector<double> before;
        for (std::size_t from = w0 >= 10 * per ? w0 - 10 * per : w0 % per; from + per <= w0; from += per) {
            before.push_back(mean(from));
        }
        std::nth_element(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(before.size() / 2), before.end());
        const double normal = before[before.size() / 2];
        return normal > 0 ? std::max(0.0, 100.0 * (1.0 - mean(w0) / normal)) : -1.0;
    };
    const auto& flap = *std::find_if(
        incidents.begin(), incidents.end(), [](const Incident& i) { return i.kind == IncidentKind::LinkFlap; });
    w.dipRawPercent = -1;
    for (TimeNs t = flap.startNs; t <= flap.endNs; t += interval) {
        w.dipRawPercent = std::max(w.dipRawPercent, dip(interval, t)); // the deepest sample inside the stall
    }
    w.dip1MinPercent = dip(60 * kNsPerSec, flap.startNs);
    w.dip5MinPercent = dip(300 * kNsPerSec, flap.startNs);
    return w;
}

} // namespace stallscope::analysis
