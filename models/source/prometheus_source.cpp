// SPDX-License-Identifier: MIT
#include "source/prometheus_source.h"

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
    // query_range only: what the request asks, so a refused one can be asked again in halves.
    std::string selector;
    TimeNs from = 0, to = 0;
};

// A query_range the server refused for its size (Prometheus' query.max-samples, its 11,000-point resolution
// limit, Thanos/Mimir/VictoriaMetrics limits), so asking for half the range may pass.
bool refusedForSize(const std::string& problem)
{
    // Prometheus and Thanos (the same engine); Mimir ("the query exceeded the maximum number of chunks fetched");
    // VictoriaMetrics ("cannot select more than -search.maxSamplesPerQuery", "too many points").
    for (const char* s : { "too many samples", "maximum resolution", "exceeded the maximum number", "limit exceeded",
             "cannot select more than", "maxSamplesPerQuery", "too many points" }) {
        if (problem.find(s) != std::string::npos) {
            return true;
        }
    }
    return false;
}

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
    // Requests that replace one the server refused (e.g. its two halves), or none: then the refusal is an error.
    std::function<std::vector<Request>(const Request&, std::size_t nextIndex)> split;
    std::size_t splits = 0; // requests replaced by their halves
    std::size_t answered() const { return m_answered; } // over every run

private:
    QNetworkRequest makeRequest(const QUrl& url) const
    {
        QNetworkRequest r(url);
        r.setTransferTimeout(static_cast<int>(std::min<TimeNs>(m_q.timeoutNs / kNsPerMs, 24 * 3600 * 1000)));
        r.setRawHeader("Accept", "application/json");
        // Prometheus gzips its answers and a matrix of counters compresses ~100:1, past Qt's decompression-bomb
        // check (ratio 40 beyond 10 MB), which then cuts the answer short. Answers are bounded by
        // kSamplesPerRequest instead.
        r.setDecompressedSafetyCheckThreshold(-1);
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
                // Size limits answer 422 (execution) or 400 (bad_data); a 429 "rate limit exceeded" must not be
                // answered with twice the requests.
                if (split && (status == 422 || status == 400) && refusedForSize(*problem)) {
                    const Request refused = req; // push_back below moves the vector
                    auto parts = split(refused, m_requests->size());
                    if (!parts.empty()) {
                        ++splits;
                        for (auto& part : parts) {
                            m_requests->push_back(std::move(part));
                        }
                        while (m_running < std::max(1, m_q.parallel) && m_next < m_requests->size()) {
                            start(m_next++);
                        }
                        maybeQuit();
                        return;
                    }
                }
                m_networkFailure = status == 0 && reply->error() != QNetworkReply::OperationCanceledError;
                // No server there: name the server; a server's refusal or a timeout: name the query.
                m_failure = LoadIssue { m_networkFailure ? req.url.toString(QUrl::RemoveQuery).toStdString() : req.what,
                    0, -1, *problem };
                QTimer::singleShot(0, &m_context, [this] { abortAll(); }); // not from inside another reply's signal
            } else {
                ++m_done;
                ++m_answered;
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
        if (reply->error() != QNetworkReply::NoError && status < 400) {
            auto text = reply->errorString().toStdString(); // no answer, or one cut short (status 200 and an error)
            if (reply->error() == QNetworkReply::SslHandshakeFailedError) {
                text += m_q.caFile.empty() ? " (--ca-file adds the server's CA to the system's)"
                                           : " (with the CAs of " + m_q.caFile + " and the system's)";
            }
            return text;
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
    std::size_t m_next = 0, m_done = 0, m_answered = 0;
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
