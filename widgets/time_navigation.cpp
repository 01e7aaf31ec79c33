// SPDX-License-Identifier: MIT
#include "time_navigation.h"

#include "view/view_state.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace stallscope {

TimeAxisMapping TimeNavigation::mapping(const QRect& plot) const
{
    return TimeAxisMapping { m_state->window(), plot.width() };
}

void TimeNavigation::wheel(QWheelEvent* event, const QRect& plot)
{
    const TimeNs at = mapping(plot).t(event->position().x() - plot.left());
    m_state->zoomAround(at, std::pow(0.8, event->angleDelta().y() / 120.0));
    event->accept();
}

void TimeNavigation::press(QMouseEvent* event)
{
    m_pressPos = event->pos();
    m_pressWindow = m_state->window();
    m_selecting = event->modifiers() & Qt::ShiftModifier;
    m_selectEnd = event->pos();
    m_dragging = false;
}

bool TimeNavigation::move(QMouseEvent* event, const QRect& plot)
{
    m_state->setHover(plot.contains(event->pos()) ? mapping(plot).t(event->pos().x() - plot.left() + 0.5) : kNoTime);
    if (!(event->buttons() & Qt::LeftButton)) {
        return false;
    }
    if (m_selecting) {
        m_selectEnd = event->pos();
        return true;
    }
    const int dx = event->pos().x() - m_pressPos.x();
    if (std::abs(dx) > 3 || m_dragging) {
        m_dragging = true;
        const double nsPerPx = double(m_pressWindow.delta()) / double(plot.width());
        const TimeNs shift = static_cast<TimeNs>(-dx * nsPerPx);
        m_state->setWindow({ m_pressWindow.start + shift, m_pressWindow.end + shift }, false);
    }
    return false;
}

bool TimeNavigation::release(QMouseEvent* event, const QRect& plot)
{
    if (m_selecting) {
        m_selecting = false;
        const auto map = mapping(plot);
        if (std::abs(event->pos().x() - m_pressPos.x()) > 3) {
            m_state->zoomIn(
                TimeRange { map.t(m_pressPos.x() - plot.left()), map.t(event->pos().x() - plot.left()) }.normalized());
        }
        return false;
    }
    const bool click = !m_dragging && event->button() == Qt::LeftButton;
    m_dragging = false;
    if (click && plot.contains(event->pos())) {
        m_state->setCursor(mapping(plot).t(event->pos().x() - plot.left() + 0.5)); // a click pins the cursor
    }
    return click;
}

void TimeNavigation::leave()
{
    m_state->setHover(kNoTime);
}

bool TimeNavigation::key(QKeyEvent* event)
{
    const TimeNs w = m_state->window().delta();
    // W / S zoom around the pointer as Perfetto's do (the window's centre when the pointer is elsewhere).
    const TimeNs around = m_state->hover() != kNoTime ? m_state->hover() : m_state->window().start + w / 2;
    if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) {
        return false; // menu shortcuts
    }
    switch (event->key()) {
    case Qt::Key_W:
        m_state->zoomAround(around, 0.8);
        return true;
    case Qt::Key_S:
        m_state->zoomAround(around, 1.25);
        return true;
    case Qt::Key_A:
    case Qt::Key_Left:
        m_state->pan(-w / 10);
        return true;
    case Qt::Key_D:
    case Qt::Key_Right:
        m_state->pan(w / 10);
        return true;
    case Qt::Key_Up:
        m_state->zoomAround(m_state->window().start + w / 2, 0.8);
        return true;
    case Qt::Key_Down:
        m_state->zoomAround(m_state->window().start + w / 2, 1.25);
        return true;
    default:
        return false;
    }
}

void TimeNavigation::paintSelection(QPainter& p, const QRect& plot, const QColor& color) const
{
    if (!m_selecting) {
        return;
    }
    QColor fill = color;
    fill.setAlpha(50);
    const int x0 = std::clamp(m_pressPos.x(), plot.left(), plot.right());
    const int x1 = std::clamp(m_selectEnd.x(), plot.left(), plot.right());
    p.fillRect(QRect(QPoint(std::min(x0, x1), plot.top()), QPoint(std::max(x0, x1), plot.bottom())), fill);
}

bool showToolTip(QWidget* widget, QEvent* event, const std::function<QString(QPoint)>& text)
{
    if (event->type() != QEvent::ToolTip) {
        return false;
    }
    auto* help = static_cast<QHelpEvent*>(event);
    const QString t = text(help->pos());
    if (t.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(help->globalPos(), t, widget);
    }
    return true;
}

} // namespace stallscope
