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

namespace {

constexpr TimeNs kTimeBaseNs = 4096; // 4.096 µs: the IB timeout unit, and above ADP's 4 µs firmware minimum
constexpr int kMaxExponent = 31;

} // namespace

std::vector<TimeNs> AdaptiveRetransmission::retransmissions() const
{
    std::vector<TimeNs> out;
    TimeNs t = kTimeBaseNs << initHigh;
    out.push_back(t);
    // The first timeout continues in the range holding the initial exponent, else from the first range.
    std::size_t first = 0;
    for (std::size_t i = 0; i < rangeCount; ++i) {
        if (initHigh >= ranges[i].low && initHigh <= ranges[i].high) {
            first = i;
        }
    }
    for (std::size_t i = first; i < rangeCount; ++i) {
        const auto& r = ranges[i];
        for (int e = i == first && initHigh >= r.low && initHigh <= r.high ? initHigh : r.low; e <= r.high; ++e) {
            for (int k = 0; k < r.retries; ++k) {
                t += kTimeBaseNs << e;
                out.push_back(t);
            }
        }
    }
    return out;
}

std::string AdaptiveRetransmission::text() const
{
    std::string s = "init=" + std::to_string(initLow) + ".." + std::to_string(initHigh) + ",ranges=";
    for (std::size_t i = 0; i < rangeCount; ++i) {
        s += (i ? "," : "") + std::to_string(ranges[i].low) + ".." + std::to_string(ranges[i].high) + "x"
            + std::to_string(ranges[i].retries);
    }
    return s;
}

std::optional<AdaptiveRetransmission> parseAdaptiveRetransmission(std::string_view text, std::string& error)
{
    // "init=A..B,ranges=L..HxN[,L..HxN]..." with exponents of 4.096 µs, at most four ranges, sorted.
    AdaptiveRetransmission a;
    a.on = true;
    const auto number = [&](std::string_view& s, int max) -> std::optional<int> {
        int v = 0;
        std::size_t n = 0;
        while (n < s.size() && n < 3 && s[n] >= '0' && s[n] <= '9') {
            v = v * 10 + (s[n++] - '0');
        }
        if (n == 0 || v > max) {
            return std::nullopt;
        }
        s.remove_prefix(n);
        return v;
    };
    const auto take = [](std::string_view& s, std::string_view lit) {
        if (s.substr(0, lit.size()) != lit) {
            return false;
        }
        s.remove_prefix(lit.size());
        return true;
    };
    const auto span = [&](std::string_view& s, std::uint8_t& lo, std::uint8_t& hi) {
        const auto l = number(s, kMaxExponent);
        if (!l || !take(s, "..")) {
            return false;
        }
        const auto h = number(s, kMaxExponent);
        if (!h || *h < *l) {
            return false;
        }
        lo = static_cast<std::uint8_t>(*l);
        hi = static_cast<std::uint8_t>(*h);
        return true;
    };
    std::string_view s = text;
    if (!take(s, "init=") || !span(s, a.initLow, a.initHigh) || !take(s, ",ranges=")) {
        error = "expected init=LOW..HIGH,ranges=LOW..HIGHxRETRIES[,...] (exponents of 4.096 us, 0..31)";
        return std::nullopt;
    }
    while (true) {
        if (a.rangeCount == a.ranges.size()) {
            error = "at most four ranges (the adapter holds four)";
            return std::nullopt;
        }
        auto& r = a.ranges[a.rangeCount];
        std::optional<int> retries;
        if (!span(s, r.low, r.high) || !take(s, "x") || !(retries = number(s, 7)) || *retries < 1) {
            error = "expected a range LOW..HIGHxRETRIES with 1..7 retries, at '" + std::string(s.substr(0, 20)) + "'";
            return std::nullopt;
        }
        r.retries = static_cast<std::uint8_t>(*retries);
        if (a.rangeCount > 0 && r.low <= a.ranges[a.rangeCount - 1].high) {
            error = "ranges must be sorted and must not overlap";
            return std::nullopt;
        }
        ++a.rangeCount;
        if (s.empty()) {
            return a;
        }
        if (!take(s, ",")) {
            error = "expected ',' between ranges, at '" + std::string(s.substr(0, 20)) + "'";
            return std::nullopt;
        }
    }
}

TimeNs TimeoutPolicy::retryPeriodNs() const
{
    if (adaptive.on) {
        return adaptive.retransmissions().front();
    }
    return infiniteRetry() ? kNoTime : TimeNs(4096) << ncclIbTimeout;
}

TimeNs TimeoutPolicy::retryBudgetNs() const
{
    if (adaptive.on) {
        return adaptive.retransmissions().back();
    }
    return infiniteRetry() ? kNoTime : retryPeriodNs() * ncclIbRetryCnt;
}

std::string TimeoutPolicy::timerText() const
{
    if (adaptive.on) {
        return "adaptive retransmission " + adaptive.text();
    }
    return "NCCL_IB_TIMEOUT=" + std::to_string(ncclIbTimeout) + " NCCL_IB_RETRY_CNT=" + std::to_string(ncclIbRetryCnt);
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
    if (policy.adaptive.on) {
        // The first retransmission at or after the path is back (at least the first: a loss costs a timer).
        const auto times = policy.adaptive.retransmissions();
        const auto it = std::lower_bound(times.begin(), times.end(), out.pathDownNs);
        out.retries = static_cast<std::uint32_t>(it - times.begin() + 1);
        out.stallNs = *it;
        return out;
    }
    const TimeNs period = policy.retryPeriodNs();
    out.retries = static_cast<std::uint32_t>(std::max<TimeNs>(1, (out.pathDownNs + period - 1) / period));
    out.stallNs = TimeNs(out.retries) * period;
    return out;
}

} // namespace stallscope
