// SPDX-License-Identifier: MIT
#pragma once

// perfquery output and Prometheus exposition snapshots carry no time of their own (docs/formats.md §0): the
// sampler stamps them. A stamp is a line of its own before the samples it dates, in any of the forms a
// shell wrapper writes: `date +%s` / `%s.%N` (seconds, or ms / µs / ns judged by the digit count),
// `date -Is` / `--rfc-3339=ns` (ISO 8601 with a zone), or plain `date` ("Sun Nov 29 17:40:39 UTC 2026").
// A leading "# " or "time: " / "timestamp: " is allowed. Stamps without a zone are taken as UTC.

#include "core/types.h"

#include <optional>
#include <string_view>

namespace stallscope {

std::optional<TimeNs> parseSampleStamp(std::string_view line);

} // namespace stallscope
