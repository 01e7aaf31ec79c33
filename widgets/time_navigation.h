// SPDX-License-Identifier: MIT
#pragma once

// Mouse, wheel and key navigation along the shared time axis, for every view with a plot rectangle of time
// across (the rank and link heatmaps): wheel zooms around the pointer, drag pans, Shift-drag zooms to a span,
// arrows pan and zoom, hover sets the hover time (a crosshair in every view), a click pins the cursor; tooltips
// come from the view. Writes only to the ViewState.
// GUI thread only.

#include "view/time_axis_mapping.h"

#include <QColor>
#include <QPoint>
#include <QRect>

#include <functional>

class QEvent;
class QKeyEvent;
class QMouseEvent;
class QPainter;
class QWheelEvent;
class QWidget;

namespace stallscope {

class ViewState;

class TimeNavigation
{
public:
    explicit TimeNavigation(ViewState* state)
        : m_state(state)
    {
    }

    void wheel(QWheelEvent* event, const QRect& plot);
    void press(QMouseEvent* event);
    // Sets the hover time (inside `plot`), pans or extends the Shift-drag selection; true when the view must
    // repaint.
    bool move(QMouseEvent* event, const QRect& plot);
    // Ends a drag; true when it was a plain click (no drag, no selection) of the left button, which also pins
    // the cursor where it was made.
    bool release(QMouseEvent* event, const QRect& plot);
    void leave(); // the pointer left the view: no hover time
    bool key(QKeyEvent* event); // false when the key is not a navigation key
    // The Shift-drag span, shaded.
    void paintSelection(QPainter& p, const QRect& plot, const QColor& color) const;

private:
    TimeAxisMapping mapping(const QRect& plot) const;

    ViewState* m_state;
    QPoint m_pressPos;
    TimeRange m_pressWindow;
    bool m_dragging = false;
    bool m_selecting = false;
    QPoint m_selectEnd;
};

// Shows `text(pos)` as the tooltip of a QEvent::ToolTip (hides it when empty); true when the event was one.
bool showToolTip(QWidget* widget, QEvent* event, const std::function<QString(QPoint)>& text);

} // namespace stallscope
