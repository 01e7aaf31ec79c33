// SPDX-License-Identifier: MIT
#include "window/empty_states.h"

#include "panels/flaps_panel.h"
#include "heatmap/heatmap_widget.h"
#include "panels/incidents_panel.h"
#include "heatmap/link_heatmap_widget.h"
#include "topology/topology_widget.h"

#include <QObject>

namespace stallscope {

void showEmptyStates(const EmptyViews& v, EmptyState state, const QString& what)
{
    const bool loading = state == EmptyState::Loading;
    const bool hidden = state == EmptyState::AnalysisHidden;
    v.heatmap->setEmptyText(loading
            ? QObject::tr("Opening %1: building the heatmap…").arg(what)
            : QObject::tr("Open a bundle to see every rank over time."));
    v.linkHeatmap->setEmptyText(loading ? QObject::tr("Building the link heatmap…")
                                        : QObject::tr("Open a bundle or fabric data to see every link over time."));
    v.incidents->setEmptyText(loading ? QObject::tr("Analysing: looking for stalls, hangs and stragglers and their causes…")
            : hidden                  ? QObject::tr("The analysis is hidden until you Check your answer.")
                                      : QObject::tr("Open a bundle: its incidents are listed here."));
    v.flaps->setEmptyText(loading ? QObject::tr("Reviewing every link for flaps…")
            : hidden              ? QObject::tr("The fabric review is hidden until you Check your answer.")
                                  : QObject::tr("No fabric data open."));
    v.topology->setEmptyText(loading ? QObject::tr("Reading the fabric's topology…")
                                     : QObject::tr("Open a bundle or fabric data to see its switches and links."));
}

} // namespace stallscope
