// SPDX-License-Identifier: MIT
// Fabric attribution: rank the links by evidence around a stall, topology-aware, and never blame a link
// without hard evidence (a link event, or a link_downed / link_error_recovery increment) whose onset fits
// the moment progress stopped.
// Over 600 lines as one file: the fabric index, the scoring of each link and the recovery verdict are one
// attribution pass over one index, and the scoring helpers are private to that pass.
#include "analysis/internal.h"
#include "core/parallel.h"

#include "core/time_format.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <functional>
#include <optional>

namespace stallscope::analysis {

namespace {

constexpr TimeNs kSymbolLookbackNs = 60 * kNsPerSec; // symbol errors precede a flap by seconds
constexpr TimeNs kOnsetSlackNs = 2 * kNsPerSec; // a link may drop during compute, before the collective

std::string portName(const JobSnapshot& snap, std::uint64_t guid, std::uint16_t port)
{
    const auto node = snap.topology.findNodeByGuid(guid);
    const std::string desc = node ? snap.str(snap.topology.node(*node).description) : formatGuid(guid);
    return desc + " port " + std::to_string(port);
}

} // namespace

std::size_t SampleSearch::lowerBound(std::span<const TimeNs> times, TimeNs t)
{
    for (const auto& e : m_entries) {
        if (e.times == times.data() && e.size == times.size() && e.t == t) {
            return e.index;
        }
    }
    const auto index = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
    m_entries[m_next] = { times.data(), times.size(), t, index };
    m_next = (m_next + 1) % m_entries.size();
    return index;
}

WindowIncrease increaseIn(const CounterSeries& s, TimeNs from, TimeNs to, SampleSearch* search)
{
    WindowIncrease w;
    if (s.size() < 2) {
        return w;
    }
    auto k = search
        ? search->lowerBound(s.timesNs, from)
        : static_cast<std::size_t>(std::lower_bound(s.timesNs.begin(), s.timesNs.end(), from) - s.timesNs.begin());
    k = std::max<std::size_t>(k, 1);
    for (; k < s.size() && s.timesNs[k - 1] <= to; ++k) {
        const auto d = counterDelta(s.value(k - 1), s.value(k), s.bits);
        w.reset = w.reset || d.reset;
        w.saturated = w.saturated || (d.saturated && d.increase == 0);
        if (d.increase > 0 && w.firstFrom == kNoTime) {
            w.firstFrom = s.timesNs[k - 1];
            w.firstTo = s.timesNs[k];
        }
        w.increase += d.increase;
    }
    return w;
}

FabricIndex::FabricIndex(const JobSnapshot& snap, Traffic traffic)
    : m_snap(snap)
{
    for (std::size_t i = 0; i < snap.counters.size(); ++i) {
        const auto& p = snap.counterPorts[snap.counters[i].port];
        m_ports[key(p.guid, p.port)].series[static_cast<std::size_t>(snap.counters[i].kind)] = static_cast<int>(i);
    }
    for (const auto& e : snap.linkEvents) {
        m_events[key(e.guid, e.port)].push_back(&e);
    }
    // One bin a second of the job, at most a month of them (21 MB): the span comes from the files, and a damaged
    // stamp (a year 0001, a 2038 clock) must not size an allocation. Traffic past the month is not counted.
    constexpr TimeNs kMostBins = 31LL * 24 * 3600;
    const auto bins = static_cast<std::size_t>(
        std::min(kMostBins, std::max<TimeNs>(0, snap.job.span.end - snap.job.span.start) / kNsPerSec) + 1);
    m_fabricBytes.assign(traffic == Traffic::Skip ? 0 : bins, 0.0);
    if (traffic == Traffic::Sum) {
        sumHostTraffic(bins);
    }
    const auto& topo = snap.topology;
    m_nodeRank.assign(topo.nodes().size(), -1);
    m_switchRanks.resize(topo.nodes().size());
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto node = snap.ranks[r].hcaNode;
        if (!node) {
            continue;
        }
        m_nodeRank[index(*node)] = static_cast<std::int32_t>(r);
        if (auto link = topo.linkAt({ *node, snap.ranks[r].hcaPort })) {
            const auto& l = topo.link(*link);
            const auto sw = l.a.node == *node ? l.b.node : l.a.node;
            m_switchRanks[index(sw)].push_back(r);
        }
    }
    // Upper tiers: the ranks below a switch are the union of those below its lower-tier neighbours (a spine:
    // its pod's; a core: everyone's). Tier by tier, so each lower set is complete before it is merged.
    std::uint8_t maxTier = 0;
    for (const auto& n : topo.nodes()) {
        maxTier = std::max(maxTier, n.tier);
    }
    for (std::uint8_t t = 2; t <= maxTier; ++t) {
        unionBelow(t);
    }
}

void FabricIndex::sumHostTraffic(std::size_t bins)
{
    m_fabricBytes = hostTrafficBins(m_snap, m_snap.job.span.start, kNsPerSec, bins);
}

// Series split over the cores. Each bin holds a sum of whole byte counts (4 × words), exact in a double below
// 2^53, so the parts' order of addition cannot change it.
std::vector<double> hostTrafficBins(const JobSnapshot& snap, TimeNs start, TimeNs binNs, std::size_t bins)
{
    std::vector<std::vector<double>> parts(parallelPartCount());
    parallelParts(
        [&](unsigned part, unsigned count) {
            auto& acc = parts[part];
            acc.assign(bins, 0.0);
            const auto [from, to] = partSlice(snap.counters.size(), part, count);
            for (auto i = from; i < to; ++i) {
                const auto& s = snap.counters[i];
                const auto& p = snap.counterPorts[s.port];
                if (s.kind != CounterKind::PortXmitData || !p.node
                    || snap.topology.node(*p.node).kind != NodeKind::Hca) {
                    continue;
                }
                for (std::size_t k = 1; k < s.size(); ++k) {
                    const auto b = (s.timesNs[k] - start) / binNs;
                    if (b >= 0 && static_cast<std::size_t>(b) < bins) {
                        acc[static_cast<std::size_t>(b)]
                            += 4.0 * double(counterDelta(s.value(k - 1), s.value(k), s.bits).increase);
                    }
                }
            }
        },
        static_cast<unsigned>(parts.size()));
    std::vector<double> out(bins, 0.0);
    for (const auto& acc : parts) {
        for (std::size_t b = 0; b < bins; ++b) {
            out[b] += acc[b];
        }
    }
    return out;
}

// The ranks below each switch of tier `t`: the union of those below its lower-tier neighbours, which are complete.
// A core's union is the whole job, gathered from every spine of every pod (each pod's ranks once per spine), so
// the switches of the tier are split over the cores.
void FabricIndex::unionBelow(std::uint8_t t)
{
    const auto& topo = m_snap.topology;
    std::vector<std::vector<std::uint32_t>> lowerOf(topo.nodes().size()); // upper switch → lower switches
    for (const auto& l : topo.links()) {
        const auto& na = topo.node(l.a.node);
        const auto& nb = topo.node(l.b.node);
        if (na.kind != NodeKind::Switch || nb.kind != NodeKind::Switch || std::max(na.tier, nb.tier) != t
            || na.tier == nb.tier) {
            continue;
        }
        const auto lower = na.tier < nb.tier ? l.a.node : l.b.node;
        const auto upper = na.tier < nb.tier ? l.b.node : l.a.node;
        lowerOf[index(upper)].push_back(static_cast<std::uint32_t>(index(lower)));
    }
    std::vector<std::uint32_t> uppers;
    for (std::uint32_t i = 0; i < lowerOf.size(); ++i) {
        if (!lowerOf[i].empty()) {
            uppers.push_back(i);
        }
    }
    // The union is marked in a bitmap of ranks and read back in order: sorted and each rank once, without sorting
    // the ~10^6 ranks a core gathers at 131,072 ranks (the sort was 0.25 s of the analysis).
    const auto ranks = m_snap.ranks.size();
    parallelParts([&](unsigned part, unsigned count) { // writes only its uppers' sets; reads tier t-1's
        const auto [from, to] = partSlice(uppers.size(), part, count);
        std::vector<std::uint64_t> marked((ranks + 63) / 64, 0);
        std::size_t n = 0;
        const auto mark = [&](const std::vector<std::uint32_t>& set) {
            for (const auto r : set) {
                const std::uint64_t bit = std::uint64_t(1) << (r % 64);
                n += (marked[r / 64] & bit) == 0;
                marked[r / 64] |= bit;
            }
        };
        for (auto k = from; k < to; ++k) {
            auto& dst = m_switchRanks[uppers[k]];
            n = 0;
            mark(dst); // hosts cabled to this switch itself
            for (const auto low : lowerOf[uppers[k]]) { // parallel links to one lower switch mark its ranks again
                mark(m_switchRanks[low]);
            }
            dst.clear();
            dst.reserve(n);
            for (std::size_t w = 0; w < marked.size(); ++w) {
                for (auto bits = marked[w]; bits != 0; bits &= bits - 1) {
                    dst.push_back(static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits)));
                }
                marked[w] = 0;
            }
        }
    });
}

// Per switch, how many of the group's ranks are below it. Computed once per group (the analysis asks for
// every link of every incident).
const std::vector<std::uint32_t>& FabricIndex::ranksBelow(const ProcessGroup& group) const
{
    auto [it, fresh] = m_groupBelow.try_emplace(&group);
    if (fresh) {
        std::vector<bool> member(m_snap.ranks.size(), false);
        for (auto r : group.ranks) {
            if (r < member.size()) {
                member[r] = true;
            }
        }
        it->second.assign(m_switchRanks.size(), 0);
        for (std::size_t n = 0; n < m_switchRanks.size(); ++n) {
            for (auto r : m_switchRanks[n]) {
                it->second[n] += r < member.size() && member[r];
            }
        }
    }
    return it->second;
}

const PortSeries* FabricIndex::port(std::uint64_t guid, std::uint16_t port) const
{
    auto it = m_ports.find(key(guid, port));
    return it == m_ports.end() ? nullptr : &it->second;
}

std::vector<const LinkEvent*> FabricIndex::events(std::uint64_t guid, std::uint16_t port) const
{
    auto it = m_events.find(key(guid, port));
    return it == m_events.end() ? std::vector<const LinkEvent*> {} : it->second;
}

double FabricIndex::fabricBytes(TimeNs from, TimeNs to) const
{
    double sum = 0;
    // Only the seconds that can have a bin: a window of years over a short job is not walked second by second.
    // Steps are whole seconds from `from`, as before; the ones skipped fall before the first bin or after the last.
    const TimeNs first = m_snap.job.span.start;
    const TimeNs last = first + TimeNs(m_fabricBytes.size()) * kNsPerSec;
    TimeNs start = from;
    if (start < first - kNsPerSec) {
        start += (first - kNsPerSec - start) / kNsPerSec * kNsPerSec;
    }
    const TimeNs end = std::min(to, last) + kNsPerSec;
    for (TimeNs t = start; t < end; t += kNsPerSec) {
        const auto b = (t - m_snap.job.span.start) / kNsPerSec;
        if (b >= 0 && static_cast<std::size_t>(b) < m_fabricBytes.size() && t > from && t - kNsPerSec < to) {
            sum += m_fabricBytes[static_cast<std::size_t>(b)];
        }
    }
    return sum;
}

TimeNs FabricIndex::sampleIntervalNs(int series) const
{
    const auto& s = m_snap.counters[static_cast<std::size_t>(series)];
    if (s.size() < 2) {
        return kNsPerSec;
    }
    return (s.timesNs.back() - s.timesNs.front()) / static_cast<TimeNs>(s.size() - 1);
}

bool FabricIndex::crosses(LinkId id, const ProcessGroup& group) const
{
    const auto& topo = m_snap.topology;
    const auto& l = topo.link(id);
    auto inGroup = [&](std::uint32_t r) { return std::binary_search(group.ranks.begin(), group.ranks.end(), r); };
    for (const auto& end : { l.a, l.b }) {
        if (topo.node(end.node).kind == NodeKind::Hca) {
            const auto r = m_nodeRank[index(end.node)];
            return r >= 0 && inGroup(static_cast<std::uint32_t>(r));
        }
    }
    // Switch to switch: crossed when the lower switch serves some of the group and the group spans more
    // than this switch (its traffic must leave it): a core link only when the group spans pods.
    const auto lower = topo.node(l.a.node).tier <= topo.node(l.b.node).tier ? l.a.node : l.b.node;
    const std::size_t inside = ranksBelow(group)[index(lower)];
    return inside > 0 && inside < group.ranks.size();
}

double FabricIndex::placedFraction(const ProcessGroup& group) const
{
    if (group.ranks.empty()) {
        return 0;
    }
    std::size_t placed = 0;
    for (auto r : group.ranks) {
        placed += r < m_snap.ranks.size() && m_snap.ranks[r].hcaNode.has_value();
    }
    return double(placed) / double(group.ranks.size());
}

std::vector<LinkId> FabricIndex::siblingUplinks(LinkId id) const
{
    const auto& topo = m_snap.topology;
    const auto& l = topo.link(id);
    const auto lower = topo.node(l.a.node).tier <= topo.node(l.b.node).tier ? l.a.node : l.b.node;
    std::vector<LinkId> out;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& o = topo.links()[i];
        const bool switchLink
            = topo.node(o.a.node).kind == NodeKind::Switch && topo.node(o.b.node).kind == NodeKind::Switch;
        if (i != index(id) && switchLink && (o.a.node == lower || o.b.node == lower)) {
            out.push_back(static_cast<LinkId>(i));
        }
    }
    return out;
}

namespace {

struct Scoring
{
    LinkVerdict verdict;
    bool hard = false; // hard evidence with a fitting onset
    bool wentDown = false; // ... of which a down event or a link_downed step (else link_error_recovery only)
    bool symbolBurst = false; // ... or only a symbol-error burst with packets dropped (symbolBurstAt)
};

// A burst of symbol errors on one end, in the minute before the stall to its end, at ten times the end's own rate
// of the nine minutes before and at least kMinBurst, with packets dropped (port_rcv_errors) as progress stopped:
// corrupted packets the receiver discarded; one at a message's tail is recovered only by the sender's ACK timeout.
// A marginal cable that counts at a steady rate (corrected errors, nothing dropped) is no burst.
constexpr std::uint64_t kMinBurst = 10;

std::optional<EvidenceLine> symbolBurstAt(const JobSnapshot& snap, const PortSeries& ps, const Incident& inc,
    const std::string& name, TimeNs from, TimeNs to, const std::function<bool(TimeNs, TimeNs)>& onsetFits,
    SampleSearch& search)
{
    const int si = ps.series[static_cast<std::size_t>(CounterKind::SymbolError)];
    const int ri = ps.series[static_cast<std::size_t>(CounterKind::PortRcvErrors)];
    if (si < 0 || ri < 0) {
        return std::nullopt;
    }
    const TimeNs burstFrom = inc.startNs - kSymbolLookbackNs;
    const auto& sym = snap.counters[static_cast<std::size_t>(si)];
    const auto during = increaseIn(sym, burstFrom, to, &search);
    const auto before = increaseIn(sym, burstFrom - 9 * kSymbolLookbackNs, burstFrom, &search);
    const double rateDuring = double(during.increase) / double(to - burstFrom);
    const double rateBefore = double(before.increase) / double(9 * kSymbolLookbackNs);
    const auto dropped = increaseIn(snap.counters[static_cast<std::size_t>(ri)], from, to, &search);
    if (during.increase < kMinBurst || rateDuring < 10 * rateBefore || dropped.increase == 0
        || !onsetFits(dropped.firstFrom, dropped.firstTo)) {
        return std::nullopt;
    }
    return EvidenceLine { dropped.firstTo,
        "symbol-error burst on " + name + ": " + formatCount(during.increase) + " from a minute before the stall, "
            + formatCount(before.increase) + " in the nine minutes before that; " + formatCount(dropped.increase)
            + " packets dropped (port_rcv_errors) as progress stopped",
        3.0 };
}

// Traffic a link carried over the samples covering [from, to] (sum over both ends' xmit_data, words).
std::uint64_t linkTraffic(const FabricIndex& fx, LinkId id, TimeNs from, TimeNs to)
{
    const auto& snap = fx.snap();
    const auto& l = snap.topology.link(id);
    std::uint64_t words = 0;
    for (const auto& end : { l.a, l.b }) {
        const auto* ps = fx.port(snap.topology.node(end.node).guid, end.port);
        const int s = ps ? ps->series[static_cast<std::size_t>(CounterKind::PortXmitData)] : -1;
        if (s >= 0) {
            words += increaseIn(snap.counters[static_cast<std::size_t>(s)], from, to).increase;
        }
    }
    return words;
}

// Switch-to-switch link: in the first counter sample after the collective resumed (and before the link was
// back, when that is known), did the link carry nothing while its sibling uplinks carried traffic? Then the
// job's traffic moved off it. (During the stall itself nothing moves anywhere, so it tells nothing.)
bool reroutedAround(const FabricIndex& fx, LinkId id, TimeNs resumed, TimeNs up)
{
    const auto& snap = fx.snap();
    const auto& l = snap.topology.link(id);
    const auto* ps = fx.port(snap.topology.node(l.a.node).guid, l.a.port);
    const int si = ps ? ps->series[static_cast<std::size_t>(CounterKind::PortXmitData)] : -1;
    if (si < 0) {
        return false;
    }
    const auto& times = snap.counters[static_cast<std::size_t>(si)].timesNs;
    const auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), resumed) - times.begin());
    if (k + 1 >= times.size() || (up != kNoTime && times[k + 1] > up)) {
        return false;
    }
    const TimeNs from = times[k] + 1;
    const TimeNs to = times[k + 1] - 1;
    if (linkTraffic(fx, id, from, to) > 0) {
        return false;
    }
    for (auto sib : fx.siblingUplinks(id)) {
        if (linkTraffic(fx, sib, from, to) > 0) {
            return true;
        }
    }
    return false;
}

// The first "up" event on either end of the link after `down`, if one comes before its next "down".
TimeNs firstUpAfter(const FabricIndex& fx, const FabricLink& l, TimeNs down)
{
    const auto& snap = fx.snap();
    TimeNs up = kNoTime;
    TimeNs nextDown = kNoTime;
    for (const auto& end : { l.a, l.b }) {
        for (const auto* e : fx.events(snap.topology.node(end.node).guid, end.port)) {
            if (e->timeNs <= down) {
                continue;
            }
            auto& slot = e->state == LinkState::Down ? nextDown : up;
            slot = slot == kNoTime ? e->timeNs : std::min(slot, e->timeNs);
        }
    }
    return up != kNoTime && (nextDown == kNoTime || up < nextDown) ? up : kNoTime;
}

bool isSwitchLink(const JobSnapshot& snap, LinkId id)
{
    const auto& l = snap.topology.link(id);
    return snap.topology.node(l.a.node).kind == NodeKind::Switch
        && snap.topology.node(l.b.node).kind == NodeKind::Switch;
}

// What gave the stalled collective its path back (docs/formats.md §6b), from the stall's length against the
// ACK timeout T and the link's own down/up times. A host's HCA link has no other path: the link came back.
// A switch link's stall that ended while the link was still down (events), or whose traffic moved to the
// sibling uplinks (counters), was rerouted: within one T by adaptive routing (or an SM faster than T), after
// k > 1 periods by the subnet manager, which rewrote the routes between (k-1)T and kT after the loss.
void judgeRecovery(const FabricIndex& fx, LinkVerdict& v, const Incident& inc)
{
    const auto& snap = fx.snap();
    if (v.symbolBurst) {
        // Nothing reroutes: the port never left Active and never retrained.
        v.recovery = Recovery::LinkUp;
        v.recoveryText = "the link stayed up and never retrained: packets corrupted in a symbol-error burst were "
                         "dropped, and a lost one cost the sender's ACK timeout";
        return;
    }
    if (v.retrained) {
        // No reroute reacts: the port never left Active. The link carried traffic again once retrained.
        v.recovery = Recovery::LinkUp;
        v.recoveryText = "the link retrained without going down (link_error_recovery, no link_downed): the data "
                         "lost while it retrained cost the ACK timeout";
        return;
    }
    if (!isSwitchLink(snap, v.link)) {
        v.recovery = Recovery::LinkUp;
        v.recoveryText = "a host's own link has no other path: the collective waited for it to come back";
        return;
    }
    if (inc.jobCrashed || snap.policy.infiniteRetry()) {
        return;
    }
    v.reroutedAround = reroutedAround(fx, v.link, inc.endNs, v.upNs);
    const TimeNs period = snap.policy.retryPeriodNs();
    const TimeNs stall = inc.endNs - inc.startNs;
    const auto retries = std::max<TimeNs>(1, (stall + period / 2) / period);
    const bool endedWhileDown = v.upNs != kNoTime && inc.endNs + period / 4 < v.upNs;
    if (!endedWhileDown && !v.reroutedAround) {
        if (v.upNs != kNoTime && retries > 1) {
            v.recovery = Recovery::LinkUp;
            v.recoveryText = "no reroute: the collective waited for the link to come back (static routes)";
        }
        return; // back within one timeout: adaptive routing and waiting look the same
    }
    const std::string how = endedWhileDown ? "the stall ended at " + formatUtc(inc.endNs).substr(11, 12)
            + " while the link stayed down until " + formatUtc(v.upNs).substr(11, 12)
                                           : "traffic moved to the sibling uplinks while it was down";
    // The subnet manager's log says when its new routes were in place ("SUBNET UP" after the trap's sweep).
    const TimeNs down = v.downNs != kNoTime ? v.downNs : inc.startNs;
    const auto& updates = snap.routeUpdates;
    const auto next = std::upper_bound(
        updates.begin(), updates.end(), down, [](TimeNs t, const RouteUpdate& r) { return t < r.timeNs; });
    const bool smInTime = next != updates.end() && next->timeNs <= inc.endNs;
    if (smInTime) {
        v.recovery = Recovery::SubnetManager;
        v.rerouteNs = next->timeNs - down;
        v.recoveryText = how + ": the subnet manager's new routes were in place at "
            + formatUtc(next->timeNs).substr(11, 12) + " (" + snap.str(next->source) + ", "
            + formatDuration(v.rerouteNs) + " after the link went down)"
            + (retries <= 1 ? " — or adaptive routing sooner; either way the data lost on the link cost one ACK timeout"
                            : "; the collective resumed at the next ACK timeout (" + std::to_string(retries)
                        + " of them, no adaptive routing)");
    } else if (retries <= 1) {
        v.recovery = Recovery::AdaptiveRouting;
        v.recoveryText = how + ": rerouted within one ACK timeout (" + formatDuration(period)
            + (next != updates.end() ? ") before the subnet manager's routes (" + formatUtc(next->timeNs).substr(11, 12)
                        + "): adaptive routing"
                                     : "): adaptive routing, or a subnet manager faster than that")
            + "; the data lost on the link still cost that timeout";
    } else {
        v.recovery = Recovery::SubnetManager;
        v.rerouteNs = (retries - 1) * period + period / 2;
        v.recoveryText = how + ": rerouted by the subnet manager " + formatDuration((retries - 1) * period) + " to "
            + formatDuration(retries * period) + " after the loss (" + std::to_string(retries)
            + " ACK timeouts, no adaptive routing)";
    }
    v.evidence.push_back({ inc.endNs, v.recoveryText, 0 });
    std::stable_sort(v.evidence.begin(), v.evidence.end(), [](auto& a, auto& b) { return a.timeNs < b.timeNs; });
}

// Each counter's values are an array of its own, scattered over counters.bin: reading a link's counters around the
// stall is a cache miss per counter, one after another. Asked for up front, the misses overlap. A hint only.
void prefetchCounters(const FabricIndex& fx, const FabricLink& l, TimeNs at, SampleSearch& search)
{
    const auto& snap = fx.snap();
    for (const auto& end : { l.a, l.b }) {
        const auto* ps = fx.port(snap.topology.node(end.node).guid, end.port);
        if (!ps) {
            continue;
        }
        for (const int si : ps->series) {
            if (si < 0) {
                continue;
            }
            const auto& s = snap.counters[static_cast<std::size_t>(si)];
            const auto k = search.lowerBound(s.timesNs, at);
            if (k < s.size()) {
                __builtin_prefetch(static_cast<const char*>(s.values) + k * s.storageBytes);
            }
        }
    }
}

Scoring scoreLink(const FabricIndex& fx, LinkId id, const Incident& inc, SampleSearch& search)
{
    const auto& snap = fx.snap();
    const auto& l = snap.topology.link(id);
    Scoring sc;
    auto& v = sc.verdict;
    v.link = id;
    const auto endpoint = [&](const PortRef& p) {
        const auto& n = snap.topology.node(p.node);
        return LinkEndpoint { snap.str(n.description), n.guid, p.port };
    };
    v.a = endpoint(l.a);
    v.b = endpoint(l.b);
    bool trafficNoted = false;
    for (const auto& end : { l.a, l.b }) {
        const auto guid = snap.topology.node(end.node).guid;
        const auto name = portName(snap, guid, end.port);
        const auto* ps = fx.port(guid, end.port);
        TimeNs interval = kNsPerSec;
        if (ps && ps->series[static_cast<std::size_t>(CounterKind::LinkDowned)] >= 0) {
            interval = fx.sampleIntervalNs(ps->series[static_cast<std::size_t>(CounterKind::LinkDowned)]);
        }
        const TimeNs from = inc.startNs - interval;
        const TimeNs to = inc.endNs + interval;
        const auto onsetFits = [&](TimeNs a, TimeNs b) {
            return a <= inc.startNs + interval && b >= inc.startNs - interval - kOnsetSlackNs;
        };
        for (const auto* e : fx.events(guid, end.port)) {
            if (e->timeNs < from - kOnsetSlackNs || e->timeNs > to) {
                continue;
            }
            const bool down = e->state == LinkState::Down;
            v.evidence.push_back({ e->timeNs,
                std::string("link ") + (down ? "DOWN" : "up") + " on " + name + " (" + snap.str(e->source) + ")",
                down ? 6.0 : 1.0 });
            v.score += down ? 6.0 : 1.0;
            if (down && onsetFits(e->timeNs, e->timeNs)) {
                sc.hard = true;
                sc.wentDown = true;
                v.downNs = v.downNs == kNoTime ? e->timeNs : std::min(v.downNs, e->timeNs);
            } else if (!down && v.downNs != kNoTime && v.upNs == kNoTime && e->timeNs >= v.downNs) {
                v.upNs = e->timeNs;
            }
        }
        if (!ps) {
            continue;
        }
        const auto check = [&](CounterKind kind, TimeNs a, TimeNs b, double weight, bool hard) {
            const int si = ps->series[static_cast<std::size_t>(kind)];
            if (si < 0) {
                return;
            }
            const auto& s = snap.counters[static_cast<std::size_t>(si)];
            const auto w = increaseIn(s, a, b, &search);
            const std::string_view cname = semantics(kind).name;
            if (w.increase > 0) {
                v.evidence.push_back({ w.firstTo,
                    std::string(cname) + " +" + std::to_string(w.increase) + " on " + name + " (sample "
                        + formatUtc(w.firstFrom).substr(11, 12) + " .. " + formatUtc(w.firstTo).substr(11, 12) + ")"
                        + (w.reset ? ", counter was reset" : ""),
                    weight });
                v.score += weight;
                const bool fits = hard && onsetFits(w.firstFrom, w.firstTo);
                sc.hard = sc.hard || fits;
                sc.wentDown = sc.wentDown || (fits && kind == CounterKind::LinkDowned);
            } else if (w.saturated && hard) {
                v.evidence.push_back({ b,
                    std::string(cname) + " on " + name + " is stuck at its maximum: increases are invisible", 0.5 });
                v.score += 0.5;
            }
        };
        // Traffic stopping on this link while the rest of the fabric still moves data (a job-wide stall stops
        // traffic everywhere, so a drop alone blames nobody). Soft evidence.
        if (const int xi = ps->series[static_cast<std::size_t>(CounterKind::PortXmitData)]; xi >= 0 && !trafficNoted) {
            const auto& s = snap.counters[static_cast<std::size_t>(xi)];
            auto k = search.lowerBound(s.timesNs, inc.startNs - interval - kOnsetSlackNs);
            for (k = std::max<std::size_t>(k, 2); k < s.size() && s.timesNs[k - 1] <= inc.startNs + interval; ++k) {
                const bool wasMoving = counterDelta(s.value(k - 2), s.value(k - 1), s.bits).increase > 0;
                const bool stopped = counterDelta(s.value(k - 1), s.value(k), s.bits).increase == 0;
                const double elsewhere = fx.fabricBytes(s.timesNs[k - 1], s.timesNs[k]);
                if (wasMoving && stopped && elsewhere > 0) {
                    v.evidence.push_back({ s.timesNs[k],
                        "traffic stopped on " + name + " while the fabric still moved " + formatBytes(elsewhere)
                            + " in that sample",
                        2.0 });
                    v.score += 2.0;
                    trafficNoted = true;
                    break;
                }
            }
        }
        check(CounterKind::LinkDowned, from, to, 4.0, true);
        check(CounterKind::LinkErrorRecovery, from, to, 2.0, true);
        check(CounterKind::SymbolError, inc.startNs - kSymbolLookbackNs, to, 1.0, false);
        check(CounterKind::PortRcvErrors, from, to, 1.0, false);
        check(CounterKind::PortXmitDiscards, from, to, 1.0, false);
        if (!sc.hard) {
            if (auto burst = symbolBurstAt(snap, *ps, inc, name, from, to, onsetFits, search)) {
                v.score += burst->weight;
                v.evidence.push_back(std::move(*burst));
                sc.hard = true;
                sc.symbolBurst = true;
            }
        }
        // port_xmit_wait: growth in the window far above its own rate in the minute before.
        const int wi = ps->series[static_cast<std::size_t>(CounterKind::PortXmitWait)];
        if (wi >= 0) {
            const auto& s = snap.counters[static_cast<std::size_t>(wi)];
            const auto during = increaseIn(s, from, to, &search).increase;
            const auto before = increaseIn(s, from - 60 * kNsPerSec, from - interval, &search).increase;
            const double rateDuring = double(during) / double(to - from);
            const double rateBefore = double(before) / double(60 * kNsPerSec);
            if (during > 100000 && rateDuring > 10 * rateBefore) {
                v.evidence.push_back({ inc.startNs,
                    "port_xmit_wait +" + formatCount(during) + " on " + name + " (data queued toward the link, "
                        + std::to_string(int(rateDuring / std::max(rateBefore, 1e-12))) + "x its usual rate)",
                    2.0 });
                v.score += 2.0;
            }
        }
    }
    if (v.downNs != kNoTime && v.upNs == kNoTime) {
        v.upNs = firstUpAfter(fx, l, v.downNs); // a link down past the stall came back later, or never
        if (v.upNs != kNoTime) {
            v.evidence.push_back({ v.upNs, "link up again after " + formatDuration(v.upNs - v.downNs), 0 });
        }
    }
    std::sort(v.evidence.begin(), v.evidence.end(), [](auto& a, auto& b) { return a.timeNs < b.timeNs; });
    return sc;
}

} // namespace

void attributeToFabric(const FabricIndex& fx, Incident& inc, const LinksScored& onScored)
{
    const auto& snap = fx.snap();
    const auto& group = snap.groups[inc.group];
    // Ranks not placed on the fabric (no rank logs, no mapping file): which links the job uses is unknown, so
    // every link is a candidate, named only on its own hard evidence and one confidence step lower.
    const bool placementKnown = fx.placedFraction(group) >= 0.5;
    std::vector<LinkId> candidates; // on this thread: crosses() fills the index's per-group cache
    for (std::uint32_t i = 0; i < snap.topology.links().size(); ++i) {
        const auto id = static_cast<LinkId>(i);
        if (!placementKnown || fx.crosses(id, group)) {
            candidates.push_back(id);
        }
    }
    // Scoring reads each candidate's counters (132,096 links at 131,072 ranks): slices of the candidates over the
    // cores, joined in link order so that the stable sort below ranks ties as one pass would.
    std::vector<std::vector<Scoring>> parts(parallelPartCount());
    parallelParts(
        [&](unsigned part, unsigned count) {
            const auto [from, to] = partSlice(candidates.size(), part, count);
            SampleSearch search;
            for (auto k = from; k < to; ++k) {
                if (part == 0 && onScored && (k - from) % 256 == 0) { // the caller's thread; its slice stands for all
                    onScored((k - from) * count, candidates.size());
                }
                if (k + 1 < to) { // the next link's counters load while this one is scored
                    prefetchCounters(fx, fx.snap().topology.link(candidates[k + 1]), inc.startNs - kNsPerSec, search);
                }
                auto sc = scoreLink(fx, candidates[k], inc, search);
                if (sc.verdict.score > 0) {
                    parts[part].push_back(std::move(sc));
                }
            }
        },
        static_cast<unsigned>(parts.size()));
    std::vector<Scoring> scored;
    for (auto& p : parts) {
        scored.insert(scored.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
    }
    std::stable_sort(scored.begin(), scored.end(), [](const Scoring& a, const Scoring& b) {
        return a.hard != b.hard ? a.hard : a.verdict.score > b.verdict.score;
    });
    // Weak soft evidence (one "traffic stopped" line, score ≤ 2) that many links share says nothing about any of
    // them: a job-wide stall stops traffic on every host link in the same sample. Listed only when rare.
    const auto weak = [](const Scoring& sc) { return !sc.hard && sc.verdict.score <= 2.0; };
    const bool weakIsCommon = std::count_if(scored.begin(), scored.end(), weak) > 3;
    bool blamed = false;
    for (auto& sc : scored) {
        auto& v = sc.verdict;
        if (sc.hard && !blamed) {
            // A rerouted link is still the culprit: the data lost on it cost the ACK timeout (§6b).
            v.symbolBurst = sc.symbolBurst && !sc.wentDown;
            v.retrained = !sc.wentDown && !v.symbolBurst;
            judgeRecovery(fx, v, inc);
            v.confidence = v.score >= 10 ? "high" : v.score >= 4 ? "medium" : "low";
            if (!placementKnown) {
                v.confidence = v.confidence == "high" ? "medium" : "low";
                v.evidence.push_back({ v.downNs != kNoTime ? v.downNs : inc.startNs,
                    "the ranks' places on the fabric are unknown (no rank logs or mapping file): the link is named "
                    "by its own evidence, not by the job's paths",
                    0 });
            }
            if (inc.coverage.onlyRank != kNoRank && inc.coverage.seen > 0) {
                v.confidence = v.confidence == "high" ? "medium" : "low";
                v.evidence.push_back({ inc.startNs,
                    "the stall is on one rank's record alone (rank " + std::to_string(inc.coverage.onlyRank)
                        + "): it cannot tell a fabric stall from a late peer; the link is named by its own evidence "
                          "at that moment",
                    0 });
            }
            inc.culprit = std::move(v);
            blamed = true;
        } else if (inc.otherLinks.size() < 5 && !(weakIsCommon && weak(sc))) {
            if (!sc.hard) {
                v.confidence = "none";
            }
            inc.otherLinks.push_back(std::move(v));
        }
    }
}

} // namespace stallscope::analysis
