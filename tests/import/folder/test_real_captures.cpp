// SPDX-License-Identifier: MIT
// What is read from files other people's tools wrote (../shared/real-captures, see its PROVENANCE.md): the facts of
// each file, not merely that nothing crashed. Referenced by path, never copied; skipped with a message when the
// folder is absent. Our own golden files for each variant learned here live in tests/data.
// Over 600 lines as one file: a case per capture, all through the one skip-when-absent path helper.
#include "analysis/analysis.h"
#include "core/issue_groups.h"
#include "import/common/file_bytes.h"
#include "import/infiniband/ibnetdiscover.h"
#include "import/kineto/kineto_trace.h"
#include "import/logs/rank_log.h"
#include "import/open_job.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace stallscope;
using namespace stallscope::test;

namespace {

const std::filesystem::path kReal = STALLSCOPE_REAL_CAPTURES_DIR;

// The bytes of the capture at `rel` (inflated), or nullopt (with a message) when the captures are absent.
std::optional<std::string> realBytes(const std::string& rel)
{
    const auto path = kReal / rel;
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return std::nullopt;
    }
    auto bytes = readFileBytes(path);
    REQUIRE(bytes.ok());
    return std::move(bytes.value());
}

// The trace at `rel` under the captures, or nullopt (with a message) when the captures are absent.
std::optional<KinetoTrace> realTrace(const std::string& rel)
{
    auto bytes = realBytes(rel);
    if (!bytes) {
        return std::nullopt;
    }
    const auto path = (kReal / rel).string();
    auto t = parseKinetoTrace(path, *bytes);
    INFO((t ? "" : t.error().format()));
    REQUIRE(t.ok());
    if (!t->rank) {
        t->rank = rankFromTraceFileName(path);
    }
    return std::move(t.value());
}

std::map<CollectiveOp, std::size_t> opsOf(const RankRecords& r)
{
    std::map<CollectiveOp, std::size_t> n;
    for (const auto& e : r.entries) {
        ++n[e.op];
    }
    return n;
}

} // namespace

TEST_CASE("real profiler traces without Seq give their collectives, numbered by order", "[core][real]")
{
    // HolisticTraceAnalysis: NCCL 2.17, A100, kernel args with Collective name but no Seq.
    if (auto t = realTrace("HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz")) {
        CHECK(t->rank == 0u);
        CHECK(t->worldSize == 2);
        CHECK(t->kernels == 21);
        CHECK(t->collectives.seqFromOrder);
        const auto ops = opsOf(t->collectives);
        CHECK(ops.at(CollectiveOp::AllReduce) == 15);
        CHECK(ops.at(CollectiveOp::Broadcast) == 6);
        const auto& e = t->collectives.entries;
        CHECK(std::any_of(e.begin(), e.end(), [](const RankRecord& r) {
            return r.op == CollectiveOp::AllReduce && r.bytes == 6637568ull * 4; // In msg nelems × Float
        }));
    }
    // V100, rank 1 of 2: 43 send/recv kernels and 21 all-reduces named only by the kernel.
    if (auto t = realTrace("HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz")) {
        CHECK(t->rank == 1u);
        CHECK(t->collectives.p2pSkipped == 43);
        CHECK(opsOf(t->collectives)[CollectiveOp::AllReduce] == 21);
    }
    // 2,020 all-reduces in a 3 MB trace.
    if (auto t = realTrace("HolisticTraceAnalysis/tests/data/df_index_resolver/df_index_resolver.json.gz")) {
        CHECK(opsOf(t->collectives)[CollectiveOp::AllReduce] == 2020);
    }
}

TEST_CASE("real TraceLens traces: NCCL 2.27 on B200, RCCL's generic kernel on MI300", "[core][real]")
{
    if (auto t = realTrace("TraceLens/tests/traces/b200/eager_trace.json.gz")) {
        CHECK(t->rank == 0u);
        CHECK(t->worldSize == 8);
        REQUIRE(t->collectives.entries.size() == 1);
        CHECK(t->collectives.entries[0].op == CollectiveOp::AllGather); // "_allgather_base"
        CHECK(t->collectives.entries[0].pg == "3");
        CHECK(t->collectives.entries[0].bytes == 25136ull * 2); // BFloat16
    }
    // RCCL names every kernel ncclDevKernel_Generic; the first five carry no collective args: they are
    // collectives whose operation is not known.
    if (auto t = realTrace("TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz")) {
        CHECK(t->kernels == 17);
        CHECK(t->collectives.entries.size() == 17);
        auto ops = opsOf(t->collectives);
        CHECK(ops[CollectiveOp::Other] == 5);
        CHECK(ops[CollectiveOp::Broadcast] == 6);
        CHECK(ops[CollectiveOp::AllReduce] == 6);
    }
}

namespace {

// The real trace at `rel`, inflated, cut to its first `fraction` of bytes; nullopt when the captures are absent.
std::optional<std::string> realTraceCut(const std::string& rel, double fraction)
{
    auto bytes = realBytes(rel);
    if (!bytes) {
        return std::nullopt;
    }
    bytes->resize(static_cast<std::size_t>(static_cast<double>(bytes->size()) * fraction)); // capacity (padding) kept
    return bytes;
}

} // namespace

TEST_CASE(
    "real profiler traces cut off while written: the whole events before the cut, or why not", "[core][real][hostile]")
{
    // 2022 layout, epoch µs and no base: half the file gives the all-reduces in that half, each as the whole file
    // has it.
    const std::string rel = "HolisticTraceAnalysis/tests/data/df_index_resolver/df_index_resolver.json.gz";
    if (auto whole = realTrace(rel); whole) {
        std::set<std::pair<TimeNs, TimeNs>> all;
        for (const auto& e : whole->collectives.entries) {
            all.emplace(e.startNs, e.endNs);
        }
        const auto half = realTraceCut(rel, 0.5);
        auto t = parseKinetoTrace("rank1.json.tmp", *half);
        INFO((t ? "" : t.error().format()));
        REQUIRE(t.ok());
        const auto n = t->collectives.entries.size();
        CHECK(n > 100); // 278: the kernels are not spread evenly through the file
        CHECK(n < 2020);
        for (const auto& e : t->collectives.entries) {
            CHECK(all.count({ e.startNs, e.endNs }) == 1);
        }
        std::string said;
        for (const auto& w : t->collectives.warnings) {
            said += w.message + "\n";
        }
        CHECK_THAT(said, Catch::Contains("the trace ends inside its events at byte"));
    }
    // 2024 layout (NCCL 2.17 on A100): baseTimeNanoseconds comes after the events, so a cut loses it.
    if (auto half = realTraceCut("HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz", 0.5)) {
        auto t = parseKinetoTrace("rank0.json", *half);
        REQUIRE_FALSE(t.ok());
        CHECK_THAT(t.error().message, Catch::Contains("cut off before its baseTimeNanoseconds"));
    }
    // 2025 layout (NCCL 2.27 on B200): the base comes first; any cut after the events begin keeps the rank.
    for (const double f : { 0.3, 0.6, 0.9, 0.999 }) {
        if (auto part = realTraceCut("TraceLens/tests/traces/b200/eager_trace.json.gz", f)) {
            auto t = parseKinetoTrace("eager_trace.json", *part);
            INFO(f << ": " << (t ? "" : t.error().format()));
            REQUIRE(t.ok());
            CHECK(t->rank == 0u);
            CHECK(t->worldSize == 8);
            CHECK(std::any_of(t->collectives.warnings.begin(), t->collectives.warnings.end(),
                [](const LoadIssue& w) { return w.message.find("the trace ends") != std::string::npos; }));
        }
    }
}

TEST_CASE("two real ranks of one job: send/recv only, no collective to join", "[core][real]")
{
    auto a = realTrace("HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz");
    auto b = realTrace("HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz");
    if (a && b) {
        CHECK(a->rank == 0u);
        CHECK(b->rank == 1u);
        CHECK(a->worldSize == 128);
        CHECK(a->collectives.p2pSkipped == 10);
        CHECK(b->collectives.p2pSkipped == 10);
        CHECK(a->collectives.entries.empty());
    }
}

TEST_CASE("traces without Seq or distributedInfo match across ranks by order (golden)", "[core][import]")
{
    TempDir tmp;
    const auto dir = tmp.str("job");
    std::filesystem::create_directories(dir);
    for (const char* f : { "rank-0.trace.json", "rank-1.trace.json" }) {
        std::filesystem::copy_file(std::string(STALLSCOPE_TEST_DATA_DIR) + "/kineto/no-seq/" + f, dir + "/" + f);
    }
    auto r = openJob(dir);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    const auto& s = *r->snapshot;
    REQUIRE(s.ranks.size() == 2);
    REQUIRE(s.collectives[0].size() == 4); // the send/recv kernel is not a collective
    REQUIRE(s.collectives[1].size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(s.collectives[0].seq[i] == s.collectives[1].seq[i]);
        CHECK(s.collectives[0].seq[i] == i + 1); // kernel start order, not file order
        CHECK(s.shapes[s.collectives[0].shape[i]].op == s.shapes[s.collectives[1].shape[i]].op);
    }
    CHECK(s.shapes[s.collectives[0].shape[1]].op == CollectiveOp::AllGather); // named by its kernel only
    CHECK(s.shapes[s.collectives[0].shape[2]].op == CollectiveOp::ReduceScatter);
    bool rankFromName = false;
    for (const auto& line : r->recognised) {
        rankFromName |= line.find("rank 1 (from the file name)") != std::string::npos
            && line.find("matched by order") != std::string::npos;
    }
    CHECK(rankFromName);
    for (const auto& w : r->warnings) {
        CHECK(w.message.find("may not start at the same collective") == std::string::npos); // the windows agree
    }
}

TEST_CASE("traces numbered by order whose windows do not line up are warned", "[core][import]")
{
    TempDir tmp;
    const auto dir = tmp.str("job");
    std::filesystem::create_directories(dir);
    const std::string data = std::string(STALLSCOPE_TEST_DATA_DIR) + "/kineto/no-seq/";
    std::filesystem::copy_file(data + "rank-0.trace.json", dir + "/rank-0.trace.json");
    // Rank 1's first kernel (an all-reduce) moves to the end of its window: its order no longer matches rank 0's.
    auto text = readFile(data + "rank-1.trace.json");
    const auto at = text.find("\"ts\": 1000.8");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("\"ts\": 1000.8").size(), "\"ts\": 99999.0");
    std::ofstream(dir + "/rank-1.trace.json") << text;
    auto r = openJob(dir);
    REQUIRE(r.ok());
    bool warned = false;
    for (const auto& w : r->warnings) {
        warned |= w.message.find("may not start at the same collective") != std::string::npos;
    }
    CHECK(warned);
}

namespace {

std::optional<ExpositionSample> sampleOf(
    const ExpositionFile& f, std::uint64_t guid, std::uint16_t port, CounterKind kind)
{
    for (std::size_t i = 0; i < f.points.size(); ++i) {
        if (const auto s = f.sample(i); s.guid == guid && s.port == port && s.kind == kind) {
            return s;
        }
    }
    return std::nullopt;
}

} // namespace

TEST_CASE("the switch exporter's own expected scrape, lines indented with tabs, gives its counters", "[core][real]")
{
    const auto path
        = kReal / "infiniband_exporter/expected_exposition_from_tests/switch_test.TestSwitchCollector.expected.prom";
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return;
    }
    FabricBuilder fabric;
    auto f = readPrometheusExposition(path.string(), readFile(path.string()), fabric);
    INFO((f ? "" : f.error().format()));
    REQUIRE(f.ok());
    CHECK(f->fabricSeries == 30);
    CHECK(f->infoSeries == 6);
    const auto downed = sampleOf(f.value(), 0x506b4b03005c2740ull, 1, CounterKind::LinkDowned);
    REQUIRE(downed);
    CHECK(downed->value == 1);
}

TEST_CASE("indented exposition lines are read (golden)", "[core][import]")
{
    FabricBuilder fabric;
    const auto path = std::string(STALLSCOPE_TEST_DATA_DIR) + "/prometheus/treydock-indented.prom";
    auto f = readPrometheusExposition(path, readFile(path), fabric);
    INFO((f ? "" : f.error().format()));
    REQUIRE(f.ok());
    CHECK(f->infoSeries == 1);
    const auto downed = sampleOf(f.value(), 0x248a070300f1a001ull, 7, CounterKind::LinkDowned);
    REQUIRE(downed);
    CHECK(downed->value == 3);
    const auto wait = sampleOf(f.value(), 0x248a070300f1a001ull, 7, CounterKind::PortXmitWait);
    REQUIRE(wait);
    CHECK(wait->value == 915);
}

namespace {

// The topology of a real ibnetdiscover capture, in a snapshot of its own; nullopt when absent.
std::optional<JobSnapshot> realTopology(const std::string& rel)
{
    const auto path = kReal / rel;
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return std::nullopt;
    }
    JobSnapshot snap;
    auto r = parseIbnetdiscover(path.string(), readFile(path), snap.strings);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    snap.topology = std::move(r->topology);
    return snap;
}

} // namespace

TEST_CASE("a real fabric's link trained at 1x among 4x links is named degraded", "[core][real][analysis]")
{
    // junousi/ibtopotool's 1.topo (2007, Voltaire ISR9024 + SW-6IB4, SDR): two links report 1xSDR from one
    // end and 4xSDR from the other, among 4xSDR links.
    const auto snap = realTopology("ibnetdiscover-topologies/junousi-ibtopotool/tests/1.topo");
    if (!snap) {
        return;
    }
    // Five CA ports (four CAs, all described "MT23108 InfiniHost Mellanox Technologies") and two switch links.
    CHECK(snap->topology.links().size() == 7);
    CHECK(snap->topology.hcaCount() == 4);
    const auto found = degradedLinks(*snap);
    REQUIRE(found.size() == 2);
    std::set<std::string> names;
    for (const auto& d : found) {
        CHECK(d.gbps == Approx(2.0)); // 1 lane of SDR: 2.5 GBd, 8b/10b
        CHECK(d.usualGbps == Approx(8.0));
        CHECK(d.endsDisagree);
        CHECK_FALSE(d.jobCrosses);
        names.insert(d.a.node + ":" + std::to_string(d.a.port) + "-" + d.b.node + ":" + std::to_string(d.b.port));
    }
    CHECK(names
        == std::set<std::string> { "MT23108 InfiniHost Mellanox Technologies:1-ISR9024 Voltaire:12",
            "SW-6IB4 Voltaire:1-ISR9024 Voltaire:10" });
}

TEST_CASE("real fabrics with every link at its tier's rate name no degraded link", "[core][real][analysis]")
{
    // A 3-level k=4 fat tree, all 4xEDR; a production fabric mixing 4xQDR hosts and 4xFDR switches; more.
    for (const char* rel : { "ibnetdiscover-topologies/cyberang3l-InfiniBand-Graphviz-ualization/k-4-n-3-Full.topo",
             "ibnetdiscover-topologies/loginoff-infiniband_topology/topo",
             "ibnetdiscover-topologies/junousi-ibtopotool/tests/2.topo",
             "ibnetdiscover-topologies/junousi-ibtopotool/tests/3.topo" }) {
        INFO(rel);
        const auto snap = realTopology(rel);
        if (!snap) {
            continue;
        }
        REQUIRE(snap->topology.links().size() > 0);
        for (const auto& d : degradedLinks(*snap)) {
            FAIL_CHECK(d.a.node << " <-> " << d.b.node << " at " << d.rate << " vs " << d.usual);
        }
    }
}

TEST_CASE("a real three-level fat tree gets three switch tiers", "[core][real][import]")
{
    // cyberang3l's k-4-n-3-Full.topo: 128 CAs under 32 leaves, 32 middle switches, 16 at the top.
    const auto snap
        = realTopology("ibnetdiscover-topologies/cyberang3l-InfiniBand-Graphviz-ualization/k-4-n-3-Full.topo");
    if (!snap) {
        return;
    }
    std::map<int, int> perTier;
    for (const auto& n : snap->topology.nodes()) {
        ++perTier[n.tier];
    }
    CHECK(perTier == std::map<int, int> { { 0, 128 }, { 1, 32 }, { 2, 32 }, { 3, 16 } });
    // Every switch link joins adjacent tiers.
    for (const auto& l : snap->topology.links()) {
        const auto ta = snap->topology.node(l.a.node).tier, tb = snap->topology.node(l.b.node).tier;
        CHECK(std::abs(int(ta) - int(tb)) == 1);
    }
}

TEST_CASE("prometheus-api-client's stored results (bare arrays of `up`) read, and say they hold no IB counter",
    "[core][real][import]")
{
    const auto path = kReal
        / "prometheus-api-client-python/tests/metrics/"
          "prometheus-route-aiops-prod-prometheus-predict.cloud.paas.psi.redhat.com/up/20190728/201907281200.json";
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return;
    }
    const auto text = readFile(path);
    CHECK(looksLikePrometheusMatrix(text));
    auto m = parsePrometheusMatrix(path.string(), text);
    INFO((m ? "" : m.error().format()));
    REQUIRE(m.ok());
    CHECK(m->series.empty());
    REQUIRE(m->warnings.size() == 9); // nine `up` series, each named as not an InfiniBand counter
    CHECK(m->warnings[0].message.find("\"up\" is not an InfiniBand port counter") != std::string::npos);
    CHECK(groupIssues(m->warnings).size() == 1); // shown as one line
}

TEST_CASE("bare result arrays and instant-query vectors give their counters (golden)", "[core][import]")
{
    const std::string bare = readFile(std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "prometheus/bare-array.json");
    CHECK(looksLikePrometheusMatrix(bare));
    auto m = parsePrometheusMatrix("bare-array.json", bare);
    REQUIRE(m.ok());
    REQUIRE(m->series.size() == 2);
    CHECK(m->series[0].host == "gpu-a017");
    CHECK(m->series[0].values == std::vector<std::uint64_t> { 2, 2, 3 });
    CHECK(m->series[1].values == std::vector<std::uint64_t> { 1000, 2000, 2000 }); // bytes back to 4-byte words
    CHECK(m->warnings.size() == 1); // `up`
    const std::string vec
        = readFile(std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "prometheus/instant-vector.json");
    CHECK(looksLikePrometheusMatrix(vec));
    auto v = parsePrometheusMatrix("instant-vector.json", vec);
    REQUIRE(v.ok());
    REQUIRE(v->series.size() == 2);
    CHECK(v->series[0].timesNs == std::vector<TimeNs> { 1793491500250000000 });
    CHECK(v->series[1].kind == CounterKind::SymbolError);
    CHECK(v->series[1].values == std::vector<std::uint64_t> { 120 });
}

TEST_CASE("node_exporter's own fixture: port states read, all up, no event", "[core][real][import]")
{
    const auto path = kReal / "node_exporter/e2e-output.txt";
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return;
    }
    FabricBuilder fabric;
    auto r = readPrometheusExposition(path.string(), readFile(path), fabric);
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    REQUIRE(r->states.size() >= 6); // state_id and physical_state_id of i40iw0, mlx4_0 ports 1 and 2
    for (const auto& s : r->states) {
        CHECK(s.up); // the fixture's ports are ACTIVE / LinkUp
    }
}

TEST_CASE("real scrapes read in pieces give what reading them whole gives", "[core][real][import][spill]")
{
    // Every real exposition the captures hold, each alone in a folder, opened whole and with every line a piece
    // (as files of 256 MiB and more are read): the same counters, fabric, states and warnings.
    std::vector<std::filesystem::path> files;
    for (const auto* dir : { "infiniband_exporter/expected_exposition_from_tests", "guilbaults-infiniband-exporter" }) {
        if (std::filesystem::exists(kReal / dir)) {
            for (const auto& e : std::filesystem::directory_iterator(kReal / dir)) {
                if (e.path().extension() == ".prom") {
                    files.push_back(e.path());
                }
            }
        }
    }
    files.push_back(kReal / "node_exporter/e2e-output.txt");
    if (!std::filesystem::exists(files.back())) {
        WARN("real captures under " << kReal << " are absent: skipped");
        return;
    }
    ScratchPolicy pieces;
    pieces.streamFromBytes = 1;
    pieces.pieceBytes = 1;
    std::size_t withCounters = 0;
    for (const auto& f : files) {
        INFO(f);
        TempDir tmp;
        std::filesystem::copy_file(f, tmp.path() / f.filename()); // a scratch copy, for a folder of one file
        NullProgress none;
        auto whole = openJob(tmp.str());
        auto piecewise = openJob(tmp.str(), none, pieces);
        REQUIRE(whole.ok() == piecewise.ok());
        if (!whole) {
            CHECK(whole.error().message == piecewise.error().message);
            continue;
        }
        withCounters += !whole->snapshot->counters.empty();
        CHECK(sameCounterSeries(*whole->snapshot, *piecewise->snapshot));
        CHECK(whole->snapshot->topology.nodes().size() == piecewise->snapshot->topology.nodes().size());
        CHECK(whole->snapshot->linkEvents.size() == piecewise->snapshot->linkEvents.size());
        CHECK(whole->warnings.size() == piecewise->warnings.size());
    }
    CHECK(withCounters >= 5);
}

namespace {

// The ranks of a real NCCL_DEBUG log, split by process and read; empty (with a message) when the capture is absent.
std::map<std::uint32_t, RankLogFacts> realNcclLog(const std::string& rel)
{
    std::map<std::uint32_t, RankLogFacts> out;
    const auto path = kReal / rel;
    if (!std::filesystem::exists(path)) {
        WARN("real capture " << path << " is absent: skipped");
        return out;
    }
    const auto text = readFile(path.string());
    for (const auto& part : splitByRankPrefix(text)) {
        auto f = parseRankLog(path.string(), part.text);
        REQUIRE(f.ok());
        REQUIRE(f->rank);
        CHECK_FALSE(out.count(*f->rank));
        out[*f->rank] = std::move(f.value());
    }
    return out;
}

} // namespace

TEST_CASE("real NCCL logs: two processes written into one file mid-line, one process driving two GPUs", "[core][real]")
{
    // RADDet: two ranks on host ljm over sockets ("NET/IB : No device found"), their writes interleaved inside
    // physical lines; each rank's "Init COMPLETE" line still reads whole once the line is cut at the other's prefix.
    auto raddet = realNcclLog("nccl-logs/1602615899-RADDet/nccl_debug.log");
    if (!raddet.empty()) {
        REQUIRE(raddet.size() == 2);
        for (std::uint32_t r : { 0u, 1u }) {
            CHECK(raddet[r].host == "ljm");
            CHECK(raddet[r].cudaDev == int(r));
            CHECK(raddet[r].hcas.empty());
            if (r == 1) { // the file holds only rank 1's "NET/IB : No device found." and NET/Socket lines (#40)
                CHECK(raddet[r].noIbDevice);
                CHECK(raddet[r].transport == "Socket");
            }
            REQUIRE(raddet[r].events.size() == 1); // its init, nothing wrong
            CHECK(raddet[r].events[0].kind == LogEventKind::Init);
            CHECK(raddet[r].events[0].nranks == 2);
        }
    }
    // nccl-tests all_reduce_perf -g 2 on mew0, NCCL 2.27.7: one pid, GPUs 0 and 1 are ranks 0 and 1 of a 2-rank
    // communicator over two RoCE HCAs.
    auto timez = realNcclLog("nccl-logs/Timez-zx-nccl-tests/nccl.log");
    if (!timez.empty()) {
        REQUIRE(timez.size() == 2);
        for (std::uint32_t r : { 0u, 1u }) {
            CHECK(timez[r].host == "mew0");
            CHECK(timez[r].cudaDev == int(r));
            CHECK(timez[r].hcas == std::vector<std::string> { "mlx5_0", "mlx5_1" });
            CHECK(timez[r].transport == "RoCE");
            REQUIRE(timez[r].events.size() == 1); // a clean run: its init, no WARN line
            CHECK(timez[r].events[0].kind == LogEventKind::Init);
            CHECK(timez[r].warnings.empty());
        }
    }
}

namespace {

// A folder holding links to the real captures at `rels` (never copies), opened as a job; nullopt with a message
// when the captures are absent.
std::optional<LoadedJob> realFolder(const TempDir& tmp, const std::string& name, const std::vector<std::string>& rels)
{
    const auto dir = tmp.path() / name;
    std::filesystem::create_directories(dir);
    for (const auto& rel : rels) {
        if (!std::filesystem::exists(kReal / rel)) {
            WARN("real capture " << kReal / rel << " is absent: skipped");
            return std::nullopt;
        }
        std::filesystem::create_symlink(kReal / rel, dir / std::filesystem::path(rel).filename());
    }
    auto job = openJob(dir.string());
    INFO((job ? "" : job.error().format()));
    REQUIRE(job.ok());
    return std::move(job.value());
}

std::string warningsOf(const LoadedJob& job)
{
    std::string all;
    for (const auto& w : job.warnings) {
        all += w.file + ": " + w.message + "\n";
    }
    return all;
}

} // namespace

TEST_CASE("real single-rank traces of larger jobs open as partial jobs and say what each holds", "[core][real][partial]")
{
    TempDir tmp;
    // Rank 0 of 8 on B200: one all-gather. Its row is recorded, the other seven are unknown, nothing is a stall.
    if (auto job = realFolder(tmp, "b200", { "TraceLens/tests/traces/b200/eager_trace.json.gz" })) {
        const auto& snap = *job->snapshot;
        CHECK(snap.job.worldSize == 8);
        CHECK(snap.collectives[0].size() == 1);
        CHECK(snap.collectiveCount() == 1);
        CHECK_THAT(warningsOf(*job), Catch::Contains("no collective record for 7 of 8 ranks: 1..7"));
        const auto r = analyze(snap);
        CHECK(r.incidents.empty());
        CHECK_THAT(analysisText(snap, r), Catch::Contains("No job-wide stall, hang or straggler found."));
    }
    // Rank 0 of 16, and ranks 0 and 1 of 128: pipeline send/recv only. The file is named with why its rank has no
    // row, and the analysis says it had nothing to look in rather than calling the job healthy.
    struct Folder
    {
        std::string name;
        std::vector<std::string> rels;
        std::uint32_t world;
    };
    const std::vector<Folder> p2p = {
        { "sixteen", { "HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz" }, 16 },
        { "sampled",
            { "HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
                "HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz" },
            128 },
    };
    for (const auto& [name, rels, world] : p2p) {
        if (auto job = realFolder(tmp, name, rels)) {
            INFO(name);
            CHECK(job->snapshot->job.worldSize == world);
            const auto said = warningsOf(*job);
            CHECK_THAT(said,
                Catch::Contains(std::filesystem::path(rels[0]).filename().string())
                    && Catch::Contains("rank 0's trace holds send/recv only"));
            CHECK(job->snapshot->collectiveCount() == 0);
            const auto r = analyze(*job->snapshot);
            CHECK(r.incidents.empty());
            CHECK_THAT(analysisText(*job->snapshot, r), Catch::Contains("Nothing to find a stall in"));
        }
    }
    // Rank 34 of 300, a CPU-only trace: no NCCL kernel, said so by the file.
    if (auto job = realFolder(
            tmp, "cpu", { "HolisticTraceAnalysis/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" })) {
        CHECK(job->snapshot->job.worldSize == 300);
        CHECK_THAT(warningsOf(*job), Catch::Contains("rank 34's trace has no NCCL kernel"));
    }
}
