// SPDX-License-Identifier: MIT
#pragma once

// How an incident is framed wherever one is shown: the window around it, where the cursor goes and which link
// to plot. The window (selecting an incident), the renders and reports, and the training walk-through all use
// this one rule, so the same incident looks the same in each.

#include "analysis/analysis.h"

#include <optional>

namespace stallscope {

struct IncidentFrame
{
    TimeRange window; // the stall with half its length either side, at least 2 s
    TimeNs cursorNs = kNoTime; // inside the outage when known, else a tenth of the way into the stall
    std::optional<LinkId> link; // the culprit's, when one is named
};

IncidentFrame frameIncident(const Incident& inc);

} // namespace stallscope
