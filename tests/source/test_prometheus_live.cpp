// SPDX-License-Identifier: MIT
// The Prometheus source against a real Prometheus server (issue #14): counters written as OpenMetrics, backfilled
// into a TSDB with promtool, served by `prometheus` on 127.0.0.1 (started here, stopped by PID). The source
// finds the step from the server's config, splits the range at the point limit, reads node_exporter's and a
// switch exporter's series, and the fabric review names the flapping port with its period; errors name the query.
#include "analysis/analysis.h"
#include "analysis/flaps.h"
#include "bundle/writer.h"
#include "import/open_job.h"
#include "sim/openmetrics_writer.h"
#include "sim/raw_writer.h"
#include "source/prometheus_source.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <QCoreApplication>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <filesystem>
#include <fstream>
#include <functional>

using namespace stallscope;

namespace {

constexpr TimeNs kT0 = 1'793'491'200LL * kNsPerSec; // 2026-11-01T00:00:00Z
constexpr int kStepS = 15;
constexpr int kHours = 3;

// Two hosts' HCA ports and one switch port, every 15 s for 3 hours; gpu-a001 mlx5_1 flaps at 00:20, 01:20, 02:20
// (link_downed steps by one, symbol errors just before), the switch port is quiet.
void writeHandMadeOpenMetrics(const std::filesystem::path& file)
{
    std::ofstream o(file);
    const int samples = kHours * 3600 / kStepS;
    struct Port
    {
        const char* instance;
        const char* device;
        bool flaps;
    };
    const Port ports[] = { { "gpu-a000:9100", "mlx5_0", false }, { "gpu-a001:9100", "mlx5_1", true } };
    auto downedAt = [](int k) { // flaps whose time is at or before sample k
        int n = 0;
        for (int f = 0; f < kHours; ++f) {
            n += k * kStepS >= 20 * 60 + f * 3600;
        }
        return n;
    };
    o << "# TYPE node_infiniband_link_downed counter\n";
    for (const auto& p : ports) {
        for (int k = 0; k < samples; ++k) {
            o << "node_infiniband_link_downed_total{instance=\"" << p.instance << "\",device=\"" << p.device
              << "\",port=\"1\"} " << (p.flaps ? downedAt(k) : 0) << ' ' << (kT0 / kNsPerSec + k * kStepS) << '\n';
        }
    }
    o << "# TYPE node_infiniband_port_data_transmitted_bytes counter\n";
    for (const auto& p : ports) {
        for (int k = 0; k < samples; ++k) {
            o << "node_infiniband_port_data_transmitted_bytes_total{instance=\"" << p.instance << "\",device=\""
              << p.device << "\",port=\"1\"} " << std::uint64_t(k) * 4'000'000'000ULL << ' '
              << (kT0 / kNsPerSec + k * kStepS) << '\n';
        }
    }
    o << "# TYPE infiniband_switch_port_link_downed counter\n";
    for (int k = 0; k < samples; ++k) {
        o << "infiniband_switch_port_link_downed_total{guid=\"0x7cfe9003009ce5b0\",port=\"5\",switch=\"leaf-r1\"} 2 "
          << (kT0 / kNsPerSec + k * kStepS) << '\n';
    }
    o << "# EOF\n";
}

int freePort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    return s.serverPort();
}

// GET `path`; the body when the server answered 2xx within 2 s, else "".
QByteArray get(int port, const QString& path)
{
    QNetworkAccessManager nam;
    QEventLoop loop;
    auto* reply = nam.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path))));
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(2000, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body
        = reply->isFinished() && reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    reply->deleteLater();
    return body;
}

// Ready, and the backfilled series answer a query at `when` (the TSDB has loaded the blocks).
bool ready(int port, TimeNs when)
{
    if (get(port, QStringLiteral("/-/ready")).isEmpty()) {
        return false;
    }
    return get(port,
        QStringLiteral("/api/v1/query?query=count(node_infiniband_link_downed_total)&time=%1").arg(when / kNsPerSec))
        .contains("\"value\"");
}

// A Prometheus server on 127.0.0.1 over a TSDB backfilled from `counters.om` in its folder (written by `write`
// before the server starts); killed by PID when the test ends.
struct Server
{
    test::TempDir dir;
    QProcess process;
    int port = 0;
    std::string error;
    Server()
        : Server([](const std::filesystem::path& f) { writeHandMadeOpenMetrics(f); }, kStepS, kT0 + 3600 * kNsPerSec)
    {
    }
    Server(const std::function<void(const std::filesystem::path&)>& write, int scrapeSeconds, TimeNs readyAt)
    {
        const auto prometheus = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
        const auto promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
        if (prometheus.isEmpty() || promtool.isEmpty()) {
            error = "prometheus / promtool not installed (scripts/deps.sh installs them)";
            return;
        }
        write(dir.path() / "counters.om");
        std::ofstream(dir.path() / "prometheus.yml") << "global:\n  scrape_interval: " << scrapeSeconds << "s\n";
        QProcess backfill;
        backfill.start(promtool,
            { QStringLiteral("tsdb"), QStringLiteral("create-blocks-from"), QStringLiteral("openmetrics"),
                QString::fromStdString(dir.str("counters.om")), QString::fromStdString(dir.str("tsdb")) });
        if (!backfill.waitForFinished(120000) || backfill.exitCode() != 0) {
            error = "promtool failed: " + backfill.readAllStandardError().toStdString();
            return;
        }
        port = freePort();
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(prometheus,
            { QStringLiteral("--config.file=") + QString::fromStdString(dir.str("prometheus.yml")),
                QStringLiteral("--storage.tsdb.path=") + QString::fromStdString(dir.str("tsdb")),
                QStringLiteral("--storage.tsdb.retention.time=100y"),
                QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port) });
        for (int i = 0; i < 150 && !ready(port, readyAt); ++i) {
            if (process.state() == QProcess::NotRunning) {
                error = "prometheus exited: " + process.readAll().toStdString();
                return;
            }
            QThread::msleep(200);
        }
        if (!ready(port, readyAt)) {
            error = "prometheus did not become ready";
        }
    }
    ~Server()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill(); // SIGKILL to its PID
            process.waitForFinished(10000);
        }
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

} // namespace

TEST_CASE(
    "Prometheus source: a real server's InfiniBand series, split at the point limit, reviewed", "[prometheus][live]")
{
    Server server;
    if (!server.error.empty()) {
        FAIL(server.error);
    }
    PrometheusQuery q;
    q.url = server.url();
    q.range = { kT0, kT0 + kHours * 3600 * kNsPerSec };
    q.maxPointsPerSeries = 300; // 721 points per series at 15 s: three range queries
    NullProgress progress;
    auto loaded = loadFromPrometheus(q, progress);
    INFO((loaded ? "" : loaded.error().format()));
    INFO("server output: " << server.process.readAll().toStdString());
    REQUIRE(loaded);
    for (const auto& w : loaded->job.warnings) {
        UNSCOPED_INFO("warning: " << w.format());
    }
    CHECK(loaded->stepNs == kStepS * kNsPerSec); // from the server's own configuration
    // Per metric name (three on this server) a count of its series and three query_range chunks; the config, the
    // names and the info series once each.
    CHECK(loaded->rangeRequests == 3 * 3);
    CHECK(loaded->requests == 1 + 1 + 3 + 3 * 3 + 1);
    CHECK(loaded->splits == 0);
    const auto& snap = *loaded->job.snapshot;
    CHECK(snap.job.worldSize == 0);
    CHECK(snap.job.name == q.url);
    // Two HCA ports (unplaced: no topology on the server) and the switch port; every sample of the range.
    REQUIRE(snap.counterPorts.size() == 3);
    for (const auto& s : snap.counters) {
        CHECK(s.size() == std::size_t(kHours * 3600 / kStepS + 1)); // both ends of the range are evaluated
    }
    const auto review = reviewFabric(snap);
    REQUIRE(review.flapping.size() == 1);
    const auto& l = review.flapping[0];
    CHECK(l.a == "gpu-a001 mlx5_1 p1");
    CHECK(l.flaps.size() == std::size_t(kHours));
    REQUIRE(l.recurrence);
    CHECK(std::abs(double(l.recurrence->periodNs) - 3600e9) < 3600e9 * 0.01);

    SECTION("matchers narrow the series; a bad matcher is an error naming the query")
    {
        q.matchers = { "instance=~\"gpu-a000.*\"" };
        auto narrow = loadFromPrometheus(q, progress);
        REQUIRE(narrow);
        CHECK(narrow->job.snapshot->counterPorts.size() == 1);
        q.matchers = { "instance=~\"(\"" };
        auto bad = loadFromPrometheus(q, progress);
        REQUIRE_FALSE(bad);
        // Requests run in parallel: whichever fails first (a range chunk or the info query) is named.
        CHECK_THAT(bad.error().format(),
            Catch::StartsWith("query") && Catch::Contains("instance=~\"(\"") && Catch::Contains("bad_data"));
    }
    SECTION("a query over the server's point limit is refused by the server and asked again in halves")
    {
        q.stepNs = kNsPerSec / 2; // 21,601 points per series, where Prometheus allows 11,000
        q.maxPointsPerSeries = 30'000; // as if the client did not split
        auto halves = loadFromPrometheus(q, progress);
        INFO((halves ? "" : halves.error().format()));
        REQUIRE(halves);
        CHECK(halves->splits == 3); // one refusal per metric name
        CHECK(halves->rangeRequests == 3 * 2);
        for (const auto& s : halves->job.snapshot->counters) {
            CHECK(s.size() == std::size_t(kHours * 3600 * 2 + 1)); // no point lost or read twice at the seam
        }
    }
    SECTION("a range with no series says so")
    {
        q.range = { kT0 - 48 * 3600 * kNsPerSec, kT0 - 47 * 3600 * kNsPerSec };
        auto empty = loadFromPrometheus(q, progress);
        REQUIRE_FALSE(empty);
        CHECK_THAT(empty.error().message, Catch::Contains("hold no InfiniBand series"));
    }
}

TEST_CASE("a job's raw folder with its counters from a real Prometheus names the same link as the folder holding "
          "them",
    "[prometheus][live]")
{
    auto c = *presetConfig("small");
    c.seed = 5;
    c.durationNs = 6 * 60 * kNsPerSec;
    c.faults = { parseFaultSpec("flap:host-leaf:rank=21:at=3m:for=2s").value() };
    const auto sim = test::simulateOrFail(c);
    test::TempDir tmp;
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("full")).empty()); // counters as files
    RawWriteOptions noCounters;
    noCounters.counters = false;
    REQUIRE(writeRawFolder(*sim.snapshot, tmp.str("job"), noCounters).empty()); // counters on the server only
    const auto span = sim.snapshot->job.span;
    // The server also holds a host that is not the job's: the job's load must not read it.
    Server server(
        [&](const std::filesystem::path& f) {
            REQUIRE(stallscope::writeOpenMetrics(*sim.snapshot, f.string()).empty());
            auto text = test::readFile(f);
            const std::string family = "# TYPE node_infiniband_link_downed counter\n";
            std::string stranger;
            for (TimeNs t = span.start; t < span.end; t += 60 * kNsPerSec) {
                stranger
                    += "node_infiniband_link_downed_total{device=\"mlx5_0\",instance=\"gpu-z999:9100\",port=\"1\"} 3 "
                    + std::to_string(t / kNsPerSec) + "\n";
            }
            text.insert(text.find(family) + family.size(), stranger);
            // And a switch the job's hosts cannot reach (another pod's leaf).
            const std::string switchFamily = "# TYPE infiniband_switch_port_link_downed counter\n";
            std::string strangeSwitch;
            for (TimeNs t = span.start; t < span.end; t += 60 * kNsPerSec) {
                strangeSwitch += "infiniband_switch_port_link_downed_total{guid=\"0x00000000deadbeef\",port=\"7\"} 9 "
                    + std::to_string(t / kNsPerSec) + "\n";
            }
            text.insert(text.find(switchFamily) + switchFamily.size(), strangeSwitch);
            test::writeFile(f, text);
        },
        1, span.start + 60 * kNsPerSec);
    if (!server.error.empty()) {
        FAIL(server.error);
    }
    auto folder = openJob(tmp.str("full"));
    REQUIRE(folder);
    const auto expected = analyze(*folder->snapshot);
    PrometheusQuery q;
    q.url = server.url();
    NullProgress progress;
    auto both = loadJobWithPrometheus(tmp.str("job"), q, progress);
    INFO((both ? "" : both.error().format()));
    REQUIRE(both);
    for (const auto& w : both->job.warnings) {
        UNSCOPED_INFO("warning: " << w.format());
    }
    // The range is the job's span with five minutes either side; node_exporter's series of the job's hosts and
    // the switch series are two selectors of one chunk each (1 s steps), plus the info query.
    CHECK(both->range.start <= span.start - kJobRangePaddingNs + kNsPerSec); // the first dump record, less 5 min
    CHECK(both->range.end >= span.end + kJobRangePaddingNs - kNsPerSec);
    CHECK(both->stepNs == kNsPerSec);
    // The config, three name lookups (the job's node series, the series of its switches by treydock's and by
    // guilbaults' label), per metric name a count of its series and one query_range (16 minutes of 1 s points
    // fit one answer), the info query.
    CHECK(both->rangeRequests * 2 + 5 == both->requests);
    CHECK(both->splits == 0);
    const auto& snap = *both->job.snapshot;
    CHECK(snap.job.worldSize == 64);
    CHECK(snap.counterPorts.size() == folder->snapshot->counterPorts.size()); // gpu-z999 was not asked for
    for (const auto& p : snap.counterPorts) {
        CHECK(p.guid != 0xdeadbeefULL); // nor the other pod's switch
    }
    for (const auto& n : snap.topology.nodes()) {
        CHECK(snap.str(n.description).find("gpu-z999") == std::string_view::npos);
    }
    const auto got = analyze(snap);
    REQUIRE(expected.incidents.size() == 1);
    REQUIRE(got.incidents.size() == 1);
    REQUIRE(expected.incidents[0].culprit);
    REQUIRE(got.incidents[0].culprit);
    const auto& e = *expected.incidents[0].culprit;
    const auto& g = *got.incidents[0].culprit;
    CHECK(std::pair(g.a.guid, g.a.port) == std::pair(e.a.guid, e.a.port));
    CHECK(std::pair(g.b.guid, g.b.port) == std::pair(e.b.guid, e.b.port));
    CHECK(g.confidence == e.confidence);

    SECTION("the server alone over the same range reads the stranger too")
    {
        q.range = both->range;
        auto all = loadFromPrometheus(q, progress);
        REQUIRE(all);
        CHECK(all->job.snapshot->counterPorts.size() > snap.counterPorts.size());
    }
    SECTION("a bundle, or a folder without dumps or traces and no range, is refused")
    {
        REQUIRE(writeBundle(*sim.snapshot, tmp.str("bundle")).empty());
        auto bundle = loadJobWithPrometheus(tmp.str("bundle"), q, progress);
        REQUIRE_FALSE(bundle);
        CHECK_THAT(bundle.error().message, Catch::Contains("a bundle already holds"));
        std::filesystem::create_directories(tmp.path() / "fabric");
        test::writeFile(
            tmp.path() / "fabric" / "ibnetdiscover.txt", test::readFile(tmp.path() / "job" / "ibnetdiscover.txt"));
        auto fabric = loadJobWithPrometheus(tmp.str("fabric"), q, progress);
        REQUIRE_FALSE(fabric);
        CHECK_THAT(fabric.error().message, Catch::Contains("give --from and --to"));
    }
}

TEST_CASE("Prometheus source: ranges split at the point limit, scrape intervals from the config", "[prometheus]")
{
    const TimeRange r { 0, 3600 * kNsPerSec };
    const auto chunks = splitRange(r, kNsPerSec, 1000); // 3,601 points
    REQUIRE(chunks.size() == 4);
    CHECK(chunks[0] == std::pair<TimeNs, TimeNs> { 0, 999 * kNsPerSec });
    CHECK(chunks[1].first == 1000 * kNsPerSec); // no point evaluated twice, none skipped
    CHECK(chunks.back().second == r.end);
    CHECK(splitRange(r, 0, 1000).empty());
    CHECK(scrapeIntervalFromConfig("global:\n  scrape_interval: 30s\n  evaluation_interval: 1m\n") == 30 * kNsPerSec);
    CHECK(scrapeIntervalFromConfig("global:\n  scrape_interval: 1m30s\n") == 90 * kNsPerSec);
    CHECK(scrapeIntervalFromConfig("scrape_configs: []\n") == 0);
    CHECK(counterSelector({ "job=\"node\"" })
        == "{__name__=~\"node_infiniband_.+|infiniband_.+\",__name__!~\"infiniband_.+_info\",job=\"node\"}");

    NullProgress progress;
    PrometheusQuery q;
    q.url = "ftp://example";
    q.range = r;
    CHECK_THAT(loadFromPrometheus(q, progress).error().message, Catch::Contains("http:// or https://"));
    q.url = "http://127.0.0.1:" + std::to_string(freePort()); // nobody listens
    q.retries = 0;
    CHECK_THAT(loadFromPrometheus(q, progress).error().format(), Catch::Contains("/api/v1/status/config"));
}

namespace {

// A node_exporter stand-in on 127.0.0.1: answers every request with the current exposition text.
struct Exporter
{
    QTcpServer server;
    std::string body;
    Exporter()
    {
        server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&server, &QTcpServer::newConnection, [this] {
            while (auto* socket = server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, [this, socket] {
                    if (!socket->readAll().contains("\r\n\r\n")) {
                        return; // the request continues (Prometheus sends it in one piece in practice)
                    }
                    const auto text = QByteArray::fromStdString(body);
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
                        + QByteArray::number(text.size()) + "\r\nConnection: close\r\n\r\n" + text);
                    socket->disconnectFromHost();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    void setDowned(int n)
    {
        body = "node_infiniband_link_downed_total{device=\"mlx5_1\",port=\"1\",instance=\"gpu-a001:9100\"} "
            + std::to_string(n)
            + "\nnode_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\",instance=\"gpu-a000:9100\"} 0\n";
    }
};

void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

TimeNs wallNow()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

TEST_CASE("following a live Prometheus: a link going down raises an alert within a few scrape intervals",
    "[prometheus][live]")
{
    const auto prometheus = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
    if (prometheus.isEmpty()) {
        FAIL("prometheus not installed (scripts/deps.sh installs it)");
    }
    Exporter exporter;
    exporter.setDowned(0);
    test::TempDir dir;
    std::ofstream(dir.path() / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ib\n    honor_labels: true\n"
        << "    static_configs:\n      - targets: ['127.0.0.1:" << exporter.server.serverPort() << "']\n";
    const int port = freePort();
    QProcess server;
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start(prometheus,
        { QStringLiteral("--config.file=") + QString::fromStdString(dir.str("prometheus.yml")),
            QStringLiteral("--storage.tsdb.path=") + QString::fromStdString(dir.str("tsdb")),
            QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port) });
    struct Kill
    {
        QProcess& p;
        ~Kill()
        {
            p.kill(); // by its PID
            p.waitForFinished(10000);
        }
    } kill { server };
    // Up, and the first scrapes are in (the exporter is served by this thread's event loop while we wait).
    const TimeNs started = wallNow();
    bool scraped = false;
    for (int i = 0; i < 100 && !scraped; ++i) {
        spin(200);
        // Three scrapes in: a range query then sees the series (one lone sample may fall after its last step).
        scraped = get(port,
            QStringLiteral("/api/v1/query?query=count_over_time(node_infiniband_link_downed_total%5B1m%5D)%3E%3D3"))
                      .contains("mlx5_1");
    }
    REQUIRE(scraped);
    PrometheusQuery q;
    q.url = "http://127.0.0.1:" + std::to_string(port);
    q.range = { started - 10 * kNsPerSec, started };
    q.retries = 1;
    PrometheusFollower follower(q);
    NullProgress progress;
    auto baseline = follower.poll(wallNow(), progress);
    INFO((baseline ? "" : baseline.error().format()));
    REQUIRE(baseline);
    CHECK(baseline->empty());
    CHECK(follower.stepNs() == kNsPerSec); // the server's scrape interval
    spin(1500);
    auto quiet = follower.poll(wallNow(), progress);
    REQUIRE(quiet);
    CHECK(quiet->empty()); // nothing changed: no alert
    // The link goes down: link_downed 0 → 1 on gpu-a001 mlx5_1.
    exporter.setDowned(1);
    const auto changed = std::chrono::steady_clock::now();
    std::vector<LiveAlert> alerts;
    while (alerts.empty() && std::chrono::steady_clock::now() - changed < std::chrono::seconds(15)) {
        spin(int(follower.stepNs() / kNsPerMs));
        auto polled = follower.poll(wallNow(), progress);
        REQUIRE(polled);
        alerts = polled.value();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - changed).count();
    REQUIRE(alerts.size() == 1);
    CHECK(alerts[0].port == "gpu-a001 mlx5_1 p1");
    CHECK(alerts[0].what == "link went down (link_downed 0 -> 1)");
    CHECK(seconds < 5.0); // one scrape (1 s) + one poll interval (1 s) + the query, with slack for a loaded machine
    // And once only: the next poll overlaps the last two steps but reports nothing new.
    spin(1000);
    auto again = follower.poll(wallNow(), progress);
    REQUIRE(again);
    CHECK(again->empty());
}
