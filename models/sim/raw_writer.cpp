// SPDX-License-Identifier: MIT
#include "sim/raw_writer.h"

#include "core/atomic_file.h"
#include "core/parse_number.h"
#include "sim/raw_files.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace stallscope {

namespace fs = std::filesystem;
using namespace rawfiles;

namespace {

// srun's account of its tasks as it prints it at the end of a failed step: "srun: error: HOST: task 21: Killed",
// consecutive tasks of one host with one fate as a range ("tasks 0-3: Aborted (core dumped)").
std::string slurmOutput(const JobSnapshot& snap)
{
    struct Fate
    {
        std::string host, what;
        std::uint32_t first = 0, last = 0;
    };
    std::vector<Fate> fates;
    for (const auto& n : snap.notes) {
        if (snap.str(n.source) != "slurm" || n.rank == kNoRank) {
            continue;
        }
        const std::string text = snap.str(n.text);
        const auto colon = text.find(": ");
        const auto what = colon == std::string::npos ? text : text.substr(colon + 2);
        const std::string host = snap.str(n.host);
        if (!fates.empty() && fates.back().host == host && fates.back().what == what
            && fates.back().last + 1 == n.rank) {
            fates.back().last = n.rank;
        } else {
            fates.push_back({ host, what, n.rank, n.rank });
        }
    }
    std::string out;
    for (const auto& f : fates) {
        out += "srun: error: " + f.host + ": "
            + (f.first == f.last ? "task " + std::to_string(f.first)
                                 : "tasks " + std::to_string(f.first) + "-" + std::to_string(f.last))
            + ": " + f.what + "\n";
    }
    return out;
}

} // namespace

std::optional<std::vector<std::uint32_t>> parseRankSet(std::string_view text, std::uint32_t world)
{
    std::vector<std::uint32_t> out;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const auto piece = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        const auto dash = piece.find('-');
        const auto first = parseNumber<std::uint32_t>(piece.substr(0, dash));
        const auto last = dash == std::string_view::npos ? first : parseNumber<std::uint32_t>(piece.substr(dash + 1));
        if (!first || !last || *first > *last || *last >= world) {
            return std::nullopt;
        }
        for (auto r = *first; r <= *last; ++r) {
            out.push_back(r);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

std::set<std::string> shardHosts(const JobSnapshot& snap, std::uint32_t shard, std::uint32_t shards)
{
    std::vector<std::string> order;
    std::set<std::string> seen;
    const auto add = [&](std::string_view host) {
        if (!host.empty() && seen.insert(std::string(host)).second) {
            order.emplace_back(host);
        }
    };
    for (const auto& r : snap.ranks) {
        add(snap.str(r.host));
    }
    for (const auto& n : snap.topology.nodes()) {
        if (n.kind == NodeKind::Hca) {
            add(snap.str(n.host));
        }
    }
    std::set<std::string> out;
    const std::size_t count = std::max<std::uint32_t>(shards, 1);
    for (std::size_t i = order.size() * shard / count; i < order.size() * (shard + 1) / count; ++i) {
        out.insert(order[i]);
    }
    return out;
}

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
    const bool sharded = options.shards > 1;
    const auto hosts = sharded ? shardHosts(snap, options.shard, options.shards) : std::set<std::string> {};
    const auto* only = sharded ? &hosts : nullptr;
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        if (only && !only->count(std::string(snap.str(snap.ranks[r].host)))) {
            continue;
        }
        const auto& c = snap.collectives[r];
        const std::size_t from
            = options.frEntries == 0 || c.size() <= options.frEntries ? 0 : c.size() - options.frEntries;
        const auto thread = std::to_string(140213377414976ULL + r);
        const bool recorded = options.recordRanks.empty()
            || std::binary_search(options.recordRanks.begin(), options.recordRanks.end(), r);
        if (options.flightRecorder && recorded) {
            const auto dump = options.pickle ? pickleDump(snap, r, from, thread) : jsonDump(snap, r, from, thread);
            if (auto e = writeFileAtomic((dir / ("nccl_trace_rank_" + std::to_string(r))).string(), dump); !e.empty()) {
                return e;
            }
        }
        if (options.kineto && recorded) {
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
    const bool folderFiles = options.shard == 0;
    if (folderFiles) {
        for (const auto& [name, text] :
            { std::pair<std::string, std::string> { "ibnetdiscover.txt", ibnetdiscoverText(snap) },
                { "fabric.net", ibsimNet(snap) }, { "opensm.log", opensmLog(snap, options.logUtcOffsetNs) } }) {
            if (auto e = writeFileAtomic((dir / name).string(), text); !e.empty()) {
                return e;
            }
        }
        if (const auto srun = slurmOutput(snap); !srun.empty()) {
            if (auto e = writeFileAtomic((dir / "slurm-job.out").string(), srun); !e.empty()) {
                return e;
            }
        }
    }
    if (options.nodeFiles) {
        if (auto e = writeNodeFiles(snap, dir, options.logUtcOffsetNs, only); !e.empty()) {
            return e;
        }
    }
    return options.counters ? writeCounters(snap, dir, only, folderFiles) : std::string();
}

} // namespace stallscope
