// SPDX-License-Identifier: MIT
// NCCL's own reports joining the folder's facts (docs/formats.md §7): Inspector processes become ranks whose
// collectives join the profiler traces; RAS facts become notes about ranks and processes.
#include "import/folder/gathered.h"

#include "core/checked_math.h"
#include "core/time_format.h"

#include <algorithm>
#include <set>

namespace stallscope::folder {

namespace {

// Dumps further apart than this make a poor clock: a record is placed at its dump's time, so its completion is
// known only to lie within the interval before it.
constexpr TimeNs kCoarseDumpNs = kNsPerSec;

struct Placed
{
    std::size_t file = 0;
    std::uint32_t rank = 0;
};

// The world communicator: the largest one, and among equals the one most files took part in. Its rank numbers
// are the job's global ranks (PyTorch's default group and NCCL's first communicator number ranks that way).
std::string worldComm(const Gathered& g, std::uint32_t& size)
{
    std::map<std::string, std::pair<std::uint32_t, std::size_t>> comms; // id → (size, files)
    for (const auto& [file, f] : g.inspector) {
        for (const auto& c : f.comms) {
            auto& [sz, n] = comms[c.id];
            sz = std::max(sz, c.size);
            ++n;
        }
    }
    std::string best;
    size = 0;
    std::size_t files = 0;
    for (const auto& [id, sn] : comms) {
        if (sn.first > size || (sn.first == size && sn.second > files)) {
            best = id;
            size = sn.first;
            files = sn.second;
        }
    }
    return best;
}

// How a file's records are placed on the clock: "verbose" (kernel times), "dumps" (each at its dump's time,
// `intervalNs` the finest gap between dumps) or "untimed" (every record written by one dump: at teardown).
struct Clocking
{
    enum { Verbose, Dumps, Untimed } how = Dumps;
    TimeNs intervalNs = 0;
};

Clocking clockingOf(const InspectorFile& f)
{
    if (f.verbose > 0 && f.verbose == f.records.size()) {
        return { Clocking::Verbose, 0 };
    }
    std::vector<TimeNs> dumps;
    for (const auto& r : f.records) {
        if (r.dumpNs != kNoTime && (dumps.empty() || dumps.back() != r.dumpNs)) {
            dumps.push_back(r.dumpNs);
        }
    }
    std::sort(dumps.begin(), dumps.end());
    dumps.erase(std::unique(dumps.begin(), dumps.end()), dumps.end());
    if (dumps.size() < 2) {
        return { f.records.size() > 1 ? Clocking::Untimed : Clocking::Dumps, 0 };
    }
    TimeNs finest = dumps[1] - dumps[0];
    for (std::size_t i = 2; i < dumps.size(); ++i) {
        finest = std::min(finest, dumps[i] - dumps[i - 1]);
    }
    return { Clocking::Dumps, finest };
}

// One record's times: kernel times when verbose, else ending at its dump (an upper bound).
bool timesOf(const InspectorRecord& r, const Clocking& c, RankRecord& e)
{
    if (r.startNs != kNoTime && r.endNs != kNoTime) {
        e.enqueueNs = r.enqueueNs != kNoTime ? std::min(r.enqueueNs, r.startNs) : r.startNs;
        e.startNs = r.startNs;
        e.endNs = r.endNs;
        return true;
    }
    if (c.how == Clocking::Untimed || r.dumpNs == kNoTime) {
        return false;
    }
    const auto dur = checkedMul(r.execUs, std::int64_t { 1000 });
    const auto start = dur ? checkedAdd(r.dumpNs, -*dur) : std::nullopt;
    if (!start) {
        return false;
    }
    e.enqueueNs = e.startNs = *start;
    e.endNs = r.dumpNs;
    return true;
}

} // namespace

void joinInspector(Gathered& g)
{
    if (g.inspector.empty()) {
        return;
    }
    std::uint32_t worldSize = 0;
    const auto world = worldComm(g, worldSize);
    // Each process's global rank, and each communicator's members.
    std::vector<Placed> placed;
    std::map<std::uint32_t, std::string> byRank;
    std::map<std::string, std::set<std::uint32_t>> members;
    for (std::size_t i = 0; i < g.inspector.size(); ++i) {
        const auto& [file, f] = g.inspector[i];
        const auto w = std::find_if(f.comms.begin(), f.comms.end(), [&](const auto& c) { return c.id == world; });
        if (w == f.comms.end()) {
            g.warnings.push_back({ file, 0, -1,
                "NCCL Inspector log of " + f.host + " pid " + std::to_string(f.pid) + " has no collective of the "
                    + std::to_string(worldSize) + "-rank communicator " + world
                    + ", so its global rank is unknown: left out" });
            continue;
        }
        if (auto [it, fresh] = byRank.emplace(w->rank, file); !fresh) {
            g.warnings.push_back({ file, 0, -1,
                "a second NCCL Inspector log of rank " + std::to_string(w->rank) + " (the first is " + it->second
                    + "): this one is left out" });
            continue;
        }
        placed.push_back({ i, w->rank });
        if (auto& o = g.mapping.ranks[w->rank]; o.host.empty()) {
            o.host = f.host; // the log names its host; a mapping file's placement wins
        }
        for (const auto& c : f.comms) {
            members[c.id].insert(w->rank);
        }
    }
    // Sequence numbers: NCCL numbers each communicator's collectives per operation type, so (comm, op, sn) is the
    // same collective on every rank; ordered by their earliest time over the ranks, numbered 1, 2, … per comm.
    std::map<std::string, std::map<std::pair<int, std::uint64_t>, TimeNs>> keys;
    std::vector<Clocking> clocking(g.inspector.size());
    for (const auto& p : placed) {
        const auto& f = g.inspector[p.file].second;
        clocking[p.file] = clockingOf(f);
        for (const auto& r : f.records) {
            RankRecord e;
            if (!timesOf(r, clocking[p.file], e)) {
                continue;
            }
            auto [it, fresh] = keys[f.comms[r.comm].id].try_emplace({ static_cast<int>(r.op), r.sn }, e.startNs);
            it->second = fresh ? e.startNs : std::min(it->second, e.startNs);
        }
    }
    std::map<std::string, std::map<std::pair<int, std::uint64_t>, std::uint32_t>> seqOf;
    for (auto& [comm, k] : keys) {
        std::vector<std::pair<TimeNs, std::pair<int, std::uint64_t>>> order;
        for (const auto& [key, t] : k) {
            order.push_back({ t, key });
        }
        std::sort(order.begin(), order.end());
        auto& s = seqOf[comm];
        for (std::size_t i = 0; i < order.size(); ++i) {
            s[order[i].second] = static_cast<std::uint32_t>(std::min<std::size_t>(i + 1, UINT32_MAX));
        }
    }
    for (const auto& p : placed) {
        auto& [file, f] = g.inspector[p.file];
        RankRecords rr;
        rr.rank = p.rank;
        rr.version = "inspector";
        for (const auto& c : f.comms) {
            const auto& m = members[c.id];
            rr.groups[c.id] = { c.name, std::vector<std::uint32_t>(m.begin(), m.end()) };
        }
        std::size_t untimed = 0;
        for (const auto& r : f.records) {
            RankRecord e;
            if (!timesOf(r, clocking[p.file], e)) {
                ++untimed;
                continue;
            }
            e.pg = f.comms[r.comm].id;
            e.seq = seqOf[e.pg][{ static_cast<int>(r.op), r.sn }];
            e.op = r.op;
            e.bytes = r.bytes;
            e.state = CollectiveState::Completed;
            rr.entries.push_back(std::move(e));
        }
        const auto& c = clocking[p.file];
        if (untimed > 0) {
            g.warnings.push_back({ file, 0, -1,
                std::to_string(untimed) + " of " + std::to_string(f.records.size())
                    + " collectives carry no time of their own and were all written at once (at teardown: "
                      "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS unset), so they are left off the timeline" });
        } else if (c.how == Clocking::Dumps && c.intervalNs > kCoarseDumpNs) {
            g.warnings.push_back({ file, 0, -1,
                "collectives are placed at the time their line was written; dumps here are at least "
                    + formatDuration(c.intervalNs) + " apart, so each one ended up to that long before its place" });
        }
        std::sort(rr.entries.begin(), rr.entries.end(),
            [](const RankRecord& a, const RankRecord& b) { return a.startNs < b.startNs; });
        g.worldHint = std::max(g.worldHint, worldSize);
        g.traces.emplace_back(file, std::move(rr));
    }
    g.inspector.clear();
}

void addRasNotes(JobSnapshot& snap, const Gathered& g)
{
    const auto source = snap.strings.intern("nccl ras");
    const auto world = snap.job.worldSize;
    for (const auto& [file, report] : g.ras) {
        // A process RAS names by host and pid is the rank it held in a world-sized communicator of this report.
        // Only ranks the job has: a communicator of the world's size may still list a rank past it (a damaged
        // line), and the note below reads the ranks' array at it.
        auto inWorld = [&](const RasFact& f) {
            return f.rank >= 0 && f.commSize > 0 && f.commSize == world && static_cast<std::uint64_t>(f.rank) < world
                && static_cast<std::uint64_t>(f.rank) < snap.ranks.size();
        };
        std::map<std::pair<std::string, std::int64_t>, std::uint32_t> rankOfProcess;
        for (const auto& f : report.facts) {
            if (inWorld(f) && f.pid >= 0) {
                rankOfProcess[{ f.host, f.pid }] = static_cast<std::uint32_t>(f.rank);
            }
        }
        for (const auto& f : report.facts) {
            HostNote n;
            n.timeNs = f.timeNs;
            n.host = snap.strings.intern(f.host);
            n.kind = snap.strings.intern(std::string(toString(f.kind)));
            n.code = f.ops;
            n.text = snap.strings.intern(f.text);
            n.source = source;
            if (inWorld(f)) {
                n.rank = static_cast<std::uint32_t>(f.rank);
            } else if (auto it = rankOfProcess.find({ f.host, f.pid }); it != rankOfProcess.end()) {
                n.rank = it->second;
            }
            // RAS names nodes by address; the job knows the rank's host by name (the text keeps the address).
            if (n.rank != kNoRank && !snap.str(snap.ranks[n.rank].host).empty()) {
                n.host = snap.ranks[n.rank].host;
            }
            snap.notes.push_back(n);
        }
    }
}

} // namespace stallscope::folder
