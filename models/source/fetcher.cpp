// SPDX-License-Identifier: MIT
#include "source/fetcher.h"

#include "core/time_format.h"
#include "import/prometheus/http_answers.h"

#include <QSslConfiguration>
#include <QTimer>

#include <fstream>

namespace stallscope::source {

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

std::optional<LoadIssue> Fetcher::run(std::vector<Request>& requests, std::map<std::size_t, QByteArray>& answers)
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

QNetworkRequest Fetcher::makeRequest(const QUrl& url) const
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

void Fetcher::start(std::size_t i)
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
    QObject::connect(reply, &QNetworkReply::downloadProgress, [this, reply](qint64 received, qint64) {
        if (static_cast<std::uint64_t>(received) > m_q.maxAnswerBytes && reply->isRunning()) {
            m_oversize.push_back(reply);
            reply->abort(); // finished() follows, and refuses it
        }
    });
}

void Fetcher::abortAll()
{
    for (auto* r : m_replies) {
        if (r && r->isRunning()) {
            r->abort();
        }
    }
}

void Fetcher::finished(QNetworkReply* reply, std::size_t i)
{
    --m_running;
    std::erase(m_replies, reply);
    reply->deleteLater();
    auto& req = (*m_requests)[i];
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    bool oversize = std::erase(m_oversize, reply) > 0;
    const QByteArray body = !oversize && reply->isOpen() ? reply->readAll() : QByteArray();
    oversize = oversize || static_cast<std::uint64_t>(body.size()) > m_q.maxAnswerBytes;
    if (!m_failure) {
        if (auto problem = oversize ? std::optional<std::string>(tooLarge()) : judge(reply, status, body, req)) {
            // Network errors, timeouts and 5xx may pass; 4xx and "status":"error" answers will not, nor one too large.
            const bool transient
                = !oversize && ((reply->error() != QNetworkReply::NoError && status == 0) || status >= 500);
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
            m_failure = LoadIssue { m_networkFailure ? req.url.toString(QUrl::RemoveQuery).toStdString() : req.what, 0,
                -1, *problem };
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

void Fetcher::maybeQuit()
{
    if (m_running == 0) {
        m_loop->quit();
    }
}

std::string Fetcher::tooLarge() const
{
    return "the answer passed " + formatBytes(static_cast<double>(m_q.maxAnswerBytes))
        + " and was stopped: a request asks for some tens of MB of samples at most (is " + m_q.url
        + " a Prometheus API, not a page in front of one?)";
}

std::optional<std::string> Fetcher::judge(QNetworkReply* reply, int status, const QByteArray& body, const Request& req)
{
    // The envelope only: a query_range answer's data is tens of MB, read once by its reader (QJsonDocument here
    // built all of it first — ten times the answer in memory, and most of a pull's parsing time).
    const auto env = readPromEnvelope(std::string_view(body.constData(), std::size_t(body.size())));
    if (env.status == "error") {
        return "HTTP " + std::to_string(status) + ", " + env.errorType + ": " + env.error;
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
    if (!env.object) {
        return "expected a JSON answer, got " + std::to_string(body.size()) + " bytes that are not JSON (" + env.notJson
            + ")";
    }
    for (const auto& w : env.warnings) {
        warnings.push_back({ req.what, 0, -1, "the server warns: " + w });
    }
    return std::nullopt;
}

// Query values fully percent-encoded: QUrlQuery leaves '+' as is, which servers decode as a space (a regex
// "node_infiniband_.+" would silently match nothing).
void addItem(QUrlQuery& q, const char* key, const std::string& value)
{
    q.addQueryItem(
        QString::fromLatin1(key), QString::fromLatin1(QUrl::toPercentEncoding(QString::fromStdString(value))));
}

QUrl apiUrl(const std::string& base, const std::string& path, const QUrlQuery& query)
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

} // namespace stallscope::source
