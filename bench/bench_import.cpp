// SPDX-License-Identifier: MIT
// Bulk ingest of the raw formats (issue #6): Flight Recorder JSON and pickle dumps and profiler traces, from
// bytes in memory to collective records, and a whole raw folder opened end to end. Inputs are folders written
// by `stallscope simulate --raw` (bench/import_vs_python.sh makes them and runs Python's json/pickle on the
// same files in the same run). Environment: STALLSCOPE_BENCH_RAW_JSON, STALLSCOPE_BENCH_RAW_PICKLE,
// STALLSCOPE_BENCH_RAW_KINETO, STALLSCOPE_BENCH_RAW_PROM (a folder of switch scrape files and the topology:
// what a fabric team keeps).
#include "import/common/file_bytes.h"
#include "import/flight_recorder/flight_recorder.h"
#include "import/kineto/kineto_trace.h"
#include "import/open_job.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"

#include <benchmark/benchmark.h>

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

struct File
{
    std::string name;
    std::string bytes; // with simdjson's padding as spare capacity
};

// Files of `dir` whose names contain `part`, read once (the page cache is warm for every benchmark).
std::vector<File> readFiles(const char* env, const std::string& part)
{
    std::vector<File> out;
    const char* dir = std::getenv(env);
    if (!dir) {
        return out;
    }
    for (const auto& e : fs::directory_iterator(dir)) {
        const auto name = e.path().filename().string();
        if (name.find(part) == std::string::npos) {
            continue;
        }
        File f { e.path().string(), {} };
        const auto size = e.file_size();
        f.bytes.reserve(size + jsonPadding());
        f.bytes.resize(size);
        std::FILE* fp = std::fopen(f.name.c_str(), "rb");
        f.bytes.resize(std::fread(f.bytes.data(), 1, size, fp));
        std::fclose(fp);
        out.push_back(std::move(f));
    }
    return out;
}

template <typename Parse> void runParse(benchmark::State& state, const std::vector<File>& files, Parse parse)
{
    if (files.empty()) {
        state.SkipWithError("set the folder environment variable (see bench/import_vs_python.sh)");
        return;
    }
    std::size_t bytes = 0, records = 0;
    for (auto _ : state) {
        for (const auto& f : files) {
            bytes += f.bytes.size();
            records += parse(f);
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
    state.counters["records/s"] = benchmark::Counter(double(records), benchmark::Counter::kIsRate);
    state.counters["files"] = double(files.size());
}

void BM_FlightRecorderJson(benchmark::State& state)
{
    static const auto files = readFiles("STALLSCOPE_BENCH_RAW_JSON", "nccl_trace_rank_");
    runParse(state, files, [](const File& f) {
        auto d = parseFlightRecorderJson(f.name, f.bytes);
        return d ? d->entries.size() : 0;
    });
}
BENCHMARK(BM_FlightRecorderJson)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_FlightRecorderPickle(benchmark::State& state)
{
    static const auto files = readFiles("STALLSCOPE_BENCH_RAW_PICKLE", "nccl_trace_rank_");
    runParse(state, files, [](const File& f) {
        auto d = parseFlightRecorderPickle(f.name, f.bytes);
        return d ? d->entries.size() : 0;
    });
}
BENCHMARK(BM_FlightRecorderPickle)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_KinetoTrace(benchmark::State& state)
{
    static const auto files = readFiles("STALLSCOPE_BENCH_RAW_KINETO", ".pt.trace.json");
    runParse(state, files, [](const File& f) {
        auto t = parseKinetoTrace(f.name, f.bytes);
        return t ? t->collectives.entries.size() : 0;
    });
}
BENCHMARK(BM_KinetoTrace)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// Switch scrape files, bytes in memory to counter readings (scan + resolve against a fabric builder).
void BM_PrometheusExposition(benchmark::State& state)
{
    static const auto files = readFiles("STALLSCOPE_BENCH_RAW_PROM", ".prom");
    runParse(state, files, [](const File& f) {
        FabricBuilder fabric;
        auto r = readPrometheusExposition(f.name, f.bytes, fabric);
        return r ? r->points.size() : 0;
    });
}
BENCHMARK(BM_PrometheusExposition)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// A folder named by `env` opened end to end: read every file, recognise, parse (worker threads), join, snapshot.
void openFolder(benchmark::State& state, const char* env)
{
    const char* dir = std::getenv(env);
    if (!dir) {
        state.SkipWithError((std::string("set ") + env).c_str());
        return;
    }
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        auto r = openJob(dir);
        if (!r) {
            state.SkipWithError(r.error().format().c_str());
            return;
        }
        bytes += r->bytesOnDisk;
        benchmark::DoNotOptimize(r->snapshot->collectiveCount() + r->snapshot->counters.size());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

// A folder of scrape files: scanned on worker threads, resolved, counters.
void BM_OpenScrapeFolder(benchmark::State& state)
{
    openFolder(state, "STALLSCOPE_BENCH_RAW_PROM");
}
BENCHMARK(BM_OpenScrapeFolder)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

// The whole raw folder of a job: dumps, logs, scrapes, CSVs, topology.
void BM_OpenRawFolder(benchmark::State& state)
{
    openFolder(state, "STALLSCOPE_BENCH_RAW_PICKLE");
}
BENCHMARK(BM_OpenRawFolder)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// Judging one query_range answer before it is read (status, error, warnings): as the fetcher did, with a
// QJsonDocument of the whole answer, and as it does, reading the envelope alone. The answer: 500 series of an hour of
// 1 s points, ≈ 37 MB — the size of the answers a 1,024-rank hour pulls (bench/prometheus_pull.sh: 1.30 GB in 40).
const QByteArray& syntheticAnswer()
{
    static const QByteArray answer = [] {
        std::string s = R"({"status":"success","data":{"resultType":"matrix","result":[)";
        for (int k = 0; k < 500; ++k) {
            s += (k ? "," : "")
                + std::string(R"({"metric":{"__name__":"node_infiniband_port_data_received_bytes_total",)")
                + R"("device":"mlx5_)" + std::to_string(k % 8) + R"(","instance":"gpu-a)" + std::to_string(k / 8)
                + R"(:9100","port":"1"},"values":[)";
            for (int t = 0; t < 3600; ++t) {
                s += (t ? "," : "") + std::string("[") + std::to_string(1793491200 + t) + ",\""
                    + std::to_string(k * 7919LL * t) + "\"]";
            }
            s += "]}";
        }
        s += R"(]},"warnings":["one"]})";
        return QByteArray::fromStdString(s);
    }();
    return answer;
}

void BM_JudgeAnswerQJsonDocument(benchmark::State& state)
{
    const auto& body = syntheticAnswer();
    for (auto _ : state) {
        const auto doc = QJsonDocument::fromJson(body);
        benchmark::DoNotOptimize(doc.object().value(QStringLiteral("status")).toString().size());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * body.size());
}
BENCHMARK(BM_JudgeAnswerQJsonDocument)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_JudgeAnswerEnvelope(benchmark::State& state)
{
    const auto& body = syntheticAnswer();
    for (auto _ : state) {
        const auto env = readPromEnvelope(std::string_view(body.constData(), std::size_t(body.size())));
        benchmark::DoNotOptimize(env.status.size() + env.warnings.size());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * body.size());
}
BENCHMARK(BM_JudgeAnswerEnvelope)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

} // namespace

BENCHMARK_MAIN();
