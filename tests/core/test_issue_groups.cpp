// SPDX-License-Identifier: MIT
// Grouped warnings: one line per file and reason, with a count and the first places.
#include "core/issue_groups.h"

#include <catch2/catch.hpp>

using namespace stallscope;

TEST_CASE("warnings of one reason in one file group into a line with a count and the first lines", "[core][basics]")
{
    std::vector<LoadIssue> issues;
    for (int i = 1; i <= 40; ++i) {
        issues.push_back({ "rank-3.log", i * 2, -1, "unrecognised line skipped: garbage " + std::to_string(i) });
    }
    issues.push_back({ "rank-3.log", 90, -1, "expected a number, got \"x1\"" });
    issues.push_back({ "rank-3.log", 91, -1, "expected a number, got \"yy\"" });
    issues.push_back({ "rank-4.log", 5, -1, "unrecognised line skipped: other" });
    issues.push_back({ "fabric.net", 0, -1, "GUID 0x0c42a10300001103 is not in the topology" });
    issues.push_back({ "fabric.net", 0, -1, "GUID 0xfc6a1c0300e40300 is not in the topology" });
    issues.push_back({ "dump.bin", 0, 4096, "truncated record" });
    issues.push_back({ "dump.bin", 0, 8192, "truncated record" });
    const auto groups = groupIssues(issues, 4);
    REQUIRE(groups.size() == 5);
    CHECK(groups[0].count == 40);
    CHECK(groups[0].format()
        == "rank-3.log:2: unrecognised line skipped: garbage 1 (and 39 more like it, at lines 4, 6, 8, …)");
    CHECK(groups[1].count == 2); // the quoted particulars differ, the reason does not
    CHECK(groups[1].format() == "rank-3.log:90: expected a number, got \"x1\" (and 1 more like it, at lines 91)");
    CHECK(groups[2].file == "rank-4.log"); // another file is another group
    CHECK(groups[2].format() == "rank-4.log:5: unrecognised line skipped: other");
    CHECK(groups[3].count == 2); // GUIDs are particulars
    CHECK(groups[4].format()
        == "dump.bin (byte offset 4096): truncated record (and 1 more like it, at byte offsets 8192)");
}

TEST_CASE("a reason blanks numbers, GUIDs and quoted text, and keeps the words", "[core][basics]")
{
    CHECK(issueReason("rank 37 at line 12") == "rank # at line #");
    CHECK(issueReason("GUID 0x0c42a10300001103 is not in the topology") == "GUID # is not in the topology");
    CHECK(issueReason("bad value \"abc\" for \"port\"") == "bad value \"…\" for \"…\"");
    CHECK(issueReason("lines of rank 5 in the log of rank 3") == issueReason("lines of rank 12 in the log of rank 9"));
    CHECK(issueReason("no Seq") != issueReason("no ts"));
}

TEST_CASE("a whole-file warning of one reason in many files is one line naming the first files", "[core][basics]")
{
    // 100,000 small files no format reads gave 100,000 lines in `info` and the window's warning list.
    std::vector<LoadIssue> issues;
    for (int i = 0; i < 1000; ++i) {
        issues.push_back({ "d/f" + std::to_string(i) + ".txt", 0, -1, "not a recognised format: skipped" });
        if (i == 1) {
            issues.push_back({ "d/f1.txt", 3, -1, "unrecognised line skipped: x" }); // a line's: not merged
        }
    }
    issues.push_back({ "fr_rank_7.jsonl", 0, -1, "rank 7000000 is beyond any job" });
    issues.push_back({ "fr_rank_9.jsonl", 0, -1, "rank 9000000 is beyond any job" });
    const auto groups = groupIssues(issues, 3);
    REQUIRE(groups.size() == 3);
    CHECK(groups[0].files == 1000);
    CHECK(groups[0].count == 1000);
    CHECK(groups[0].format()
        == "d/f0.txt: not a recognised format: skipped (and 999 more files like it: d/f1.txt, d/f2.txt, d/f3.txt, …)");
    CHECK(groups[1].format() == "d/f1.txt:3: unrecognised line skipped: x");
    CHECK(groups[2].format()
        == "fr_rank_7.jsonl: rank 7000000 is beyond any job (and 1 more file like it: fr_rank_9.jsonl)");
}
