// SPDX-License-Identifier: MIT
// NCCL's reports (Inspector logs, RAS output) into a raw folder's facts.
#include "import/nccl/nccl_glue.h"

namespace stallscope {

namespace {

LogClock rasClock(const LogClock& logsClock, const std::map<std::string, TimeNs>& timeZones)
{
    auto clock = logsClock;
    if (const auto it = timeZones.find("ras"); it != timeZones.end()) {
        clock.utcOffsetNs = it->second;
    }
    return clock;
}

std::optional<LoadIssue> addRasReport(FileInput& in, FolderSink& sink, RasReports& ras, Result<RasReport> r)
{
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    const auto said = countsByKind(r->facts);
    const bool monitor = r->form.rfind("monitor", 0) == 0;
    sink.note(in.path, monitor ? "NCCL RAS monitor log" : "NCCL RAS status",
        (r->form.find("JSON") != std::string::npos ? "JSON, " : "")
            + (r->ncclVersion.empty() ? std::string() : "NCCL " + r->ncclVersion + ", ")
            + (r->processes ? std::to_string(r->processes) + " processes on " + std::to_string(r->nodes) + " nodes, "
                            : std::string())
            + (r->communicators ? std::to_string(r->communicators) + " communicators, " : std::string())
            + (said.empty() ? "nothing wrong reported" : said));
    ras.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

} // namespace

std::any parseInspector(const std::string& file, const std::string& text, const WarningHold& hold)
{
    return held(parseNcclInspector(file, text), file, hold);
}

std::optional<LoadIssue> addInspector(
    FileInput& in, FolderSink& sink, std::vector<std::pair<std::string, InspectorFile>>& inspector)
{
    auto& f = std::any_cast<Result<InspectorFile>&>(in.parsed);
    if (!f) {
        return f.error();
    }
    sink.warn(f->warnings);
    std::string comms;
    for (const auto& c : f->comms) {
        if (comms.size() < 120) {
            comms += (comms.empty() ? "" : ", ") + c.name + " (rank " + std::to_string(c.rank) + " of "
                + std::to_string(c.size) + ")";
        }
    }
    sink.note(in.path, "NCCL Inspector log",
        f->host + " pid " + std::to_string(f->pid) + ", " + std::to_string(f->records.size()) + " collectives in "
            + std::to_string(f->comms.size()) + " communicators: " + comms
            + (f->verbose ? ", with kernel times" : ", times of writing only")
            + (f->p2p ? ", " + std::to_string(f->p2p) + " send/recv skipped" : std::string()));
    inspector.emplace_back(in.path.string(), std::move(f.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addRasText(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, RasReports& ras)
{
    return addRasReport(in, sink, ras, parseRasText(in.path.string(), in.text, rasClock(logsClock, timeZones)));
}

std::optional<LoadIssue> addRasJson(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, RasReports& ras)
{
    return addRasReport(in, sink, ras, parseRasJson(in.path.string(), in.text, rasClock(logsClock, timeZones)));
}

} // namespace stallscope
