// SPDX-License-Identifier: MIT
#include "window/docks.h"

#include "panels/flaps_panel.h"
#include "panels/hosts_panel.h"
#include "panels/incidents_panel.h"
#include "panels/link_list_panel.h"
#include "panels/summary_view.h"
#include "topology/topology_widget.h"
#include "window/training_panel.h"

#include <QDockWidget>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QStatusBar>
#include <QVBoxLayout>

namespace stallscope {

Docks Docks::create(QMainWindow* window, const DockContents& contents)
{
    auto dock = [window](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, window);
        d->setObjectName(name);
        d->setWidget(w);
        window->addDockWidget(area, d);
        return d;
    };
    Docks docks {};
    docks.incidents = dock(contents.incidents, tr("Incidents"), QStringLiteral("incidents"), Qt::BottomDockWidgetArea);
    docks.flaps = dock(contents.flaps, tr("Flaps"), QStringLiteral("flaps"), Qt::BottomDockWidgetArea);
    docks.summary = dock(contents.summary, tr("Bundle"), QStringLiteral("summary"), Qt::BottomDockWidgetArea);
    docks.warnings = dock(contents.warnings, tr("Warnings"), QStringLiteral("warnings"), Qt::BottomDockWidgetArea);
    // The fabric view under a find box: names of switches and hosts; wheel zooms the view, a drag pans it.
    auto* fabricBox = new QWidget(window);
    auto* fabricLayout = new QVBoxLayout(fabricBox);
    fabricLayout->setContentsMargins(0, 0, 0, 0);
    fabricLayout->setSpacing(2);
    auto* find = new QLineEdit(fabricBox);
    docks.fabricFind = find;
    find->setObjectName(QStringLiteral("fabricFind"));
    find->setPlaceholderText(tr("Find a switch or host (wheel zooms, drag pans)"));
    find->setClearButtonEnabled(true);
    fabricLayout->addWidget(find);
    fabricLayout->addWidget(contents.topology, 1);
    auto* topology = contents.topology;
    QObject::connect(find, &QLineEdit::textChanged, window, [window, topology](const QString& text) {
        const int n = topology->setSearch(text);
        if (!text.trimmed().isEmpty()) {
            window->statusBar()->showMessage(
                tr("%n switch(es) or host(s) match \"%1\" in the fabric", "", n).arg(text.trimmed()));
        }
    });
    docks.fabric = dock(fabricBox, tr("Fabric"), QStringLiteral("fabric"), Qt::RightDockWidgetArea);
    docks.links = dock(contents.links, tr("Links"), QStringLiteral("links"), Qt::RightDockWidgetArea);
    window->tabifyDockWidget(docks.fabric, docks.links);
    docks.hosts = dock(contents.hosts, tr("Hosts"), QStringLiteral("hosts"), Qt::RightDockWidgetArea);
    window->tabifyDockWidget(docks.links, docks.hosts);
    docks.fabric->raise();
    docks.exercise = dock(contents.training, tr("Exercise"), QStringLiteral("exercise"), Qt::RightDockWidgetArea);
    window->splitDockWidget(docks.fabric, docks.exercise, Qt::Vertical);
    docks.exercise->hide(); // shown when an exercise starts (Training menu)
    window->tabifyDockWidget(docks.incidents, docks.flaps);
    window->tabifyDockWidget(docks.flaps, docks.summary);
    window->tabifyDockWidget(docks.summary, docks.warnings);
    docks.incidents->raise();
    window->resizeDocks({ docks.incidents }, { 220 }, Qt::Vertical);
    return docks;
}

void Docks::showExercise(QMainWindow* window) const
{
    // Out of any tab group a saved layout put it in, then below the Fabric/Links tabs.
    window->removeDockWidget(exercise);
    window->addDockWidget(Qt::RightDockWidgetArea, exercise, Qt::Vertical);
    exercise->show();
    fabric->show();
    fabric->raise();
    window->resizeDocks({ fabric, exercise }, { 1, 1 }, Qt::Vertical);
}

} // namespace stallscope
