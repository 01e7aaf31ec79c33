// SPDX-License-Identifier: MIT
#include "render/postmortem_report.h"
#include "time_ticks.h"

#include "core/atomic_file.h"
#include "core/markdown_text.h"
#include "core/printable.h"
#include "core/time_format.h"
#include "stallscope_version.h"

#include <filesystem>
#include <sstream>

namespace stallscope {

namespace {

// Text for HTML: markup escaped, control characters shown as escapes (a name from a file may hold any byte).
std::string html(const std::string& text)
{
    const auto s = printable(text, true);
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string culprit(const Incident& inc)
{
    if (inc.culprit) {
        return inc.culprit->a.node + " port " + std::to_string(inc.culprit->a.port) + " <-> " + inc.culprit->b.node
            + " port " + std::to_string(inc.culprit->b.port) + " (" + inc.culprit->confidence + ")";
    }
    if (!inc.suspectRanks.empty()) {
        return "no link implicated; rank " + std::to_string(inc.suspectRanks.front());
    }
    return "no link implicated";
}

struct Doc
{
    std::ostringstream md, h;
};

std::string spanText(const JobSnapshot& snap)
{
    return snap.job.untimed() ? std::string("time unknown")
                              : formatUtc(snap.job.span.start) + " .. " + formatUtc(snap.job.span.end);
}

std::string startText(const JobSnapshot& snap, const Incident& inc)
{
    return snap.job.untimed() ? std::string("time unknown") : formatUtc(inc.startNs);
}

std::string durationText(const JobSnapshot& snap, const Incident& inc)
{
    return snap.job.untimed() ? std::string("unknown") : formatDuration(inc.endNs - inc.startNs);
}

void summary(Doc& d, const JobSnapshot& snap, const AnalysisResult& r)
{
    d.md << "# Incident report: " << markdownText(snap.job.name) << "\n\n"
         << snap.job.worldSize << " ranks, " << spanText(snap) << ". Timeout policy: " << snap.policy.timerText() << " (retry budget "
         << formatDuration(snap.policy.retryBudgetNs()) << "), collective timeout "
         << formatDuration(snap.policy.collectiveTimeoutNs) << ".\n\n";
    d.h << "<h1>Incident report: " << html(snap.job.name) << "</h1>\n<p>" << snap.job.worldSize << " ranks, "
        << html(spanText(snap)) << ". Timeout policy: "
        << "<code>" << html(snap.policy.timerText()) << "</code> (retry budget "
        << html(formatDuration(snap.policy.retryBudgetNs())) << "), collective timeout "
        << html(formatDuration(snap.policy.collectiveTimeoutNs)) << ".</p>\n";
    d.md
        << "| # | start (UTC) | duration | ranks | kind | culprit link / suspect | GPU-s lost | GPU-h/day at the rate seen |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    d.h << "<table><tr><th>#</th><th>start (UTC)</th><th>duration</th><th>ranks</th><th>kind</th>"
        << "<th>culprit link / suspect</th><th>GPU-s lost</th><th>GPU-h/day at the rate seen</th></tr>\n";
    for (const auto& inc : r.incidents) {
        const std::string cells[] = { std::to_string(inc.number), startText(snap, inc), durationText(snap, inc), std::to_string(inc.ranksAffected), incidentLabel(inc),
            culprit(inc), formatCount(std::uint64_t(inc.policy.totalGpuSeconds + 0.5)),
            formatFixed(inc.policy.recurrence.empty() ? inc.policy.costPerDayIfHourlyGpuHours
                                                      : inc.policy.costPerDayGpuHours,
                1) };
        d.md << "|";
        d.h << "<tr>";
        for (const auto& c : cells) {
            d.md << ' ' << markdownText(c) << " |";
            d.h << "<td><a href=\"#incident-" << inc.number << "\">" << html(c) << "</a></td>";
        }
        d.md << '\n';
        d.h << "</tr>\n";
    }
    d.h << "</table>\n";
    if (r.incidents.empty()) {
        d.md << '\n' << markdownText(noIncidentText(snap)) << '\n';
        d.h << "<p>" << html(noIncidentText(snap)) << "</p>\n";
    }
}

void incident(Doc& d, const JobSnapshot& snap, const Incident& inc, const std::string& image)
{
    const std::string title = "Incident " + std::to_string(inc.number) + ": " + incidentLabel(inc) + ", "
        + startText(snap, inc) + (snap.job.untimed() ? "" : ", " + durationText(snap, inc));
    const auto text = printable(incidentText(snap, inc), true);
    const auto fence = markdownFence(text);
    // The ranks it rests on, beside the summary when not every rank has records: a reader must not take an
    // extrapolation for a measurement.
    const std::string coverage = inc.coverage.partial() && inc.coverage.recorded > 0
        ? "Coverage: " + coverageText(inc.coverage) + "."
        : std::string();
    d.md << "\n## " << markdownText(title) << "\n\n"
         << markdownText(inc.summary) << "\n\n" << (coverage.empty() ? "" : markdownText(coverage) + "\n\n")
         << "![incident " << inc.number << "](" << image << ")\n\n"
         << fence << "\n"
         << text << fence << "\n";
    d.h << "<h2 id=\"incident-" << inc.number << "\">" << html(title) << "</h2>\n<p>" << html(inc.summary) << "</p>\n"
        << (coverage.empty() ? "" : "<p><em>" + html(coverage) + "</em></p>\n")
        << "<img src=\"" << image << "\" alt=\"incident " << inc.number << "\">\n<pre>" << html(text) << "</pre>\n";
}

void whyPassed(Doc& d, const WhyPassed& w)
{
    if (!w.applicable) {
        return;
    }
    auto pct = [](double v, int digits) { return v < 0 ? std::string("n/a") : formatFixed(v, digits) + " %"; };
    std::ostringstream text;
    text << "A " << formatDuration(w.checkNs) << " health check every " << formatDuration(w.checkEveryNs)
         << " overlaps a " << formatDuration(w.outageNs) << " outage "
         << (w.flapPeriodNs > 0 ? "recurring every " + formatDuration(w.flapPeriodNs)
                                : std::string("(if it recurs hourly)"))
         << " with a chance of " << formatFixed(100 * w.chancePerCheck, 1) << " % per check and "
         << formatFixed(100 * w.chancePerDay, 1)
         << " % per day. A dashboard averaging traffic over 1 minute shows a dip of " << pct(w.dip1MinPercent, 1)
         << ", over 5 minutes " << pct(w.dip5MinPercent, 1) << "; the raw counters show a " << pct(w.dipRawPercent, 0)
         << " drop.";
    d.md << "\n## Why nothing caught it\n\n" << text.str() << "\n";
    d.h << "<h2>Why nothing caught it</h2>\n<p>" << html(text.str()) << "</p>\n";
}

// The fabric review: the link heatmap image, a table of the links that went down, the full text.
std::string fabricSection(Doc& d, const std::string& dir, const RenderInputs& in, const ReportOptions& options)
{
    const auto& snap = *in.snapshot;
    const auto& rv = *in.fabricReview;
    RenderRequest req;
    req.fabric = true;
    req.size = options.imageSize;
    req.dark = options.dark;
    req.annotations = options.annotations;
    const std::string image = "fabric.png";
    if (auto e = renderToFile((std::filesystem::path(dir) / image).string(), in, req); !e.empty()) {
        return e;
    }
    d.md << "\n## Fabric review\n\n![fabric](" << image << ")\n\n"
         << "| link | tier | flaps | recurrence | next expected (UTC) | GPU-h/day |\n|---|---|---|---|---|---|\n";
    d.h << "<h2 id=\"fabric\">Fabric review</h2>\n<img src=\"" << image << "\" alt=\"fabric\">\n"
        << "<table><tr><th>link</th><th>tier</th><th>flaps</th><th>recurrence</th><th>next expected (UTC)</th>"
        << "<th>GPU-h/day</th></tr>\n";
    for (const auto& l : rv.flapping) {
        const std::string cells[] = { l.a + " <-> " + l.b, l.tier, std::to_string(l.flaps.size()),
            l.recurrence ? describeRecurrence(*l.recurrence)
                         : (l.flaps.size() == 1 ? "once, " + formatUtc(l.flaps[0].timeNs()) : "irregular"),
            l.recurrence ? formatUtc(l.recurrence->nextNs).substr(0, 16) : "", formatFixed(l.gpuHoursPerDay, 1) };
        d.md << "|";
        d.h << "<tr>";
        for (const auto& c : cells) {
            d.md << ' ' << markdownText(c) << " |";
            d.h << "<td>" << html(c) << "</td>";
        }
        d.md << '\n';
        d.h << "</tr>\n";
    }
    d.h << "</table>\n";
    const auto text = printable(fabricReviewText(snap, rv), true);
    const auto fence = markdownFence(text);
    d.md << "\n" << fence << "\n" << text << fence << "\n";
    d.h << "<pre>" << html(text) << "</pre>\n";
    return {};
}

const char* kStyle = "body{font-family:sans-serif;max-width:1700px;margin:2em auto;padding:0 1em;color:#1d1f24}"
                     "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
                     "th{background:#eef}a{color:inherit;text-decoration:none}img{max-width:100%;border:1px solid #ccc}"
                     "pre{background:#f6f6f8;padding:1em;overflow-x:auto;font-size:12px}";

} // namespace

std::string writeReport(const std::string& dir, const RenderInputs& in, const ReportOptions& options)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) {
        return dir + ": cannot create the report folder";
    }
    const auto& snap = *in.snapshot;
    const auto& r = *in.analysis;
    const bool fabricOnly = snap.job.worldSize == 0;
    Doc d;
    d.h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Incident report: " << html(snap.job.name)
        << "</title><style>" << kStyle << "</style></head><body>\n";
    if (fabricOnly) {
        d.md << "# Fabric report: " << markdownText(snap.job.name) << "\n\n"
             << formatUtc(snap.job.span.start) << " .. " << formatUtc(snap.job.span.end) << ", no job.\n";
        d.h << "<h1>Fabric report: " << html(snap.job.name) << "</h1>\n<p>" << html(formatUtc(snap.job.span.start))
            << " .. " << html(formatUtc(snap.job.span.end)) << ", no job.</p>\n";
    } else {
        summary(d, snap, r);
    }
    for (const auto& inc : r.incidents) {
        const std::string image = "incident-" + std::to_string(inc.number) + ".png";
        RenderRequest req;
        req.incident = inc.number;
        req.size = options.imageSize;
        req.dark = options.dark;
        req.annotations = options.annotations;
        if (auto e = renderToFile((fs::path(dir) / image).string(), in, req); !e.empty()) {
            return e;
        }
        incident(d, snap, inc, image);
    }
    whyPassed(d, r.whyPassed);
    if (in.fabricReview && (fabricOnly || !in.fabricReview->flapping.empty() || !in.fabricReview->erroring.empty())) {
        if (auto e = fabricSection(d, dir, in, options); !e.empty()) {
            return e;
        }
    }
    if (!options.annotations.empty()) {
        d.md << "\n## Reviewer's notes\n\n";
        d.h << "<h2>Reviewer's notes</h2>\n<ul>\n";
        for (const auto& a : options.annotations) {
            std::string when = a.endNs > a.startNs ? utcRange(a.startNs, a.endNs) : formatUtc(a.startNs);
            if (a.rank) {
                when += ", rank " + std::to_string(*a.rank);
            }
            d.md << "- " << markdownText(when) << ": " << markdownText(a.text) << "\n";
            d.h << "<li>" << html(when) << ": " << html(a.text) << "</li>\n";
        }
        d.h << "</ul>\n";
    }
    d.md << "\n---\nGenerated by `stallscope report` " STALLSCOPE_VERSION
            "; regenerate it from the same bundle for the same content.\n";
    d.h << "<hr><p>Generated by <code>stallscope report</code> " STALLSCOPE_VERSION
           "; regenerate it from the same bundle for the same "
           "content.</p>\n</body></html>\n";
    if (auto e = writeFileAtomic((fs::path(dir) / "report.md").string(), d.md.str()); !e.empty()) {
        return e;
    }
    return writeFileAtomic((fs::path(dir) / "report.html").string(), d.h.str());
}

} // namespace stallscope
