// SPDX-License-Identifier: MIT
// The Prometheus source when the server misbehaves (issue #14): a 503 retried with backoff then named, a 401
// that says where credentials come from (and never prints them), a server that never answers within the
// timeout, a proxy's HTML page instead of JSON, the server's warnings passed on, and `convert` leaving no half
// bundle behind. The server is a canned HTTP responder on 127.0.0.1 in its own thread (a real Prometheus cannot
// be made to fail on cue; the point-limit refusal is checked against the real one in core/test_prometheus_live).
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "source/prometheus_source.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QFile>
#include <QProcess>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

using namespace stallscope;

namespace {

struct Answer
{
    int status = 200;
    QByteArray body;
    bool never = false; // accept the request and never answer
};

// An HTTP/1.1 responder: each request's head (method, path, headers) goes to `respond`; Connection: close.
// Threads: serves from its own QThread; `respond` runs there; counters are read from the test's thread.
class CannedServer : public QThread
{
public:
    explicit CannedServer(
        std::function<Answer(const QByteArray& head)> respond, std::optional<QSslConfiguration> tls = std::nullopt)
        : m_respond(std::move(respond))
        , m_tls(std::move(tls))
    {
        start();
        port = m_port.get_future().get();
    }
    ~CannedServer() override
    {
        quit();
        wait();
    }
    std::string url() const { return (m_tls ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port); }
    int count(const char* pathPrefix) const
    {
        std::lock_guard lock(m_mutex);
        int n = 0;
        for (const auto& h : m_heads) {
            n += h.contains(QByteArray(QByteArray(" ") + pathPrefix));
        }
        return n;
    }
    QByteArray header(const QByteArray& name) const // of the last request
    {
        std::lock_guard lock(m_mutex);
        if (m_heads.isEmpty()) {
            return {};
        }
        for (const auto& line : m_heads.back().split('\n')) {
            if (line.toLower().startsWith(QByteArray(name.toLower() + ":"))) {
                return line.mid(name.size() + 1).trimmed();
            }
        }
        return {};
    }
    int port = 0;

protected:
    void run() override
    {
        std::unique_ptr<QTcpServer> owned;
        if (m_tls) {
            auto ssl = std::make_unique<QSslServer>();
            ssl->setSslConfiguration(*m_tls);
            owned = std::move(ssl);
        } else {
            owned = std::make_unique<QTcpServer>();
        }
        QTcpServer& server = *owned;
        server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&server, &QTcpServer::pendingConnectionAvailable, [&] {
            while (auto* socket = server.nextPendingConnection()) {
                auto buffer = std::make_shared<QByteArray>();
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    const auto end = buffer->indexOf("\r\n\r\n");
                    if (end < 0) {
                        return;
                    }
                    const auto head = buffer->left(end);
                    const auto length = contentLength(head);
                    if (buffer->size() < end + 4 + length) {
                        return; // a POST's form is still coming
                    }
                    {
                        std::lock_guard lock(m_mutex);
                        m_heads.push_back(head);
                    }
                    const auto a = m_respond(head);
                    if (a.never) {
                        return;
                    }
                    socket->write("HTTP/1.1 " + QByteArray::number(a.status)
                        + " Canned\r\nContent-Type: application/json\r\nContent-Length: "
                        + QByteArray::number(a.body.size()) + "\r\nConnection: close\r\n\r\n" + a.body);
                    socket->disconnectFromHost();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_port.set_value(server.serverPort());
        exec();
    }

private:
    static qsizetype contentLength(const QByteArray& head)
    {
        for (const auto& line : head.split('\n')) {
            if (line.toLower().startsWith("content-length:")) {
                return line.mid(15).trimmed().toLongLong();
            }
        }
        return 0;
    }
    std::function<Answer(const QByteArray&)> m_respond;
    std::optional<QSslConfiguration> m_tls;
    std::promise<int> m_port;
    mutable std::mutex m_mutex;
    QList<QByteArray> m_heads;
};

const QByteArray kConfig = R"({"status":"success","data":{"yaml":"global:\n  scrape_interval: 15s\n"}})";
const QByteArray kInfo = R"({"status":"success","data":{"resultType":"vector","result":[]}})";
// gpu-a000 mlx5_0 port 1: link_downed 0 → 1 between two scrapes.
const QByteArray kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{)"
                           R"("__name__":"node_infiniband_link_downed_total","instance":"gpu-a000:9100",)"
                           R"("device":"mlx5_0","port":"1"},"values":[[1793491200,"0"],[1793491215,"1"]]}]}})";

bool is(const QByteArray& head, const char* path)
{
    return head.contains(QByteArray(QByteArray(" ") + path));
}

PrometheusQuery queryOf(const CannedServer& s)
{
    PrometheusQuery q;
    q.url = s.url();
    q.range = { 1'793'491'200LL * kNsPerSec, 1'793'491'260LL * kNsPerSec };
    q.retries = 0;
    return q;
}

} // namespace

TEST_CASE("Prometheus source: a 503 is retried with backoff, then named with its query", "[prometheus]")
{
    std::atomic<int> failuresLeft = 100;
    CannedServer server([&](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        if (is(head, "/api/v1/query_range") && failuresLeft-- > 0) {
            return { 503, "upstream connect error" };
        }
        return { 200, is(head, "/api/v1/query_range") ? kMatrix : kInfo };
    });
    NullProgress progress;
    auto q = queryOf(server);
    q.retries = 2;
    SECTION("always 503: three attempts, then an error naming the query")
    {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = loadFromPrometheus(q, progress);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().format(), Catch::Contains("query_range {__name__=~") && Catch::Contains("HTTP 503"));
        CHECK(server.count("/api/v1/query_range") == 3);
        CHECK(secs >= 1.4); // backoff 0.5 s + 1 s
    }
    SECTION("503 once: the retry reads the answer")
    {
        failuresLeft = 1;
        auto r = loadFromPrometheus(q, progress);
        INFO((r ? "" : r.error().format()));
        REQUIRE(r);
        CHECK(server.count("/api/v1/query_range") == 2);
        CHECK(r->job.snapshot->counterPorts.size() == 1);
    }
}

TEST_CASE("Prometheus source: a refused login says where credentials come from and never prints them", "[prometheus]")
{
    CannedServer server([](const QByteArray&) -> Answer { return { 401, "Unauthorized" }; });
    NullProgress progress;
    auto q = queryOf(server);
    q.retries = 3;
    q.bearerToken = "s3cret-token";
    auto r = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(r);
    const auto message = r.error().format();
    CHECK_THAT(message, Catch::Contains("HTTP 401") && Catch::Contains("refused the credentials"));
    CHECK_THAT(message, Catch::Contains("STALLSCOPE_PROMETHEUS_TOKEN"));
    CHECK(message.find("s3cret") == std::string::npos);
    CHECK(server.count("/api/v1/") == 1); // a 4xx is not retried, and nothing else is asked
    CHECK(server.header("Authorization") == "Bearer s3cret-token");
}

TEST_CASE("Prometheus source: a server that never answers fails at the timeout, naming the query", "[prometheus]")
{
    CannedServer server([](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        return { 0, {}, true };
    });
    NullProgress progress;
    auto q = queryOf(server);
    q.timeoutNs = kNsPerSec;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = loadFromPrometheus(q, progress);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().format(), Catch::Contains("no answer within 1s") && Catch::Contains("query"));
    CHECK(secs < 10);
}

TEST_CASE("Prometheus source: a proxy's page instead of JSON, and the server's warnings", "[prometheus]")
{
    std::atomic<bool> html = true;
    CannedServer server([&](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        if (html) {
            return { 200, "<html><body>Sign in to continue</body></html>" };
        }
        if (is(head, "/api/v1/query_range")) {
            auto body = kMatrix;
            body.chop(1);
            return { 200, body + R"(,"warnings":["result truncated: partial response from store gateway"]})" };
        }
        return { 200, kInfo };
    });
    NullProgress progress;
    const auto q = queryOf(server);
    auto bad = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().format(), Catch::Contains("expected a JSON answer"));
    html = false;
    auto warned = loadFromPrometheus(q, progress);
    INFO((warned ? "" : warned.error().format()));
    REQUIRE(warned);
    bool found = false;
    for (const auto& w : warned->job.warnings) {
        found |= w.message.find("the server warns: result truncated") != std::string::npos
            && w.file.find("query_range") == 0;
    }
    CHECK(found);
}

TEST_CASE("Prometheus source: an answer past the size cap is stopped and refused, not retried", "[prometheus]")
{
    // A body is held whole until parsed: an endless or runaway answer was read until memory ran out.
    CannedServer server([&](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        if (is(head, "/api/v1/query_range")) {
            auto body = kMatrix;
            body.chop(1);
            return { 200, body + R"(,"pad":")" + QByteArray(4 << 20, 'x') + R"("})" };
        }
        return { 200, kInfo };
    });
    NullProgress progress;
    auto q = queryOf(server);
    q.retries = 2;
    q.maxAnswerBytes = 1 << 20;
    auto r = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().format(), Catch::Contains("the answer passed 1.0 MB and was stopped"));
    CHECK(server.count("/api/v1/query_range") == 1);
    q.maxAnswerBytes = 64 << 20; // the same answer under the cap opens
    auto ok = loadFromPrometheus(q, progress);
    INFO((ok ? "" : ok.error().format()));
    CHECK(ok);
}

TEST_CASE("convert --prometheus: a failing server leaves no bundle, not half of one", "[prometheus][cli]")
{
    CannedServer server([](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        return { 503, "overloaded" };
    });
    test::TempDir tmp;
    const auto out = tmp.str("bundle");
    // The answers' temporary folder goes under our own TMPDIR, so other tests running at once cannot confuse the
    // check that it is gone.
    const auto scratch = tmp.path() / "scratch";
    std::filesystem::create_directories(scratch);
    struct RestoreTmp
    {
        std::optional<std::string> saved;
        ~RestoreTmp() { saved ? setenv("TMPDIR", saved->c_str(), 1) : unsetenv("TMPDIR"); }
    } restore { std::getenv("TMPDIR") ? std::optional<std::string>(std::getenv("TMPDIR")) : std::nullopt };
    setenv("TMPDIR", scratch.c_str(), 1);
    std::ostringstream o, e;
    const int code = cli::runSubcommand(
        { "convert", "--prometheus", server.url(), "--from", "1793491200", "--to", "1793494800", "--out", out }, o, e);
    CHECK(code != 0);
    CHECK_THAT(e.str(), Catch::Contains("HTTP 503"));
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK(std::filesystem::is_empty(scratch)); // nothing of the answers is left in the temporary folder either
}

TEST_CASE("Prometheus source: a range the server refuses for its size is halved, down to one step, then named",
    "[prometheus]")
{
    CannedServer server([](const QByteArray& head) -> Answer {
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        if (is(head, "/api/v1/query_range")) {
            return { 422,
                R"({"status":"error","errorType":"execution","error":"query processing would load too many samples )"
                R"(into memory in query execution"})" };
        }
        return { 200, kInfo };
    });
    NullProgress progress;
    auto q = queryOf(server); // 60 s at 15 s: 5 points, asked as one short-range request
    auto r = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().format(), Catch::StartsWith("query_range") && Catch::Contains("too many samples"));
    // 5 points → 2 + 3 → (1 + 1) + (1 + 2) …: the first single point refused ends it; more than one request tried.
    CHECK(server.count("/api/v1/query_range") >= 3);
}

TEST_CASE("Prometheus source over TLS: a self-signed server is refused, and trusted with --ca-file", "[prometheus]")
{
    const auto openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (openssl.isEmpty()) {
        FAIL("openssl not installed (scripts/deps.sh installs it)");
    }
    test::TempDir tmp;
    QProcess make;
    make.start(openssl,
        { QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
            QStringLiteral("-nodes"), QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
            QStringLiteral("/CN=127.0.0.1"), QStringLiteral("-addext"), QStringLiteral("subjectAltName=IP:127.0.0.1"),
            QStringLiteral("-keyout"), QString::fromStdString(tmp.str("key.pem")), QStringLiteral("-out"),
            QString::fromStdString(tmp.str("cert.pem")) });
    REQUIRE(make.waitForFinished(60000));
    REQUIRE(make.exitCode() == 0);
    auto tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificate(QSslCertificate::fromPath(QString::fromStdString(tmp.str("cert.pem"))).value(0));
    QFile keyFile(QString::fromStdString(tmp.str("key.pem")));
    REQUIRE(keyFile.open(QIODevice::ReadOnly));
    tls.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Rsa));
    tls.setPeerVerifyMode(QSslSocket::VerifyNone); // the server does not ask for a client certificate
    CannedServer server(
        [](const QByteArray& head) -> Answer {
            if (is(head, "/api/v1/status/config")) {
                return { 200, kConfig };
            }
            return { 200, is(head, "/api/v1/query_range") ? kMatrix : kInfo };
        },
        tls);
    NullProgress progress;
    auto q = queryOf(server);
    auto untrusted = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(untrusted);
    CHECK_THAT(untrusted.error().format(), Catch::StartsWith(server.url()) && Catch::Contains("--ca-file"));
    q.caFile = tmp.str("cert.pem");
    auto trusted = loadFromPrometheus(q, progress);
    INFO((trusted ? "" : trusted.error().format()));
    REQUIRE(trusted);
    CHECK(trusted->job.snapshot->counterPorts.size() == 1);
    q.caFile = tmp.str("key.pem"); // not a certificate
    auto wrong = loadFromPrometheus(q, progress);
    REQUIRE_FALSE(wrong);
    CHECK_THAT(wrong.error().format(), Catch::Contains("expected PEM certificates"));
}

TEST_CASE("a Bearer token read from --token-file is sent and never printed", "[prometheus][cli]")
{
    CannedServer server([](const QByteArray& head) -> Answer {
        if (!head.contains("Authorization: Bearer t0ken-from-file")) {
            return { 401, "Unauthorized" };
        }
        if (is(head, "/api/v1/status/config")) {
            return { 200, kConfig };
        }
        return { 200, is(head, "/api/v1/query_range") ? kMatrix : kInfo };
    });
    test::TempDir tmp;
    test::writeFile(tmp.path() / "token", "  t0ken-from-file\n");
    std::ostringstream o, e;
    const std::vector<std::string> args { "info", "--prometheus", server.url(), "--from", "1793491200", "--to",
        "1793491260", "--token-file", tmp.str("token") };
    CHECK(cli::runSubcommand(args, o, e) == 0);
    CHECK(server.header("Authorization") == "Bearer t0ken-from-file");
    CHECK(o.str().find("t0ken") == std::string::npos);
    CHECK(e.str().find("t0ken") == std::string::npos);
    std::ostringstream o2, e2;
    auto missing = args;
    missing.back() = tmp.str("absent");
    CHECK(cli::runSubcommand(missing, o2, e2) == 2);
    CHECK_THAT(e2.str(), Catch::Contains("--token-file: cannot read a token"));
}
