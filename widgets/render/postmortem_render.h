// SPDX-License-Identifier: MIT
#pragma once

// The composed postmortem layout the window shows (or, in fabric mode, the fabric review's), painted on any QPainter
// (PNG, SVG, PDF): a title with job and incident, the heatmap with its UTC time axis and legend, the culprit's
// counters, the topology with the culprit marked, and a caption with the evidence and the cost. Deterministic for the
// same inputs and size.

#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "heatmap/heatmap_widget.h"
#include "view/heatmap_model.h"
#include "view/link_heatmap_model.h"
#include "view/review_session.h"

#include <QPainter>
#include <QSize>

#include <memory>
#include <optional>
#include <string>

namespace stallscope {

struct RenderInputs
{
    std::shared_ptr<const JobSnapshot> snapshot;
    std::shared_ptr<const AnalysisResult> analysis;
    std::shared_ptr<const HeatmapModel> heatmap;
    std::shared_ptr<const LinkHeatmapModel> linkHeatmap; // fabric mode
    std::shared_ptr<const FabricReview> fabricReview; // fabric mode
};

struct RenderRequest
{
    int incident = 0; // 0 = none: use `window`
    TimeRange window; // the window shown; with an incident, an empty window means "around the incident"
    QSize size { 1600, 1000 };
    bool dark = false;
    bool heatmap = true;
    bool counters = true;
    bool topology = true;
    std::vector<Annotation> annotations; // drawn in the heatmap, listed in reports
    // As the window shows them: an export in another row order or colouring than the view was not what was seen.
    RowOrder rowOrder = RowOrder::Rank;
    HeatmapMetric metric = HeatmapMetric::State;
    // Rank rows: only those with collective records. Unset: only those when a few recorded ranks would fold among
    // many unknown ones (an image has no menu to show them), else every rank.
    std::optional<bool> recordedOnly;
    LinkRowOrder linkRowOrder = LinkRowOrder::Tier;
    // Fabric mode (issue #13): the link heatmap over `window` (empty: the whole span), the top flapping links'
    // counters, the topology with the top flapper marked, and a caption with each top link's period and price.
    bool fabric = false;
};

void renderComposite(QPainter& p, const RenderInputs& in, const RenderRequest& req);

// Renders to `path` by extension (.png, .svg, .pdf). Returns an empty string or the reason it failed.
std::string renderToFile(const std::string& path, const RenderInputs& in, const RenderRequest& req);

} // namespace stallscope
