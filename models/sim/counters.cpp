// SPDX-License-Identifier: MIT
// Simulated port counters and link events, with the semantics of the real counters (docs/formats.md §4a):
// raw cumulative values, 8-bit link_downed that sticks at 255, saturating error counters, data in 4-byte
// units, optional 32-bit saturating data counters. Hosts sample on their own (skewed) clocks; one fabric-wide
// sampler reads every switch port.
#include "sim/internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace stallscope::sim {

namespace {

constexpr TimeNs kSwitchSamplerPhaseNs = 300 * kNsPerMs;
constexpr TimeNs kEventLatencyNs = 30 * kNsPerMs; // trap → opensm log
constexpr double kCrossRailShare = 0.25; // share of a rank's traffic that crosses the spine layer
constexpr double kCrossPodShare = 0.1; // share of a rank's traffic that leaves its pod through the cores
constexpr double kDiscardsPerSec = 250; // switch drops toward a down port
constexpr double kWaitTicksPerSec = 5e6; // switch port with data queued toward a down link

struct PortPlan
{
    std::uint64_t guid = 0;
    std::uint16_t port = 0;
    LinkId link {};
    bool switchSide = false;
    double trafficScale = 1; // × one rank link's bytes
    std::uint32_t timeBlock = 0;
    std::uint32_t scope = 0; // whose data phases it carries: 0 = the global group's, 1 + p = pod p's as well
};

TimeNs overlap(TimeNs a0, TimeNs a1, TimeNs b0, TimeNs b1)
{
    return std::max<TimeNs>(0, std::min(a1, b1) - std::max(a0, b0));
}

// Cumulative bytes per rank link at each (sorted) time, from the data-phase segments.
std::vector<double> cumulativeBytes(const std::vector<Segment>& segs, const std::vector<TimeNs>& times)
{
    std::vector<double> out(times.size());
    double done = 0;
    std::size_t i = 0;
    for (std::size_t k = 0; k < times.size(); ++k) {
        const TimeNs t = times[k];
        while (i < segs.size() && segs[i].b <= t) {
            done += double(segs[i].b - segs[i].a) * segs[i].bytesPerNs;
            ++i;
        }
        double partial = 0;
        if (i < segs.size() && segs[i].a < t) {
            partial = double(t - segs[i].a) * segs[i].bytesPerNs;
        }
        out[k] = done + partial;
    }
    return out;
}

template <typename T> void store(std::vector<std::uint8_t>& bytes, std::size_t i, std::uint64_t v)
{
    const T narrow = static_cast<T>(v);
    std::memcpy(bytes.data() + i * sizeof(T), &narrow, sizeof(T));
}

void storeAt(std::vector<std::uint8_t>& bytes, std::uint8_t width, std::size_t i, std::uint64_t v)
{
    switch (width) {
    case 1:
        return store<std::uint8_t>(bytes, i, v);
    case 2:
        return store<std::uint16_t>(bytes, i, v);
    case 4:
        return store<std::uint32_t>(bytes, i, v);
    default:
        return store<std::uint64_t>(bytes, i, v);
    }
}

std::uint64_t saturate(double v, std::uint8_t bits)
{
    const double max = bits >= 64 ? 1.8e19 : double((1ULL << bits) - 1);
    return static_cast<std::uint64_t>(std::clamp(v, 0.0, max));
}

class CounterBuilder
{
public:
    CounterBuilder(const CounterInputs& in, JobSnapshot& snap, OwnedColumns& owned, std::vector<std::uint32_t>& blocks,
        std::FILE* values)
        : m_in(in)
        , m_c(in.config)
        , m_snap(snap)
        , m_owned(owned)
        , m_seriesBlock(blocks)
        , m_values(values)
    {
    }
    bool written() const { return m_written; }

    void run()
    {
        planPorts();
        buildTimeBlocks();
        for (auto& o : m_in.outages) {
            m_outagesByLink[index(o.link)].push_back(&o);
        }
        for (std::uint32_t p = 0; p < m_ports.size(); ++p) {
            buildPort(p);
        }
        if (m_c.linkEvents) {
            buildEvents();
        }
    }

private:
    void planPorts()
    {
        const auto& topo = m_snap.topology;
        const bool pods = !m_in.podSegments.empty();
        for (std::uint32_t r = 0; r < m_c.worldSize(); ++r) {
            const auto& l = topo.link(m_in.fabric.hcaLink[r]);
            const std::uint32_t hostBlock = r / m_c.gpusPerHost;
            const std::uint32_t scope = pods ? 1 + hostBlock / m_c.hostsPerPod() : 0;
            m_ports.push_back(
                { topo.node(l.a.node).guid, l.a.port, m_in.fabric.hcaLink[r], false, 1.0, hostBlock, scope });
            m_ports.push_back(
                { topo.node(l.b.node).guid, l.b.port, m_in.fabric.hcaLink[r], true, 1.0, m_c.hosts, scope });
        }
        const double uplinkScale = double(m_c.hostsPerPod()) * kCrossRailShare / double(m_c.spines);
        const double coreScale = m_c.cores == 0
            ? 0
            : double(m_c.hostsPerPod()) * m_c.gpusPerHost * kCrossPodShare / double(m_c.spines * m_c.cores);
        for (const auto& [links, scale] :
            { std::pair { &m_in.fabric.uplink, uplinkScale }, std::pair { &m_in.fabric.coreLink, coreScale } }) {
            for (std::size_t i = 0; i < links->size(); ++i) {
                const auto id = (*links)[i];
                const auto& l = topo.link(id);
                // Leaf-spine links stay inside their pod and carry its pod-local collectives too; core links
                // carry only what crosses pods (the global group's).
                const bool uplink = links == &m_in.fabric.uplink;
                const std::uint32_t scope
                    = pods && uplink ? 1 + std::uint32_t(i / (std::size_t(m_c.gpusPerHost) * m_c.spines)) : 0;
                m_ports.push_back({ topo.node(l.a.node).guid, l.a.port, id, true, scale, m_c.hosts, scope });
                m_ports.push_back({ topo.node(l.b.node).guid, l.b.port, id, true, scale, m_c.hosts, scope });
            }
        }
    }

    // Blocks 0..hosts-1: each host's sampler (skewed clock); block `hosts`: the fabric-wide switch sampler.
    void buildTimeBlocks()
    {
        const TimeNs end = m_c.startNs + m_c.durationNs;
        for (std::uint32_t b = 0; b <= m_c.hosts; ++b) {
            const TimeNs phase
                = b < m_c.hosts ? TimeNs(b * 37 * kNsPerMs) % m_c.counterIntervalNs : kSwitchSamplerPhaseNs;
            const TimeNs skew = b < m_c.hosts ? m_in.hostSkew[b] : 0;
            std::vector<TimeNs> truth;
            for (TimeNs t = m_c.startNs + phase % m_c.counterIntervalNs; t < end; t += m_c.counterIntervalNs) {
                truth.push_back(t);
            }
            // Cumulative bytes for every scope a port sampled by this block can carry: a host's pod, or all.
            const std::uint32_t scopes = std::uint32_t(m_in.podSegments.size()) + 1;
            std::vector<std::vector<double>> cum(scopes);
            for (std::uint32_t s = 0; s < scopes; ++s) {
                const bool used
                    = s == 0 ? (b == m_c.hosts || scopes == 1) : (b == m_c.hosts || 1 + b / m_c.hostsPerPod() == s);
                if (used) {
                    cum[s] = cumulativeBytes(s == 0 ? m_in.segments : m_in.podSegments[s - 1], truth);
                }
            }
            m_cumBytes.push_back(std::move(cum));
            for (auto& t : truth) {
                t += skew;
            }
            m_recordedTimes.push_back(truth); // true time = recorded - skew
            m_skews.push_back(skew);
            m_owned.counterTimes.push_back(std::move(truth));
        }
    }

    void addSeries(std::uint32_t port, CounterKind kind, std::uint8_t bits, std::uint32_t block,
        const std::vector<std::uint64_t>& values)
    {
        CounterSeries s;
        s.port = port;
        s.kind = kind;
        s.bits = bits;
        s.storageBytes = storageBytesFor(bits);
        std::vector<std::uint8_t> bytes(values.size() * s.storageBytes);
        for (std::size_t i = 0; i < values.size(); ++i) {
            storeAt(bytes, s.storageBytes, i, values[i]);
        }
        m_snap.counters.push_back(s);
        m_seriesBlock.push_back(block);
        if (m_values) { // to the values file, padded to 8 as counters.bin has them (writeCountersFile)
            static const char zeros[8] = {};
            const std::size_t pad = (8 - bytes.size() % 8) % 8;
            m_written = m_written && std::fwrite(bytes.data(), 1, bytes.size(), m_values) == bytes.size()
                && std::fwrite(zeros, 1, pad, m_values) == pad;
        } else {
            m_owned.counterValues.push_back(std::move(bytes));
        }
    }

    void buildPort(std::uint32_t p)
    {
        const auto& plan = m_ports[p];
        m_snap.counterPorts.push_back({ plan.guid, plan.port, std::nullopt });
        const auto& times = m_recordedTimes[plan.timeBlock];
        const auto& cum = m_cumBytes[plan.timeBlock][plan.scope];
        const TimeNs skew = m_skews[plan.timeBlock];
        const auto& outages = m_outagesByLink[index(plan.link)];
        const std::size_t n = times.size();
        const std::uint64_t seed = hash(m_c.seed, kPortScale, plan.guid, plan.port);
        const double scale = plan.trafficScale * (1.0 + 0.02 * (uniform(seed) - 0.5));
        const std::uint8_t dataBits = plan.switchSide ? 64 : m_c.dataCounterBits;

        std::vector<std::uint64_t> downed(n), recovery(n), symbols(n), rcvErr(n), discards(n), wait(n), xmit(n), rcv(n);
        double xmitWords = double(mix(seed) % (1ULL << (dataBits == 32 ? 28 : 40)));
        double rcvWords = double(mix(seed + 1) % (1ULL << (dataBits == 32 ? 28 : 40)));
        double waitTicks = double(mix(seed + 2) % 100000);
        const std::uint64_t downed0 = mix(seed + 3) % 3, symbols0 = mix(seed + 4) % 40, rcvErr0 = mix(seed + 5) % 4;
        const std::uint64_t recovery0 = mix(seed + 6) % 2;
        const auto* noisy = noisyFault(plan.link);
        for (std::size_t k = 0; k < n; ++k) {
            const TimeNs t = times[k] - skew;
            const TimeNs prevT = k > 0 ? times[k - 1] - skew : t - m_c.counterIntervalNs;
            const double prevCum = k > 0 ? cum[k - 1] : cum[0];
            TimeNs downInInterval = 0;
            std::uint64_t flaps = 0, retrains = 0, drops = 0, syms = 0;
            double discardSecs = 0;
            for (const auto* o : outages) {
                // The link carries nothing while physically down, even when AR moved the flows elsewhere.
                downInInterval += overlap(prevT, t, o->downNs, o->upNs);
                if (o->dropsOnly) {
                    drops += o->downNs <= t;
                } else {
                    (o->retrain ? retrains : flaps) += o->downNs <= t;
                }
                discardSecs += double(overlap(m_c.startNs, t, o->downNs, o->upNs)) / 1e9;
                // Symbol errors in the 10 s before a flap or retrain; a burst that drops packets without a retrain
                // is far louder, and lands in the second before the drop.
                const auto burst = o->dropsOnly ? 40 + mix(seed ^ std::uint64_t(o->downNs)) % 40
                                                : 3 + mix(seed ^ std::uint64_t(o->downNs)) % 6;
                const TimeNs lead = o->dropsOnly ? kNsPerSec : 10 * kNsPerSec;
                for (std::uint64_t i = 0; i < burst; ++i) {
                    syms += o->downNs - lead + TimeNs(i) * (lead / TimeNs(burst)) <= t;
                }
            }
            if (noisy && t > m_c.startNs + noisy->atNs) {
                // Corrected bit errors at a steady rate: the counter moves, nothing is lost, nothing waits.
                syms += static_cast<std::uint64_t>(
                    noisy->symbolErrorsPerMin * double(t - m_c.startNs - noisy->atNs) / double(60 * kNsPerSec));
            }
            const double upFraction = 1.0 - double(downInInterval) / double(std::max<TimeNs>(1, t - prevT));
            const double noise = 1.0 + 0.01 * gauss(hash(m_c.seed, kPortNoise, p, k));
            const double bytes = (cum[k] - prevCum) * scale * upFraction * noise;
            xmitWords += bytes / 4.0;
            rcvWords += bytes / 4.0 * (1.0 + 0.002 * (uniform(hash(m_c.seed, kPortNoise, p, k, 1)) - 0.5));
            if (bytes > 0) {
                waitTicks += 300.0 * uniform(hash(m_c.seed, kWaitNoise, p, k));
            }
            if (plan.switchSide) {
                waitTicks += kWaitTicksPerSec * double(downInInterval) / 1e9;
            }
            downed[k] = std::min<std::uint64_t>(255, downed0 + flaps);
            recovery[k] = std::min<std::uint64_t>(255, recovery0 + retrains);
            symbols[k] = std::min<std::uint64_t>(65535, symbols0 + syms);
            rcvErr[k] = std::min<std::uint64_t>(65535, rcvErr0 + 2 * (flaps + retrains) + 6 * drops);
            discards[k] = plan.switchSide ? saturate(kDiscardsPerSec * discardSecs, 16) : 0;
            wait[k] = saturate(waitTicks, 32);
            xmit[k] = saturate(xmitWords, dataBits);
            rcv[k] = saturate(rcvWords, dataBits);
        }
        const auto b = plan.timeBlock;
        addSeries(p, CounterKind::LinkDowned, 8, b, downed);
        addSeries(p, CounterKind::LinkErrorRecovery, 8, b, recovery);
        addSeries(p, CounterKind::SymbolError, 16, b, symbols);
        addSeries(p, CounterKind::PortRcvErrors, 16, b, rcvErr);
        addSeries(p, CounterKind::PortXmitDiscards, 16, b, discards);
        addSeries(p, CounterKind::PortXmitWait, 32, b, wait);
        addSeries(p, CounterKind::PortXmitData, dataBits, b, xmit);
        addSeries(p, CounterKind::PortRcvData, dataBits, b, rcv);
    }

    const FaultSpec* noisyFault(LinkId link) const
    {
        for (const auto& [fault, l] : m_in.noisyLinks) {
            if (l == link) {
                return &m_c.faults[fault];
            }
        }
        return nullptr;
    }

    void buildEvents()
    {
        const auto source = m_snap.strings.intern("opensm");
        const auto& topo = m_snap.topology;
        for (const auto& o : m_in.outages) {
            if (o.retrain) {
                continue; // the logical state never left Active: no trap, no SM event
            }
            const auto& l = topo.link(o.link);
            for (const auto& end : { l.a, l.b }) {
                const auto guid = topo.node(end.node).guid;
                m_snap.linkEvents.push_back({ o.downNs + kEventLatencyNs, guid, end.port, LinkState::Down, source });
                m_snap.linkEvents.push_back({ o.upNs + kEventLatencyNs, guid, end.port, LinkState::Up, source });
            }
        }
        std::stable_sort(m_snap.linkEvents.begin(), m_snap.linkEvents.end(),
            [](const LinkEvent& a, const LinkEvent& b) { return a.timeNs < b.timeNs; });
        // The SM sweeps after every trap and programs new routes smRerouteNs later ("SUBNET UP"); without
        // adaptive routing that is when a leaf–spine path comes back (docs/formats.md §6b).
        for (const auto& o : m_in.outages) {
            if (!o.retrain) {
                for (const TimeNs trap : { o.downNs, o.upNs }) {
                    m_snap.routeUpdates.push_back({ trap + m_c.smRerouteNs, source });
                }
            }
        }
        std::sort(m_snap.routeUpdates.begin(), m_snap.routeUpdates.end(),
            [](const RouteUpdate& a, const RouteUpdate& b) { return a.timeNs < b.timeNs; });
    }

    const CounterInputs& m_in;
    const SimConfig& m_c;
    JobSnapshot& m_snap;
    OwnedColumns& m_owned;
    std::vector<std::uint32_t>& m_seriesBlock;
    std::vector<PortPlan> m_ports;
    std::vector<std::vector<TimeNs>> m_recordedTimes;
    std::vector<std::vector<std::vector<double>>> m_cumBytes; // [time block][scope], see PortPlan::scope
    std::vector<TimeNs> m_skews;
    std::unordered_map<std::uint32_t, std::vector<const SimOutage*>> m_outagesByLink;
    std::FILE* m_values; // null: values held in m_owned
    bool m_written = true;
};

} // namespace

bool buildCounters(const CounterInputs& in, JobSnapshot& snap, OwnedColumns& owned,
    std::vector<std::uint32_t>& seriesTimeBlock, std::FILE* values)
{
    CounterBuilder builder(in, snap, owned, seriesTimeBlock, values);
    builder.run();
    return builder.written();
}

} // namespace stallscope::sim
