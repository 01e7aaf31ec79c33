// SPDX-License-Identifier: MIT
#pragma once

// What the window writes out of the open job (issue #39): File › Export view, Edit › Copy image and
// File › Save report, and the one rule they and Save session share: never write into what the window opened.
// It reads the window's state through the getters it is given, so it needs no MainWindow. GUI thread only.

#include <QObject>

#include <functional>
#include <memory>

class QMainWindow;
class QString;

namespace stallscope {

class HeatmapWidget;
class LinkHeatmapWidget;
class ViewState;
struct AnalysisResult;
struct OpenedJob;

class OutputController : public QObject
{
    Q_OBJECT
public:
    // What the window shows now; each getter is asked at the moment of an action, never kept.
    struct Sources
    {
        std::function<const OpenedJob*()> opened; // nullptr: nothing open, the actions do nothing
        std::function<std::shared_ptr<const AnalysisResult>()> shownAnalysis; // nullptr while training hides it
        std::function<bool()> analysisHidden;
    };
    // `window`: the dialogs' parent, whose palette the images take and whose status bar tells what was written.
    OutputController(QMainWindow* window, ViewState* state, const HeatmapWidget* ranks, const LinkHeatmapWidget* links,
        Sources sources);

    // False, after telling the user why, when `out` is or lies inside what the window opened
    // (core/path_relation.h): what we wrote would be read as input the next time it is opened.
    bool outsideOpened(const QString& out, const QString& what);

public slots:
    void exportView(); // PNG, SVG or PDF of the views at 1600×1000 px
    void copyImage(); // the same composite, as an image on the clipboard
    void saveReport(); // a folder; refused while training hides the analysis

private:
    QMainWindow* m_window;
    ViewState* m_state;
    const HeatmapWidget* m_ranks;
    const LinkHeatmapWidget* m_links;
    Sources m_sources;
};

} // namespace stallscope
