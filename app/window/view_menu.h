// SPDX-License-Identifier: MIT
#pragma once

// The View menu: zoom and history, stepping through incidents and flaps, the heatmaps' row order, colouring and
// link rows, the link heatmap under the ranks, the panels, the theme and full screen. Owns the menu's choice
// groups and keeps their checks on what the views show (sync). GUI thread only.

#include <QObject>

class QAction;
class QActionGroup;
class QMainWindow;
class QMenu;

namespace stallscope {

class HeatmapWidget;
class LinkHeatmapWidget;
class NavigationController;
class ViewState;

class ViewMenu : public QObject
{
    Q_OBJECT
public:
    // Adds the menu to `window`'s menu bar; its Panels submenu lists the docks `window` has by then.
    ViewMenu(QMainWindow* window, ViewState* state, HeatmapWidget* heatmap, LinkHeatmapWidget* linkHeatmap,
        NavigationController* navigation);

    void sync(); // the checks follow the views (a job or session sets them too)

signals:
    void latenessRequested(); // Colour by › Lateness: the heatmap needs its lateness levels
    void linkHeatmapToggled(bool on); // Link heatmap under the ranks
    void statusMessage(const QString& text, int timeoutMs);

private:
    void addHeatmapChoices(QMenu* view);

    ViewState* m_state;
    HeatmapWidget* m_heatmap;
    LinkHeatmapWidget* m_linkHeatmap;
    QActionGroup* m_rowOrderGroup = nullptr;
    QAction* m_recordedOnlyAction = nullptr; // Row order › Only ranks with records
    QActionGroup* m_metricGroup = nullptr;
    QActionGroup* m_linkOrderGroup = nullptr;
};

} // namespace stallscope
