// SPDX-License-Identifier: MIT
#pragma once

// How a review session's views looked: the rank rows' order, their colouring and the link rows' order, by the
// names a .stallscope file stores (docs/formats.md, review sessions). The window restores them; `render` and
// `report` draw a session's images with them, as the window showed them.

#include "heatmap/heatmap_widget.h"
#include "view/link_heatmap_model.h"
#include "view/review_session.h"

namespace stallscope {

struct SessionLook
{
    RowOrder rowOrder = RowOrder::Rank;
    HeatmapMetric metric = HeatmapMetric::State;
    LinkRowOrder linkOrder = LinkRowOrder::Tier;
    bool recordedOnly = false; // rank rows: only those with collective records
};

// Names a session does not know (a newer writer's, or none) read as the defaults above.
SessionLook sessionLook(const ReviewSession& s);
void writeSessionLook(const SessionLook& look, ReviewSession& out);

} // namespace stallscope
