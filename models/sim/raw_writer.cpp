// SPDX-License-Identifier: MIT
#include "sim/raw_writer.h"

#include "core/atomic_file.h"
#include "sim/raw_files.h"

#include <filesystem>
#include <map>

namespace stallscope {

namespace fs = std::filesystem;
using namespace rawfiles;

std::string writeRawFolder(const JobSnapshot& snap, const std::string& dirName, const RawWriteOptions& options)
{
    const fs::path dir(dirName);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        return dirName + ": cannot create the folder: " + ec.message();
    }
    // HCA port events of each rank's own HCA (the subnet manager's view stands in for the async event).
    std::map<std::uint64_t, std::vector<const LinkEvent*>> eventsByGuid;
    for (const auto& e : snap.linkEvents) {
        eventsByGuid[e.guid].push_back(&e);
    }
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto& c = snap.collectives[r];
        const std::size_t from
            = options.frEntries == 0 || c.size() <= options.frEntries ? 0 : c.size() - options.frEntries;
        const auto thread = std::to_string(140213377414976ULL + r);
        if (options.flightRecorder) {
            const auto dump = options.pickle ? pickleDump(snap, r, from, thread) : jsonDump(snap, r, from, thread);
            if (auto e = writeFileAtomic((dir / ("nccl_trace_rank_" + std::to_string(r))).string(), dump); !e.empty()) {
                return e;
            }
        }
        if (options.kineto) {
            const auto name = std::string(snap.str(snap.ranks[r].host)) + "_" + std::to_string(40000 + r) + "."
                + std::to_string(snap.job.span.start) + ".pt.trace.json";
            if (auto e = writeFileAtomic((dir / name).string(), kinetoTrace(snap, r, options.profilerSkewNs));
                !e.empty()) {
                return e;
            }
        }
        std::vector<const LinkEvent*> own;
        if (const auto node = snap.ranks[r].hcaNode) {
            if (auto it = eventsByGuid.find(snap.topology.node(*node).guid); it != eventsByGuid.end()) {
                own = it->second;
            }
        }
        if (auto e = writeFileAtomic(
                (dir / ("rank" + std::to_string(r) + ".log")).string(), rankLog(snap, r, own, options.logUtcOffsetNs));
            !e.empty()) {
            return e;
        }
    }
    for (const auto& [name, text] :
        { std::pair<std::string, std::string> { "ibnetdiscover.txt", ibnetdiscoverText(snap) },
            { "fabric.net", ibsimNet(snap) }, { "opensm.log", opensmLog(snap, options.logUtcOffsetNs) } }) {
        if (auto e = writeFileAtomic((dir / name).string(), text); !e.empty()) {
            return e;
        }
    }
    return writeCounters(snap, dir);
}

} // namespace stallscope
