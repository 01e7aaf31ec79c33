// SPDX-License-Identifier: MIT
#pragma once

// The link × time heatmap (issue #13): one row per fabric link, grouped by tier and lower switch, time across,
// coloured by the worst state in each cell (down, erroring, congested, normal, idle). Observes the ViewState
// (window, cursor, selected links) and one immutable LinkHeatmapModel; keeps no zoom of its own. Rows outnumbering
// pixels fold into their worst, so one flapping link among 2,048 still shows. GUI thread only.

#include "time_navigation.h"
#include "view/link_heatmap_model.h"
#include "view/time_axis_mapping.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

namespace stallscope {

class ViewState;

class LinkHeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LinkHeatmapWidget(ViewState* state, QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const LinkHeatmapModel> model);
    void setRowOrder(LinkRowOrder order);
    // Training hides the analysis until Check: the gutter then names and marks no link that went down.
    void setCulpritMarksHidden(bool hidden);
    LinkRowOrder rowOrder() const { return m_order; }
    // What the view says while it has no model: nothing open, or the links' heatmap still being built.
    void setEmptyText(const QString& text);
    QString emptyText() const { return m_emptyText; }

    QRect plotRect() const;
    TimeAxisMapping mapping() const;
    std::optional<std::uint32_t> rowAt(QPoint pos) const; // model row under a widget position
    QString tooltipAt(QPoint pos) const;
    QString headline() const; // the title line: job, rows, order, window (utcRange), cell size
    QImage renderImage(QSize size, qreal dpr = 1.0);
    void paintInto(QPainter& p, QSize size, qreal dpr);
    QSize sizeHint() const override { return { 1000, 400 }; }

    // Colours (shared with tests and the render path).
    static QColor cellColor(LinkCell cell, const QPalette& palette);

signals:
    void exportRequested();

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    void ensureRaster(QSize plotPx);
    void drawAxis(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const;
    void drawGutter(QPainter& p, const QRect& plot) const;
    void drawOverlays(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const;
    void drawLegend(QPainter& p, const QRect& area) const;

    ViewState* m_state;
    QString m_emptyText; // set by its owner (the window: app/window/empty_states.h)
    std::shared_ptr<const LinkHeatmapModel> m_model;
    LinkRowOrder m_order = LinkRowOrder::Tier;
    bool m_culpritMarksHidden = false;
    std::vector<std::uint32_t> m_rows; // model rows in display order
    // Row i spans [m_rowTop[i], m_rowTop[i + 1]) pixels below the plot's top. Rows that went down or erred
    // keep at least kTroubleRowPx when rows outnumber pixels, so one flapper among thousands reads at a glance.
    std::vector<double> m_rowTop;
    int m_layoutHeight = -1;
    void layoutRows(int plotHeight);
    std::size_t displayRowAt(double y) const; // display index of the row at y pixels below the plot's top
    QImage m_raster;
    struct Key
    {
        const void* model = nullptr;
        TimeRange window;
        QSize size;
        LinkRowOrder order = LinkRowOrder::Tier;
        QRgb normal = 0;
        bool operator==(const Key&) const = default;
    } m_key;
    TimeNavigation m_nav { m_state };
};

} // namespace stallscope
