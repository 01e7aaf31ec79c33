// SPDX-License-Identifier: MIT
#pragma once

// Stacked small multiples of link counters sharing the heatmap's time axis (the ViewState window): traffic
// in bytes/s at both ends, error counter increases, port_xmit_wait growth, with the link's down intervals
// shaded and the job's stalls hatched (a stall outlasts the outage by the retry that finds the link back). One wrapper
// keeps QCustomPlot behind this class.

#include "core/types.h"
#include "view/counter_pyramid.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCPAxisRect;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPainter;
class QScrollArea;

namespace stallscope {

struct JobSnapshot;
class TimeNavigation;
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
    // Where the plots are, for tests and the window's checks: the surface they are drawn on, the x (in that
    // surface's pixels) of instant t, each track's height, and the centre of a plotted link's remove button.
    QWidget* surface() const;
    double xOf(TimeNs t) const;
    std::vector<int> trackHeights() const;
    QPoint removeButtonCentre(LinkId link) const; // (-1, -1) when the link is not plotted
    // The left axis' labels of track `track` (every link's tracks in order) as of the last render.
    QStringList yTickLabels(int track) const;
    QImage renderImage(QSize size);
    void paintInto(QPainter& p, QSize size); // the plots only (no hint line), at `size`

signals:
    void exportRequested(); // "Export…" from the view's context menu

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override; // the plot's mouse: hover, click, drag, wheel

private:
    void rebuild(); // new links: new axis rects and graphs
    void refresh(); // new window: new decimated data, replot
    void applyMargins(int viewWidth);
    void setRemoveButtonsVisible(bool on);
    void createMarks();
    void updateMarks(); // cursor or hover moved: only the marks layer is replotted
    QString readoutAt(QCPAxisRect* rect, double key) const;

    struct Marks
    {
        QCPAxisRect* rect = nullptr;
        QCPItemStraightLine* cursor = nullptr;
        QCPItemStraightLine* hover = nullptr;
        QCPItemText* readout = nullptr;
    };

    ViewState* m_state;
    QCustomPlot* m_plot;
    QScrollArea* m_scroll;
    QLabel* m_hint;
    std::unique_ptr<TimeNavigation> m_nav;
    std::vector<Marks> m_marks;
    std::shared_ptr<const JobSnapshot> m_snap;
    std::vector<std::uint32_t> m_links;
    std::vector<const CounterSeries*> m_graphSeries; // graph index -> its series (null: the port has none)
    std::vector<TimeRange> m_stalls;
    CounterPyramidCache m_pyramids; // per plotted series, built on first use (a week of 1 s samples per line)
};

} // namespace stallscope
