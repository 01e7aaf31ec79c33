// SPDX-License-Identifier: MIT
#include "core/timeout_policy.h"

#include <algorithm>

namespace stallscope {

std::string_view toString(Recovery r)
{
    switch (r) {
    case Recovery::AdaptiveRouting:
        return "adaptive routing";
    case Recovery::SubnetManager:
        return "subnet manager";
    case Recovery::LinkUp:
        break;
    }
    return "link up";
}

FlapOutcome flapOutcome(const TimeoutPolicy& policy, TimeNs outageNs, Recovery recovery, TimeNs rerouteNs)
{
    FlapOutcome out;
    out.pathDownNs = recovery == Recovery::LinkUp ? outageNs : std::min(outageNs, rerouteNs);
    if (policy.infiniteRetry()) {
        out.stallNs = out.pathDownNs; // no ACK timer to wait for (model: resumes when the path is back)
        return out;
    }
    if (out.pathDownNs > policy.retryBudgetNs()) {
        out.crash = true;
        return out;
    }
    const TimeNs period = policy.retryPeriodNs();
    out.retries = static_cast<std::uint32_t>(std::max<TimeNs>(1, (out.pathDownNs + period - 1) / period));
    out.stallNs = TimeNs(out.retries) * period;
    return out;
}

} // namespace stallscope
