// SPDX-License-Identifier: MIT
// The Flight Recorder analyzer's findings (import/logs/fr_trace_text.h) as the snapshot's log facts. They name ranks
// that never joined a collective or disagree about it: a folder holding only the analyzer's output is a job of at
// least the ranks it names (logs_job.cpp asks analyzerWorld).
#include "import/folder/gathered.h"

#include <algorithm>

namespace stallscope::folder {

std::uint32_t analyzerWorld(const Gathered& g)
{
    std::uint32_t world = 0;
    for (const auto& [file, t] : g.frTrace) {
        if (t.topRank) { // below JobInfo::kMaxWorldSize: the reader left larger ranks out
            world = std::max(world, *t.topRank + 1);
        }
    }
    return world;
}

void addAnalyzerFacts(JobSnapshot& snap, const Gathered& g)
{
    const auto world = snap.job.worldSize;
    for (const auto& [file, t] : g.frTrace) {
        const auto fileId = snap.strings.intern(g.shown(file));
        for (const auto& f : t.facts) {
            LogFact x;
            x.kind = f.kind;
            x.rank = f.rank < world ? f.rank : kNoRank;
            x.seq = f.seq;
            x.pg = snap.strings.intern(f.pg);
            x.op = snap.strings.intern(f.op);
            x.text = snap.strings.intern(f.text);
            x.file = fileId;
            x.line = f.line;
            snap.logFacts.push_back(x); // no time: after the timed facts, as those without one are kept
        }
    }
}

} // namespace stallscope::folder
