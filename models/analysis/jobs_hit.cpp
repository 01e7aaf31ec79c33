// SPDX-License-Identifier: MIT
#include "analysis/jobs_hit.h"

#include "core/time_format.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace stallscope {

namespace {

constexpr TimeNs kMatchSlackNs = 60 * kNsPerSec; // a flap bracketed by minute samples vs the stall's start

// Per node, the HCA nodes below it (itself for an HCA): following links down the tiers.
class Below
{
public:
    explicit Below(const Topology& topo)
        : m_topo(topo)
        , m_down(topo.nodes().size())
    {
        for (const auto& l : topo.links()) {
            m_down[index(l.b.node)].push_back(l.a.node); // `a` is the lower end (docs/bundle-format.md)
        }
    }
    const std::vector<NodeId>& hcas(NodeId n)
    {
        auto it = m_memo.find(index(n));
        if (it != m_memo.end()) {
            return it->second;
        }
        std::vector<NodeId> out;
        if (m_topo.node(n).kind == NodeKind::Hca) {
            out.push_back(n);
        } else {
            for (const auto child : m_down[index(n)]) {
                if (m_topo.node(child).tier < m_topo.node(n).tier || m_topo.node(child).kind == NodeKind::Hca) {
                    const auto& sub = hcas(child);
                    out.insert(out.end(), sub.begin(), sub.end());
                }
            }
            std::sort(out.begin(), out.end());
            out.erase(std::unique(out.begin(), out.end()), out.end());
        }
        return m_memo.emplace(index(n), std::move(out)).first->second;
    }

private:
    const Topology& m_topo;
    std::vector<std::vector<NodeId>> m_down;
    std::unordered_map<std::uint32_t, std::vector<NodeId>> m_memo;
};

const Incident* incidentAt(const AnalysisResult& a, TimeNs from, TimeNs to)
{
    for (const auto& inc : a.incidents) {
        if (inc.kind != IncidentKind::Straggler && inc.startNs <= to + kMatchSlackNs
            && inc.endNs >= from - kMatchSlackNs) {
            return &inc;
        }
    }
    return nullptr;
}

} // namespace

JobsHit findJobsHit(const JobSnapshot& fabric, const FabricReview& review, const std::vector<ReviewedJob>& jobs)
{
    JobsHit out;
    const auto& topo = fabric.topology;
    std::unordered_map<std::string, NodeId> byDesc;
    for (std::size_t i = 0; i < topo.nodes().size(); ++i) {
        if (topo.nodes()[i].kind == NodeKind::Hca) {
            byDesc.emplace(fabric.str(topo.nodes()[i].description), static_cast<NodeId>(i));
        }
    }
    // Per job: its HCAs on the fabric (sorted) and how many ranks could not be placed.
    std::vector<std::vector<NodeId>> jobHcas(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        std::uint32_t unplaced = 0;
        const auto& s = *jobs[j].snapshot;
        for (const auto& r : s.ranks) {
            auto it = byDesc.find(s.str(r.host) + " " + s.str(r.hca));
            if (it == byDesc.end()) {
                ++unplaced;
            } else {
                jobHcas[j].push_back(it->second);
            }
        }
        std::sort(jobHcas[j].begin(), jobHcas[j].end());
        out.unplacedRanks.push_back(unplaced);
    }
    Below below(topo);
    for (std::size_t li = 0; li < review.flapping.size(); ++li) {
        const auto& l = review.flapping[li];
        if (!l.link) {
            continue; // an unplaced port: no place in the fabric to cross
        }
        const auto& sub = below.hcas(topo.link(*l.link).a.node);
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            const auto& hcas = jobHcas[j];
            const auto inside = static_cast<std::size_t>(std::count_if(
                hcas.begin(), hcas.end(), [&](NodeId n) { return std::binary_search(sub.begin(), sub.end(), n); }));
            if (inside == 0 || inside == hcas.size()) {
                continue; // none of its traffic leaves (or enters) through this link
            }
            const auto span = jobs[j].snapshot->job.span;
            for (std::size_t fi = 0; fi < l.flaps.size(); ++fi) {
                const auto& f = l.flaps[fi];
                if (f.latestNs < span.start || f.earliestNs > span.end) {
                    continue;
                }
                JobHit h;
                h.link = li;
                h.flap = fi;
                h.job = j;
                h.ranksPlaced = static_cast<std::uint32_t>(hcas.size());
                if (jobs[j].analysis) {
                    if (const auto* inc = incidentAt(*jobs[j].analysis, f.earliestNs, f.latestNs)) {
                        h.incident = inc->number;
                        h.stallNs = inc->endNs - inc->startNs;
                        h.gpuHours = inc->policy.totalGpuSeconds / 3600.0;
                        h.crashed = inc->jobCrashed;
                        h.blamedThisLink = inc->culprit && inc->culprit->link == *l.link
                            && jobs[j].snapshot->topology.links().size() == topo.links().size();
                        // Link ids agree only when both carry the same topology; else compare endpoint names.
                        if (inc->culprit && !h.blamedThisLink) {
                            h.blamedThisLink = inc->culprit->a.node + " p" + std::to_string(inc->culprit->a.port) == l.a
                                && inc->culprit->b.node + " p" + std::to_string(inc->culprit->b.port) == l.b;
                        }
                    }
                }
                out.hits.push_back(h);
            }
        }
    }
    return out;
}

std::string jobsHitText(const FabricReview& review, const std::vector<ReviewedJob>& jobs, const JobsHit& hits)
{
    std::ostringstream o;
    o << "\nJobs hit (" << jobs.size() << " job" << (jobs.size() == 1 ? "" : "s") << " given):\n";
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (hits.unplacedRanks[j] > 0) {
            o << "  " << jobs[j].name << ": " << hits.unplacedRanks[j]
              << " ranks have an HCA the fabric's topology does not hold: they are not placed\n";
        }
    }
    if (hits.hits.empty()) {
        o << "  No flap fell inside a given job whose traffic crosses the link.\n";
        return o.str();
    }
    std::size_t lastLink = SIZE_MAX;
    for (const auto& h : hits.hits) {
        const auto& l = review.flapping[h.link];
        if (h.link != lastLink) {
            o << "  " << l.a << " <-> " << l.b << ":\n";
            lastLink = h.link;
        }
        const auto& f = l.flaps[h.flap];
        o << "    " << formatUtc(f.timeNs()).substr(0, 19) << "  " << jobs[h.job].name << " (" << h.ranksPlaced
          << " ranks): ";
        if (h.incident == 0) {
            o << "crossed the link, no stall found in its timeline\n";
            continue;
        }
        char cost[32];
        std::snprintf(cost, sizeof cost, "%.2f", h.gpuHours);
        o << "incident #" << h.incident << ", " << (h.crashed ? "crashed" : formatDuration(h.stallNs) + " stall")
          << ", " << cost << " GPU-h" << (h.blamedThisLink ? ", its analysis names this link" : "") << '\n';
    }
    return o.str();
}

} // namespace stallscope
