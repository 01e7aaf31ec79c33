// SPDX-License-Identifier: MIT
#pragma once

// The state of every fabric link at a moment, from link events and counters: what the topology view
// colours. Built once per snapshot (per-link down intervals and error sample times); stateAt() is
// O(log samples) per link.

#include "core/job_snapshot.h"
#include "core/progress.h"

#include <limits>
#include <vector>

namespace stallscope {

enum class LinkHealth { Normal, Idle, Congested, Erroring, Down };
std::string_view toString(LinkHealth h);

class LinkStates
{
public:
    explicit LinkStates(std::shared_ptr<const JobSnapshot> snap);
    // The same, split over the cores, reporting to `progress`; cancelled, the links not reached read as normal.
    // `within`: only the error samples that overlap it are kept (a render asks about one window of a long job);
    // asked about a time outside it, a link reads as if its error counters had not moved.
    LinkStates(std::shared_ptr<const JobSnapshot> snap, Progress& progress, TimeRange within = kWholeTime);
    static constexpr TimeRange kWholeTime { std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max() };
    LinkHealth stateAt(LinkId link, TimeNs t) const;
    std::size_t linkCount() const { return m_links.size(); }

private:
    void build(Progress& progress);
    template <typename Find> void fillLink(std::size_t i, const Find& findSeries);

    struct PerLink
    {
        std::vector<TimeRange> down;
        std::vector<TimeRange> errorSamples; // sample intervals in which an error counter increased
        const CounterSeries* traffic = nullptr; // xmit_data at end a (or b)
        const CounterSeries* wait = nullptr; // xmit_wait at the switch end
    };
    std::shared_ptr<const JobSnapshot> m_snap;
    TimeRange m_within = kWholeTime;
    std::vector<PerLink> m_links;
};

} // namespace stallscope
