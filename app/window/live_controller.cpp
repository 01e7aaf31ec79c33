// SPDX-License-Identifier: MIT
#include "window/live_controller.h"

#include "analysis/flaps.h"
#include "core/time_format.h"

#include <QAction>
#include <QTimer>

#include <algorithm>
#include <chrono>

namespace stallscope {

LiveController::LiveController(QAction* action, QObject* parent)
    : QObject(parent)
    , m_action(action)
    , m_timer(new QTimer(this))
{
    m_action->setCheckable(true);
    m_action->setEnabled(false);
    connect(m_action, &QAction::triggered, this, &LiveController::setOn);
    connect(m_timer, &QTimer::timeout, this, &LiveController::tick);
}

void LiveController::setSource(std::optional<PrometheusQuery> query)
{
    setOn(false);
    m_query = std::move(query);
    m_flapCounts.clear();
    m_action->setEnabled(m_query.has_value());
}

// Every scrape interval (at least a second), the same server and range up to now.
void LiveController::setOn(bool on)
{
    on = on && m_query.has_value();
    if (on) {
        const TimeNs step = m_query->stepNs > 0 ? m_query->stepNs : 15 * kNsPerSec;
        m_timer->start(static_cast<int>(std::max<TimeNs>(step, kNsPerSec) / kNsPerMs));
        emit statusMessage(tr("Live: following %1").arg(QString::fromStdString(m_query->url)));
    } else {
        m_timer->stop();
    }
    if (m_action->isChecked() != on) {
        m_action->setChecked(on);
    }
}

bool LiveController::isOn() const
{
    return m_timer->isActive();
}

void LiveController::tick()
{
    if (!m_query) {
        return;
    }
    auto q = *m_query;
    q.range.end
        = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    emit refreshRequested(q);
}

QStringList LiveController::newFlaps(const FabricReview& review)
{
    std::map<std::string, std::size_t> counts;
    QStringList fresh;
    for (const auto& l : review.flapping) {
        const auto name = l.a + " <-> " + l.b;
        counts[name] = l.flaps.size();
        const auto before = m_flapCounts.find(name);
        const std::size_t known = before == m_flapCounts.end() ? 0 : before->second;
        if (!m_flapCounts.empty() && l.flaps.size() > known) {
            fresh << tr("%1 went down at %2 UTC")
                         .arg(QString::fromStdString(name),
                             QString::fromStdString(formatUtc(l.flaps.back().timeNs()).substr(11, 8)));
        }
    }
    m_flapCounts = std::move(counts);
    m_flapCounts.emplace("", 0); // marks the baseline as taken, even with no flap yet
    return fresh;
}

} // namespace stallscope
