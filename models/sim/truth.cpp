// SPDX-License-Identifier: MIT
// truth.json: what the simulator injected and what it caused, for tests, benchmarks of the analysis and
// training (the answer sheet of a simulated incident).
#include "core/json_text.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

namespace stallscope {

namespace {

using nlohmann::ordered_json;

ordered_json portJson(const JobSnapshot& snap, const PortRef& p)
{
    const auto& n = snap.topology.node(p.node);
    return { { "desc", snap.str(n.description) }, { "guid", formatGuid(n.guid) }, { "port", p.port } };
}

const char* kindName(FaultKind k)
{
    switch (k) {
    case FaultKind::LinkFlap:
        return "link_flap";
    case FaultKind::DeadRank:
        return "dead_rank";
    case FaultKind::SlowRank:
        return "slow_rank";
    case FaultKind::ErrorBurst:
        return "error_burst";
    case FaultKind::Degraded:
        return "degraded_link";
    case FaultKind::Noisy:
        return "noisy_link";
    }
    return "unknown";
}

} // namespace

std::string truthToJson(const SimConfig& c, const SimResult& result)
{
    const auto& snap = *result.snapshot;
    ordered_json t;
    t["generator"] = "stallscope simulate";
    t["preset"] = c.preset;
    t["seed"] = c.seed;
    t["job"] = { { "name", c.jobName }, { "world_size", c.fabricOnly ? 0 : c.worldSize() },
        { "fabric_only", c.fabricOnly }, { "start_ns", c.startNs }, { "end_ns", c.startNs + c.durationNs },
        { "crashed", result.crashNs.has_value() } };
    if (result.crashNs) {
        t["job"]["crash_ns"] = *result.crashNs;
    }
    t["timeout_policy"] = { { "nccl_ib_timeout", c.policy.ncclIbTimeout },
        { "nccl_ib_retry_cnt", c.policy.ncclIbRetryCnt }, { "retry_period_ns", c.policy.retryPeriodNs() },
        { "retry_budget_ns", c.policy.retryBudgetNs() }, { "collective_timeout_ns", c.policy.collectiveTimeoutNs } };
    if (c.policy.adaptive.on) {
        t["timeout_policy"]["adaptive_retransmission"] = c.policy.adaptive.text();
    }
    ordered_json faults = ordered_json::array();
    for (std::uint32_t i = 0; i < c.faults.size(); ++i) {
        const auto& f = c.faults[i];
        ordered_json jf = { { "index", i }, { "kind", kindName(f.kind) }, { "description", describeFault(f) } };
        if (isLinkFault(f.kind)) {
            jf["tier"] = std::string(toString(f.tier));
            jf["every_ns"] = f.everyNs; // 0 = once
            jf["jitter_ns"] = f.jitterNs;
            if (f.tier != LinkTier::HostLeaf && f.kind == FaultKind::LinkFlap) {
                jf["adaptive_routing"] = f.adaptiveRouting;
                jf["reroute_ns"] = f.adaptiveRouting ? c.arRerouteNs : c.smRerouteNs;
            }
            ordered_json outages = ordered_json::array();
            for (const auto& o : result.outages) {
                if (o.fault != i) {
                    continue;
                }
                if (!jf.contains("link")) {
                    const auto& l = snap.topology.link(o.link);
                    jf["link"] = { { "a", portJson(snap, l.a) }, { "b", portJson(snap, l.b) } };
                }
                outages.push_back({ { "down_ns", o.downNs }, { "up_ns", o.upNs }, { "traffic_up_ns", o.trafficUpNs },
                    { "recovered_by", std::string(toString(o.recovery)) }, { "recovery_ns", o.trafficUpNs - o.downNs },
                    { "retrain", o.retrain }, { "drops_only", o.dropsOnly } });
            }
            for (const auto& [fault, link] : result.degradedLinks) {
                if (fault == i) {
                    const auto& l = snap.topology.link(link);
                    jf["link"] = { { "a", portJson(snap, l.a) }, { "b", portJson(snap, l.b) } };
                    jf["trained_at"] = std::to_string(f.width) + "x" + f.speed;
                    jf["slowdown"] = result.slowdown;
                }
            }
            for (const auto& [fault, link] : result.noisyLinks) {
                if (fault == i) {
                    const auto& l = snap.topology.link(link);
                    jf["link"] = { { "a", portJson(snap, l.a) }, { "b", portJson(snap, l.b) } };
                    jf["symbol_errors_per_min"] = f.symbolErrorsPerMin;
                }
            }
            if (f.kind != FaultKind::Degraded && f.kind != FaultKind::Noisy) {
                jf["outages"] = std::move(outages);
            }
        } else {
            jf["rank"] = f.rank;
            jf["at_ns"] = c.startNs + f.atNs;
            if (f.kind == FaultKind::SlowRank) {
                jf["factor"] = f.slowFactor;
            }
        }
        faults.push_back(std::move(jf));
    }
    t["faults"] = std::move(faults);
    ordered_json stalls = ordered_json::array();
    for (const auto& s : result.stalls) {
        stalls.push_back({ { "start_ns", s.startNs }, { "end_ns", s.endNs }, { "duration_ns", s.endNs - s.startNs },
            { "ranks_affected", s.ranksAffected },
            { "gpu_seconds_lost", double(s.endNs - s.startNs) / 1e9 * s.ranksAffected }, { "fault", s.fault },
            { "pg", snap.str(snap.groups.at(s.group).name) }, { "seq", s.seq }, { "op", std::string(toString(s.op)) },
            { "bytes", s.bytes }, { "outcome", s.crashed ? "crashed" : "stretched" }, { "retry_periods", s.retries } });
    }
    t["stalls"] = std::move(stalls);
    t["failed_ranks"] = result.failedRanks;
    return jsonText(t, 1) + "\n";
}

} // namespace stallscope
