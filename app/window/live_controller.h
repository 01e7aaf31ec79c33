// SPDX-License-Identifier: MIT
#pragma once

// File › Live (issue #39): following the Prometheus server a job was opened from. Owns the query, the refresh
// timer, the menu action's state and the flaps seen so far; asks the window to reload by signal (the window knows
// how to load, this class only when and what) and words the links that went down since the last load. GUI thread.

#include "source/prometheus_source.h"

#include <QObject>
#include <QStringList>

#include <map>
#include <optional>
#include <string>

class QAction;
class QTimer;

namespace stallscope {

struct FabricReview;

class LiveController : public QObject
{
    Q_OBJECT
public:
    // `action` (checkable, owned by the window's menu) turns following on and off; it is enabled only while there is
    // a server to follow.
    LiveController(QAction* action, QObject* parent);

    // What is open now: a server that can be followed, or nothing to follow (a folder, a bundle, no job). Stops
    // following either way and forgets the flaps seen.
    void setSource(std::optional<PrometheusQuery> query);
    const std::optional<PrometheusQuery>& query() const { return m_query; }
    void setOn(bool on); // no effect without a server
    bool isOn() const;
    // The links of `review` that went down since the last call, worded for the alert ("… went down at 12:00:03
    // UTC"); empty on the first call, which takes the baseline.
    QStringList newFlaps(const FabricReview& review);

signals:
    void refreshRequested(const PrometheusQuery& upToNow); // the same server and matchers, the range up to now
    void statusMessage(const QString& text);

private:
    void tick();

    QAction* m_action;
    QTimer* m_timer;
    std::optional<PrometheusQuery> m_query;
    std::map<std::string, std::size_t> m_flapCounts; // link → flaps seen so far; "" marks the baseline as taken
};

} // namespace stallscope
