// SPDX-License-Identifier: MIT
#pragma once

// Stacked small multiples of link counters sharing the heatmap's time axis (the ViewState window): traffic
// in bytes/s at both ends, error counter increases, port_xmit_wait growth, with the link's down intervals
// shaded and the job's stalls hatched (a stall outlasts the outage by the retry that finds the link back). One wrapper
// keeps QCustomPlot behind this class.

#include "view/counter_pyramid.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;
class QLabel;
class QPainter;

namespace stallscope {

struct JobSnapshot;
class ViewState;

class CounterPlotWidget : public QWidget
{
    Q_OBJECT
public:
    CounterPlotWidget(ViewState* state, QWidget* parent = nullptr);
    ~CounterPlotWidget() override;
    void setSnapshot(std::shared_ptr<const JobSnapshot> snap);
    // The job's stall windows (the analysis' incidents), hatched in every track; empty for none.
    void setStalls(std::vector<TimeRange> stalls);
    int plottedLinks() const { return static_cast<int>(m_links.size()); }
    QImage renderImage(QSize size);
    void paintInto(QPainter& p, QSize size); // the plots only (no hint line), at `size`

signals:
    void exportRequested(); // "Export…" from the view's context menu

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild(); // new links: new axis rects and graphs
    void refresh(); // new window: new decimated data, replot

    ViewState* m_state;
    QCustomPlot* m_plot;
    QLabel* m_hint;
    std::shared_ptr<const JobSnapshot> m_snap;
    std::vector<std::uint32_t> m_links;
    std::vector<TimeRange> m_stalls;
    CounterPyramidCache m_pyramids; // per plotted series, built on first use (a week of 1 s samples per line)
};

} // namespace stallscope
