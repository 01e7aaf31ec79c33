// SPDX-License-Identifier: MIT
// The flap finder: per link, every down (link_downed steps on either end, link down events) merged into one
// sighting per flap, retrains and symbol errors, the recurrence of the flaps, and their price for a job.
#include "analysis/flaps.h"

#include "analysis/internal.h"
#include "core/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

namespace stallscope {

namespace {

using analysis::FabricIndex;
using analysis::PortSeries;

constexpr TimeNs kBurstGapNs = 10 * 60 * kNsPerSec; // retrains closer than this are one burst
constexpr TimeNs kLookbackNs = 10 * 60 * kNsPerSec; // symbol errors "before a flap"
constexpr TimeNs kSameFlapNs = kNsPerSec; // two ends' samplers / events disagree by clock skew at most this
constexpr double kDayNs = 86400e9;

// A counter's increases, one per sampling interval that increased: (previous sample, sample], count.
struct Step
{
    TimeNs fromNs = 0;
    TimeNs toNs = 0;
    std::uint64_t count = 0;
};

struct Steps
{
    std::vector<Step> steps;
    std::uint64_t total = 0;
    bool saturated = false;
};

// Error counters stand still nearly always: a block of samples is first checked for any change or a value at
// the counter's maximum with a loop the compiler vectorises, and only a block that has one is walked sample by
// sample (a week of 1 s link_downed, symbol_error and retrain counters on 2,048 ports is 3.7 billion samples).
template <typename T> Steps stepsOfTyped(const CounterSeries& s, const T* v)
{
    constexpr std::size_t kBlock = 4096;
    const std::uint64_t max = s.bits >= 64 ? ~0ULL : ((1ULL << s.bits) - 1);
    const T top = static_cast<T>(std::min<std::uint64_t>(max, std::numeric_limits<T>::max()));
    Steps out;
    for (std::size_t b = 1; b < s.size(); b += kBlock) {
        const std::size_t e = std::min(s.size(), b + kBlock);
        bool moved = false;
        for (std::size_t k = b; k < e; ++k) {
            moved |= (v[k] != v[k - 1]) | (v[k] >= top);
        }
        if (!moved) {
            continue;
        }
        for (std::size_t k = b; k < e; ++k) {
            const auto d = counterDelta(v[k - 1], v[k], s.bits);
            out.saturated = out.saturated || d.saturated;
            if (d.increase > 0) {
                out.steps.push_back({ s.timesNs[k - 1], s.timesNs[k], d.increase });
                out.total += d.increase;
            }
        }
    }
    return out;
}

Steps stepsOf(const CounterSeries& s)
{
    switch (s.storageBytes) {
    case 1:
        return stepsOfTyped(s, static_cast<const std::uint8_t*>(s.values));
    case 2:
        return stepsOfTyped(s, static_cast<const std::uint16_t*>(s.values));
    case 4:
        return stepsOfTyped(s, static_cast<const std::uint32_t*>(s.values));
    default:
        return stepsOfTyped(s, static_cast<const std::uint64_t*>(s.values));
    }
}

const CounterSeries* seriesOf(const JobSnapshot& snap, const PortSeries* ps, CounterKind kind)
{
    if (!ps) {
        return nullptr;
    }
    const int i = ps->series[static_cast<std::size_t>(kind)];
    return i < 0 ? nullptr : &snap.counters[static_cast<std::size_t>(i)];
}

// Adds `count` flaps seen between `from` and `to` unless flaps already found there (the other end's counter,
// a link event) account for them; narrows those to the overlap of the brackets.
void addBracket(std::vector<FlapSighting>& flaps, TimeNs from, TimeNs to, std::uint64_t count)
{
    // link_downed is 8 bits wide (IBA PortCounters): more than 255 in one interval is a file that lies about the
    // counter's width, and must not size an allocation.
    count = std::min<std::uint64_t>(count, 255);
    std::uint64_t known = 0;
    for (auto& f : flaps) {
        if (f.latestNs >= from - kSameFlapNs && f.earliestNs <= to + kSameFlapNs) {
            ++known;
            f.fromCounters = true;
            if (!f.fromEvents) {
                const TimeNs e = std::max(f.earliestNs, from), l = std::min(f.latestNs, to);
                if (e <= l) {
                    f.earliestNs = e;
                    f.latestNs = l;
                }
            }
        }
    }
    for (; known < count; ++known) {
        FlapSighting f;
        f.earliestNs = from;
        f.latestNs = to;
        f.fromCounters = true;
        flaps.push_back(f);
    }
}

// Down events of both ends: one sighting per flap (both ends report the same flap), its length from the
// next up event of the same port.
std::vector<FlapSighting> eventFlaps(const std::vector<std::vector<const LinkEvent*>>& ends)
{
    std::vector<FlapSighting> out;
    for (const auto& events : ends) {
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (events[i]->state != LinkState::Down) {
                continue;
            }
            const TimeNs t = events[i]->timeNs;
            TimeNs downFor = kNoTime;
            for (std::size_t j = i + 1; j < events.size(); ++j) {
                if (events[j]->state == LinkState::Up) {
                    downFor = events[j]->timeNs - t;
                    break;
                }
            }
            auto same = std::find_if(out.begin(), out.end(),
                [&](const FlapSighting& f) { return std::llabs(f.earliestNs - t) <= kSameFlapNs; });
            if (same == out.end()) {
                FlapSighting f;
                f.earliestNs = f.latestNs = t;
                f.downForNs = downFor;
                f.fromEvents = true;
                out.push_back(f);
            } else if (same->downForNs == kNoTime) {
                same->downForNs = downFor;
            }
        }
    }
    return out;
}

class LinkReviewer
{
public:
    LinkReviewer(const JobSnapshot& snap, const FabricIndex& fx, const FabricReviewOptions& o)
        : m_snap(snap)
        , m_fx(fx)
        , m_o(o)
    {
    }

    // Everything the counters and events say about one link; `watched` says whether anything covers it.
    ReviewedLink review(LinkId id, bool& watched) const
    {
        const auto& topo = m_snap.topology;
        const auto& l = topo.link(id);
        ReviewedLink r;
        r.link = id;
        r.guidA = topo.node(l.a.node).guid;
        r.guidB = topo.node(l.b.node).guid;
        r.portA = l.a.port;
        r.portB = l.b.port;
        r.a = m_snap.str(topo.node(l.a.node).description) + " p" + std::to_string(l.a.port);
        r.b = m_snap.str(topo.node(l.b.node).description) + " p" + std::to_string(l.b.port);
        r.tier = std::string(tierName(topo, l));
        watched = collect(r, 2);
        return r;
    }

    // A port with counters that no topology link holds (host counters without a topology): reviewed alone.
    ReviewedLink reviewPort(const CounterPort& p) const
    {
        ReviewedLink r;
        r.guidA = p.guid;
        r.portA = p.port;
        const auto node = m_snap.topology.findNodeByGuid(p.guid);
        r.a = (node ? m_snap.str(m_snap.topology.node(*node).description) : formatGuid(p.guid)) + " p"
            + std::to_string(p.port);
        r.b = "(peer not in any topology file)";
        r.tier = "unplaced";
        collect(r, 1);
        return r;
    }

private:
    // Flaps, retrains and symbol errors of the link's `endCount` ends; true when anything covers them.
    bool collect(ReviewedLink& r, int endCount) const
    {
        const std::pair<std::uint64_t, std::uint16_t> ends[] = { { r.guidA, r.portA }, { r.guidB, r.portB } };
        std::vector<std::vector<const LinkEvent*>> events;
        const PortSeries* ports[2] = {};
        for (int e = 0; e < endCount; ++e) {
            events.push_back(m_fx.events(ends[e].first, ends[e].second));
            ports[e] = m_fx.port(ends[e].first, ends[e].second);
        }
        bool watched = false;
        for (int e = 0; e < endCount; ++e) {
            watched = watched || ports[e] || !events[static_cast<std::size_t>(e)].empty();
        }
        r.flaps = eventFlaps(events);
        std::vector<Step> retrainSteps;
        for (const auto* ps : ports) {
            if (const auto* s = seriesOf(m_snap, ps, CounterKind::LinkDowned)) {
                const auto st = stepsOf(*s);
                r.saturated = r.saturated || st.saturated;
                for (const auto& step : st.steps) {
                    addBracket(r.flaps, step.fromNs, step.toNs, step.count);
                }
            }
            if (const auto* s = seriesOf(m_snap, ps, CounterKind::LinkErrorRecovery)) {
                // Both ends count the same retrain: keep the end that saw more.
                const auto st = stepsOf(*s);
                if (st.total > r.retrains) {
                    r.retrains = static_cast<std::uint32_t>(std::min<std::uint64_t>(st.total, 0xffffffffu));
                    retrainSteps = st.steps;
                }
            }
            if (const auto* s = seriesOf(m_snap, ps, CounterKind::SymbolError)) {
                r.symbolErrors += stepsOf(*s).total;
            }
            if (const auto* s = seriesOf(m_snap, ps, CounterKind::PortRcvErrors)) {
                for (const auto& step : stepsOf(*s).steps) {
                    r.dropBrackets.push_back({ step.fromNs, step.toNs });
                }
            }
        }
        std::sort(r.flaps.begin(), r.flaps.end(),
            [](const FlapSighting& x, const FlapSighting& y) { return x.timeNs() < y.timeNs(); });
        for (std::size_t i = 0; i < retrainSteps.size(); ++i) {
            r.errorBursts += i == 0 || retrainSteps[i].fromNs - retrainSteps[i - 1].toNs > kBurstGapNs;
            r.retrainBrackets.push_back({ retrainSteps[i].fromNs, retrainSteps[i].toNs });
        }
        symbolTrend(r, ports);
        for (const auto& f : r.flaps) {
            if (f.downForNs != kNoTime) {
                r.downTotalNs += f.downForNs;
                ++r.downKnown;
            }
        }
        return watched;
    }

public:
    void price(ReviewedLink& r, TimeRange span) const
    {
        if (r.flaps.empty()) {
            return;
        }
        std::vector<TimeNs> lengths;
        for (const auto& f : r.flaps) {
            if (f.downForNs != kNoTime) {
                lengths.push_back(f.downForNs);
            }
        }
        // Without a measured length, price the cheapest a flap can be: back within one ACK timeout.
        r.lengthAssumed = lengths.empty();
        const TimeNs outage = lengths.empty() ? 1 : median(lengths);
        const bool hostLink = r.tier == "host-leaf" || r.tier == "unplaced"; // unplaced ports are host ports
        const auto recovery = hostLink ? Recovery::LinkUp
            : m_o.adaptiveRouting      ? Recovery::AdaptiveRouting
                                       : Recovery::SubnetManager;
        const TimeNs reroute = recovery == Recovery::SubnetManager ? m_o.smRerouteNs : 50 * kNsPerMs;
        const auto row = analysis::predict(m_snap.policy, outage, recovery, reroute, m_o.jobRanks);
        r.crashes = row.crash;
        r.stallPerFlapNs = row.crash ? 0 : row.stallNs;
        r.gpuHoursPerFlap = row.gpuSeconds / 3600.0;
        r.flapsPerDay = flapsPerDay(r.recurrence, r.flaps.size(), span);
        r.gpuHoursPerDay = r.gpuHoursPerFlap * r.flapsPerDay;
    }

private:
    void symbolTrend(ReviewedLink& r, const PortSeries* const* ports) const
    {
        std::uint64_t before = 0;
        TimeNs windows = 0;
        TimeNs lastEnd = kNoTime;
        for (auto& f : r.flaps) {
            const TimeNs to = f.earliestNs, from = to - kLookbackNs;
            for (int e = 0; e < 2; ++e) {
                if (const auto* s = seriesOf(m_snap, ports[e], CounterKind::SymbolError)) {
                    f.symbolErrorsBefore += static_cast<std::uint32_t>(
                        std::min<std::uint64_t>(analysis::increaseIn(*s, from, to).increase, 0xffffffffu));
                }
            }
            r.flapsWithSymbolsBefore += f.symbolErrorsBefore > 0;
            before += f.symbolErrorsBefore;
            windows += lastEnd == kNoTime ? kLookbackNs : std::min(kLookbackNs, std::max<TimeNs>(0, to - lastEnd));
            lastEnd = to;
        }
        const double per10 = double(kLookbackNs);
        const TimeNs spanNs = std::max<TimeNs>(m_snap.job.span.end - m_snap.job.span.start, 1);
        if (!r.flaps.empty()) {
            r.symbolsBeforePer10Min = double(before) / double(r.flaps.size());
        }
        const double rest = double(std::max<TimeNs>(spanNs - windows, kLookbackNs));
        r.symbolsOtherwisePer10Min = double(r.symbolErrors > before ? r.symbolErrors - before : 0) / rest * per10;
    }

    const JobSnapshot& m_snap;
    const FabricIndex& m_fx;
    const FabricReviewOptions& m_o;
};

} // namespace

std::optional<Recurrence> fitRecurrence(
    const std::vector<TimeNs>& t, const std::vector<TimeNs>& uncertaintyNs, TimeNs afterNs)
{
    if (t.size() < 3 || uncertaintyNs.size() != t.size()) {
        return std::nullopt;
    }
    std::vector<TimeNs> gaps;
    for (std::size_t i = 1; i < t.size(); ++i) {
        gaps.push_back(t[i] - t[i - 1]);
    }
    double period = double(median(gaps));
    if (!(period > 0)) {
        return std::nullopt;
    }
    // Least squares t_i = a + P·n_i. Each flap's grid index n_i counts whole periods in the gap from the one
    // before (robust to a first guess that is off by a few percent, which accumulates over hundreds of
    // periods), so a missed flap (a gap of two periods) does not bias the fit; refined three times.
    double a = double(t[0]);
    std::vector<double> n(t.size());
    for (int pass = 0; pass < 3; ++pass) {
        n[0] = 0;
        for (std::size_t i = 1; i < t.size(); ++i) {
            n[i] = n[i - 1] + std::round(double(t[i] - t[i - 1]) / period);
        }
        double sn = 0, st = 0, snn = 0, snt = 0;
        const double m = double(t.size());
        for (std::size_t i = 0; i < t.size(); ++i) {
            const double ti = double(t[i] - t[0]);
            sn += n[i];
            st += ti;
            snn += n[i] * n[i];
            snt += n[i] * ti;
        }
        const double den = m * snn - sn * sn;
        if (den <= 0) {
            return std::nullopt;
        }
        period = (m * snt - sn * st) / den;
        a = double(t[0]) + (st - period * sn) / m;
        if (!(period > 0)) {
            return std::nullopt;
        }
    }
    double sq = 0, bracketVar = 0;
    TimeNs widest = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double r = double(t[i]) - (a + period * n[i]);
        sq += r * r;
        // A flap known only to lie in a bracket of width w sits at its middle ± w/√12 (uniform).
        bracketVar += double(uncertaintyNs[i]) * double(uncertaintyNs[i]) / 12.0;
        widest = std::max(widest, uncertaintyNs[i]);
    }
    const double m = double(t.size());
    const double jitter = std::sqrt(std::max(0.0, sq / m - bracketVar / m));
    const double span = n.back() - n.front() + 1;
    std::vector<double> distinct(n);
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto onGrid = static_cast<std::uint32_t>(distinct.size());
    if (std::sqrt(sq / m) > 0.1 * period || double(onGrid) < 0.5 * span || distinct.size() + 1 < t.size()) {
        return std::nullopt;
    }
    Recurrence r;
    r.periodNs = static_cast<TimeNs>(std::llround(period));
    r.jitterNs = static_cast<TimeNs>(std::llround(jitter));
    r.resolutionNs = widest;
    r.firstNs = static_cast<TimeNs>(std::llround(a + period * n.front()));
    r.onGrid = onGrid;
    r.missed = static_cast<std::uint32_t>(span) - onGrid;
    double next = a + period * (n.back() + 1);
    if (next <= double(afterNs)) {
        next += std::ceil((double(afterNs) - next) / period + 1e-9) * period;
    }
    r.nextNs = static_cast<TimeNs>(std::llround(next));
    return r;
}

namespace {

// Files a reviewed link as flapping (with its recurrence and price), erroring, or quiet (dropped).
void sortInto(FabricReview& out, const LinkReviewer& reviewer, ReviewedLink r)
{
    if (!r.flaps.empty()) {
        std::vector<TimeNs> times, widths;
        for (const auto& f : r.flaps) {
            times.push_back(f.timeNs());
            widths.push_back(f.latestNs - f.earliestNs);
        }
        r.recurrence = fitRecurrence(times, widths, out.span.end);
        reviewer.price(r, out.span);
        out.flapping.push_back(std::move(r));
    } else if (r.retrains > 0
        || double(r.symbolErrors)
            >= out.options.symbolErrorsPerDay * double(std::max<TimeNs>(out.span.end - out.span.start, 1)) / kDayNs) {
        out.erroring.push_back(std::move(r));
    }
}

} // namespace

FabricReview reviewFabric(const JobSnapshot& snap, const FabricReviewOptions& options, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    FabricReview out;
    out.span = snap.job.span;
    out.options = options;
    if (out.options.jobRanks == 0) {
        out.options.jobRanks = snap.job.worldSize > 0 ? snap.job.worldSize : kFabricOnlyJobRanks;
    }
    out.policy = snap.policy;
    const FabricIndex fx(snap, FabricIndex::Traffic::Skip); // flaps are read from error counters and events
    const LinkReviewer reviewer(snap, fx, out.options);
    const auto& links = snap.topology.links();
    out.linksTotal = static_cast<std::uint32_t>(links.size());
    out.singleReadings = !snap.counters.empty()
        && std::all_of(snap.counters.begin(), snap.counters.end(), [](const CounterSeries& c) { return c.size() < 2; });
    for (std::size_t i = 0; i < links.size(); ++i) {
        if (i % 256 == 0) {
            if (progress.cancelled()) {
                return out;
            }
            progress.report("Reviewing links", i, links.size());
        }
        bool watched = false;
        auto r = reviewer.review(static_cast<LinkId>(i), watched);
        out.linksWatched += watched;
        sortInto(out, reviewer, std::move(r));
    }
    // Ports with counters on no link (host counters opened without a topology).
    std::set<std::pair<std::uint64_t, std::uint16_t>> linked;
    for (const auto& l : links) {
        linked.insert({ snap.topology.node(l.a.node).guid, l.a.port });
        linked.insert({ snap.topology.node(l.b.node).guid, l.b.port });
    }
    for (const auto& p : snap.counterPorts) {
        if (linked.insert({ p.guid, p.port }).second) {
            ++out.linksWatched;
            ++out.linksTotal;
            sortInto(out, reviewer, reviewer.reviewPort(p));
        }
    }
    out.degraded = degradedLinks(snap);
    out.nodeFindings = findNodeProblems(snap);
    std::stable_sort(out.flapping.begin(), out.flapping.end(), [](const ReviewedLink& x, const ReviewedLink& y) {
        return x.gpuHoursPerDay != y.gpuHoursPerDay ? x.gpuHoursPerDay > y.gpuHoursPerDay
                                                    : x.flaps.size() > y.flaps.size();
    });
    std::stable_sort(out.erroring.begin(), out.erroring.end(), [](const ReviewedLink& x, const ReviewedLink& y) {
        return x.retrains != y.retrains ? x.retrains > y.retrains : x.symbolErrors > y.symbolErrors;
    });
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

namespace {

// The job's stalls that a sample bracket [from, to] meets, with a sample's width of slack either side.
std::vector<int> stallsNear(const AnalysisResult& job, TimeNs from, TimeNs to)
{
    std::vector<int> out;
    for (const auto& inc : job.incidents) {
        const TimeNs slack = std::max<TimeNs>(to - from, kNsPerSec); // the counter sample's own width
        if (inc.kind != IncidentKind::Straggler && from <= inc.endNs + slack && to + slack >= inc.startNs) {
            out.push_back(inc.number);
        }
    }
    return out;
}

// From the first record's enqueue to the last record's end (or enqueue) over every rank; empty with no records.
std::optional<TimeRange> recordsSpan(const JobSnapshot& snap)
{
    TimeNs first = kNoTime, last = kNoTime;
    for (const auto& c : snap.collectives) {
        if (c.size() == 0 || c.enqueueNs[0] == kNoTime) {
            continue;
        }
        const TimeNs end = std::max(c.enqueueNs[c.size() - 1], c.endNs[c.size() - 1]);
        first = first == kNoTime ? c.enqueueNs[0] : std::min(first, c.enqueueNs[0]);
        last = std::max(last, end);
    }
    return first == kNoTime ? std::nullopt : std::optional(TimeRange { first, last });
}

// Counts a flapping link's flaps while the job ran with traffic across it, and those it stalled at.
void countFlapsRanThrough(const analysis::FabricIndex& fx, const ProcessGroup& everyone, TimeRange ran,
    const AnalysisResult& job, ReviewedLink& l)
{
    if (!l.link || !fx.crosses(*l.link, everyone)) {
        return;
    }
    for (const auto& f : l.flaps) {
        if (f.timeNs() < ran.start || f.timeNs() > ran.end) {
            continue;
        }
        ++l.flapsJobRanThrough;
        l.flapsJobStalledAt += !stallsNear(job, f.earliestNs, f.latestNs).empty();
    }
}

} // namespace

void noteJobStalls(FabricReview& review, const AnalysisResult& job, const JobSnapshot& snap)
{
    const auto mark = [&](ReviewedLink& l) {
        std::set<int> hit;
        for (const auto& f : l.flaps) {
            for (const int n : stallsNear(job, f.earliestNs, f.latestNs)) {
                hit.insert(n);
            }
        }
        for (const auto& b : l.retrainBrackets) {
            for (const int n : stallsNear(job, b.start, b.end)) {
                hit.insert(n);
            }
        }
        // Packets dropped on a link that erred (symbol errors): the burst that stalled it without a retrain.
        if (l.symbolErrors > 0) {
            for (const auto& b : l.dropBrackets) {
                for (const int n : stallsNear(job, b.start, b.end)) {
                    hit.insert(n);
                }
            }
        }
        l.jobStalls.assign(hit.begin(), hit.end());
    };
    for (auto& l : review.flapping) {
        mark(l);
    }
    for (auto& l : review.erroring) {
        mark(l);
    }
    for (auto& l : review.flapping) {
        l.flapsJobRanThrough = l.flapsJobStalledAt = 0;
    }
    const auto ran = recordsSpan(snap);
    if (!ran || review.flapping.empty()) {
        return;
    }
    // Which links the job's traffic crosses, as attributing a stall decides it: with ranks not placed on the
    // fabric it crosses none that anyone can tell, and nothing is counted.
    ProcessGroup everyone;
    for (std::uint32_t r = 0; r < snap.job.worldSize; ++r) {
        everyone.ranks.push_back(r);
    }
    const analysis::FabricIndex fx(snap, analysis::FabricIndex::Traffic::Skip);
    for (auto& l : review.flapping) {
        countFlapsRanThrough(fx, everyone, *ran, job, l);
    }
}

FabricReview reviewFabric(const JobSnapshot& snap, const FabricReviewOptions& options)
{
    NullProgress progress;
    return reviewFabric(snap, options, progress);
}

} // namespace stallscope
