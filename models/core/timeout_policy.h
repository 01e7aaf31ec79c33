// SPDX-License-Identifier: MIT
#pragma once

// The job's timeout policy: NCCL's IB retry budget and PyTorch's collective timeout, plus the figures needed
// to price a crash (checkpoint interval, restart time).

#include "core/types.h"

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

} // namespace stallscope
