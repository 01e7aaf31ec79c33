// SPDX-License-Identifier: MIT
#include "window/view_menu.h"

#include "heatmap/heatmap_widget.h"
#include "heatmap/link_heatmap_widget.h"
#include "theme.h"
#include "view/heatmap_model.h"
#include "view/view_state.h"
#include "window/navigation_controller.h"

#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>

namespace stallscope {

ViewMenu::ViewMenu(QMainWindow* window, ViewState* state, HeatmapWidget* heatmap, LinkHeatmapWidget* linkHeatmap,
    NavigationController* navigation)
    : QObject(window)
    , m_state(state)
    , m_heatmap(heatmap)
    , m_linkHeatmap(linkHeatmap)
{
    auto* view = window->menuBar()->addMenu(tr("&View"));
    view->addAction(tr("Zoom &In"), QKeySequence(Qt::CTRL | Qt::Key_Equal), navigation, [navigation] {
        navigation->zoomAtCursor(0.5);
    });
    view->addAction(tr("Zoom &Out"), QKeySequence(Qt::CTRL | Qt::Key_Minus), navigation, [navigation] {
        navigation->zoomAtCursor(2.0);
    });
    view->addAction(tr("Zoom to &All"), QKeySequence(Qt::CTRL | Qt::Key_0), m_state, &ViewState::resetZoom);
    auto* back = view->addAction(tr("&Back"), QKeySequence::Back, m_state, &ViewState::back);
    auto* forward = view->addAction(tr("&Forward"), QKeySequence::Forward, m_state, &ViewState::forward);
    connect(m_state, &ViewState::historyChanged, this, [this, back, forward] {
        back->setEnabled(m_state->canGoBack());
        forward->setEnabled(m_state->canGoForward());
    });
    view->addSeparator();
    view->addAction(tr("&Next incident"), QKeySequence(Qt::Key_BracketRight), navigation, [navigation] {
        navigation->stepIncident(+1);
    });
    view->addAction(tr("&Previous incident"), QKeySequence(Qt::Key_BracketLeft), navigation, [navigation] {
        navigation->stepIncident(-1);
    });
    view->addAction(tr("Next f&lap"), QKeySequence(Qt::Key_Period), navigation, [navigation] {
        navigation->stepFlap(+1);
    });
    view->addAction(tr("Previous fla&p"), QKeySequence(Qt::Key_Comma), navigation, [navigation] {
        navigation->stepFlap(-1);
    });
    view->addSeparator();
    addHeatmapChoices(view);
    view->addSeparator();
    // Every dock, so one closed with its × comes back (the menu bar's context menu lists them too, unseen).
    auto* panels = view->addMenu(tr("&Panels"));
    for (auto* d : window->findChildren<QDockWidget*>()) {
        panels->addAction(d->toggleViewAction());
    }
    auto* theme = view->addMenu(tr("T&heme"));
    auto* themeGroup = new QActionGroup(this);
    for (const auto& [label, name] : { std::pair { tr("&Light"), QStringLiteral("light") },
             std::pair { tr("&Dark"), QStringLiteral("dark") } }) {
        auto* a = theme->addAction(label, this, [name = name] {
            applyTheme(name);
            QSettings().setValue(QStringLiteral("theme"), name);
        });
        a->setCheckable(true);
        a->setChecked(isDarkPalette(QApplication::palette()) == (name == QStringLiteral("dark")));
        themeGroup->addAction(a);
    }
    auto* full = view->addAction(tr("&Full Screen"), QKeySequence::FullScreen, this,
        [window] { window->isFullScreen() ? window->showNormal() : window->showFullScreen(); });
    full->setShortcut(QKeySequence(Qt::Key_F11));
}

// Row order, Colour by, Link rows, and the link heatmap under the ranks.
void ViewMenu::addHeatmapChoices(QMenu* view)
{
    auto* order = view->addMenu(tr("&Row order"));
    auto* group = m_rowOrderGroup = new QActionGroup(this);
    const std::pair<QString, RowOrder> orders[]
        = { { tr("By &rank"), RowOrder::Rank }, { tr("By &host"), RowOrder::Host },
              { tr("By rail / &leaf"), RowOrder::Rail }, { tr("By &first stuck"), RowOrder::FirstStuck } };
    for (const auto& [label, o] : orders) {
        auto* a = order->addAction(label, this, [this, o = o] {
            m_heatmap->setRowOrder(o);
            if (o == RowOrder::FirstStuck && !m_heatmap->firstStuckNote().isEmpty()) {
                emit statusMessage(tr("First stuck: %1").arg(m_heatmap->firstStuckNote()), 15000);
            }
        });
        a->setData(int(o));
        a->setCheckable(true);
        a->setChecked(o == RowOrder::Rank);
        group->addAction(a);
    }
    order->addSeparator();
    // A few dumps or one trace among many ranks: their rows fold into a few pixels among the unknown ones.
    m_recordedOnlyAction = order->addAction(tr("Only ranks with &records"), this, [this](bool on) {
        m_heatmap->setRecordedOnly(on);
    });
    m_recordedOnlyAction->setCheckable(true);
    m_recordedOnlyAction->setEnabled(false);
    auto* colour = view->addMenu(tr("&Colour by"));
    auto* colourGroup = m_metricGroup = new QActionGroup(this);
    const std::pair<QString, HeatmapMetric> metrics[] = { { tr("&State (stalls stand out)"), HeatmapMetric::State },
        { tr("&Time in collectives"), HeatmapMetric::TimeInCollectives },
        { tr("&Lateness against the mean arrival"), HeatmapMetric::Lateness } };
    for (const auto& [label, m] : metrics) {
        auto* a = colour->addAction(label, this, [this, m = m] {
            m_heatmap->setMetric(m);
            if (m == HeatmapMetric::Lateness) {
                emit latenessRequested();
            }
        });
        a->setData(int(m));
        a->setCheckable(true);
        a->setChecked(m == HeatmapMetric::State);
        colourGroup->addAction(a);
    }
    auto* linkOrder = view->addMenu(tr("&Link rows"));
    auto* linkGroup = m_linkOrderGroup = new QActionGroup(this);
    const std::pair<QString, LinkRowOrder> linkOrders[]
        = { { tr("By &tier and switch"), LinkRowOrder::Tier }, { tr("&Trouble first"), LinkRowOrder::TroubleFirst } };
    for (const auto& [label, o] : linkOrders) {
        auto* a = linkOrder->addAction(label, this, [this, o = o] { m_linkHeatmap->setRowOrder(o); });
        a->setData(int(o));
        a->setCheckable(true);
        a->setChecked(o == LinkRowOrder::Tier);
        linkGroup->addAction(a);
    }
    auto* showLinks = view->addAction(tr("Link &heatmap under the ranks"), this, [this](bool on) {
        emit linkHeatmapToggled(on);
    });
    showLinks->setCheckable(true);
    showLinks->setChecked(true);
}

void ViewMenu::sync()
{
    const std::pair<QActionGroup*, int> groups[] = { { m_rowOrderGroup, int(m_heatmap->rowOrder()) },
        { m_metricGroup, int(m_heatmap->metric()) }, { m_linkOrderGroup, int(m_linkHeatmap->rowOrder()) } };
    for (const auto& [group, value] : groups) {
        for (auto* a : group ? group->actions() : QList<QAction*> {}) {
            a->setChecked(a->data().toInt() == value);
        }
    }
    if (m_recordedOnlyAction) {
        m_recordedOnlyAction->setChecked(m_heatmap->recordedOnly());
        m_recordedOnlyAction->setEnabled(m_heatmap->model() && m_heatmap->model()->hasUnrecordedRanks());
    }
}

} // namespace stallscope
