// SPDX-License-Identifier: MIT
#include "view_menu.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QMetaObject>
#include <QWidget>

namespace stallscope {

void execViewMenu(QWidget* view, QContextMenuEvent* event, const std::function<void()>& requestExport)
{
    QMenu menu(view);
    menu.addAction(QMenu::tr("Export…"), view, requestExport);
    menu.addAction(QMenu::tr("Copy this view"), view, [view] {
        // A view that rasterizes off the GUI thread (the heatmap) first puts the raster of this window in place.
        if (view->metaObject()->indexOfMethod("waitForRaster()") >= 0) {
            QMetaObject::invokeMethod(view, "waitForRaster");
        }
        QApplication::clipboard()->setPixmap(view->grab());
    });
    menu.exec(event->globalPos());
}

} // namespace stallscope
