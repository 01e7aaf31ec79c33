// SPDX-License-Identifier: MIT
#include "source/prometheus_source.h"

#include "core/parse_number.h"
#include "core/time_format.h"
#include "import/folder/raw_folder.h"

#include <QByteArray>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace stallscope {

namespace fs = std::filesystem;

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

struct Request
{
    std::string what; // "query_range {…} 2026-11-01 00:00 .. 06:00" for messages
    QUrl url;
    std::string file; // where the answer goes ("" for the config)
    int attempt = 0;
    QByteArray form; // non-empty: POST this form instead of GET (a query too long for a URL: many hosts)
};

// Runs requests in parallel up to a bound on one QNetworkAccessManager, with retries and backoff; blocks in a
// local event loop. Answers are written to their files; the config answer is kept in memory.
class Fetcher
{
public:
    Fetcher(const PrometheusQuery& q, Progress& progress)
        : m_q(q)
        , m_progress(progress)
    {
    }

    // Returns an error naming the request, or nullopt. `answers` receives the bodies of requests without a file.
    std::optional<LoadIssue> run(std::vector<Request>& requests, std::map<std::size_t, QByteArray>& answers)
    {
        m_requests = &requests;
        m_answers = &answers;
        m_next = m_done = m_running = 0;
        m_failure.reset();
        QEventLoop loop;
        m_loop = &loop;
        QTimer cancelPoll;
        QObject::connect(&cancelPoll, &QTimer::timeout, [this] {
            if (m_progress.cancelled() && !m_failure) {
                m_failure = LoadIssue { m_q.url, 0, -1, "cancelled" };
                QTimer::singleShot(0, &m_context, [this] { abortAll(); });
            }
        });
        cancelPoll.start(100);
        for (int i = 0; i < std::max(1, m_q.parallel) && m_next < requests.size(); ++i) {
            start(m_next++);
        }
        if (m_running > 0) {
            loop.exec();
        }
        return m_failure;
    }

    std::vector<LoadIssue> warnings;
    bool networkFailure() const { return m_networkFailure; } // the last failure reached no server

private:
    QNetworkRequest makeRequest(const QUrl& url) const
    {
        QNetworkRequest r(url);
        r.setTransferTimeout(static_cast<int>(std::min<TimeNs>(m_q.timeoutNs / kNsPerMs, 24 * 3600 * 1000)));
        r.setRawHeader("Accept", "application/json");
        if (!m_q.bearerToken.empty()) {
            r.setRawHeader("Authorization", QByteArray("Bearer ") + QByteArray::fromStdString(m_q.bearerToken));
        } else if (!m_q.basicUser.empty()) {
            r.setRawHeader("Authorization",
                QByteArray("Basic ") + QByteArray::fromStdString(m_q.basicUser + ":" + m_q.basicPassword).toBase64());
        }
        if (!m_q.caFile.empty()) {
            auto ssl = QSslConfiguration::defaultConfiguration();
            ssl.addCaCertificates(QString::fromStdString(m_q.caFile));
            r.setSslConfiguration(ssl);
        }
        return r;
    }

    void start(std::size_t i)
    {
        ++m_running;
        const auto& req = (*m_requests)[i];
        QNetworkReply* reply = nullptr;
        if (req.form.isEmpty()) {
            reply = m_nam.get(makeRequest(req.url));
        } else {
            auto r = makeRequest(req.url);
            r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/x-www-form-urlencoded"));
            reply = m_nam.post(r, req.form);
        }
        m_replies.push_back(reply);
        QObject::connect(reply, &QNetworkReply::finished, [this, reply, i] { finished(reply, i); });
    }

    void abortAll()
    {
        for (auto* r : m_replies) {
            if (r && r->isRunning()) {
                r->abort();
            }
        }
    }

    void finished(QNetworkReply* reply, std::size_t i)
    {
        --m_running;
        std::erase(m_replies, reply);
        reply->deleteLater();
        auto& req = (*m_requests)[i];
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->isOpen() ? reply->readAll() : QByteArray();
        if (!m_failure) {
            if (auto problem = judge(reply, status, body, req)) {
                // Network errors, timeouts and 5xx may pass; 4xx and "status":"error" answers will not.
                const bool transient = (reply->error() != QNetworkReply::NoError && status == 0) || status >= 500;
                if (transient && req.attempt < m_q.retries) {
                    const int backoffMs = 500 << req.attempt++;
                    ++m_running; // the retry is still outstanding
                    QTimer::singleShot(backoffMs, &m_context, [this, i] {
                        --m_running;
                        if (!m_failure) {
                            start(i);
                        } else {
                            maybeQuit();
                        }
                    });
                    return;
                }
                m_failure = LoadIssue { req.what, 0, -1, *problem };
                m_networkFailure = status == 0;
                QTimer::singleShot(0, &m_context, [this] { abortAll(); }); // not from inside another reply's signal
            } else {
                ++m_done;
                m_progress.report("Querying Prometheus", m_done, m_requests->size());
                if (req.file.empty()) {
                    (*m_answers)[i] = body;
                } else {
                    std::ofstream out(req.file, std::ios::binary);
                    out.write(body.constData(), body.size());
                    if (!out) {
                        m_failure = LoadIssue { req.file, 0, -1, "cannot write the answer to a temporary file" };
                    }
                }
                if (!m_failure && m_next < m_requests->size()) {
                    start(m_next++);
                }
            }
        }
        maybeQuit();
    }

    void maybeQuit()
    {
        if (m_running == 0) {
            m_loop->quit();
        }
    }

    // An error message for a failed request, or nullopt; collects the server's warnings.
    std::optional<std::string> judge(QNetworkReply* reply, int status, const QByteArray& body, const Request& req)
    {
        QJsonParseError perr {};
        const auto doc = QJsonDocument::fromJson(body, &perr);
        const auto obj = doc.isObject() ? doc.object() : QJsonObject();
        if (obj.value(QStringLiteral("status")).toString() == QStringLiteral("error")) {
            return "HTTP " + std::to_string(status) + ", "
                + obj.value(QStringLiteral("errorType")).toString().toStdString() + ": "
                + obj.value(QStringLiteral("error")).toString().toStdString();
        }
        if (reply->error() == QNetworkReply::OperationCanceledError) {
            // Not the user's cancel (that sets m_failure first): Qt's transfer timeout fired.
            return "no answer within " + formatDuration(m_q.timeoutNs) + " (the request's timeout)";
        }
        if (reply->error() != QNetworkReply::NoError && status == 0) {
            return reply->errorString().toStdString();
        }
        if (status == 401 || status == 403) {
            return "HTTP " + std::to_string(status) + ": the server refused "
                + (m_q.bearerToken.empty() && m_q.basicUser.empty() ? std::string("a request without credentials")
                                                                    : std::string("the credentials"))
                + " (STALLSCOPE_PROMETHEUS_TOKEN sets a Bearer token, STALLSCOPE_PROMETHEUS_USER and _PASSWORD Basic "
                  "auth)";
        }
        if (status >= 400) {
            return "HTTP " + std::to_string(status) + ": " + body.left(200).toStdString();
        }
        if (!doc.isObject()) {
            return "expected a JSON answer, got " + std::to_string(body.size()) + " bytes that are not JSON ("
                + perr.errorString().toStdString() + ")";
        }
        for (const auto& w : obj.value(QStringLiteral("warnings")).toArray()) {
            warnings.push_back({ req.what, 0, -1, "the server warns: " + w.toString().toStdString() });
        }
        return std::nullopt;
    }

    const PrometheusQuery& m_q;
    Progress& m_progress;
    // Timers queued by one run must die with the Fetcher: a failure quits the loop with an abort still queued,
    // and without a context object that abort ran in the next run's loop on a destroyed Fetcher (SIGSEGV in CI).
    QObject m_context;
    QNetworkAccessManager m_nam;
    QEventLoop* m_loop = nullptr;
    std::vector<Request>* m_requests = nullptr;
    std::map<std::size_t, QByteArray>* m_answers = nullptr;
    std::vector<QNetworkReply*> m_replies;
    std::size_t m_next = 0, m_done = 0;
    int m_running = 0;
    std::optional<LoadIssue> m_failure;
    bool m_networkFailure = false;
};

// Query values fully percent-encoded: QUrlQuery leaves '+' as is, which servers decode as a space (a regex
// "node_infiniband_.+" would silently match nothing).
void addItem(QUrlQuery& q, const char* key, const std::string& value)
{
    q.addQueryItem(
        QString::fromLatin1(key), QString::fromLatin1(QUrl::toPercentEncoding(QString::fromStdString(value))));
}

QUrl apiUrl(const std::string& base, const std::string& path, const QUrlQuery& query = {})
{
    QUrl url(QString::fromStdString(base));
    QString p = url.path();
    while (p.endsWith(QLatin1Char('/'))) {
        p.chop(1);
    }
    url.setPath(p + QString::fromStdString(path));
    url.setQuery(query);
    return url;
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

struct Fetched
{
    std::size_t requests = 0;
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
    std::vector<Request> config { { configUrl.toString().toStdString(), configUrl, "" } };
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
    const auto encoded = query.toString(QUrl::FullyEncoded).toLatin1();
    if (encoded.size() > 4000) {
        return { std::move(what), apiUrl(q.url, path), std::move(file), 0, encoded };
    }
    return { std::move(what), apiUrl(q.url, path, query), std::move(file) };
}

// Fetches the range's counters (and the info series at its end) into `dir`, one JSON answer per request.
// `hosts`: restrict node_exporter's series to these hosts (the switch-side series stay whole).
Result<Fetched> fetchAnswers(
    const PrometheusQuery& q, const std::vector<std::string>& hosts, const fs::path& dir, Progress& progress)
{
    if (q.range.end <= q.range.start) {
        return LoadIssue { q.url, 0, -1, "expected a time range with --to after --from" };
    }
    const QUrl base(QString::fromStdString(q.url));
    if (!base.isValid() || (base.scheme() != QStringLiteral("http") && base.scheme() != QStringLiteral("https"))) {
        return LoadIssue { q.url, 0, -1, "expected an http:// or https:// URL of a Prometheus-compatible server" };
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
    std::vector<std::string> selectors;
    if (hosts.empty()) {
        selectors.push_back(counterSelector(q.matchers));
    } else {
        auto m = q.matchers;
        m.push_back(hostMatcher(hosts));
        selectors.push_back(withMatchers("{__name__=~\"node_infiniband_.+\"", m));
        selectors.push_back(
            withMatchers(std::string("{__name__=~\"infiniband_.+\",__name__!~\"") + kInfoNames + "\"", q.matchers));
    }
    std::vector<Request> requests;
    for (const auto& selector : selectors) {
        for (const auto& [s, e] : splitRange(range, out.stepNs, q.maxPointsPerSeries)) {
            const auto file = (dir / ("range-" + std::to_string(requests.size()) + ".json")).string();
            const auto shown = selector.size() > 160 ? selector.substr(0, 150) + "…}" : selector;
            requests.push_back(makeQuery(q, "/api/v1/query_range",
                { { "query", selector }, { "start", seconds(s) }, { "end", seconds(e) },
                    { "step", seconds(out.stepNs) } },
                "query_range " + shown + " from " + seconds(s) + " to " + seconds(e), file));
        }
    }
    const auto info = infoSelector(q.matchers);
    requests.push_back(makeQuery(q, "/api/v1/query", { { "query", info }, { "time", seconds(q.range.end) } },
        "query " + info + " at " + seconds(q.range.end), (dir / "info.json").string()));
    std::map<std::size_t, QByteArray> unused;
    if (auto err = fetcher.run(requests, unused)) {
        return *err;
    }
    out.requests = requests.size();
    out.warnings.insert(out.warnings.end(), fetcher.warnings.begin(), fetcher.warnings.end());
    for (const auto& r : requests) {
        out.queryOfFile[r.file] = r.what;
    }
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
    job.recognised.push_back(
        std::to_string(f.requests) + " answers of " + url + " (step " + std::to_string(f.stepNs / kNsPerMs) + " ms)");
}

} // namespace

Result<PrometheusLoad> loadFromPrometheus(const PrometheusQuery& q, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    TempDir dir;
    auto fetched = fetchAnswers(q, {}, dir.path, progress);
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
    out.stepNs = fetched->stepNs;
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
        // The job's hosts narrow node_exporter's series unless the user chose matchers.
        auto f = fetchAnswers(q, q.matchers.empty() ? hint.hosts : std::vector<std::string> {}, dir.path, progress);
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
    out.stepNs = fetched->stepNs;
    out.range = asked;
    out.job = loaded.value();
    nameQueries(out.job, *fetched, dir.path, query.url);
    out.job.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

PrometheusFollower::PrometheusFollower(PrometheusQuery query)
    : m_q(std::move(query))
    , m_step(m_q.stepNs)
    , m_last(m_q.range.start)
{
}

Result<std::vector<LiveAlert>> PrometheusFollower::poll(TimeNs nowNs, Progress& progress)
{
    std::vector<LiveAlert> alerts;
    auto q = m_q;
    q.stepNs = m_step;
    // Overlap two steps: the newest samples of the last poll may have been evaluated before their scrape landed.
    q.range = { m_polls == 0 ? m_q.range.start
                             : std::max(m_q.range.start, m_last - 2 * std::max<TimeNs>(m_step, kNsPerSec)),
        nowNs };
    if (q.range.end <= q.range.start) {
        return alerts;
    }
    auto loaded = loadFromPrometheus(q, progress);
    if (!loaded) {
        // An empty window (nothing scraped yet) is not an error while following; the first poll that sees
        // series is the baseline.
        if (loaded.error().message.find("hold no InfiniBand series") != std::string::npos) {
            return alerts;
        }
        return loaded.error();
    }
    m_step = loaded->stepNs;
    const auto& snap = *loaded->job.snapshot;
    const auto portName = [&](std::uint64_t guid, std::uint16_t port) {
        const auto node = snap.topology.findNodeByGuid(guid);
        return (node ? snap.str(snap.topology.node(*node).description) : formatGuid(guid)) + " p"
            + std::to_string(port);
    };
    const bool baseline = m_polls == 0;
    for (const auto& s : snap.counters) {
        if (s.kind != CounterKind::LinkDowned || s.size() == 0) {
            continue;
        }
        const auto& p = snap.counterPorts[s.port];
        const auto key = std::make_pair(p.guid, p.port);
        auto it = m_downed.find(key);
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (it != m_downed.end() && s.timesNs[k] > it->second.first && !baseline) {
                const auto d = counterDelta(it->second.second, s.value(k), s.bits);
                if (d.increase > 0 && !d.reset) {
                    alerts.push_back({ s.timesNs[k], portName(p.guid, p.port),
                        "link went down (link_downed " + std::to_string(it->second.second) + " -> "
                            + std::to_string(s.value(k)) + ")" });
                }
            }
            if (it == m_downed.end()) {
                it = m_downed.emplace(key, std::make_pair(s.timesNs[k], s.value(k))).first;
            } else if (s.timesNs[k] > it->second.first) {
                it->second = { s.timesNs[k], s.value(k) };
            }
        }
    }
    for (const auto& e : snap.linkEvents) {
        if (m_events.insert({ e.guid, e.port, e.timeNs }).second && !baseline && e.state == LinkState::Down) {
            alerts.push_back({ e.timeNs, portName(e.guid, e.port), "link went down (port state)" });
        }
    }
    std::sort(alerts.begin(), alerts.end(), [](const LiveAlert& a, const LiveAlert& b) { return a.timeNs < b.timeNs; });
    m_last = nowNs;
    ++m_polls;
    return alerts;
}

} // namespace stallscope
