// SPDX-License-Identifier: MIT
#pragma once

// A snapshot's port counters as one OpenMetrics file with timestamps, the input of
// `promtool tsdb create-blocks-from openmetrics`: a simulated incident backfilled into a real Prometheus is what a
// fleet's server would hold had its exporters scraped the fabric (issue #14). Host ports use node_exporter's names
// and labels (`node_infiniband_<counter>_total{device,port,instance="<host>:9100"}`), switch ports treydock's
// (`infiniband_switch_port_<counter>_total{guid,port}`, plus `infiniband_switch_info{guid,switch}` every 60 s so an
// instant query finds it within Prometheus' 5-minute lookback). Families are not interleaved and each series'
// samples rise in time, as the OpenMetrics text format requires (docs/formats.md §4d).

#include "core/job_snapshot.h"

#include <string>

namespace stallscope {

// Writes `file` atomically; "" or an error naming the file. Streams: memory does not grow with the sample count.
std::string writeOpenMetrics(const JobSnapshot& snap, const std::string& file);

} // namespace stallscope
