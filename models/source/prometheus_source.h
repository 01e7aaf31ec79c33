// SPDX-License-Identifier: MIT
#pragma once

// Counters straight from a Prometheus-compatible server (issue #14): for a time range and label matchers,
// `query_range` of the InfiniBand counters of both conventions (node_exporter's node_infiniband_* on the hosts;
// treydock's and guilbaults' infiniband_* on the switches), raw counters (never rate()), and instant queries of
// the exporters' info series that describe the fabric. Ranges are split so no answer holds more than 11,000
// points per series (the server's limit); the step is the server's scrape interval unless given. Requests run
// in parallel up to a bound, with a timeout each and retries with backoff on network errors and 5xx; 4xx,
// `"status":"error"` and `warnings` become messages naming the query. The answers are read by the raw-folder
// importer (docs/formats.md §4d), so everything a saved answer gives, a live one gives.
//
// Threads: call from any thread that may run a Qt event loop (a QCoreApplication must exist); blocks until done.

#include "core/loaded_job.h"
#include "core/progress.h"
#include "core/result.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace stallscope {

struct PrometheusQuery
{
    std::string url; // "http://127.0.0.1:9090" (a path prefix such as /prometheus is kept)
    TimeRange range; // epoch ns
    std::vector<std::string> matchers; // extra label matchers, e.g. instance=~"gpu-a0.*"
    TimeNs stepNs = 0; // 0: the server's global scrape_interval (/api/v1/status/config), else 15 s
    int parallel = 4;
    TimeNs timeoutNs = 60 * kNsPerSec; // per request
    int retries = 3; // on network errors and 5xx, with backoff 0.5 s, 1 s, 2 s ...
    std::string bearerToken; // Authorization: Bearer (never written anywhere)
    std::string basicUser, basicPassword; // Authorization: Basic
    std::string caFile; // PEM file of extra CAs (the system's are always trusted)
    std::size_t maxPointsPerSeries = 11'000;
    // One answer past this many bytes is stopped and refused: a request asks for at most 2,000,000 samples (some
    // tens of MB as JSON), so more is a proxy's endless page or a runaway, never counters to hold in memory.
    std::uint64_t maxAnswerBytes = 1ull << 30;
};

// Options from the environment: STALLSCOPE_PROMETHEUS_TOKEN, STALLSCOPE_PROMETHEUS_USER and
// STALLSCOPE_PROMETHEUS_PASSWORD fill what the query leaves empty.
void applyPrometheusEnvironment(PrometheusQuery& q);

// The queries a range needs: the metric selectors and the time chunks (start, end) for `step`.
std::vector<std::pair<TimeNs, TimeNs>> splitRange(TimeRange range, TimeNs stepNs, std::size_t maxPoints);
std::string counterSelector(const std::vector<std::string>& matchers); // {__name__=~"…", matchers…}
std::string infoSelector(const std::vector<std::string>& matchers);
// "scrape_interval: 30s" in the server's YAML config → 30 s; 0 when absent.
TimeNs scrapeIntervalFromConfig(const std::string& yaml);

struct PrometheusLoad
{
    LoadedJob job; // fabric data (no ranks); job.snapshot->job.name is the server's URL
    std::size_t requests = 0; // HTTP requests that returned an answer (config, names, counts, ranges, info)
    std::size_t rangeRequests = 0; // of which query_range answers read
    std::size_t splits = 0; // query_range requests the server refused for their size, asked again in halves
    TimeNs stepNs = 0;
    TimeRange range {}; // the range queried (loadJobWithPrometheus: the job's span, padded, unless given)
};

Result<PrometheusLoad> loadFromPrometheus(const PrometheusQuery& query, Progress& progress);

// A job's raw folder (dumps, traces, logs, topology) with its counters from the server: the range is the job's
// span padded by kJobRangePaddingNs unless `query.range` is given, and node_exporter's series are narrowed to
// the hosts the job's logs and mapping file name unless `query.matchers` are given (switch-side series are read
// whole). The answers are read as part of the folder, so the analysis sees one job.
inline constexpr TimeNs kJobRangePaddingNs = 5 * 60 * kNsPerSec; // counters before the first collective: a baseline
Result<PrometheusLoad> loadJobWithPrometheus(const std::string& path, const PrometheusQuery& query, Progress& progress);

// Following a server live (`--follow`, the window's Live toggle): each poll queries the time since the previous
// one (with two steps of overlap) and reports what is new — a port's link_downed rising, a link-down event (port
// state series) — within one scrape interval of the server having it. The first poll sets the baseline.
struct LiveAlert
{
    TimeNs timeNs = 0; // the first sample that showed it
    std::string port; // "gpu-a001 mlx5_1 p1"
    std::string what; // "link went down (link_downed 3 -> 4)"
};

class PrometheusFollower
{
public:
    explicit PrometheusFollower(PrometheusQuery query);
    // Polls up to `nowNs`. Blocks (network); same threading as loadFromPrometheus.
    Result<std::vector<LiveAlert>> poll(TimeNs nowNs, Progress& progress);
    TimeNs stepNs() const { return m_step; } // the server's scrape interval once known
    std::size_t polls() const { return m_polls; }

private:
    PrometheusQuery m_q;
    TimeNs m_step = 0;
    TimeNs m_last = 0;
    std::size_t m_polls = 0;
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::pair<TimeNs, std::uint64_t>> m_downed; // last sample
    std::set<std::tuple<std::uint64_t, std::uint16_t, TimeNs>> m_events;
};

} // namespace stallscope
