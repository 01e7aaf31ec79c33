// SPDX-License-Identifier: MIT
#pragma once

// The rank×time heatmap: one row per rank (aggregated when there are more ranks than pixels), time across,
// coloured by state. Observes the ViewState (window, cursor, selection) and one immutable HeatmapModel;
// keeps no zoom of its own. The raster is cached per (model, window, size, dpr, order, palette).

#include "analysis/analysis.h"
#include "heatmap/heatmap_palette.h"
#include "time_navigation.h"
#include "view/heatmap_model.h"

#include <QFutureWatcher>
#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

namespace stallscope {

class ViewState;

enum class HeatmapMetric { State, TimeInCollectives, Lateness };

class HeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    struct Key; // what a raster shows (window, size, rows, colouring): defined below
    explicit HeatmapWidget(ViewState* state, QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const HeatmapModel> model, std::shared_ptr<const AnalysisResult> analysis);
    const HeatmapModel* model() const { return m_model.get(); }
    void setRowOrder(RowOrder order);
    RowOrder rowOrder() const { return m_order; }
    // Only the ranks that have collective records (a few dumps or one trace among many ranks): their rows get the
    // whole height instead of folding into a few pixels among the unknown rows. No effect when every rank (or none)
    // has records.
    void setRecordedOnly(bool on);
    bool recordedOnly() const { return m_recordedOnly; }
    bool rowsFiltered() const { return m_rowsFiltered; } // some rank is left out now
    // Under a quarter of the rows have records: they fold among the unknown ones unless filtered.
    bool fewRowsRecorded() const { return m_recordedRows > 0 && m_recordedRows * 4 < m_rows.size(); }
    // The legend points at the View menu's filter when few rows have records (the window; an image has no menu).
    void setFilterHint(bool on) { m_filterHint = on; }
    QString firstStuckNote() const; // what first-stuck order means for this job, as its title says
    // What the view says while it has no model: nothing open, or the job's heatmap still being built.
    void setEmptyText(const QString& text);
    QString emptyText() const { return m_emptyText; }
    void setMetric(HeatmapMetric metric);
    HeatmapMetric metric() const { return m_metric; }

    // Geometry shared with tests and the render path.
    QRect plotRect() const;
    TimeAxisMapping mapping() const;
    // Rank under a widget position, if any.
    std::optional<std::uint32_t> rankAt(QPoint pos) const;
    QString tooltipAt(QPoint pos) const;
    // The rows labelled in the gutter and their rank, top to bottom: in rank order, round numbers (a 1-2-5 step
    // leaving at least 40 px between labels: 0, 200, 400 … at 1,024 ranks); in other orders, evenly spaced rows.
    std::vector<std::pair<int, std::uint32_t>> rankLabels() const;
    // Renders the whole widget into an image (offscreen, deterministic).
    QImage renderImage(QSize size, qreal dpr = 1.0);
    // Paints the whole view at `size` (the widget must have that size: plotRect() follows it). Used by
    // renderImage and by the postmortem renderer (PNG, SVG, PDF).
    void paintInto(QPainter& p, QSize size, qreal dpr);
    // On screen the raster is made off the GUI thread: a frame that needs a new one paints the last one scaled
    // to the new window (a placeholder) and the new one replaces it when ready, so input never waits for it.
    bool rasterPending() const; // a raster is being made for a newer window than the one shown
    bool rasterCoarse() const { return m_rasterCoarse; } // the one shown is a coarse first frame
    void setCoarseFirstRanks(std::size_t ranks) { m_coarseFirstRanks = ranks; } // tests lower it
    Q_INVOKABLE void waitForRaster(); // blocks until the raster job is done and shown (screenshots, tests)
    void setAsyncRaster(bool on) { m_async = on; } // off: every paint rasterizes first (as renderImage does)

    QSize sizeHint() const override { return { 1000, 600 }; }
    // Vertical zoom: which rows of the current order are shown (all by default). Ctrl+wheel changes it.
    void setVisibleRows(std::size_t first, std::size_t count);
    void revealRank(std::uint32_t rank); // when the rows are zoomed: scrolls so its row is in view
    std::pair<std::size_t, std::size_t> visibleRows() const { return { m_rowFirst, m_rowCount }; }

signals:
    void exportRequested(); // "Export…" from the view's context menu
    void hoveredRankChanged(int rank); // -1 when the pointer is not over a rank

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    Key rasterKey(QSize plotPx, qreal dpr) const;
    void ensureRaster(QSize plotPx, qreal dpr, bool async);
    void startRasterJob(const Key& key);
    void paintView(QPainter& p, QSize size, qreal dpr, bool async);
    void drawAxis(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const;

public:
    QString foldNote(int plotHeightPx) const; // ", 16 ranks per pixel row (worst shown)" or ""
private:
    void drawOverlays(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const;
    void drawSelectedRanks(QPainter& p, const QRect& plot) const;
    void drawCrashMarks(QPainter& p, const QRect& plot, const TimeAxisMapping& map) const;
    static QRectF incidentTagRect(const QFontMetrics& fm, const QRect& plot, double x0, double x1, const QString& tag);
    void drawLegend(QPainter& p, const QRect& area) const;
    int drawLegendItem(QPainter& p, int x, int top, const QColor& color, const QString& label) const;

    ViewState* m_state;
    std::shared_ptr<const HeatmapModel> m_model;
    std::shared_ptr<const AnalysisResult> m_analysis;
    RowOrder m_order = RowOrder::Rank;
    HeatmapMetric m_metric = HeatmapMetric::State;
    std::vector<std::uint32_t> m_rows; // the ranks shown, in the chosen order
    bool m_recordedOnly = false;
    bool m_rowsFiltered = false;
    void rebuildRows();
    QString m_firstStuck; // what first-stuck order means here (HeatmapModel::explain), shown in its title
    QString m_emptyText; // set by its owner (the window: app/window/empty_states.h)
    std::vector<std::uint32_t> m_shown; // the visible slice of m_rows
    std::size_t m_rowFirst = 0;
    std::size_t m_rowCount = 0; // 0 = all
    int m_hovered = -1;
    HeatmapPalette m_palette;
    std::size_t m_recordedRows = 0; // rows of ranks with collective records, filtered or not
    bool m_filterHint = false;
    QImage m_raster;

public:
    struct Key
    {
        const void* model = nullptr;
        TimeRange window;
        QSize size;
        qreal dpr = 0;
        RowOrder order = RowOrder::Rank;
        std::size_t rowFirst = 0;
        std::size_t rowCount = 0;
        bool rowsFiltered = false; // only the ranks with records
        HeatmapMetric metric = HeatmapMetric::State;
        QRgb stalled = 0;
        QRgb computing = 0;
        bool operator==(const Key&) const = default;
    };

private:
    Key m_key; // what m_raster shows
    // m_raster is a coarse first frame: a fine one for the same key is made next. Only when the fine one reads the
    // records of at least m_coarseFirstRanks shown ranks (131,072 ranks' records take seconds; their levels do not).
    bool m_rasterCoarse = false;
    std::size_t m_coarseFirstRanks = 16384;
    // The raster job (GUI thread owns the watcher; the job itself touches only its copies and the immutable model).
    struct RasterJob
    {
        Key key;
        QImage image;
        bool coarse = false; // from level 0 although the window is finer (HeatmapModel::rasterize)
    };
    QFutureWatcher<RasterJob>* m_job = nullptr;
    std::optional<Key> m_jobKey; // what the running job makes
    bool m_async = true;
    TimeNavigation m_nav { m_state };
};

} // namespace stallscope
