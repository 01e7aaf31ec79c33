// SPDX-License-Identifier: MIT
#pragma once

// The main window's docks: the incidents, flaps, bundle summary and warnings tabbed along the bottom; the fabric
// view (under its find box), links and hosts tabbed on the right, with the Exercise dock below them, hidden until
// an exercise starts. Object names are the docks' names in saved layouts and tests. GUI thread only.

#include <QCoreApplication>

class QDockWidget;
class QLineEdit;
class QListWidget;
class QMainWindow;

namespace stallscope {

class FlapsPanel;
class HostsPanel;
class IncidentsPanel;
class LinkListPanel;
class SummaryView;
class TopologyWidget;
class TrainingPanel;

// What the docks hold; the window made them, the docks become their parents.
struct DockContents
{
    IncidentsPanel* incidents;
    FlapsPanel* flaps;
    SummaryView* summary;
    QListWidget* warnings;
    TopologyWidget* topology;
    LinkListPanel* links;
    HostsPanel* hosts;
    TrainingPanel* training;
};

struct Docks
{
    Q_DECLARE_TR_FUNCTIONS(Docks)
public:
    static Docks create(QMainWindow* window, const DockContents& contents);
    // The Exercise dock under the Fabric view, so the trainee sees the topology and the answer together.
    void showExercise(QMainWindow* window) const;

    QDockWidget* incidents;
    QDockWidget* flaps;
    QDockWidget* summary;
    QDockWidget* warnings;
    QDockWidget* fabric;
    QDockWidget* links;
    QDockWidget* hosts;
    QDockWidget* exercise;
    QLineEdit* fabricFind; // above the fabric view: its matches go to the window's status bar
};

} // namespace stallscope
