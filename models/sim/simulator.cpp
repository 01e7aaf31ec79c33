// SPDX-License-Identifier: MIT
// The job simulator (simulator.h). Over 600 lines as one file: JobSim is one class whose collective loop, outage
// physics and hang recording share its per-step state; the counters, the truth and the raw-file writers are in
// their own files (counters.cpp, truth.cpp, raw_*.cpp).
#include "sim/simulator.h"

#include "bundle/reader.h"
#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "sim/internal.h"
#include "sim/record_spill.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

namespace stallscope {

using namespace sim;

namespace {

constexpr TimeNs kLaunchNs = 8 * kNsPerUs; // enqueue → kernel start when the stream is free
constexpr TimeNs kOptimizerNs = 5 * kNsPerMs; // after the last bucket, before the next step's compute
constexpr TimeNs kDetectNs = 800 * kNsPerMs; // watchdog notices a failed work item

struct Outcome
{
    TimeNs endNs = 0; // when the collective completed (true time), if !failed
    bool failed = false;
    TimeNs failNs = 0;
    std::uint32_t failFault = 0;
    LinkId failLink {};
};

// The ranks of one collective: the global group's (pod < 0) or one pod's ranks [r0, r1) in its own group.
struct Instance
{
    std::uint32_t r0 = 0;
    std::uint32_t r1 = 0;
    int pod = -1;
    std::uint16_t group() const { return static_cast<std::uint16_t>(pod < 0 ? 0 : pod + 1); }
};

// How an instance of a collective ended: completed (its records pushed), or hung — a rank died before or inside
// it, or its QPs failed past the retry budget (`failed` ranks, at `failRecordNs`). `stall`: its entry in
// SimResult::stalls, whose end is known once the whole job has given up.
struct InstanceEnd
{
    bool hung = false;
    bool linkFailure = false;
    std::vector<std::uint32_t> failed;
    TimeNs failRecordNs = 0;
    std::size_t stall = 0;
};

// Per-step buffers of the collective loop, indexed [rank × collectivesPerStep + c] or [rank].
struct StepState
{
    std::uint64_t step = 0;
    std::vector<TimeNs> enq, st, prevEnd;
};

class JobSim
{
public:
    JobSim(const SimConfig& c, Progress& progress, const RecordSpillPolicy& spill)
        : m_c(c)
        , m_progress(progress)
        , m_spillPolicy(spill)
        , m_n(c.worldSize())
    {
    }

    Result<SimResult, std::string> run();

private:
    Result<SimResult, std::string> runFabricOnly();
    void makeHostSkews();
    std::vector<Segment> backgroundLoad() const;
    std::string finishCounters(JobSnapshot& snap);
    void planOutages();
    void applyDegradedLinks();
    LinkId faultLink(const FaultSpec& f) const
    {
        switch (f.tier) {
        case LinkTier::LeafSpine:
            return m_fabric.uplink[(f.pod * m_c.gpusPerHost + f.leaf) * m_c.spines + f.spine];
        case LinkTier::SpineCore:
            return m_fabric.coreLink[(f.pod * m_c.spines + f.spine) * m_c.cores + f.core];
        case LinkTier::HostLeaf:
            break;
        }
        return m_fabric.hcaLink[f.rank];
    }
    SimOutage flapOutage(std::uint32_t fault, LinkId link, TimeNs down) const;
    double opFactor(CollectiveOp op, std::uint32_t ranks) const;
    TimeNs computeNs(std::uint32_t r, std::uint64_t step, TimeNs at) const;
    Outcome execute(TimeNs gs, TimeNs dur, std::uint32_t seq, CollectiveOp op, std::uint64_t bytes, const Instance& in);
    bool crosses(const SimOutage& o, const Instance& in) const;
    std::vector<std::uint32_t> ranksBehind(const SimOutage& o, const Instance& in) const;
    void makeGroups();
    std::vector<Instance> instancesOf(std::uint32_t c) const;
    InstanceEnd runInstance(StepState& s, std::uint32_t c, const Instance& in, const std::vector<TimeNs>& deathNs);
    void recordHang(
        const StepState& s, std::uint32_t c0, const std::vector<bool>& hung, const std::vector<TimeNs>& failedAt);
    void addTaskFates();
    void record(std::uint32_t r, TimeNs enqueue, TimeNs start, TimeNs end, std::uint32_t seq, std::uint16_t shape,
        CollectiveState state)
    {
        if (m_spill) {
            m_spill->push(r, enqueue, start, end, seq, shape, state);
        } else {
            m_owned->ranks[r].push(enqueue, start, end, seq, shape, state);
        }
    }
    std::string finishSpill(JobSnapshot& snap);
    std::string spillCounters(JobSnapshot& snap, const CounterInputs& inputs);
    TimeNs skew(std::uint32_t r) const { return m_skew[r / m_c.gpusPerHost]; }
    std::uint32_t ranksPerPod() const { return m_c.hostsPerPod() * m_c.gpusPerHost; }
    // Pod groups: the even collectives before a step's last run per pod; the rest (and all without) globally.
    bool podLocal(std::uint32_t c) const { return m_c.podGroups && c % 2 == 0 && c + 1 < m_c.collectivesPerStep; }
    std::uint16_t shapeOf(std::uint32_t c, std::uint32_t rank) const
    {
        return m_shapeOf[c][podLocal(c) ? rank / ranksPerPod() : 0];
    }
    // Each group numbers its own collectives from 1 (as PyTorch's per-group sequence numbers do).
    std::uint32_t seqOf(std::uint64_t step, std::uint32_t c) const
    {
        return static_cast<std::uint32_t>(1 + step * m_perStep[podLocal(c)] + m_indexInKind[c]);
    }

    const SimConfig& m_c;
    Progress& m_progress;
    const RecordSpillPolicy& m_spillPolicy;
    const std::uint32_t m_n;
    std::unique_ptr<RecordSpill> m_spill; // with a spill folder: where the records go instead of m_owned
    std::shared_ptr<JobSnapshot> m_snap = std::make_shared<JobSnapshot>();
    std::shared_ptr<OwnedColumns> m_owned = std::make_shared<OwnedColumns>();
    Fabric m_fabric;
    std::vector<TimeNs> m_skew; // per host
    std::vector<SimOutage> m_outages; // sorted by downNs
    std::vector<Segment> m_segments;
    std::vector<std::vector<std::uint16_t>> m_shapeOf; // [collective within a step][pod, or 0 when global]
    std::vector<std::uint32_t> m_indexInKind; // per collective within a step: its index among global / local ones
    std::uint32_t m_perStep[2] = { 0, 0 }; // global, pod-local collectives per step
    std::vector<std::vector<Segment>> m_podSegments; // per pod: its pod-local data phases (pod groups only)
    SimResult m_result;
    TimeNs m_endNs = 0;
    TimeNs m_lastGiveUpNs = 0;
};

double JobSim::opFactor(CollectiveOp op, std::uint32_t ranks) const
{
    // Bytes each rank sends per payload byte: ring all-reduce 2(n-1)/n, all-gather / reduce-scatter (n-1)/n.
    const double f = double(ranks - 1) / double(ranks);
    return op == CollectiveOp::AllReduce ? 2 * f : f;
}

void JobSim::planOutages()
{
    for (std::uint32_t i = 0; i < m_c.faults.size(); ++i) {
        const auto& f = m_c.faults[i];
        if (f.kind != FaultKind::LinkFlap && f.kind != FaultKind::ErrorBurst) {
            continue;
        }
        const LinkId link = faultLink(f);
        for (std::uint64_t k = 0;; ++k) {
            // A periodic fault's k-th occurrence, moved by up to ± jitter (a real flapper is rarely a metronome).
            const TimeNs nominal = f.atNs + TimeNs(k) * f.everyNs;
            const double shift = (uniform(hash(m_c.seed, kFaultJitter, i, k)) * 2 - 1) * double(f.jitterNs);
            const TimeNs at = std::max<TimeNs>(0, nominal + static_cast<TimeNs>(shift));
            if (nominal >= m_c.durationNs || at >= m_c.durationNs) {
                break;
            }
            if (f.kind == FaultKind::ErrorBurst) {
                // Each retrain loses what was in flight like a flap does; AR does not react (the port never
                // left Active), so the path is back when the link has retrained.
                for (std::uint32_t j = 0; j < f.count && at + TimeNs(j) * f.gapNs < m_c.durationNs; ++j) {
                    const TimeNs down = m_c.startNs + at + TimeNs(j) * f.gapNs;
                    m_outages.push_back({ i, link, down, down + f.durationNs, down + f.durationNs, Recovery::LinkUp,
                        true, !f.retrain });
                }
            } else {
                m_outages.push_back(flapOutage(i, link, m_c.startNs + at));
            }
            if (f.everyNs <= 0) {
                break;
            }
        }
    }
    std::sort(m_outages.begin(), m_outages.end(), [](auto& a, auto& b) { return a.downNs < b.downNs; });
}

// A link trained below 4xNDR carries its share at its own rate. Every collective's traffic crosses every link
// in this model (see execute()), and a collective waits for its slowest flow, so the data phase of every
// collective stretches by the rate deficit of the slowest degraded link: a persistent slowdown on all ranks.
void JobSim::applyDegradedLinks()
{
    for (std::uint32_t i = 0; i < m_c.faults.size(); ++i) {
        const auto& f = m_c.faults[i];
        if (f.kind != FaultKind::Degraded) {
            continue;
        }
        const auto link = faultLink(f);
        m_snap->topology.setLinkRate(link, f.width, m_snap->strings.intern(f.speed));
        m_result.degradedLinks.push_back({ i, link });
        const double rate = double(f.width) * laneDataGbps(f.speed);
        m_result.slowdown = std::max(m_result.slowdown, 4.0 * laneDataGbps("NDR") / rate);
    }
    for (std::uint32_t i = 0; i < m_c.faults.size(); ++i) {
        if (m_c.faults[i].kind == FaultKind::Noisy) {
            m_result.noisyLinks.push_back({ i, faultLink(m_c.faults[i]) });
        }
    }
}

SimOutage JobSim::flapOutage(std::uint32_t fault, LinkId link, TimeNs down) const
{
    const auto& f = m_c.faults[fault];
    SimOutage o { fault, link, down, down + f.durationNs, down + f.durationNs };
    if (f.tier != LinkTier::HostLeaf) {
        // Another uplink of the same switch reaches the same hosts: the route moves off the dead port in
        // hardware (AR) or when the SM has swept and rewritten the forwarding tables.
        const TimeNs reroute = f.adaptiveRouting ? m_c.arRerouteNs : m_c.smRerouteNs;
        if (reroute < f.durationNs) {
            o.trafficUpNs = o.downNs + reroute;
            o.recovery = f.adaptiveRouting ? Recovery::AdaptiveRouting : Recovery::SubnetManager;
        }
    }
    return o;
}

TimeNs JobSim::computeNs(std::uint32_t r, std::uint64_t step, TimeNs at) const
{
    const double busy
        = double(m_c.collectivesPerStep) * double(m_c.bucketBytes) * 2.0 / m_c.busBandwidthBytesPerSec * 1e9;
    const double base = std::max(double(m_c.stepNs) - busy - double(kOptimizerNs), double(m_c.stepNs) * 0.1);
    double t = base * (1.0 + m_c.jitter * gauss(hash(m_c.seed, kCompute, r, step)));
    for (const auto& f : m_c.faults) {
        if (f.kind == FaultKind::SlowRank && f.rank == r && at >= m_c.startNs + f.atNs) {
            t *= f.slowFactor;
        }
    }
    return static_cast<TimeNs>(std::max(t, 1e6));
}

// Does the outage's link carry this instance's traffic? Every link carries the global group's (a host link its
// rank's ring and tree edges, every uplink cross-rail tree traffic, every core link cross-pod traffic). A pod's
// group crosses its own ranks' host links and its pod's leaf-spine links, never a core link.
bool JobSim::crosses(const SimOutage& o, const Instance& in) const
{
    if (in.pod < 0) {
        return true;
    }
    const auto& f = m_c.faults[o.fault];
    switch (f.tier) {
    case LinkTier::HostLeaf:
        return f.rank >= in.r0 && f.rank < in.r1;
    case LinkTier::LeafSpine:
        return f.pod == std::uint32_t(in.pod);
    case LinkTier::SpineCore:
        break;
    }
    return false;
}

// Runs one collective's data phase from `gs` (every rank of the instance arrived) for `dur` ns of transfer,
// through the outages of links its traffic crosses.
Outcome JobSim::execute(
    TimeNs gs, TimeNs dur, std::uint32_t seq, CollectiveOp op, std::uint64_t bytes, const Instance& in)
{
    const auto& policy = m_c.policy;
    auto& segments = in.pod < 0 ? m_segments : m_podSegments[std::size_t(in.pod)];
    // A stall of a pod's group holds every rank: the other pods wait for it in the next global collective.
    const std::uint32_t ranks = m_n;
    TimeNs t = gs;
    TimeNs rem = dur;
    for (const auto& o : m_outages) {
        if (o.trafficUpNs <= t || !crosses(o, in)) {
            continue;
        }
        if (o.downNs >= t + rem) {
            break;
        }
        const TimeNs stallStart = std::max(o.downNs, t);
        rem -= stallStart - t;
        segments.push_back({ t, stallStart, 0 });
        // Data sent into the dead link is lost whatever the routing does; the QP retransmits when its ACK
        // timer expires, every retry period, until a retransmission finds a usable path (trafficUpNs).
        const auto fate = flapOutcome(policy, o.trafficUpNs - stallStart, Recovery::LinkUp, 0);
        if (fate.crash) {
            Outcome out;
            out.failed = true;
            out.failNs = stallStart + policy.retryBudgetNs();
            out.failFault = o.fault;
            out.failLink = o.link;
            m_result.stalls.push_back({ stallStart, 0, ranks, o.fault, in.group(), seq, op, bytes, true });
            return out;
        }
        const TimeNs resume = stallStart + fate.stallNs;
        const std::uint32_t retries = fate.retries;
        m_result.stalls.push_back({ stallStart, resume, ranks, o.fault, in.group(), seq, op, bytes, false, retries });
        t = resume;
    }
    segments.push_back({ t, t + rem, 0 });
    return Outcome { t + rem };
}

// The ranks whose QPs cross the failed link (they fail with a transport error), within the instance.
std::vector<std::uint32_t> JobSim::ranksBehind(const SimOutage& o, const Instance& in) const
{
    const auto& f = m_c.faults[o.fault];
    std::vector<std::uint32_t> out;
    const auto G = m_c.gpusPerHost;
    if (f.tier == LinkTier::HostLeaf) {
        // The rank on the HCA and its ring neighbours on the same rail (previous and next host of its group).
        const auto h0 = in.r0 / G;
        const auto hosts = (in.r1 - in.r0) / G;
        const auto h = f.rank / G - h0;
        const auto g = f.rank % G;
        out = { (h0 + (h + hosts - 1) % hosts) * G + g, f.rank, (h0 + (h + 1) % hosts) * G + g };
    } else {
        // ECMP-hashed flows through this spine (and core): hosts of the pod by their index within it.
        const auto hpp = m_c.hostsPerPod();
        for (std::uint32_t local = f.spine; local < hpp; local += m_c.spines) {
            const auto h = f.pod * hpp + local;
            if (f.tier == LinkTier::LeafSpine) {
                out.push_back(h * G + f.leaf);
            } else if ((local / m_c.spines) % m_c.cores == f.core) {
                for (std::uint32_t g = 0; g < G; ++g) {
                    out.push_back(h * G + g);
                }
            }
        }
    }
    std::erase_if(out, [&](std::uint32_t r) { return r < in.r0 || r >= in.r1; });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// The job hangs inside collective c0 of the step. Ranks of a hung instance (`hung`): those in `failedAt` fail
// with a transport error then; a rank that never started stays "started" (the dead rank itself); every other
// rank that entered times out at the collective timeout. Ranks whose own instance of c0 completed (another
// pod's group) enter c0 + 1 — a global collective the hung ranks never reach — and time out there. Buckets
// already enqueued after that stay "scheduled".
void JobSim::recordHang(
    const StepState& s, std::uint32_t c0, const std::vector<bool>& hung, const std::vector<TimeNs>& failedAt)
{
    TimeNs crash = 0;
    const std::uint32_t C = m_c.collectivesPerStep;
    const auto& enq = s.enq;
    const auto& st = s.st;
    for (std::uint32_t r = 0; r < m_n; ++r) {
        const TimeNs sk = skew(r);
        std::uint32_t c = c0;
        TimeNs death = kNoTime;
        if (!hung[r]) {
            c = c0 + 1; // exists: a pod-local collective is never a step's last
            if (c >= C || enq[r * C + c] == kNoTime) {
                continue;
            }
            death = enq[r * C + c] + m_c.policy.collectiveTimeoutNs;
            const TimeNs start = std::max(enq[r * C + c] + kLaunchNs, s.prevEnd[r]);
            record(r, enq[r * C + c] + sk, start + sk, death + sk, seqOf(s.step, c), shapeOf(c, r),
                CollectiveState::TimedOut);
        } else {
            if (enq[r * C + c0] == kNoTime) {
                continue; // never entered (dead before enqueuing)
            }
            CollectiveState state;
            TimeNs endRec;
            if (failedAt[r] != kNoTime) {
                death = failedAt[r];
                state = CollectiveState::Failed;
                endRec = failedAt[r];
            } else if (st[r * C + c0] == kNoTime) {
                state = CollectiveState::Started;
                endRec = kNoTime; // the dead rank itself: its record stays "started"
            } else {
                death = enq[r * C + c0] + m_c.policy.collectiveTimeoutNs;
                state = CollectiveState::TimedOut;
                endRec = death;
            }
            const TimeNs startRec = st[r * C + c0] == kNoTime ? enq[r * C + c0] + kLaunchNs : st[r * C + c0];
            record(r, enq[r * C + c0] + sk, startRec + sk, endRec == kNoTime ? kNoTime : endRec + sk, seqOf(s.step, c0),
                shapeOf(c0, r), state);
        }
        for (++c; c < C; ++c) {
            if (enq[r * C + c] != kNoTime && (death == kNoTime || enq[r * C + c] < death)) {
                record(r, enq[r * C + c] + sk, kNoTime, kNoTime, seqOf(s.step, c), shapeOf(c, r),
                    CollectiveState::Scheduled);
            }
        }
        crash = std::max(crash, death);
    }
    m_lastGiveUpNs = crash; // the last rank gave up (timed out or failed)
    m_result.crashNs = crash + kDetectNs; // the job is gone once the watchdogs tore it down
    addTaskFates();
}

// What Slurm reports when the job is gone (srun's "task N: ..." lines, no time): a rank of a dead-rank fault was
// killed (SIGKILL: the OOM killer, a lost node); every other rank's watchdog aborted it (SIGABRT, docs/formats.md
// §2b: "terminate called ..." → exit code -6).
void JobSim::addTaskFates()
{
    auto& snap = *m_snap;
    const auto slurm = snap.strings.intern("slurm");
    const auto killed = snap.strings.intern("killed by signal");
    std::vector<bool> dead(m_n, false);
    for (const auto& f : m_c.faults) {
        if (f.kind == FaultKind::DeadRank && f.rank < m_n) {
            dead[f.rank] = true;
        }
    }
    for (std::uint32_t r = 0; r < m_n; ++r) {
        HostNote n;
        n.rank = r;
        n.host = snap.ranks[r].host;
        n.kind = killed;
        n.code = dead[r] ? 9 : 6;
        n.text = snap.strings.intern("task " + std::to_string(r) + (dead[r] ? ": Killed" : ": Aborted (core dumped)"));
        n.source = slurm;
        snap.notes.push_back(n);
    }
}

void JobSim::makeGroups()
{
    auto& snap = *m_snap;
    ProcessGroup pg { snap.strings.intern("0"), snap.strings.intern("default_pg"), {} };
    for (std::uint32_t r = 0; r < m_n; ++r) {
        pg.ranks.push_back(r);
    }
    snap.groups.push_back(std::move(pg));
    const std::uint32_t pods = m_c.podGroups ? m_c.pods : 0;
    for (std::uint32_t p = 0; p < pods; ++p) {
        ProcessGroup g { snap.strings.intern(std::to_string(p + 1)),
            snap.strings.intern("pod" + std::to_string(p) + "_shard"), {} };
        for (std::uint32_t r = p * ranksPerPod(); r < (p + 1) * ranksPerPod(); ++r) {
            g.ranks.push_back(r);
        }
        snap.groups.push_back(std::move(g));
    }
    m_podSegments.resize(pods);
    const std::uint32_t C = m_c.collectivesPerStep;
    for (std::uint32_t c = 0; c < C; ++c) {
        const auto op
            = !m_c.fsdp ? CollectiveOp::AllReduce : (c % 2 ? CollectiveOp::ReduceScatter : CollectiveOp::AllGather);
        std::vector<std::uint16_t> shapes;
        for (std::uint32_t p = 0; p < (podLocal(c) ? pods : 1); ++p) {
            const auto group = static_cast<std::uint16_t>(podLocal(c) ? p + 1 : 0);
            shapes.push_back(*internShape(snap.shapes, { group, op, m_c.bucketBytes }));
        }
        m_shapeOf.push_back(std::move(shapes));
        m_indexInKind.push_back(m_perStep[podLocal(c)]++);
    }
}

std::vector<Instance> JobSim::instancesOf(std::uint32_t c) const
{
    if (!podLocal(c)) {
        return { { 0, m_n, -1 } };
    }
    std::vector<Instance> out;
    for (std::uint32_t p = 0; p < m_c.pods; ++p) {
        out.push_back({ p * ranksPerPod(), (p + 1) * ranksPerPod(), int(p) });
    }
    return out;
}

// One instance of collective c: its ranks arrive, the data phase runs through the outages its traffic crosses,
// and either every rank's record is pushed (completed) or the instance hangs (see InstanceEnd).
InstanceEnd JobSim::runInstance(StepState& s, std::uint32_t c, const Instance& in, const std::vector<TimeNs>& deathNs)
{
    const std::uint32_t C = m_c.collectivesPerStep;
    auto& enq = s.enq;
    auto& st = s.st;
    TimeNs gs = 0;
    bool missing = false;
    bool diesInside = false;
    for (std::uint32_t r = in.r0; r < in.r1; ++r) {
        if (enq[r * C + c] == kNoTime) {
            missing = true;
            st[r * C + c] = kNoTime;
            continue;
        }
        st[r * C + c] = std::max(enq[r * C + c] + kLaunchNs, s.prevEnd[r]);
        gs = std::max(gs, st[r * C + c]);
    }
    const auto shapeIndex = shapeOf(c, in.r0);
    const auto shape = m_snap->shapes[shapeIndex];
    const auto seq = seqOf(s.step, c);
    const auto dur = static_cast<TimeNs>(double(shape.bytes) * opFactor(shape.op, in.r1 - in.r0) * m_result.slowdown
        / m_c.busBandwidthBytesPerSec * 1e9);
    for (std::uint32_t r = in.r0; r < in.r1 && !missing; ++r) {
        if (deathNs[r] < gs + dur) {
            diesInside = true; // hung inside the collective: its record stays "started"
            st[r * C + c] = kNoTime;
        }
    }
    InstanceEnd end;
    if (missing || diesInside) {
        std::uint32_t entered = 0;
        for (std::uint32_t r = in.r0; r < in.r1; ++r) {
            entered += enq[r * C + c] != kNoTime;
        }
        std::uint32_t fault = static_cast<std::uint32_t>(m_c.faults.size());
        for (std::uint32_t i = 0; i < m_c.faults.size(); ++i) {
            if (m_c.faults[i].kind == FaultKind::DeadRank) {
                fault = i;
            }
        }
        end.hung = true;
        end.stall = m_result.stalls.size();
        // Every live rank is held: the group's inside it, the other pods' in the next global collective.
        const std::uint32_t held = entered - (diesInside ? 1 : 0) + (m_n - (in.r1 - in.r0));
        m_result.stalls.push_back({ gs, 0, held, fault, in.group(), seq, shape.op, shape.bytes, true });
        return end;
    }
    const auto out = execute(gs, dur, seq, shape.op, shape.bytes, in);
    if (out.failed) {
        const auto it = std::find_if(m_outages.begin(), m_outages.end(),
            [&](auto& o) { return o.link == out.failLink && o.fault == out.failFault; });
        end.hung = true;
        end.linkFailure = true;
        end.failed = ranksBehind(*it, in);
        end.failRecordNs = out.failNs + kDetectNs / 4;
        end.stall = m_result.stalls.size() - 1;
        return end;
    }
    for (std::uint32_t r = in.r0; r < in.r1; ++r) {
        const TimeNs e = out.endNs + static_cast<TimeNs>(uniform(hash(m_c.seed, kEndJitter, r, s.step * C + c)) * 40e3);
        const TimeNs sk = skew(r);
        record(r, enq[r * C + c] + sk, st[r * C + c] + sk, e + sk, seq, shapeIndex, CollectiveState::Completed);
        s.prevEnd[r] = e;
    }
    return end;
}

Result<SimResult, std::string> JobSim::run()
{
    if (auto err = validateConfig(m_c); !err.empty()) {
        return err;
    }
    if (m_c.fabricOnly) {
        return runFabricOnly();
    }
    auto& snap = *m_snap;
    snap.job = { m_c.jobName, m_n, m_c.startNs, { m_c.startNs, m_c.startNs + m_c.durationNs } };
    snap.policy = m_c.policy;
    m_fabric = buildFabric(m_c, snap);
    makeGroups();
    const std::uint32_t C = m_c.collectivesPerStep;
    makeHostSkews();
    planOutages();
    applyDegradedLinks();
    m_result.outages = m_outages;

    std::vector<TimeNs> deathNs(m_n, std::numeric_limits<TimeNs>::max());
    for (const auto& f : m_c.faults) {
        if (f.kind == FaultKind::DeadRank) {
            deathNs[f.rank] = std::min(deathNs[f.rank], m_c.startNs + f.atNs);
        }
    }
    m_endNs = m_c.startNs + m_c.durationNs;
    const auto steps = static_cast<std::uint64_t>(m_c.durationNs / m_c.stepNs) + 2;
    if (m_spillPolicy.dir.empty()) {
        m_owned->ranks.resize(m_n);
        for (auto& col : m_owned->ranks) {
            col.reserve(steps * C);
        }
    } else {
        m_spill = std::make_unique<RecordSpill>(m_n, m_spillPolicy.dir, m_spillPolicy.memoryBytes);
    }
    std::vector<TimeNs> stepStart(m_n);
    for (std::uint32_t r = 0; r < m_n; ++r) {
        stepStart[r] = m_c.startNs + static_cast<TimeNs>(uniform(hash(m_c.seed, kPhase, r)) * 2e6);
    }
    StepState s;
    s.enq.resize(std::size_t(m_n) * C);
    s.st.resize(std::size_t(m_n) * C);
    s.prevEnd.resize(m_n);
    for (s.step = 0; !m_result.crashNs; ++s.step) {
        if (m_progress.cancelled()) {
            return std::string("cancelled");
        }
        if (m_spill && !m_spill->error().empty()) {
            return m_spill->error();
        }
        if (*std::min_element(stepStart.begin(), stepStart.end()) >= m_endNs) {
            break;
        }
        m_progress.report("Simulating collectives", static_cast<std::uint64_t>(stepStart[0] - m_c.startNs),
            static_cast<std::uint64_t>(m_c.durationNs));
        for (std::uint32_t r = 0; r < m_n; ++r) {
            const TimeNs comp = computeNs(r, s.step, stepStart[r]);
            s.prevEnd[r] = stepStart[r];
            for (std::uint32_t c = 0; c < C; ++c) {
                // DDP enqueues bucket c during the backward pass; the last bucket when compute ends.
                const TimeNs e = stepStart[r] + static_cast<TimeNs>(double(comp) * (0.5 + 0.5 * double(c + 1) / C));
                s.enq[r * C + c] = e < deathNs[r] ? e : kNoTime;
            }
        }
        for (std::uint32_t c = 0; c < C && !m_result.crashNs; ++c) {
            std::vector<InstanceEnd> hung;
            std::vector<bool> hungRank;
            for (const auto& in : instancesOf(c)) {
                auto end = runInstance(s, c, in, deathNs);
                if (end.hung) {
                    hungRank.resize(m_n, false);
                    std::fill(hungRank.begin() + in.r0, hungRank.begin() + in.r1, true);
                    hung.push_back(std::move(end));
                }
            }
            if (hung.empty()) {
                continue;
            }
            std::vector<TimeNs> failedAt(m_n, kNoTime);
            for (const auto& h : hung) {
                for (auto r : h.failed) {
                    failedAt[r] = h.failRecordNs;
                    m_result.failedRanks.push_back(r);
                }
            }
            recordHang(s, c, hungRank, failedAt);
            for (const auto& h : hung) {
                auto& stall = m_result.stalls[h.stall];
                stall.endNs = m_lastGiveUpNs;
                if (h.linkFailure) {
                    stall.ranksAffected = m_n; // the whole job dies of it
                }
            }
        }
        for (std::uint32_t r = 0; r < m_n; ++r) {
            stepStart[r] = s.prevEnd[r] + kOptimizerNs;
        }
    }
    // Every data phase moves bytes at the bus bandwidth; stalls are the gaps between segments.
    const double bytesPerNs = m_c.busBandwidthBytesPerSec / 1e9 / m_result.slowdown;
    for (auto& seg : m_segments) {
        seg.bytesPerNs = bytesPerNs;
    }
    std::erase_if(m_segments, [](const Segment& seg) { return seg.b <= seg.a; });
    // What a pod's links carry: the global data phases and the pod's own (its ranks run one at a time).
    for (auto& pod : m_podSegments) {
        for (auto& seg : pod) {
            seg.bytesPerNs = bytesPerNs;
        }
        pod.insert(pod.end(), m_segments.begin(), m_segments.end());
        std::erase_if(pod, [](const Segment& seg) { return seg.b <= seg.a; });
        std::sort(pod.begin(), pod.end(), [](const Segment& a, const Segment& b) { return a.a < b.a; });
    }
    if (auto err = finishSpill(snap); !err.empty()) {
        return err;
    }
    if (auto err = finishCounters(snap); !err.empty()) {
        return err;
    }
    return std::move(m_result);
}

// The spilled records written as collectives.bin in the spill folder and mapped as the snapshot's collectives.
std::string JobSim::finishSpill(JobSnapshot& snap)
{
    if (!m_spill) {
        return {};
    }
    m_progress.report("Writing collectives", 0, 1);
    const auto path = (std::filesystem::path(m_spillPolicy.dir) / "collectives.bin").string();
    if (auto err = m_spill->finish(snap.shapes, path); !err.empty()) {
        return err;
    }
    m_spill.reset();
    if (auto issue = attachCollectivesFile(path, snap, m_progress)) {
        return issue->format();
    }
    m_result.collectivesFile = path;
    return {};
}

void JobSim::makeHostSkews()
{
    for (std::uint32_t h = 0; h < m_c.hosts; ++h) {
        m_skew.push_back(static_cast<TimeNs>((uniform(hash(m_c.seed, kSkew, h)) * 2 - 1) * double(m_c.clockSkewNs)));
    }
}

std::string JobSim::finishCounters(JobSnapshot& snap)
{
    m_progress.report("Sampling counters", 0, 1);
    CounterInputs inputs { m_c, m_fabric, m_segments, m_podSegments, m_outages, m_skew, m_result.noisyLinks };
    std::vector<std::uint32_t> seriesTimeBlock;
    if (m_spillPolicy.dir.empty()) {
        buildCounters(inputs, snap, *m_owned, seriesTimeBlock);
        attachOwnedColumns(snap, m_owned, seriesTimeBlock);
    } else if (auto err = spillCounters(snap, inputs); !err.empty()) {
        return err;
    }
    resolveJoins(snap); // as a loaded bundle would have them
    m_result.snapshot = m_snap;
    return {};
}

// With a spill folder the counters' values go to a file as each series is made (4.6 GB at 131,072 ranks, never
// held), counters.bin is written from it in the folder, and the snapshot's counters are that file, mapped.
std::string JobSim::spillCounters(JobSnapshot& snap, const CounterInputs& inputs)
{
    const auto dir = std::filesystem::path(m_spillPolicy.dir);
    const auto valuesPath = (dir / "counter-values.tmp").string();
    const auto path = (dir / "counters.bin").string();
    std::vector<std::uint32_t> seriesTimeBlock;
    std::FILE* values = std::fopen(valuesPath.c_str(), "wb");
    if (!values) {
        return valuesPath + ": " + errnoText();
    }
    std::setvbuf(values, nullptr, _IOFBF, 1 << 20);
    const bool written = buildCounters(inputs, snap, *m_owned, seriesTimeBlock, values);
    const bool closed = std::fclose(values) == 0;
    attachOwnedColumns(snap, m_owned, {}); // the records, when they were not spilled; no series
    std::string err = written && closed ? std::string() : valuesPath + ": write failed (" + errnoText() + ")";
    if (err.empty()) {
        m_progress.report("Writing counters", 0, 1);
        err = writeCountersFile(
            path, snap.counterPorts, snap.counters, seriesTimeBlock, m_owned->counterTimes, valuesPath);
    }
    std::error_code ec;
    std::filesystem::remove(valuesPath, ec);
    std::vector<std::vector<TimeNs>>().swap(m_owned->counterTimes); // in the file now
    if (!err.empty()) {
        return err;
    }
    if (auto issue = attachCountersFile(path, snap)) {
        return issue->format();
    }
    m_result.countersFile = path;
    return {};
}

// Without a job of ours the fabric carries whatever the cluster runs: per hour, idle (one hour in five) or a
// load of 20–80 % of a rank link on every host link, so data counters move as on a shared fleet.
std::vector<Segment> JobSim::backgroundLoad() const
{
    std::vector<Segment> out;
    const TimeNs hour = 3600 * kNsPerSec;
    for (TimeNs a = m_c.startNs; a < m_c.startNs + m_c.durationNs; a += hour) {
        const auto h = static_cast<std::uint64_t>((a - m_c.startNs) / hour);
        const double draw = uniform(hash(m_c.seed, kLoad, h));
        const double load = draw < 0.2 ? 0.0 : 0.2 + 0.6 * uniform(hash(m_c.seed, kLoad, h, 1));
        if (load > 0) {
            out.push_back(
                { a, std::min(a + hour, m_c.startNs + m_c.durationNs), load * m_c.busBandwidthBytesPerSec / 1e9 });
        }
    }
    return out;
}

// The fabric alone: its topology, every port's counters under a background load, the SM's events; the
// outages are the faults' as in a job, but no rank, collective or stall exists.
Result<SimResult, std::string> JobSim::runFabricOnly()
{
    auto& snap = *m_snap;
    snap.job = { m_c.jobName, 0, m_c.startNs, { m_c.startNs, m_c.startNs + m_c.durationNs } };
    snap.policy = m_c.policy;
    m_fabric = buildFabric(m_c, snap);
    snap.ranks.clear(); // HCAs stay in the topology; no rank of a known job sits on them
    makeHostSkews();
    planOutages();
    applyDegradedLinks();
    m_result.outages = m_outages;
    m_segments = backgroundLoad();
    if (auto err = finishCounters(snap); !err.empty()) {
        return err;
    }
    return std::move(m_result);
}

} // namespace

Result<SimResult, std::string> simulate(const SimConfig& config, Progress& progress, const RecordSpillPolicy& spill)
{
    JobSim sim(config, progress, spill);
    return sim.run();
}

} // namespace stallscope
