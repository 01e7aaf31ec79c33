// SPDX-License-Identifier: MIT
#pragma once

// The job's timeout policy: NCCL's IB retry budget and PyTorch's collective timeout, plus the figures needed
// to price a crash (checkpoint interval, restart time).

#include "core/types.h"

#include <cstdint>
#include <string_view>

namespace stallscope {

struct TimeoutPolicy
{
    int ncclIbTimeout = 20; // exponent: one ack timeout = 4.096 µs × 2^value; 0 or ≥ 32 = infinite
    int ncclIbRetryCnt = 7;
    TimeNs collectiveTimeoutNs = 600 * kNsPerSec; // PyTorch NCCL default, 10 min
    TimeNs checkpointIntervalNs = 1800 * kNsPerSec;
    TimeNs restartTimeNs = 600 * kNsPerSec;

    bool infiniteRetry() const { return ncclIbTimeout <= 0 || ncclIbTimeout >= 32; }
    // One QP ack timeout (the retransmission period), ns. 4.096 µs = 4096 ns.
    TimeNs retryPeriodNs() const { return infiniteRetry() ? kNoTime : TimeNs(4096) << ncclIbTimeout; }
    // Time without forward progress before the QP fails with IBV_WC_RETRY_EXC_ERR, ns.
    TimeNs retryBudgetNs() const { return infiniteRetry() ? kNoTime : retryPeriodNs() * ncclIbRetryCnt; }
};

// What made a failed link's path usable again (docs/formats.md §6b): the link itself coming back (the only
// way for a host's own HCA link), adaptive routing in the switch (milliseconds), or the subnet manager's
// sweep and new forwarding tables (seconds).
enum class Recovery : std::uint8_t { LinkUp, AdaptiveRouting, SubnetManager };
std::string_view toString(Recovery r); // "link up", "adaptive routing", "subnet manager"

// What one flap does to a collective in flight on the link (docs/formats.md §6b). The data on the dying
// link is lost; its QPs retransmit at each ACK timeout until a retransmission finds a usable path, which is
// `pathDownNs` after the loss: the outage itself when the link has to come back, else the reroute time.
// The stall is that rounded up to whole retry periods (at least one: losing data always costs a timeout);
// past the retry budget the QPs fail and the job crashes.
struct FlapOutcome
{
    TimeNs pathDownNs = 0;
    bool crash = false;
    std::uint32_t retries = 0; // retry periods waited (0 on a crash or with infinite retry)
    TimeNs stallNs = 0; // 0 on a crash
};
FlapOutcome flapOutcome(const TimeoutPolicy& policy, TimeNs outageNs, Recovery recovery, TimeNs rerouteNs);

} // namespace stallscope
