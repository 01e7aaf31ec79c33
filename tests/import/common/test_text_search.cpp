// SPDX-License-Identifier: MIT
// findText (import/common/line_scan.h), the whole-file search every recogniser uses: the same answer as
// std::string_view::find at every offset, needle length and alignment, including needles with blanks at either
// end (its filter skips them) and matches in the last bytes the vector loop leaves to the scalar tail.
#include "import/common/line_scan.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using namespace stallscope;

TEST_CASE("findText finds what std::string_view::find finds", "[text-search]")
{
    std::mt19937 rng(7);
    // A small alphabet so partial matches are everywhere, and blanks so the probe's choice matters.
    const std::string alphabet = "NCL IFOW ";
    for (int round = 0; round < 3000; ++round) {
        std::string text(rng() % 200, ' ');
        for (auto& c : text) {
            c = alphabet[rng() % alphabet.size()];
        }
        std::string needle(1 + rng() % 12, ' ');
        for (auto& c : needle) {
            c = alphabet[rng() % alphabet.size()];
        }
        if (!text.empty() && rng() % 2 == 0) { // plant it, often near the end
            const auto at = text.size() - std::min(text.size(), needle.size() + rng() % 40);
            text.replace(at, std::min(needle.size(), text.size() - at), needle);
        }
        const std::string_view t(text);
        for (std::size_t from = 0; from <= text.size() + 1; from += 1 + rng() % 7) {
            INFO("text \"" << text << "\" needle \"" << needle << "\" from " << from);
            REQUIRE(findText(t, needle, from) == t.find(needle, from));
        }
    }
}

TEST_CASE("findText at the edges", "[text-search]")
{
    const std::string_view log = "gpu-a017:48211:48211 [3] NCCL INFO Channel 00/0 : 0 -> 1 via NET/IB/0/GDRDMA\n";
    CHECK(findText(log, "NCCL WARN") == std::string_view::npos);
    CHECK(findText(log, " via ") == log.find(" via "));
    CHECK(findText(log, "GDRDMA\n") == log.size() - 7);
    CHECK(findText(log, "   ") == std::string_view::npos); // all blanks: the probe is the needle's one byte
    CHECK(findText(log, "") == 0);
    CHECK(findText(log, "", log.size()) == log.size());
    CHECK(findText(log, "", log.size() + 1) == std::string_view::npos);
    CHECK(findText(log, "N", 30) == log.find('N', 30));
    CHECK(findText("", "x") == std::string_view::npos);
    CHECK(findText(log, std::string(200, 'x')) == std::string_view::npos);
    const std::string big = std::string(100000, 'N') + "NCCL WARN" + std::string(31, ' ');
    CHECK(findText(big, "NCCL WARN") == 100000);
    CHECK(findText(big, "NCCL WARN", 100001) == std::string_view::npos);
}
