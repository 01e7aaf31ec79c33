// SPDX-License-Identifier: MIT
#pragma once

// HTTP requests to a Prometheus-compatible server for the Prometheus source (prometheus_source.cpp): parallel
// GET/POST with retries, backoff, cancel, size-refusal splitting and the server's warnings. Internal to
// models/source. Qt Network; runs on the calling thread, blocking in a local event loop.

#include "core/progress.h"
#include "core/result.h"
#include "source/prometheus_source.h"

#include <QByteArray>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QObject>
#include <QUrl>
#include <QUrlQuery>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::source {

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
bool refusedForSize(const std::string& problem);

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
    std::optional<LoadIssue> run(std::vector<Request>& requests, std::map<std::size_t, QByteArray>& answers);

    std::vector<LoadIssue> warnings;
    bool networkFailure() const { return m_networkFailure; } // the last failure reached no server
    // Requests that replace one the server refused (e.g. its two halves), or none: then the refusal is an error.
    std::function<std::vector<Request>(const Request&, std::size_t nextIndex)> split;
    std::size_t splits = 0; // requests replaced by their halves
    std::size_t answered() const { return m_answered; } // over every run

private:
    QNetworkRequest makeRequest(const QUrl& url) const;

    void start(std::size_t i);

    void abortAll();

    void finished(QNetworkReply* reply, std::size_t i);

    void maybeQuit();

    // Why an answer past PrometheusQuery::maxAnswerBytes was refused.
    std::string tooLarge() const;

    // An error message for a failed request, or nullopt; collects the server's warnings.
    std::optional<std::string> judge(QNetworkReply* reply, int status, const QByteArray& body, const Request& req);

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
    std::vector<QNetworkReply*> m_oversize; // stopped for passing PrometheusQuery::maxAnswerBytes
};

// Query values fully percent-encoded: QUrlQuery leaves '+' as is, which servers decode as a space (a regex
// "node_infiniband_.+" would silently match nothing).
void addItem(QUrlQuery& q, const char* key, const std::string& value);

// base URL + API path + query.
QUrl apiUrl(const std::string& base, const std::string& path, const QUrlQuery& query = {});

} // namespace stallscope::source
