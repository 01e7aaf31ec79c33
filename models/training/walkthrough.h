// SPDX-License-Identifier: MIT
#pragma once

// The evidence walk-through shown after Check: the analysis of the folder the trainee had, told as a few steps.
// Each step says in one sentence what it shows and where every view should go (time window, cursor, the links
// and ranks to select), so the window can move all views at once.

#include "analysis/analysis.h"

#include <string>
#include <vector>

namespace stallscope::training {

struct WalkStep
{
    TimeRange window {}; // zoom here (empty: keep the window)
    TimeNs cursorNs = kNoTime;
    std::vector<LinkId> links; // select these (ids of the analysed snapshot)
    std::vector<std::uint32_t> ranks;
    std::string text;
    int incident = 0; // select this incident (1-based) first, so its marks show in every view; 0: none
};

// At most kMaxWalkSteps steps: per incident the band, the culprit's evidence by kind (down events, counters,
// traffic queued toward the link, the link back), the policy verdict and cost; rank faults and degraded links
// by what names them. Empty when the analysis found nothing.
std::vector<WalkStep> walkthrough(const JobSnapshot& snap, const AnalysisResult& analysis);

inline constexpr std::size_t kMaxWalkSteps = 12;

} // namespace stallscope::training
