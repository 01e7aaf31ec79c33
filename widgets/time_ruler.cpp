// SPDX-License-Identifier: MIT
#include "time_ruler.h"

#include "view/view_state.h"

#include <QPainter>

namespace stallscope {

void drawTimeMarks(QPainter& p, const QRect& plot, const TimeAxisMapping& map, const ViewState& state, QColor cursor)
{
    const auto line = [&](TimeNs t, const QPen& pen) {
        if (t == kNoTime) {
            return;
        }
        const double x = plot.left() + map.x(t);
        if (x >= plot.left() && x <= plot.right()) {
            p.setPen(pen);
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        }
    };
    QColor hover = cursor;
    hover.setAlpha(150);
    line(state.hover(), QPen(hover, 1, Qt::DotLine));
    line(state.cursor(), QPen(cursor, 1));
}

} // namespace stallscope
