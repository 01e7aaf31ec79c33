// SPDX-License-Identifier: MIT
// Text and JSON forms of a fabric review (schema stallscope.fabric/1, docs/analysis-format.md; keep in sync).
#include "analysis/flaps.h"
#include "core/json_text.h"

#include "core/time_format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace stallscope {

namespace {

// "1h00m02s", "6m30s", "45s", "<1s": whole seconds read best for periods and jitter of hours.
std::string roundSeconds(TimeNs ns)
{
    if (ns < kNsPerSec) {
        return ns <= 0 ? "0s" : "<1s";
    }
    const TimeNs s = (ns + kNsPerSec / 2) / kNsPerSec;
    char buf[48];
    if (s >= 3600) {
        std::snprintf(buf, sizeof buf, "%lldh%02lldm%02llds", (long long)(s / 3600), (long long)(s / 60 % 60),
            (long long)(s % 60));
    } else if (s >= 60) {
        std::snprintf(buf, sizeof buf, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
    } else {
        std::snprintf(buf, sizeof buf, "%llds", (long long)s);
    }
    return buf;
}

// "Mon 2026-11-02 09:17 UTC"
std::string dayAndMinute(TimeNs t)
{
    static const char* kDays[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" }; // 1970-01-01 was a Thursday
    const TimeNs day = t >= 0 ? t / (86400 * kNsPerSec) : (t + 1) / (86400 * kNsPerSec) - 1;
    const auto utc = formatUtc(t); // "2026-11-02 09:17:03.123 UTC"
    return std::string(kDays[((day % 7) + 7) % 7]) + " " + utc.substr(0, 16) + " UTC";
}

// "leaf-r3 p37": a link end as the review names it.
std::string nodeName(const JobSnapshot& /*snap*/, const LinkEndpoint& e)
{
    return e.node + " p" + std::to_string(e.port);
}

std::string linkTitle(const ReviewedLink& l)
{
    return l.a + " <-> " + l.b + "  (" + l.tier + ")";
}

std::string priceLine(const FabricReview& rv, const ReviewedLink& l)
{
    std::ostringstream o;
    // The job's own records showed flaps passing without a stall: the price holds for those that find data in flight.
    o << (l.flapsJobStalledAt < l.flapsJobRanThrough ? "per flap that finds data in flight: " : "per flap: ");
    if (l.crashes) {
        o << "the job crashes (down past the " << formatDuration(rv.policy.retryBudgetNs()) << " retry budget)";
    } else {
        o << (l.lengthAssumed ? "at least " : "") << formatDuration(l.stallPerFlapNs) << " stall";
    }
    o << " of a " << formatCount(rv.options.jobRanks) << "-GPU job = " << formatFixed(l.gpuHoursPerFlap, 2)
      << " GPU-h; " << formatFixed(l.flapsPerDay, l.flapsPerDay < 1 ? 2 : 1) << " flaps/day \u2248 "
      << formatFixed(l.gpuHoursPerDay, 1) << " GPU-h/day";
    if (l.lengthAssumed) {
        o << " (length unknown: counters only; priced as back within one retry period)";
    }
    return o.str();
}

void flappingText(std::ostream& o, const FabricReview& rv, const ReviewedLink& l, std::size_t rank)
{
    o << ' ' << rank << ". " << linkTitle(l) << '\n';
    o << "    " << l.flaps.size() << (l.flaps.size() == 1 ? " flap" : " flaps") << ", "
      << describeSightings(l.recurrence, flapTimes(l));
    if (l.recurrence) {
        o << "; next expected " << dayAndMinute(l.recurrence->nextNs);
    }
    if (l.saturated) {
        o << " (link_downed saturated: later flaps are invisible to the counter)";
    }
    o << '\n';
    if (l.downKnown > 0) {
        o << "    down " << formatDuration(l.downTotalNs) << " in all (" << l.downKnown << " of " << l.flaps.size()
          << " flaps timed by link events)";
    } else {
        o << "    down time unknown (seen in counters only)";
    }
    if (l.symbolErrors > 0) {
        o << "; symbol errors before " << l.flapsWithSymbolsBefore << " of " << l.flaps.size() << " flaps ("
          << formatFixed(l.symbolsBeforePer10Min, 1) << " in the 10 min before, "
          << formatFixed(l.symbolsOtherwisePer10Min, 2) << " per 10 min otherwise)";
    }
    if (l.retrains > 0) {
        o << "; " << l.retrains << " retrains";
    }
    o << jobStallsText(l) << flapsRanThroughText(l) << '\n' << "    " << priceLine(rv, l) << '\n';
}

} // namespace

std::string jobStallsText(const ReviewedLink& l)
{
    if (l.jobStalls.empty()) {
        return "";
    }
    std::string s = l.jobStalls.size() == 1 ? "; in this job's stall " : "; in this job's stalls ";
    for (std::size_t i = 0; i < l.jobStalls.size(); ++i) {
        s += (i == 0 ? "" : i + 1 == l.jobStalls.size() ? " and " : ", ") + std::to_string(l.jobStalls[i]);
    }
    return s;
}

std::string flapsRanThroughText(const ReviewedLink& l)
{
    const auto ran = l.flapsJobRanThrough;
    if (ran == 0 || l.flapsJobStalledAt == ran) {
        return ""; // every flap it ran through stalled it: the job's stalls say so
    }
    const std::string which = ran == l.flaps.size() ? (ran == 1 ? "it" : "all " + std::to_string(ran) + " of them")
                                                    : std::to_string(ran) + " of them";
    if (l.flapsJobStalledAt == 0) {
        return "; this job ran through " + which + " without a stall (no data in flight on the link)";
    }
    return "; " + std::to_string(l.flapsJobStalledAt) + " of the " + std::to_string(ran)
        + " this job ran through stalled it";
}

std::vector<TimeNs> flapTimes(const ReviewedLink& l)
{
    std::vector<TimeNs> out;
    for (const auto& f : l.flaps) {
        out.push_back(f.timeNs());
    }
    return out;
}

double flapsPerDay(const std::optional<Recurrence>& recurrence, std::size_t sightings, TimeRange span)
{
    constexpr double kDayNs = 86400e9;
    if (recurrence && recurrence->periodNs > 0) {
        return kDayNs / double(recurrence->periodNs);
    }
    const double days = double(std::max<TimeNs>(span.end - span.start, 1)) / kDayNs;
    return double(sightings) / std::max(days, 1.0);
}

std::string describeSightings(const std::optional<Recurrence>& recurrence, const std::vector<TimeNs>& timesNs)
{
    if (recurrence) {
        return describeRecurrence(*recurrence);
    }
    if (timesNs.empty()) {
        return "not seen";
    }
    if (timesNs.size() == 1) {
        return "once, " + dayAndMinute(timesNs.front());
    }
    if (timesNs.size() == 2) { // one gap: any period fits it
        return "too few to call a period: 2 sightings, " + roundSeconds(timesNs[1] - timesNs[0]) + " apart";
    }
    return "irregular: " + std::to_string(timesNs.size()) + " sightings, " + dayAndMinute(timesNs.front()) + " .. "
        + dayAndMinute(timesNs.back());
}

std::string describeRecurrence(const Recurrence& r)
{
    std::string s = "every " + roundSeconds(r.periodNs) + " \u00b1 " + roundSeconds(r.jitterNs);
    if (r.resolutionNs > 0) {
        s += " (timed to " + roundSeconds(r.resolutionNs) + " samples)";
    }
    s += ", " + std::to_string(r.onGrid) + " times since " + dayAndMinute(r.firstNs);
    if (r.missed > 0) {
        s += ", " + std::to_string(r.missed) + " expected flaps not seen";
    }
    return s;
}

std::string fabricReviewText(const JobSnapshot& snap, const FabricReview& rv)
{
    std::ostringstream o;
    o << "Fabric review of " << snap.job.name << ": "
      << (rv.span.start == 0 && rv.span.end == 0 // no file gave a time (a node tool's output alone)
                 ? std::string("time span unknown")
                 : formatUtc(rv.span.start) + " .. " + formatUtc(rv.span.end) + " ("
                     + formatSpanLength(rv.span.end - rv.span.start) + ")")
      << "; " << formatCount(rv.linksWatched) << " of " << formatCount(rv.linksTotal)
      << " links (and ports on no known link) watched by counters or events\n";
    if (rv.singleReadings) {
        o << "Every counter was read once (a snapshot): a flap shows only as a step between two readings, so this "
             "data shows only ports that are down now.\n";
    }
    o << "Priced for a " << formatCount(rv.options.jobRanks) << "-GPU job whose traffic crosses the link; "
      << rv.policy.timerText() << " (" << formatDuration(rv.policy.retryPeriodNs()) << " per retry, "
      << formatDuration(rv.policy.retryBudgetNs()) << " budget); switch links "
      << (rv.options.adaptiveRouting ? "with adaptive routing"
                                     : "rerouted by the subnet manager in " + formatDuration(rv.options.smRerouteNs))
      << "\n\n";
    if (rv.flapping.empty()) {
        o << "No link went down.\n";
    } else {
        o << "Flapping links (" << rv.flapping.size() << "), costliest first:\n";
        for (std::size_t i = 0; i < rv.flapping.size(); ++i) {
            flappingText(o, rv, rv.flapping[i], i + 1);
        }
    }
    if (!rv.erroring.empty()) {
        o << "\nErroring links, never down (" << rv.erroring.size() << "):\n";
        for (const auto& l : rv.erroring) {
            o << "    " << linkTitle(l) << ": " << l.retrains << " retrains in " << l.errorBursts << " burst"
              << (l.errorBursts == 1 ? "" : "s") << ", " << formatCount(l.symbolErrors) << " symbol errors"
              << jobStallsText(l) << "\n";
        }
    }
    if (!rv.degraded.empty()) {
        o << "\nLinks trained below their tier (" << rv.degraded.size() << "):\n";
        for (const auto& d : rv.degraded) {
            o << "    " << nodeName(snap, d.a) << " <-> " << nodeName(snap, d.b) << "  (" << d.tier << "): " << d.rate
              << ", " << d.why << "; usual " << d.usual << '\n';
        }
    }
    if (!rv.nodeFindings.empty()) {
        o << '\n' << nodeFindingsText(rv.nodeFindings);
    }
    const auto quiet
        = rv.linksWatched - std::min<std::size_t>(rv.linksWatched, rv.flapping.size() + rv.erroring.size());
    // Never "Quiet" over a finding (a port down, a degraded link, a GPU's Xid, no subnet manager): say what is
    // left once those are set aside; and nothing about links when no link was watched at all.
    const auto notQuiet = rv.degraded.size() + rv.nodeFindings.size();
    const std::string links = rv.linksWatched == 0
        ? "no link is watched by counters or events, so nothing is known of the links"
        : formatCount(quiet) + " watched links never went down, retrained or erred";
    if (notQuiet == 0) {
        o << "\n" << (rv.linksWatched == 0 ? "Nothing to review: " : "Quiet: ") << links << ".\n";
    } else {
        o << "\nNot quiet: " << notQuiet << " finding" << (notQuiet == 1 ? "" : "s") << " above; "
          << (rv.linksWatched == 0 ? links : "the other " + links) << ".\n";
    }
    return o.str();
}

std::string fabricReviewJson(const JobSnapshot& snap, const FabricReview& rv)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = "stallscope.fabric/1";
    j["name"] = snap.job.name;
    j["start_ns"] = rv.span.start;
    j["end_ns"] = rv.span.end;
    j["links_total"] = rv.linksTotal;
    j["links_watched"] = rv.linksWatched;
    j["priced_for"] = { { "job_ranks", rv.options.jobRanks }, { "adaptive_routing", rv.options.adaptiveRouting },
        { "sm_reroute_ns", rv.options.smRerouteNs }, { "nccl_ib_timeout", rv.policy.ncclIbTimeout },
        { "nccl_ib_retry_cnt", rv.policy.ncclIbRetryCnt } };
    auto link = [](const ReviewedLink& l) {
        ordered_json x = { { "a", l.a }, { "b", l.b }, { "guid_a", formatGuid(l.guidA) }, { "port_a", l.portA },
            { "guid_b", formatGuid(l.guidB) }, { "port_b", l.portB }, { "tier", l.tier },
            { "flap_count", l.flaps.size() }, { "retrains", l.retrains }, { "error_bursts", l.errorBursts },
            { "symbol_errors", l.symbolErrors }, { "link_downed_saturated", l.saturated } };
        ordered_json flaps = ordered_json::array();
        for (const auto& f : l.flaps) {
            flaps.push_back({ { "earliest_ns", f.earliestNs }, { "latest_ns", f.latestNs },
                { "down_for_ns", f.downForNs == kNoTime ? ordered_json(nullptr) : ordered_json(f.downForNs) },
                { "from_counters", f.fromCounters }, { "from_events", f.fromEvents },
                { "symbol_errors_before", f.symbolErrorsBefore } });
        }
        x["flaps"] = flaps;
        if (l.recurrence) {
            const auto& r = *l.recurrence;
            x["recurrence"] = { { "period_ns", r.periodNs }, { "jitter_ns", r.jitterNs },
                { "resolution_ns", r.resolutionNs }, { "first_ns", r.firstNs }, { "next_ns", r.nextNs },
                { "on_grid", r.onGrid }, { "missed", r.missed }, { "text", describeRecurrence(r) } };
        } else {
            x["recurrence"] = nullptr;
        }
        x["symbol_trend"] = { { "flaps_with_symbol_errors_before", l.flapsWithSymbolsBefore },
            { "before_per_10min", l.symbolsBeforePer10Min }, { "otherwise_per_10min", l.symbolsOtherwisePer10Min } };
        x["job_stalls"] = l.jobStalls;
        x["job_flaps_ran_through"] = l.flapsJobRanThrough;
        x["job_flaps_stalled_at"] = l.flapsJobStalledAt;
        x["cost"] = { { "flaps_per_day", l.flapsPerDay }, { "crashes", l.crashes },
            { "stall_per_flap_ns", l.stallPerFlapNs }, { "length_assumed", l.lengthAssumed },
            { "gpu_hours_per_flap", l.gpuHoursPerFlap }, { "gpu_hours_per_day", l.gpuHoursPerDay } };
        return x;
    };
    j["flapping"] = ordered_json::array();
    for (const auto& l : rv.flapping) {
        j["flapping"].push_back(link(l));
    }
    j["erroring"] = ordered_json::array();
    for (const auto& l : rv.erroring) {
        j["erroring"].push_back(link(l));
    }
    j["degraded"] = ordered_json::array();
    for (const auto& d : rv.degraded) {
        j["degraded"].push_back({ { "a", nodeName(snap, d.a) }, { "b", nodeName(snap, d.b) }, { "tier", d.tier },
            { "rate", d.rate }, { "gbps", d.gbps }, { "usual_gbps", d.usualGbps }, { "why", d.why } });
    }
    j["node_findings"] = ordered_json::array();
    for (const auto& f : rv.nodeFindings) {
        j["node_findings"].push_back({ { "host", f.host }, { "port", f.port }, { "kind", f.kind }, { "text", f.text },
            { "evidence", f.evidence }, { "port_down", f.portDown } });
    }
    j["seconds"] = rv.seconds;
    return jsonText(j, 1) + "\n";
}

} // namespace stallscope
