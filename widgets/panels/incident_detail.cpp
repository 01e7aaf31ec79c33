// SPDX-License-Identifier: MIT
#include "panels/incident_detail.h"

#include "analysis/analysis.h"
#include "core/time_format.h"

#include <QObject>

#include <algorithm>

namespace stallscope {

namespace {

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

// "00:04:00.030", a link that moves the cursor there.
QString timeLink(TimeNs t)
{
    if (t == kNoTime) {
        return QObject::tr("(no time)");
    }
    const auto utc = formatUtc(t);
    return QStringLiteral("<a href=\"t:%1\">%2</a>").arg(t).arg(QString::fromStdString(utc.substr(11, 12)));
}

QString linkText(const LinkEndpoint& a, const LinkEndpoint& b)
{
    return esc(a.node + " port " + std::to_string(a.port) + " ↔ " + b.node + " port " + std::to_string(b.port));
}

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><th align=left valign=top>%1</th><td>%2</td></tr>").arg(key, value);
}

QString evidenceTable(const QString& title, const std::vector<EvidenceLine>& lines)
{
    if (lines.empty()) {
        return {};
    }
    QString h = QStringLiteral("<h4>%1</h4><table cellspacing=0 cellpadding=2>").arg(title);
    for (const auto& e : lines) {
        h += QStringLiteral("<tr><td valign=top>%1</td><td>%2</td></tr>").arg(timeLink(e.timeNs), esc(e.what));
    }
    return h + QStringLiteral("</table>");
}

QString verdictSentence(const Incident& inc)
{
    const auto& p = inc.policy;
    if (inc.kind != IncidentKind::LinkFlap) {
        return esc(inc.summary);
    }
    QString s = esc(inc.summary) + QStringLiteral(". ");
    if (p.outageNs != kNoTime) {
        s += QObject::tr("Outage %1 (%2) against a retry budget of %3: %4.")
                 .arg(QString::fromStdString(formatDuration(p.outageNs)), esc(p.outageSource),
                     QString::fromStdString(formatDuration(p.retryBudgetNs)),
                     p.underBudget
                         ? QObject::tr("under budget — the collective stretched and no error was raised")
                         : QObject::tr("over budget — the ranks next to the link failed and the job crashed"));
    } else {
        s += inc.jobCrashed ? QObject::tr("Over the retry budget: the job crashed.") : QObject::tr("Outage unknown.");
    }
    return s;
}

QString whatIfTable(const PolicyVerdict& p)
{
    if (p.whatIf.empty()) {
        return {};
    }
    std::vector<TimeNs> outages;
    for (const auto& r : p.whatIf) {
        if (std::find(outages.begin(), outages.end(), r.outageNs) == outages.end()) {
            outages.push_back(r.outageNs);
        }
    }
    QString h = QObject::tr("<h4>What if</h4><table border=1 cellspacing=0 cellpadding=3><tr><th>NCCL_IB_TIMEOUT "
                            "(budget)</th>");
    for (const auto t : outages) {
        h += QStringLiteral("<th>%1%2</th>")
                 .arg(QString::fromStdString(formatDuration(t)),
                     t == p.outageNs ? QObject::tr(" (this one)") : QString());
    }
    h += QStringLiteral("</tr>");
    for (std::size_t i = 0; i < p.whatIf.size(); i += outages.size()) {
        h += QStringLiteral("<tr><th align=left>%1 (%2)</th>")
                 .arg(QString::fromStdString(p.whatIf[i].label()))
                 .arg(QString::fromStdString(formatDuration(p.whatIf[i].retryBudgetNs)));
        for (std::size_t j = 0; j < outages.size() && i + j < p.whatIf.size(); ++j) {
            const auto& r = p.whatIf[i + j];
            h += r.crash
                ? QObject::tr("<td align=center><b>crash</b></td>")
                : QObject::tr("<td align=center>stall %1</td>").arg(QString::fromStdString(formatDuration(r.stallNs)));
        }
        h += QStringLiteral("</tr>");
    }
    return h
        + QObject::tr("</table><p><small>A crash costs the retry budget, the collective timeout, half a checkpoint "
                      "interval of work and the restart, on every GPU.</small></p>");
}

} // namespace

QString incidentHtml(const JobSnapshot& snap, const Incident& inc)
{
    const auto& p = inc.policy;
    QString h
        = QObject::tr("<h3>Incident %1 — %2, %3, %4 ranks</h3><p><b>%5</b></p>")
              .arg(inc.number)
              .arg(esc(incidentLabel(inc)),
                  QString::fromStdString(formatDuration(inc.endNs - inc.startNs)))
              .arg(inc.ranksAffected)
              .arg(verdictSentence(inc));
    QString cost = QObject::tr("%1 GPU-s stalled")
                       .arg(QString::fromStdString(formatCount(std::uint64_t(p.stallGpuSeconds + 0.5))));
    if (p.crashGpuSeconds > 0) {
        cost += QObject::tr(" + %1 GPU-s of lost work and restart")
                    .arg(QString::fromStdString(formatCount(std::uint64_t(p.crashGpuSeconds + 0.5))));
    }
    cost += QObject::tr(" = <b>%1 GPU-h</b>; %2")
                .arg(QString::fromStdString(formatFixed(p.totalGpuSeconds / 3600, 2)),
                    esc(costPerDayText(p)));
    h += QStringLiteral("<table cellspacing=0 cellpadding=2>");
    h += row(QObject::tr("When"),
        timeLink(inc.startNs) + QStringLiteral(" UTC (")
            + QString::fromStdString(formatSince(inc.startNs, snap.job.clockOriginNs)) + QStringLiteral(")"));
    h += row(QObject::tr("Cost"), cost);
    QString collective = QStringLiteral("pg %1 seq %2 %3 %4")
                             .arg(esc(std::string(snap.str(snap.groups.at(inc.group).name))))
                             .arg(inc.seq)
                             .arg(QString::fromStdString(std::string(toString(inc.op))),
                                 inc.bytes > 0 ? QString::fromStdString(formatBytes(double(inc.bytes)))
                                               : QObject::tr("(size not known: no record of it)"));
    if (inc.baselineNs > 0) {
        collective += QObject::tr(" (usually %1)").arg(QString::fromStdString(formatDuration(inc.baselineNs)));
    }
    h += row(QObject::tr("Collective"), collective);
    if (inc.coverage.partial() && inc.coverage.recorded > 0) {
        h += row(QObject::tr("Coverage"), esc(coverageText(inc.coverage)));
    }
    if (inc.culprit) {
        const auto& c = *inc.culprit;
        h += row(QObject::tr("Culprit"),
            QStringLiteral("<b>%1</b> — %2 confidence").arg(linkText(c.a, c.b), esc(c.confidence)));
        if (!c.recoveryText.empty()) {
            h += row(QObject::tr("Recovery"), esc(c.recoveryText));
        }
    } else if (!inc.missingRanks.empty()) {
        QStringList ranks;
        for (std::size_t i = 0; i < inc.missingRanks.size() && i < 8; ++i) {
            ranks << QStringLiteral("%1 (%2)")
                         .arg(inc.missingRanks[i])
                         .arg(esc(std::string(snap.str(snap.ranks[inc.missingRanks[i]].host))));
        }
        h += row(QObject::tr("Never entered"), ranks.join(QStringLiteral(", ")));
    }
    if (!inc.firstFailedRanks.empty()) {
        QStringList ranks;
        for (std::size_t i = 0; i < inc.firstFailedRanks.size() && i < 8; ++i) {
            ranks << QString::number(inc.firstFailedRanks[i]);
        }
        h += row(
            QObject::tr("Failed first"), ranks.join(QStringLiteral(", ")) + QObject::tr(" (transport-retry errors)"));
    }
    if (inc.jobCrashed) {
        h += row(QObject::tr("Job died"), timeLink(inc.jobDiedNs));
    }
    h += QStringLiteral("</table>");
    if (inc.culprit) {
        h += evidenceTable(QObject::tr("Evidence (click a time to move the cursor there)"), inc.culprit->evidence);
    }
    h += evidenceTable(QObject::tr("What the hosts said"), inc.hostEvidence);
    if (!inc.otherLinks.empty()) {
        h += QObject::tr("<h4>Looked at, not blamed</h4><ul>");
        for (const auto& o : inc.otherLinks) {
            h += QStringLiteral("<li>%1 (score %2)</li>")
                     .arg(linkText(o.a, o.b), QString::fromStdString(formatFixed(o.score, 1)));
        }
        h += QStringLiteral("</ul>");
    }
    return h + whatIfTable(p);
}

std::optional<long long> timeOfLink(const QString& href)
{
    if (!href.startsWith(QStringLiteral("t:"))) {
        return std::nullopt;
    }
    bool ok = false;
    const long long t = href.mid(2).toLongLong(&ok);
    return ok ? std::optional<long long>(t) : std::nullopt;
}

} // namespace stallscope
