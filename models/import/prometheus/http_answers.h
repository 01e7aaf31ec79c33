// SPDX-License-Identifier: MIT
#pragma once

// Prometheus HTTP API `query_range` results (matrix), instant-query results (vector, one sample per series) and
// bare result arrays (`[{"metric": …, "values": …}]`, as prometheus-api-client stores them) of node_exporter's
// InfiniBand collector (docs/formats.md §4c, §4d): `node_infiniband_<counter>_total{device, port, instance}` series of
// [float seconds, "value"] pairs. Values are raw cumulative counters; node_exporter already multiplied the data
// counters by 4 (bytes), so they are divided back into 4-byte words to keep the model's units. Host = the instance
// label before ':'. Series of the switch-side exporters (infiniband_*) are handed on as labelled columns to
// import/prometheus/exposition.h. Read with simdjson On-Demand: an answer of millions of points streams.

#include "core/counters.h"
#include "core/result.h"

#include <map>
#include <string>
#include <string_view>
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

// A switch-side exporter's series: its name and labels as an exposition line without a value
// (`infiniband_switch_port_link_downed_total{guid="0x…",port="5"}`, read by import/prometheus/exposition.h for
// its kind, port and fabric facts) and its points as columns (values as the exporter gave them, e.g. bytes).
struct PromLabelledSeries
{
    std::string line;
    std::vector<TimeNs> timesNs;
    std::vector<std::uint64_t> values;
};

struct PromMatrix
{
    std::vector<PromSeries> series; // node_exporter's, joined by host and device
    std::vector<PromLabelledSeries> switchSide; // treydock's and guilbaults' series, and their info series
    std::vector<LoadIssue> warnings;
};

struct PromMetric
{
    CounterKind kind;
    std::uint64_t divisor; // bytes → 4-byte words for the data counters
};
// node_exporter's node_infiniband_*_total names → kind (shared with the exposition reader).
const std::map<std::string, PromMetric>& prometheusNodeExporterMetrics();

// True for the metric names whose series the readers turn into port counters or fabric facts: node_exporter's
// counters, treydock's port counters and info series, guilbaults' ibqueryerrors counters. A server is asked for
// these only (an exporter publishes more: multicast, VL15, state series).
bool prometheusSeriesIsRead(std::string_view name);

// The envelope of a Prometheus HTTP API answer — `status`, `errorType`, `error`, `warnings` — found without building
// its data (a query_range answer is tens of MB), for judging an answer before it is read.
struct PromEnvelope
{
    bool object = false; // a JSON object at the top; else `notJson` says why
    std::string notJson;
    std::string status, errorType, error;
    std::vector<std::string> warnings;
};
PromEnvelope readPromEnvelope(std::string_view body);

bool looksLikePrometheusMatrix(const std::string& text);
Result<PromMatrix> parsePrometheusMatrix(const std::string& file, const std::string& text);

} // namespace stallscope
