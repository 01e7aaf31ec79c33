// SPDX-License-Identifier: MIT
#pragma once

// Prometheus HTTP API `query_range` results (matrix), instant-query results (vector, one sample per series) and
// bare result arrays (`[{"metric": …, "values": …}]`, as prometheus-api-client stores them) of node_exporter's
// InfiniBand collector (docs/formats.md §4c, §4d): `node_infiniband_<counter>_total{device, port, instance}` series of
// [float seconds, "value"] pairs. Values are raw cumulative counters; node_exporter already multiplied the data
// counters by 4 (bytes), so they are divided back into 4-byte words to keep the model's units. Host = the instance
// label before ':'. Series of the switch-side exporters (infiniband_*) are handed on as exposition text to
// import/prometheus/exposition.h.

#include "core/counters.h"
#include "core/result.h"

#include <map>
#include <string>
#include <vector>

namespace stallscope {

struct PromSeries
{
    std::string host; // "node017" from instance "node017:9100"
    std::string device; // "mlx5_3"
    std::uint16_t port = 1;
    CounterKind kind = CounterKind::LinkDowned;
    std::vector<TimeNs> timesNs;
    std::vector<std::uint64_t> values; // raw, in the model's units
};

struct PromMatrix
{
    std::vector<PromSeries> series; // node_exporter's, joined by host and device
    std::string switchSide; // switch-side exporters' series as exposition text (read by import/prometheus/exposition.h)
    std::vector<LoadIssue> warnings;
};

struct PromMetric
{
    CounterKind kind;
    std::uint64_t divisor; // bytes → 4-byte words for the data counters
};
// node_exporter's node_infiniband_*_total names → kind (shared with the exposition reader).
const std::map<std::string, PromMetric>& prometheusNodeExporterMetrics();

bool looksLikePrometheusMatrix(const std::string& text);
Result<PromMatrix> parsePrometheusMatrix(const std::string& file, const std::string& text);

} // namespace stallscope
