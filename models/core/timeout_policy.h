// SPDX-License-Identifier: MIT
#pragma once

// The job's timeout policy: NCCL's IB retry budget and PyTorch's collective timeout, plus the figures needed
// to price a crash (checkpoint interval, restart time).

#include "core/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// NVIDIA's adaptive retransmission (ADP) for RoCE adapters (firmware register ROCE_ACCL; NVIDIA, "Adaptive
// Retransmission: Parameters Control", 2025; docs/formats.md §6a). Instead of one fixed ACK timeout, a QP
// waits time_base × 2^e: e drawn once per QP in [initLow, initHigh] (used once), then each range's exponents from
// its low to its high, each `retries` times, range after range. InfiniBand adapters use the fixed timeout.
struct AdaptiveRetransmission
{
    struct Range
    {
        std::uint8_t low = 0;
        std::uint8_t high = 0;
        std::uint8_t retries = 1;
        friend bool operator==(const Range&, const Range&) = default;
    };
    bool on = false;
    std::uint8_t initLow = 0;
    std::uint8_t initHigh = 0;
    std::array<Range, 4> ranges {}; // the firmware holds at most four
    std::uint8_t rangeCount = 0;

    // The times after the loss at which the slowest QP retransmits (the collective waits for its slowest QP,
    // whose initial exponent is initHigh once more than a few QPs cross the link), ns. The QP errors after
    // the last (our reading: NVIDIA documents the schedule, not when the QP gives up).
    std::vector<TimeNs> retransmissions() const;
    std::string text() const; // "init=10..13,ranges=13..17x2,18..20x3"
    friend bool operator==(const AdaptiveRetransmission&, const AdaptiveRetransmission&) = default;
};
// Parses text() back; an error message names what was expected.
std::optional<AdaptiveRetransmission> parseAdaptiveRetransmission(std::string_view text, std::string& error);

struct TimeoutPolicy
{
    int ncclIbTimeout = 20; // exponent: one ack timeout = 4.096 µs × 2^value; 0 or ≥ 32 = infinite
    int ncclIbRetryCnt = 7;
    TimeNs collectiveTimeoutNs = 600 * kNsPerSec; // PyTorch NCCL default, 10 min
    TimeNs checkpointIntervalNs = 1800 * kNsPerSec;
    TimeNs restartTimeNs = 600 * kNsPerSec;

    AdaptiveRetransmission adaptive; // RoCE adapters with ADP on: replaces the fixed timeout and retry count

    bool infiniteRetry() const { return !adaptive.on && (ncclIbTimeout <= 0 || ncclIbTimeout >= 32); }
    // One QP ack timeout (the retransmission period), ns. 4.096 µs = 4096 ns. With adaptive retransmission: the
    // slowest QP's first wait.
    TimeNs retryPeriodNs() const;
    // Time without forward progress before the QP fails with IBV_WC_RETRY_EXC_ERR, ns.
    TimeNs retryBudgetNs() const;
    // The retransmission timer as a person names it: "NCCL_IB_TIMEOUT=20 NCCL_IB_RETRY_CNT=7", or "adaptive
    // retransmission init=…,ranges=…".
    std::string timerText() const;
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
