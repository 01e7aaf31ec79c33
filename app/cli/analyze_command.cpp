// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "core/json_text.h"
#include "core/printable.h"

#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "analysis/jobs_hit.h"
#include "core/issue_groups.h"
#include "core/time_format.h"
#include "import/open_job.h"
#include "open/open_input.h"
#include "source/prometheus_source.h"

#include <QEventLoop>
#include <QTimer>

#include <chrono>

#include <nlohmann/json.hpp>

#include <ostream>

namespace stallscope::cli {

namespace {
const std::vector<OptionSpec> kSpecs = withPrometheusOptions({
    { "json", false, "print the analysis as JSON (schema stallscope.analysis/1, docs/analysis-format.md)" },
    { "quorum", true, "share of a group's ranks inside one collective for a job-wide stall (default 0.9)" },
    { "stall-factor", true, "a stall lasts this many times the collective's robust baseline (default 5)" },
    { "health-check", true, "length of the periodic health check, e.g. 60s (default 60s)" },
    { "health-check-every", true, "cadence of the health check, e.g. 6h (default 6h)" },
    { "fabric", false,
        "review the fabric instead of a job: every link's flaps, their period, their price\n"
        "(the default when the data holds no job)" },
    { "job-ranks", true, "with --fabric: price flaps for a job of N GPUs crossing the link (default: the job's world size, 1024 without a job)" },
    { "no-ar", false, "with --fabric: switch links have no adaptive routing (the subnet manager reroutes)" },
    { "sm-reroute", true, "with --fabric --no-ar: trap to new routes (default 5s)" },
    { "job", true,
        "with --fabric: a job's bundle or raw folder, repeatable: list the flaps that hit it and the\n"
        "stall it saw (its ranks placed on the fabric by \"<host> <hca>\")" },
});

std::string usage()
{
    std::string s = "Usage: stallscope analyze BUNDLE|FOLDER [--json] [--fabric] [OPTIONS]\n"
                    "       stallscope analyze --prometheus URL --from T --to T [--match M]... [OPTIONS]\n"
                    "Finds every job-wide stall, hang and straggler, names the link (or rank) behind each with its\n"
                    "evidence, and prices each incident against the timeout policy. With --fabric (or data without a\n"
                    "job), reviews the fabric instead: every link that went down, how regularly, and what it costs.\n\n"
                    "Options:\n";
    s += formatOptions(kSpecs);
    return s + "\nExit codes: 0 the analysis ran (with or without incidents), 1 bad input, 2 usage error.\n";
}

std::string applyFabricOptions(const ParsedArgs& a, FabricReviewOptions& o)
{
    if (auto v = a.find("job-ranks")) {
        try {
            const auto n = std::stoll(*v);
            if (n < 1 || n > 10'000'000) {
                throw 0;
            }
            o.jobRanks = static_cast<std::uint32_t>(n);
        } catch (...) {
            return "--job-ranks: expected 1 .. 10000000 GPUs";
        }
    }
    o.adaptiveRouting = !a.has("no-ar");
    if (auto v = a.find("sm-reroute")) {
        auto d = parseDuration(*v);
        if (!d || *d <= 0 || *d > 600 * kNsPerSec) {
            return "--sm-reroute: expected a duration up to 10m, like 5s";
        }
        o.smRerouteNs = *d;
    }
    return {};
}

std::string applyOptions(const ParsedArgs& a, AnalysisOptions& o)
{
    try {
        if (auto v = a.find("quorum")) {
            o.quorum = std::stod(*v);
        }
        if (auto v = a.find("stall-factor")) {
            o.stallFactor = std::stod(*v);
        }
    } catch (...) {
        return "--quorum and --stall-factor take numbers";
    }
    if (!(o.quorum > 0 && o.quorum <= 1) || !(o.stallFactor > 1)) {
        return "--quorum must be in (0, 1] and --stall-factor above 1";
    }
    for (auto [name, field] :
        { std::pair { "health-check", &o.healthCheckNs }, std::pair { "health-check-every", &o.healthCheckEveryNs } }) {
        if (auto v = a.find(name)) {
            auto d = parseDuration(*v);
            if (!d || *d <= 0) {
                return std::string("--") + name + ": expected a duration like 60s or 6h";
            }
            *field = *d;
        }
    }
    return {};
}
// --follow: poll the server every scrape interval and print each link that goes down, as it happens.
int follow(const ParsedArgs& a, std::ostream& out, std::ostream& err)
{
    auto q = prometheusQueryFrom(a);
    PrometheusFollower follower(q);
    NullProgress progress;
    const auto stopAt = a.has("for")
        ? std::chrono::steady_clock::now() + std::chrono::nanoseconds(*parseDuration(a.last("for")))
        : std::chrono::steady_clock::time_point::max();
    out << "Following " << q.url << " (Ctrl+C stops)\n" << std::flush;
    while (std::chrono::steady_clock::now() < stopAt) {
        auto alerts = follower.poll(nowNs(), progress);
        if (!alerts) {
            err << "stallscope analyze: " << alerts.error().format() << '\n';
            return kExitBadInput;
        }
        for (const auto& al : alerts.value()) {
            out << "ALERT " << formatUtc(al.timeNs) << "  " << al.port << ": " << al.what << '\n' << std::flush;
        }
        // Wait one scrape interval with the event loop running (Qt Network needs it between polls too).
        QEventLoop wait;
        QTimer::singleShot(
            static_cast<int>(std::max<TimeNs>(follower.stepNs(), kNsPerSec) / kNsPerMs), &wait, &QEventLoop::quit);
        wait.exec();
    }
    return kExitOk;
}

} // namespace

int runAnalyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    AnalysisOptions options;
    FabricReviewOptions fabricOptions;
    std::string bad = parsed.error;
    if (bad.empty()) {
        bad = checkInput(parsed);
    }
    if (bad.empty()) {
        bad = applyOptions(parsed, options);
    }
    if (bad.empty()) {
        bad = applyFabricOptions(parsed, fabricOptions);
    }
    if (!bad.empty()) {
        err << "stallscope analyze: " << bad << "\n" << usage();
        return kExitUsage;
    }
    auto loaded = openInput(parsed);
    if (!loaded) {
        err << "stallscope analyze: " << loaded.error().format() << '\n';
        if (parsed.has("json")) { // a script reading stdout gets an answer it can parse
            out << loadErrorJson(loaded.error());
        }
        return kExitBadInput;
    }
    for (const auto& g : groupIssues(loaded->warnings)) {
        err << "warning: " << g.format() << '\n';
    }
    const auto& snap = *loaded->snapshot;
    const bool json = parsed.has("json");
    if (parsed.has("fabric") || snap.job.worldSize == 0) {
        auto review = reviewFabric(snap, fabricOptions);
        if (snap.job.worldSize > 0) { // the job's own folder: which of its stalls each link is in
            noteJobStalls(review, analyze(snap, options), snap);
        }
        std::vector<ReviewedJob> jobs;
        if (auto it = parsed.options.find("job"); it != parsed.options.end()) {
            for (const auto& path : it->second) {
                auto job = openJob(path);
                if (!job) {
                    err << "stallscope analyze: --job: " << job.error().format() << '\n';
                    return kExitBadInput;
                }
                if (job->snapshot->job.worldSize == 0) {
                    err << "stallscope analyze: --job " << path << ": holds no job (fabric data only)\n";
                    return kExitBadInput;
                }
                auto analysis = std::make_shared<AnalysisResult>(analyze(*job->snapshot, options));
                jobs.push_back({ job->snapshot->job.name, job->snapshot, std::move(analysis) });
            }
        }
        const auto hits = jobs.empty() ? JobsHit {} : findJobsHit(snap, review, jobs);
        if (!json) {
            // Names come from files (a node description is any text its host's admin set): escapes shown, not obeyed.
            out << printable(
                fabricReviewText(snap, review) + (jobs.empty() ? "" : jobsHitText(review, jobs, hits)), true);
            return parsed.has("follow") ? follow(parsed, out, err) : kExitOk;
        }
        auto j = nlohmann::ordered_json::parse(fabricReviewJson(snap, review));
        if (!jobs.empty()) {
            auto arr = nlohmann::ordered_json::array();
            for (const auto& h : hits.hits) {
                const auto& l = review.flapping[h.link];
                arr.push_back({ { "link", l.a + " <-> " + l.b }, { "flap_ns", l.flaps[h.flap].timeNs() },
                    { "job", jobs[h.job].name }, { "ranks_placed", h.ranksPlaced }, { "incident", h.incident },
                    { "stall_ns", h.stallNs }, { "gpu_hours", h.gpuHours }, { "crashed", h.crashed },
                    { "blamed_this_link", h.blamedThisLink } });
            }
            j["jobs_hit"] = arr;
        }
        out << jsonText(j, 1) << '\n';
        return kExitOk;
    }
    const auto result = analyze(snap, options);
    out << (parsed.options.count("json") ? analysisJson(snap, result) : printable(analysisText(snap, result), true));
    return kExitOk;
}

} // namespace stallscope::cli
