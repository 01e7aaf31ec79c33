// SPDX-License-Identifier: MIT
#include "source/prometheus_source.h"

#include "source/fetcher.h"

#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/folder/raw_folder.h"
#include "import/prometheus/http_answers.h"

#include <QByteArray>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

namespace stallscope {

namespace fs = std::filesystem;
using source::addItem;
using source::apiUrl;
using source::Fetcher;
using source::Request;

namespace {

// Every InfiniBand series of both conventions except the info series (queried once, at the range's end).
constexpr const char* kCounterNames = "node_infiniband_.+|infiniband_.+";
constexpr const char* kInfoNames = "infiniband_.+_info";

std::string withMatchers(std::string selector, const std::vector<std::string>& matchers)
{
    for (const auto& m : matchers) {
        selector += "," + m;
    }
    return selector + "}";
}

std::string seconds(TimeNs t)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(t / kNsPerSec),
        static_cast<long long>(t % kNsPerSec / kNsPerMs));
    return buf;
}

// A temporary folder for the answers, removed when the load is done (the snapshot keeps copies in memory).
struct TempDir
{
    fs::path path;
    TempDir()
    {
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path = fs::temp_directory_path() / ("stallscope-prometheus-" + std::to_string(stamp));
        fs::create_directories(path);
    }
    ~TempDir()
    {
        if (std::getenv("STALLSCOPE_KEEP_PROMETHEUS_ANSWERS")) {
            return; // debugging: keep what the server answered
        }
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

} // namespace

void applyPrometheusEnvironment(PrometheusQuery& q)
{
    auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return v ? std::string(v) : std::string();
    };
    if (q.bearerToken.empty()) {
        q.bearerToken = env("STALLSCOPE_PROMETHEUS_TOKEN");
    }
    if (q.basicUser.empty()) {
        q.basicUser = env("STALLSCOPE_PROMETHEUS_USER");
        q.basicPassword = env("STALLSCOPE_PROMETHEUS_PASSWORD");
    }
}

std::vector<std::pair<TimeNs, TimeNs>> splitRange(TimeRange range, TimeNs stepNs, std::size_t maxPoints)
{
    std::vector<std::pair<TimeNs, TimeNs>> out;
    if (stepNs <= 0 || maxPoints < 2 || range.end < range.start) {
        return out;
    }
    // A chunk [s, s + (maxPoints − 1)·step] holds maxPoints evaluation points; the next starts one step later.
    const TimeNs span = stepNs * TimeNs(maxPoints - 1);
    for (TimeNs s = range.start; s <= range.end; s += span + stepNs) {
        out.push_back({ s, std::min(range.end, s + span) });
    }
    return out;
}

std::string counterSelector(const std::vector<std::string>& matchers)
{
    return withMatchers(std::string("{__name__=~\"") + kCounterNames + "\",__name__!~\"" + kInfoNames + "\"", matchers);
}

std::string infoSelector(const std::vector<std::string>& matchers)
{
    return withMatchers(std::string("{__name__=~\"") + kInfoNames + "\"", matchers);
}

TimeNs scrapeIntervalFromConfig(const std::string& yaml)
{
    // The global section's scrape_interval (Prometheus' own default is 1m when absent).
    const auto global = yaml.find("global:");
    const auto at = yaml.find("scrape_interval:", global == std::string::npos ? 0 : global);
    if (at == std::string::npos) {
        return 0;
    }
    auto pos = at + 16;
    while (pos < yaml.size() && yaml[pos] == ' ') {
        ++pos;
    }
    const auto end = yaml.find_first_of(" \n\r", pos);
    const auto text = yaml.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    // Prometheus durations: 15s, 1m, 1m30s, 500ms, 1h.
    TimeNs total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
            ++j;
        }
        if (j == i) {
            return 0;
        }
        const auto n = parseNumber<std::int32_t>(std::string_view(text).substr(i, j - i)); // a year of seconds fits
        if (!n) {
            return 0;
        }
        std::size_t k = j;
        while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) {
            ++k;
        }
        const auto unit = text.substr(j, k - j);
        const TimeNs mult = unit == "ms" ? kNsPerMs
            : unit == "s"                ? kNsPerSec
            : unit == "m"                ? 60 * kNsPerSec
            : unit == "h"                ? 3600 * kNsPerSec
            : unit == "d"                ? 86400 * kNsPerSec
                                         : 0;
        if (mult == 0) {
            return 0;
        }
        total += *n * mult;
        i = k;
    }
    return total;
}

namespace {

// PromQL regex of a job's hosts as node_exporter's `instance` label holds them ("gpu-a001:9100", an FQDN):
// metacharacters escaped twice (once for the regex, once for PromQL's double-quoted string).
std::string hostMatcher(const std::vector<std::string>& hosts)
{
    std::string re = "instance=~\"(";
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        re += i ? "|" : "";
        for (const char c : hosts[i]) {
            if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) {
                re += "\\\\";
            } else if (c == '"') {
                re += '\\';
            }
            re += c;
        }
    }
    return re + ")([.:].*)?\"";
}

// An answer of about this many samples (~60 MB of JSON, ~1.5 s to read) keeps a request well inside
// Prometheus' query.max-samples (50 M) and the reader's memory small; longer ranges take more requests.
constexpr std::size_t kSamplesPerRequest = 2'000'000;
constexpr std::size_t kShortRangePoints = 120; // ranges this short are asked in one request per selector

struct Fetched
{
    std::size_t requests = 0; // every HTTP request answered
    std::size_t rangeRequests = 0; // query_range answers read
    std::size_t splits = 0;
    TimeNs stepNs = 0;
    std::vector<LoadIssue> warnings;
    std::map<std::string, std::string> queryOfFile; // answer file → the query, for messages
};

// The step: given, else the server's scrape interval, else 15 s.
Result<TimeNs> chooseStep(const PrometheusQuery& q, Fetcher& fetcher, std::vector<LoadIssue>& warnings)
{
    if (q.stepNs > 0) {
        return q.stepNs;
    }
    const auto configUrl = apiUrl(q.url, "/api/v1/status/config");
    Request configRequest;
    configRequest.what = configUrl.toString().toStdString();
    configRequest.url = configUrl;
    std::vector<Request> config { configRequest };
    std::map<std::size_t, QByteArray> answers;
    TimeNs step = 0;
    if (auto err = fetcher.run(config, answers)) {
        if (err->message == "cancelled" || fetcher.networkFailure() || err->message.find("HTTP 401") == 0
            || err->message.find("HTTP 403") == 0) {
            return *err; // no server there, or it refuses us: say so at once
        }
        warnings.push_back({ q.url, 0, -1,
            "the server's configuration is not readable (" + err->message + "): the step is 15s; --step sets it" });
    } else {
        const auto yaml = QJsonDocument::fromJson(answers[0])
                              .object()
                              .value(QStringLiteral("data"))
                              .toObject()
                              .value(QStringLiteral("yaml"))
                              .toString()
                              .toStdString();
        step = scrapeIntervalFromConfig(yaml);
    }
    return step > 0 ? step : 15 * kNsPerSec;
}

// One query_range or query request; a POST form when the query is too long for a comfortable URL.
Request makeQuery(const PrometheusQuery& q, const char* path,
    const std::vector<std::pair<const char*, std::string>>& items, std::string what, std::string file)
{
    QUrlQuery query;
    for (const auto& [k, v] : items) {
        addItem(query, k, v);
    }
    Request r;
    r.what = std::move(what);
    r.file = std::move(file);
    const auto encoded = query.toString(QUrl::FullyEncoded).toLatin1();
    if (encoded.size() > 4000) {
        r.url = apiUrl(q.url, path);
        r.form = encoded;
    } else {
        r.url = apiUrl(q.url, path, query);
    }
    return r;
}

// A family of series to ask for: a __name__ regex and the matchers that narrow it to a job.
struct Base
{
    std::string names; // e.g. node_infiniband_.+
    std::vector<std::string> extra; // e.g. instance=~"(gpu-a001|…)([.:].*)?"
    bool excludeInfo = false;
    std::string selector(const std::vector<std::string>& userMatchers) const
    {
        auto m = userMatchers;
        m.insert(m.end(), extra.begin(), extra.end());
        return withMatchers(
            "{__name__=~\"" + names + "\"" + (excludeInfo ? std::string(",__name__!~\"") + kInfoNames + "\"" : ""), m);
    }
};

// A switch GUID label as the exporters write it ("0x7cfe9003009ce5b0", any case, zero-padded or not).
std::string guidMatcher(const char* label, const std::vector<std::uint64_t>& guids)
{
    std::string re = std::string(label) + "=~\"(?i)0x0*(";
    char buf[24];
    for (std::size_t i = 0; i < guids.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(guids[i]));
        re += (i ? "|" : "") + std::string(buf);
    }
    return re + ")\"";
}

bool namesLabel(const std::vector<std::string>& matchers, std::string_view label)
{
    for (const auto& m : matchers) {
        if (m.rfind(label, 0) == 0 && m.size() > label.size()
            && std::string_view("=!~").find(m[label.size()]) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

// What to ask for: node_exporter's series of the job's hosts, the switch series of the switches it can cross
// (treydock labels them guid, guilbaults local_guid); everything when the job does not say, or when the user's
// own matchers already choose by that label.
std::vector<Base> basesFor(
    const PrometheusQuery& q, const std::vector<std::string>& hosts, const std::vector<std::uint64_t>& switches)
{
    if (hosts.empty()) {
        return { Base { kCounterNames, {}, true } };
    }
    std::vector<Base> bases;
    bases.push_back({ "node_infiniband_.+",
        namesLabel(q.matchers, "instance") ? std::vector<std::string> {} : std::vector { hostMatcher(hosts) } });
    if (switches.empty() || namesLabel(q.matchers, "guid") || namesLabel(q.matchers, "local_guid")) {
        bases.push_back({ "infiniband_.+", {}, true });
    } else {
        bases.push_back({ "infiniband_.+", { guidMatcher("guid", switches) }, true });
        bases.push_back({ "infiniband_.+", { guidMatcher("local_guid", switches) }, true });
    }
    return bases;
}

// A query_range of `selector` over [from, to], its answer to dir/range-<index>.json.
Request rangeQuery(const PrometheusQuery& q, const std::string& selector, TimeNs from, TimeNs to, TimeNs step,
    const fs::path& dir, std::size_t index)
{
    const auto shown = selector.size() > 160 ? selector.substr(0, 150) + "…}" : selector;
    auto r = makeQuery(q, "/api/v1/query_range",
        { { "query", selector }, { "start", seconds(from) }, { "end", seconds(to) }, { "step", seconds(step) } },
        "query_range " + shown + " from " + seconds(from) + " to " + seconds(to),
        (dir / ("range-" + std::to_string(index) + ".json")).string());
    r.selector = selector;
    r.from = from;
    r.to = to;
    return r;
}

// The strings of a JSON answer's "data" array (label values), or of its vector's first value (a count).
std::vector<std::string> dataStrings(const QByteArray& body)
{
    std::vector<std::string> out;
    for (const auto& v : QJsonDocument::fromJson(body).object().value(QStringLiteral("data")).toArray()) {
        out.push_back(v.toString().toStdString());
    }
    return out;
}

std::size_t vectorCount(const QByteArray& body)
{
    const auto result = QJsonDocument::fromJson(body)
                            .object()
                            .value(QStringLiteral("data"))
                            .toObject()
                            .value(QStringLiteral("result"));
    const auto first = result.toArray().first().toObject().value(QStringLiteral("value")).toArray();
    return parseNumber<std::size_t>(first.at(1).toString().toStdString()).value_or(0);
}

// What to ask and how many points per request: one selector per metric name (from the server's index, no
// samples loaded), each with as many points as keep one answer near kSamplesPerRequest for the series it
// counts at the range's end. Short ranges (following live) skip this: their answers are small whatever the fleet.
Result<std::vector<std::pair<std::string, std::size_t>>> planSelectors(const PrometheusQuery& q, Fetcher& fetcher,
    const std::vector<Base>& bases, TimeRange range, TimeNs step, std::vector<LoadIssue>& warnings)
{
    std::vector<std::pair<std::string, std::size_t>> plan;
    const auto points = static_cast<std::size_t>((range.end - range.start) / step + 1);
    if (points <= kShortRangePoints) {
        for (const auto& b : bases) {
            plan.push_back({ b.selector(q.matchers), q.maxPointsPerSeries });
        }
        return plan;
    }
    std::vector<Request> lookups;
    for (const auto& b : bases) {
        const auto sel = b.selector(q.matchers);
        lookups.push_back(makeQuery(q, "/api/v1/label/__name__/values",
            { { "match[]", sel }, { "start", seconds(range.start) }, { "end", seconds(range.end) } },
            "label values of __name__ for " + (sel.size() > 160 ? sel.substr(0, 150) + "…}" : sel), ""));
    }
    std::map<std::size_t, QByteArray> names;
    if (auto err = fetcher.run(lookups, names)) {
        if (err->message == "cancelled" || fetcher.networkFailure()) {
            return *err;
        }
        warnings.push_back({ err->file, 0, -1,
            "the server's metric names are not listed (" + err->message
                + "): asked for every series at once, in halves where the server refuses" });
        for (const auto& b : bases) {
            plan.push_back({ b.selector(q.matchers), q.maxPointsPerSeries });
        }
        return plan;
    }
    std::vector<std::string> selectors;
    for (const auto& [i, body] : names) {
        for (const auto& name : dataStrings(body)) {
            if (!prometheusSeriesIsRead(name) || (name.size() > 5 && name.compare(name.size() - 5, 5, "_info") == 0)) {
                continue; // not a series the readers use; info series: one instant query at the end
            }
            auto m = q.matchers;
            m.insert(m.end(), bases[i].extra.begin(), bases[i].extra.end());
            selectors.push_back(withMatchers("{__name__=\"" + name + "\"", m));
        }
    }
    std::vector<Request> counts;
    for (const auto& sel : selectors) {
        counts.push_back(makeQuery(q, "/api/v1/query",
            { { "query", "count(" + sel + ")" }, { "time", seconds(range.end) } }, "count " + sel, ""));
    }
    std::map<std::size_t, QByteArray> answers;
    if (auto err = fetcher.run(counts, answers)) {
        return *err;
    }
    for (std::size_t i = 0; i < selectors.size(); ++i) {
        const auto series = std::max<std::size_t>(1, vectorCount(answers[i]));
        plan.push_back({ selectors[i], std::clamp<std::size_t>(kSamplesPerRequest / series, 2, q.maxPointsPerSeries) });
    }
    return plan;
}

// Fetches the range's counters (and the info series at its end) into `dir`, one JSON answer per request.
// `hosts`: restrict node_exporter's series to these hosts (the switch-side series stay whole).
Result<Fetched> fetchAnswers(const PrometheusQuery& q, const std::vector<std::string>& hosts,
    const std::vector<std::uint64_t>& switches, const fs::path& dir, Progress& progress)
{
    if (q.range.end <= q.range.start) {
        return LoadIssue { q.url, 0, -1, "expected a time range with --to after --from" };
    }
    const QUrl base(QString::fromStdString(q.url));
    if (!base.isValid() || (base.scheme() != QStringLiteral("http") && base.scheme() != QStringLiteral("https"))) {
        return LoadIssue { q.url, 0, -1, "expected an http:// or https:// URL of a Prometheus-compatible server" };
    }
    if (!q.caFile.empty() && QSslCertificate::fromPath(QString::fromStdString(q.caFile)).isEmpty()) {
        return LoadIssue { q.caFile, 0, -1, "expected PEM certificates (--ca-file): none could be read" };
    }
    Fetched out;
    Fetcher fetcher(q, progress);
    auto step = chooseStep(q, fetcher, out.warnings);
    if (!step) {
        return step.error();
    }
    out.stepNs = step.value();
    // Evaluation points on whole steps (as Grafana aligns them): a series scraped on the step then reads at its
    // own sample times, not shifted by the range's odd start.
    auto range = q.range;
    range.start -= ((range.start % out.stepNs) + out.stepNs) % out.stepNs;
    auto plan = planSelectors(q, fetcher, basesFor(q, hosts, switches), range, out.stepNs, out.warnings);
    if (!plan) {
        return plan.error();
    }
    std::vector<Request> requests;
    for (const auto& [selector, points] : plan.value()) {
        for (const auto& [s, e] : splitRange(range, out.stepNs, points)) {
            requests.push_back(rangeQuery(q, selector, s, e, out.stepNs, dir, requests.size()));
        }
    }
    const auto info = infoSelector(q.matchers);
    requests.push_back(makeQuery(q, "/api/v1/query", { { "query", info }, { "time", seconds(q.range.end) } },
        "query " + info + " at " + seconds(q.range.end), (dir / "info.json").string()));
    fetcher.split = [&](const Request& refused, std::size_t next) {
        std::vector<Request> halves;
        const auto points = (refused.to - refused.from) / out.stepNs + 1;
        if (refused.selector.empty() || points < 2) {
            return halves; // one evaluation point is still too much: the error stands (narrow with --match)
        }
        const TimeNs mid = refused.from + (points / 2 - 1) * out.stepNs; // the halves share no point
        halves.push_back(rangeQuery(q, refused.selector, refused.from, mid, out.stepNs, dir, next));
        halves.push_back(rangeQuery(q, refused.selector, mid + out.stepNs, refused.to, out.stepNs, dir, next + 1));
        return halves;
    };
    std::map<std::size_t, QByteArray> unused;
    if (auto err = fetcher.run(requests, unused)) {
        return *err;
    }
    out.requests = fetcher.answered();
    out.splits = fetcher.splits;
    out.warnings.insert(out.warnings.end(), fetcher.warnings.begin(), fetcher.warnings.end());
    for (const auto& r : requests) {
        out.queryOfFile[r.file] = r.what;
        out.rangeRequests += !r.selector.empty();
    }
    out.rangeRequests -= out.splits; // a refused request is not an answer
    return out;
}

// The loaded folder's messages name the queries, not the temporary files that held their answers.
void nameQueries(LoadedJob& job, const Fetched& f, const fs::path& dir, const std::string& url)
{
    std::vector<LoadIssue> warnings = f.warnings;
    for (auto w : job.warnings) {
        if (auto it = f.queryOfFile.find(w.file); it != f.queryOfFile.end()) {
            w.file = it->second;
        } else if (w.file == dir.string()) {
            w.file = url;
        }
        warnings.push_back(std::move(w));
    }
    job.warnings = std::move(warnings);
    std::erase_if(job.recognised,
        [&](const std::string& line) { return line.rfind("range-", 0) == 0 || line.rfind("info.json", 0) == 0; });
    job.recognised.push_back(std::to_string(f.rangeRequests) + " range answers of " + url + " (step "
        + std::to_string(f.stepNs / kNsPerMs) + " ms; " + std::to_string(f.requests) + " requests in all)");
}

} // namespace

Result<PrometheusLoad> loadFromPrometheus(const PrometheusQuery& q, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    TempDir dir;
    auto fetched = fetchAnswers(q, {}, {}, dir.path, progress);
    if (!fetched) {
        return fetched.error();
    }
    auto loaded = loadRawFolder(dir.path.string(), progress);
    if (!loaded) {
        auto e = loaded.error();
        e.message
            = "the server's answers hold no InfiniBand series for this range and these matchers (" + e.message + ")";
        e.file = q.url;
        return e;
    }
    PrometheusLoad out;
    out.requests = fetched->requests;
    out.rangeRequests = fetched->rangeRequests;
    out.splits = fetched->splits;
    out.stepNs = fetched->stepNs;
    out.range = q.range;
    out.job = loaded.value();
    std::erase_if(out.job.warnings,
        [](const LoadIssue& w) { return w.message.find("opened as fabric data only") != std::string::npos; });
    out.job.recognised.clear();
    nameQueries(out.job, fetched.value(), dir.path, q.url);
    auto snap = std::const_pointer_cast<JobSnapshot>(out.job.snapshot);
    snap->job.name = q.url;
    snap->job.span = q.range;
    snap->job.clockOriginNs = q.range.start;
    out.job.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Result<PrometheusLoad> loadJobWithPrometheus(const std::string& path, const PrometheusQuery& query, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (!isRawFolder(path)) {
        return LoadIssue { path, 0, -1,
            "expected a folder of raw files with --prometheus (a bundle already holds the counters it was made "
            "with)" };
    }
    TempDir dir;
    std::optional<Fetched> fetched;
    TimeRange asked {};
    const auto more = [&](const FolderHint& hint) -> Result<std::vector<std::string>> {
        auto q = query;
        if (q.range.end <= q.range.start) {
            if (hint.span.start == kNoTime) {
                return LoadIssue { path, 0, -1,
                    "holds no Flight Recorder dump or profiler trace to take the time range from: give --from and "
                    "--to" };
            }
            q.range = { hint.span.start - kJobRangePaddingNs, hint.span.end + kJobRangePaddingNs };
        }
        asked = q.range;
        // The job's hosts and the switches they can cross narrow the series (basesFor).
        auto f = fetchAnswers(q, hint.hosts, hint.switches, dir.path, progress);
        if (!f) {
            return f.error();
        }
        fetched = std::move(f.value());
        return std::vector<std::string> { dir.path.string() };
    };
    auto loaded = loadRawFolder(path, progress, more);
    if (!loaded) {
        return loaded.error();
    }
    PrometheusLoad out;
    out.requests = fetched->requests;
    out.rangeRequests = fetched->rangeRequests;
    out.splits = fetched->splits;
    out.stepNs = fetched->stepNs;
    out.range = asked;
    out.job = loaded.value();
    nameQueries(out.job, *fetched, dir.path, query.url);
    out.job.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace stallscope
