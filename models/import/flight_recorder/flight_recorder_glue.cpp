// SPDX-License-Identifier: MIT
// Flight Recorder dumps into a raw folder's facts.
#include "import/flight_recorder/flight_recorder_glue.h"

#include "import/flight_recorder/flight_recorder.h"

namespace stallscope {

namespace {

// "; pg 0: last completed 1841, started 1842, enqueued 1843" — where each group stood when the dump was taken.
std::string statusNote(const RankRecords& d)
{
    std::string out;
    for (const auto& [pg, st] : d.pgStatus) {
        out += "; pg " + pg + ": last completed " + std::to_string(st.lastCompleted) + ", started "
            + std::to_string(st.lastStarted) + ", enqueued " + std::to_string(st.lastEnqueued);
        if (out.size() > 200) {
            break;
        }
    }
    return out;
}

std::optional<LoadIssue> addDump(FileInput& in, FolderSink& sink, RankRecordFiles& dumps, const char* what)
{
    auto& d = std::any_cast<Result<RankRecords>&>(in.parsed);
    if (!d) {
        sink.warnings.push_back({ d.error().file, d.error().line, d.error().offset,
            d.error().message + " (this rank's dump is left out)" });
        return std::nullopt;
    }
    if (!d->rank) {
        sink.warnings.push_back(
            { in.path.string(), 0, -1, "Flight Recorder dump without a rank in its name: skipped" });
        return std::nullopt;
    }
    if (const auto bad = outsideAnyJob(*d->rank, in.path.string())) {
        return bad;
    }
    dropRanksOutsideAnyJob(d->groups, in.path.string(), sink.warnings);
    sink.warn(d->warnings);
    warnNothingJoinable(in.path.string(), *d->rank, d.value(), 0, false, sink.warnings);
    sink.note(in.path, what,
        "rank " + std::to_string(*d->rank) + ", version " + d->version + ", " + std::to_string(d->entries.size())
            + " collectives" + statusNote(d.value()));
    dumps.emplace_back(in.path.string(), std::move(d.value()));
    return std::nullopt;
}

} // namespace

std::any parsePickleDump(const std::string& file, const std::string& text, const WarningHold& hold)
{
    return held(parseFlightRecorderPickle(file, text), file, hold);
}

std::any parseJsonDump(const std::string& file, const std::string& text, const WarningHold& hold)
{
    return held(parseFlightRecorderJson(file, text), file, hold);
}

std::optional<LoadIssue> addPickleDump(FileInput& in, FolderSink& sink, RankRecordFiles& dumps)
{
    return addDump(in, sink, dumps, "Flight Recorder pickle dump");
}

std::optional<LoadIssue> addJsonDump(FileInput& in, FolderSink& sink, RankRecordFiles& dumps)
{
    return addDump(in, sink, dumps, "Flight Recorder JSON dump");
}

bool looksLikePickleDumpText(const std::string& text)
{
    return looksLikeFlightRecorderPickle(text);
}

} // namespace stallscope
