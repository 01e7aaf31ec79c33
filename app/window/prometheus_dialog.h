// SPDX-License-Identifier: MIT
#pragma once

// File › Open from Prometheus…: the dialog that asks for a server, a time range and label matchers, remembering
// the server and matchers in QSettings. GUI thread only; it knows nothing of how the window then loads.

#include "core/types.h"
#include "source/prometheus_source.h"

#include <optional>

class QWidget;

namespace stallscope {

struct PrometheusChoice
{
    PrometheusQuery query; // credentials are not in it: they come from the environment only
    bool forOpenJob = false; // the open job's counters: its span, hosts and switches choose the series (range empty)
};

// `range`: the From/To offered (the open job's span, or the last day). `offerJob`: a job's raw folder is open, so
// its counters can come from the server. nullopt when cancelled.
std::optional<PrometheusChoice> askPrometheusQuery(QWidget* parent, TimeRange range, bool offerJob);

} // namespace stallscope
