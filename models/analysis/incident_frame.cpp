// SPDX-License-Identifier: MIT
#include "analysis/incident_frame.h"

#include <algorithm>

namespace stallscope {

IncidentFrame frameIncident(const Incident& inc)
{
    IncidentFrame f;
    const TimeNs pad = std::max<TimeNs>((inc.endNs - inc.startNs) / 2, 2 * kNsPerSec);
    f.window = { inc.startNs - pad, inc.endNs + pad };
    // Where the story is: the middle of the outage when the link's down and up are both known; otherwise just
    // after the stall began, past the ranks' own arrival jitter, so the cursor sits inside the band.
    const auto& c = inc.culprit;
    f.cursorNs = c && c->downNs != kNoTime && c->upNs != kNoTime ? c->downNs + (c->upNs - c->downNs) / 2
                                                                  : inc.startNs + (inc.endNs - inc.startNs) / 10;
    if (c) {
        f.link = c->link;
    }
    return f;
}

} // namespace stallscope
