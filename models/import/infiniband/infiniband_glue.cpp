// SPDX-License-Identifier: MIT
// The InfiniBand tools' files into a raw folder's facts.
#include "import/infiniband/infiniband_glue.h"

#include "import/infiniband/ib_node_list.h"
#include "import/infiniband/ibnetdiscover.h"

#include <algorithm>

namespace stallscope {

std::optional<LoadIssue> addIbnetdiscover(FileInput& in, FolderSink& sink, FabricBuilder& fabric)
{
    const auto before = std::pair(fabric.nodeCount(), fabric.linkCount());
    auto r = readIbnetdiscover(in.path.string(), in.text, fabric, sink.warnings);
    if (!r) {
        return r.error();
    }
    sink.note(in.path, "ibnetdiscover topology",
        std::to_string(fabric.nodeCount() - before.first) + " new nodes, "
            + std::to_string(fabric.linkCount() - before.second) + " new links");
    return std::nullopt;
}

std::optional<LoadIssue> addIbNodeList(FileInput& in, FolderSink& sink, FabricBuilder& fabric)
{
    auto r = readIbNodeList(in.path.string(), in.text, fabric, sink.warnings);
    if (!r) {
        return r.error();
    }
    sink.note(in.path, "ibhosts/ibswitches node list",
        std::to_string(r->cas) + " HCAs, " + std::to_string(r->switches) + " switches"
            + (r->routers > 0 ? ", " + std::to_string(r->routers) + " routers" : std::string()) + "; no links");
    return std::nullopt;
}

std::optional<LoadIssue> addIblinkinfo(FileInput& in, FolderSink& sink, FabricBuilder& fabric,
    std::vector<std::pair<std::string, IblinkinfoSnapshot>>& linkinfo)
{
    auto r = readIblinkinfo(in.path.string(), in.text, fabric, sink.warnings);
    if (!r) {
        return r.error();
    }
    const auto down = std::count_if(r->ports.begin(), r->ports.end(), [](const auto& s) { return !s.up; });
    sink.note(in.path, "iblinkinfo", std::to_string(r->links) + " links up, " + std::to_string(down) + " ports down");
    linkinfo.emplace_back(in.path.string(), std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addPerfquery(
    FileInput& in, FolderSink& sink, std::vector<std::pair<DatedFile, std::vector<PerfquerySample>>>& perfquery)
{
    auto r = readPerfquery(in.path.string(), in.text, sink.warnings);
    if (!r) {
        return r.error();
    }
    sink.note(in.path, "perfquery counters", std::to_string(r->size()) + " values");
    perfquery.emplace_back(DatedFile { in.path.string(), modifiedNs(in.path) }, std::move(r.value()));
    return std::nullopt;
}

std::optional<LoadIssue> addCollectorCsv(FileInput& in, FolderSink& sink, std::vector<std::string>& csvs)
{
    sink.note(in.path, "counters CSV", "stallscope collect");
    csvs.push_back(in.path.string()); // read once the topology is known
    return std::nullopt;
}

std::optional<LoadIssue> addOpensmLog(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, std::vector<OpensmLog>& opensm)
{
    auto opensmClock = logsClock;
    const auto zone = timeZones.find("opensm");
    opensmClock.utcOffsetNs = zone == timeZones.end() ? 0 : zone->second;
    auto l = parseOpensmLog(in.path.string(), in.text, opensmClock);
    if (l) {
        sink.warn(l->warnings);
        sink.note(in.path, "OpenSM log",
            std::to_string(l->events.size()) + " port removals/discoveries, " + std::to_string(l->linkStateTraps)
                + " link-state traps");
        opensm.push_back(std::move(l.value()));
    }
    return std::nullopt;
}

std::optional<LoadIssue> noteIbsimNet(FileInput& in, FolderSink& sink)
{
    sink.note(in.path, "ibsim net file", "the simulator's input, not read (captures of the fabric are)");
    return std::nullopt;
}

} // namespace stallscope
