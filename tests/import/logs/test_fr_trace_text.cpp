// SPDX-License-Identifier: MIT
// The Flight Recorder analyzer's saved output (import/logs/fr_trace_text.h): each of its record shapes in the
// newest, middle and oldest wordings, the wrappers a saved or pasted copy carries, damaged records as warnings with
// file and line, and a folder holding only that output opening as a job whose analysis names the ranks.
// Golden folder: tests/data/logs-only/fr-trace/ (our own job and values, PyTorch's wording).
#include "analysis/analysis.h"
#include "core/job_snapshot.h"
#include "import/folder/formats.h"
#include "import/logs/fr_trace_text.h"
#include "import/logs/rank_log.h"
#include "import/open_job.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace stallscope;

namespace {

const std::filesystem::path kFolder = std::filesystem::path(STALLSCOPE_TEST_DATA_DIR) / "logs-only" / "fr-trace";

FrTraceText parsed(const std::string& text)
{
    auto r = parseFrTraceText("fr.txt", text);
    INFO((r ? std::string() : r.error().format()));
    REQUIRE(r);
    return r.value();
}

std::vector<std::uint32_t> ranksOf(const FrTraceText& t, LogEventKind k)
{
    std::vector<std::uint32_t> out;
    for (const auto& f : t.facts) {
        if (f.kind == k) {
            out.push_back(f.rank);
        }
    }
    return out;
}

bool warnedAt(const FrTraceText& t, std::int64_t line, const std::string& words)
{
    return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const LoadIssue& w) {
        return w.file == "fr.txt" && w.line == line && w.message.find(words) != std::string::npos;
    });
}

const std::string kNewest = "Not all ranks joining collective, sequence number: 311\n"
                            "internal record id: 310\n"
                            "group info: 1:dp_replicate\n"
                            "collective: nccl:reduce_scatter\n"
                            "missing ranks: {2, 9, 11}\n"
                            "input sizes: [[96, 32]]\n"
                            "output sizes: [[6, 32]]\n"
                            "world size: 16\n"
                            "expected ranks: {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}\n"
                            "collective state: started\n"
                            "collective stack trace: \n"
                            " reduce_scatter_tensor at /srv/env/torch/distributed/distributed_c10d.py:4410\n"
                            "shard_grads at /srv/model/fsdp_step.py:77\n";

} // namespace

TEST_CASE("fr_trace text: a collective not every rank joined gives one fact per missing rank", "[fr_trace]")
{
    REQUIRE(looksLikeFrTraceText(kNewest));
    const auto t = parsed(kNewest);
    REQUIRE(ranksOf(t, LogEventKind::AnalyzerMissingRank) == std::vector<std::uint32_t> { 2, 9, 11 });
    const auto& f = t.facts.front();
    CHECK(f.seq == 311);
    CHECK(f.pg == "1:dp_replicate");
    CHECK(f.op == "nccl:reduce_scatter");
    CHECK(f.line == 5); // the line that names the ranks
    CHECK_THAT(f.text, Catch::Contains("started"));
    CHECK(t.topRank == 15u); // the expected ranks reach 15
    CHECK(t.warnings.empty());
}

TEST_CASE("fr_trace text: a mismatched collective gives each culprit with its error type and detail", "[fr_trace]")
{
    const std::string text
        = "Collective sequence number: 52 has errors\n"
          "internal record id: 51\n"
          "group info: 0\n"
          "collective: nccl:all_reduce\n"
          "input sizes: [[1000]]\n"
          "output sizes: [[1000]]\n"
          "world size: 4\n"
          "expected ranks: {0, 1, 2, 3}\n"
          "collective state: scheduled\n"
          "error msg: Culprit rank 3; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1000]]' does not "
          "match found input sizes: '[[999]]', Culprit rank 1; Error type: COLLECTIVE_STATE_MISMATCH, Expected state: "
          "'scheduled' does not match found state: 'completed'\n"
          "collective stack trace: \n"
          " all_reduce at /srv/env/torch/distributed/distributed_c10d.py:2950\n";
    REQUIRE(looksLikeFrTraceText(text));
    const auto t = parsed(text);
    REQUIRE(t.facts.size() == 2);
    CHECK(t.facts[0].kind == LogEventKind::AnalyzerMismatch);
    CHECK(t.facts[0].rank == 3);
    CHECK(t.facts[0].seq == 52);
    CHECK(t.facts[0].pg == "0");
    CHECK(t.facts[0].line == 10);
    CHECK(t.facts[0].text
        == "SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1000]]' does not match found input sizes: '[[999]]'");
    CHECK(t.facts[1].rank == 1);
    CHECK(t.facts[1].text.rfind("COLLECTIVE_STATE_MISMATCH, Expected state: 'scheduled'", 0) == 0);
    CHECK(t.warnings.empty());
}

TEST_CASE("fr_trace text: an all-to-all size mismatch and the ranks without a dump", "[fr_trace]")
{
    const std::string text = "Input/output mismatch in the collective sequence number: 905\n"
                             "internal record id: 904\n"
                             "group info: 3:ep_group\n"
                             "collective: nccl:all_to_all\n"
                             "total input numel: 96\n"
                             "total output numel: 88\n"
                             "input sizes: [[12, 8]]\n"
                             "output sizes: [[11, 8]]\n"
                             "world size: 2\n"
                             "expected ranks: {6, 7}\n"
                             "collective state: scheduled\n"
                             "collective stack trace: \n"
                             "\n"
                             "We cannot decide what's wrong with this collective entry because we missed FR dumps "
                             "from ranks ({1, 3}) so we don't have enough information. If you want to debug further "
                             "use -j to dump all raw trace\n";
    REQUIRE(looksLikeFrTraceText(text));
    const auto t = parsed(text);
    REQUIRE(t.facts.size() == 3);
    CHECK(t.facts[0].kind == LogEventKind::AnalyzerMismatch);
    CHECK(t.facts[0].rank == kNoRank); // fr_trace cannot tell which rank of an all-to-all is wrong
    CHECK(t.facts[0].seq == 905);
    CHECK(t.facts[0].op == "nccl:all_to_all");
    CHECK_THAT(t.facts[0].text, Catch::Contains("total input numel 96 does not match total output numel 88"));
    CHECK(ranksOf(t, LogEventKind::AnalyzerNoDump) == std::vector<std::uint32_t> { 1, 3 });
    CHECK(t.facts[1].line == 14);
    CHECK(t.topRank == 7u);

    // The line alone is recognised: it is printed with no record before it.
    CHECK(looksLikeFrTraceText(text.substr(text.find("We cannot"))));
}

TEST_CASE("fr_trace text: the middle and oldest wordings", "[fr_trace]")
{
    SECTION("seq and record id, expected ranks as a count, \"error message\"")
    {
        const std::string text = "Not all ranks joining collective 12 at entry 11\n"
                                 "group info: 0:default_pg\n"
                                 "collective: nccl:broadcast\n"
                                 "missing ranks: {1}\n"
                                 "input sizes: [[7]]\n"
                                 "output sizes: [[7]]\n"
                                 "expected ranks: 4\n"
                                 "collective state: scheduled\n"
                                 "collective stack trace: \n"
                                 "[]\n"
                                 "Collective 14 at entry 13 errors\n"
                                 "group info: 0:default_pg\n"
                                 "collective: nccl:all_gather\n"
                                 "expected ranks: 4\n"
                                 "error message: Culprit rank 2; Error type: COLLECTIVE_DTYPE_MISMATCH, Expected "
                                 "dtypes: '{'Float'}' does not match found dtype: '{'Half'}'\n";
        REQUIRE(looksLikeFrTraceText(text));
        const auto t = parsed(text);
        REQUIRE(t.facts.size() == 2);
        CHECK(t.facts[0].kind == LogEventKind::AnalyzerMissingRank);
        CHECK(t.facts[0].rank == 1);
        CHECK(t.facts[0].seq == 12);
        CHECK(t.facts[0].op == "nccl:broadcast");
        CHECK(t.facts[1].kind == LogEventKind::AnalyzerMismatch);
        CHECK(t.facts[1].rank == 2);
        CHECK(t.facts[1].seq == 14);
        CHECK(t.facts[1].line == 15);
        CHECK(t.warnings.empty());
    }
    SECTION("\"collective: sequence number:\" (for a while, pytorch#140969)")
    {
        const auto t = parsed("Not all ranks joining collective: sequence number: 31\ninternal record id: 30\n"
                              "group info: 0:default_pg\ncollective: nccl:all_reduce\nmissing ranks: {4}\n");
        REQUIRE(t.facts.size() == 1);
        CHECK(t.facts[0].seq == 31);
        CHECK(t.facts[0].rank == 4);
    }
    SECTION("one printed line with the group, the collective and the missing ranks")
    {
        const std::string text = "Not all ranks joining collective for group 0:default_pg collective nccl:all_reduce  "
                                 "Missing ranks are {0, 2}  [[16]] [[16]] 4 scheduled  \n"
                                 "Collective stack traces: \n"
                                 "[]\n";
        REQUIRE(looksLikeFrTraceText(text));
        const auto t = parsed(text);
        CHECK(ranksOf(t, LogEventKind::AnalyzerMissingRank) == std::vector<std::uint32_t> { 0, 2 });
        CHECK(t.facts.front().seq == -1); // this wording gives none
        CHECK(t.facts.front().pg == "0:default_pg");
        CHECK(t.facts.front().op == "nccl:all_reduce");
    }
}

TEST_CASE("fr_trace text: logging prefixes, timestamps, indentation and quote markers are passed over", "[fr_trace]")
{
    std::string logged, stamped, quoted;
    std::size_t from = 0;
    for (auto nl = kNewest.find('\n'); nl != std::string::npos; from = nl + 1, nl = kNewest.find('\n', from)) {
        const auto line = kNewest.substr(from, nl - from);
        logged += "INFO:Flight Recorder:" + line + "\n";
        stamped += "2026-03-02 10:15:01,532 - INFO - " + line + "\r\n";
        quoted += ">     " + line + "\n";
    }
    for (const auto* text : { &logged, &stamped, &quoted }) {
        INFO(*text);
        REQUIRE(looksLikeFrTraceText(*text));
        const auto t = parsed(*text);
        CHECK(ranksOf(t, LogEventKind::AnalyzerMissingRank) == std::vector<std::uint32_t> { 2, 9, 11 });
        CHECK(t.facts.front().seq == 311);
        CHECK(t.facts.front().pg == "1:dp_replicate");
        CHECK(t.facts.front().op == "nccl:reduce_scatter");
        CHECK(t.warnings.empty());
    }
}

TEST_CASE("fr_trace text: damaged records are warnings naming the file and line", "[fr_trace]")
{
    const std::string text = "Not all ranks joining collective, sequence number: 40\n" // 1
                             "group info: 0\n"
                             "collective: nccl:all_reduce\n"
                             "missing ranks: {3, x}\n" // 4: not a set of ranks
                             "Not all ranks joining collective, sequence number: 41\n" // 5: no missing ranks line
                             "group info: 0\n"
                             "Collective sequence number: 42 has errors\n" // 7
                             "error msg: rank 3 did something\n" // 8: no culprit
                             "Not all ranks joining collective, sequence number: many\n" // 9
                             "missing ranks: {1, 4000000, 99999999999999999999999}\n" // 10: past any job; too long
                             "Not all ranks joining collective, sequence number: 43\n" // 11
                             "missing ranks: {5, 4000000}\n" // 12: past any job
                             "Collective sequence number: 44 has errors\n" // 13
                             "error msg: Culprit rank 7000000; Error type: COLLECTIVE_TYPE_MISMATCH\n"; // 14
    REQUIRE(looksLikeFrTraceText(text));
    const auto t = parsed(text);
    CHECK(warnedAt(t, 4, "expected a set of ranks"));
    CHECK(warnedAt(t, 5, "missing ranks"));
    CHECK(warnedAt(t, 8, "Culprit rank"));
    CHECK(warnedAt(t, 9, "expected a sequence number"));
    CHECK(warnedAt(t, 10, "line skipped")); // a number too long for any type
    CHECK(warnedAt(t, 12, "past the largest job"));
    CHECK(warnedAt(t, 14, "past the largest job"));
    // What could be read is kept: rank 5 of SeqNum 43, nothing past any job.
    CHECK(ranksOf(t, LogEventKind::AnalyzerMissingRank) == std::vector<std::uint32_t> { 5 });
    CHECK(t.topRank == 5u);

    auto none = parseFrTraceText("notes.txt", "collective: nccl:all_reduce\nmissing ranks: {1}\n");
    REQUIRE(!none);
    CHECK(none.error().file == "notes.txt");
    CHECK_THAT(none.error().message, Catch::Contains("Not all ranks joining collective"));
}

TEST_CASE("fr_trace text: recognised by its structure, not by a mention", "[fr_trace]")
{
    CHECK_FALSE(looksLikeFrTraceText("the analyzer said: Not all ranks joining collective, sequence number: 5\n"
                                     "then we restarted the job\n"));
    CHECK_FALSE(looksLikeFrTraceText(test::testData("logs/rank2.log")));
    CHECK_FALSE(looksLikeRankLog(test::readFile(kFolder / "analysis.txt")));
    // The folder's table reads the analyzer's output before it would reach the rank-log row.
    const auto* row = folder::recognise(test::readFile(kFolder / "analysis.txt"));
    REQUIRE(row);
    CHECK(std::string(row->name) == "Flight Recorder analyzer output");
}

TEST_CASE(
    "logs alone: a folder of fr_trace output opens as a job and its analysis names the ranks", "[fr_trace][logs_job]")
{
    auto job = openJob(kFolder.string());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 8); // the expected ranks name 0..7
    std::vector<const LogFact*> missing, culprits;
    for (const auto& f : snap.logFacts) {
        (f.kind == LogEventKind::AnalyzerMissingRank ? missing : culprits).push_back(&f);
    }
    REQUIRE(missing.size() == 2);
    CHECK(missing[0]->rank == 3);
    CHECK(missing[1]->rank == 5);
    CHECK(missing[0]->seq == 1207);
    CHECK(snap.str(missing[0]->pg) == "0:default_pg");
    CHECK(snap.str(missing[0]->op) == "nccl:all_reduce");
    CHECK(snap.str(missing[0]->file) == "analysis.txt");
    CHECK(missing[0]->line == 6);
    REQUIRE(culprits.size() == 1);
    CHECK(culprits[0]->kind == LogEventKind::AnalyzerMismatch);
    CHECK(culprits[0]->rank == 6);
    CHECK(culprits[0]->seq == 64);
    CHECK(culprits[0]->line == 26);
    CHECK_THAT(snap.str(culprits[0]->text), Catch::StartsWith("COLLECTIVE_TYPE_MISMATCH, Expected collective type"));

    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    const auto& s = *r.logStory;
    REQUIRE(s.analyzer.size() == 2);
    CHECK(s.analyzer[0].missing == std::vector<std::uint32_t> { 3, 5 });
    CHECK(s.analyzer[1].culprits.size() == 1);
    CHECK_THAT(s.summary,
        Catch::Contains("Flight Recorder analyzer: rank(s) 3, 5 never joined nccl:all_reduce SeqNum 1207 of group 0"));
    REQUIRE(r.incidents.size() == 1);
    CHECK(r.incidents[0].suspectRanks == std::vector<std::uint32_t> { 3, 5 });
    CHECK(r.incidents[0].missingRanks == std::vector<std::uint32_t> { 3, 5 });
    CHECK(r.incidents[0].seq == 1207);
    CHECK(r.incidents[0].op == CollectiveOp::AllReduce);

    const auto text = analysisText(snap, r);
    CHECK_THAT(text, Catch::Contains("rank(s) 3, 5 never joined  (analysis.txt:6)"));
    CHECK_THAT(text, Catch::Contains("culprit rank 6, COLLECTIVE_TYPE_MISMATCH"));
    // fr_trace prints no times: the incident says so rather than dating it at the epoch, and ranks no line placed
    // on a host are listed without an empty host.
    CHECK_THAT(text, Catch::Contains("Incident 1 — dead_rank, time unknown, 8 ranks"));
    CHECK_THAT(text, !Catch::Contains("1970") && Catch::Contains("never entered it: 3 5\n"));
    const auto json = analysisJson(snap, r);
    CHECK_THAT(json, Catch::Contains("\"fr_trace\""));
    CHECK_THAT(json, Catch::Contains("\"missing_ranks\": [\n"));
}

TEST_CASE(
    "logs alone: a job's output holding fr_trace's findings and a rank's lines gives both", "[fr_trace][logs_job]")
{
    test::TempDir tmp;
    test::writeFile(tmp.path() / "job.out",
        "[rank1]:[E0302 10:14:07.118240 4412 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1207, OpType=ALLREDUCE, NumelIn=2097152, NumelOut=2097152, Timeout(ms)=600000) ran "
        "for 600021 milliseconds before timing out.\n"
        "INFO:Flight Recorder:Not all ranks joining collective, sequence number: 1207\n"
        "INFO:Flight Recorder:group info: 0:default_pg\n"
        "INFO:Flight Recorder:collective: nccl:all_reduce\n"
        "INFO:Flight Recorder:missing ranks: {2}\n"
        "INFO:Flight Recorder:expected ranks: {0, 1, 2, 3}\n");
    auto job = openJob(tmp.str());
    INFO((job ? std::string() : job.error().format()));
    REQUIRE(job);
    const auto& snap = *job->snapshot;
    CHECK(snap.job.worldSize == 4);
    const auto has = [&](LogEventKind k, std::uint32_t rank) {
        return std::any_of(snap.logFacts.begin(), snap.logFacts.end(),
            [&](const LogFact& f) { return f.kind == k && f.rank == rank; });
    };
    CHECK(has(LogEventKind::WatchdogTimeout, 1));
    CHECK(has(LogEventKind::AnalyzerMissingRank, 2));
    const auto r = analyze(snap);
    REQUIRE(r.logStory);
    REQUIRE(r.logStory->hang);
    // fr_trace's finding is no line of rank 2's own log: rank 2 is not counted among the ranks with a log.
    CHECK(r.logStory->hang->neverReached.empty());
    REQUIRE(r.incidents.size() == 1);
    CHECK(r.incidents[0].suspectRanks == std::vector<std::uint32_t> { 2 });
}
