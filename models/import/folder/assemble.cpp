// SPDX-License-Identifier: MIT
// Assembling a raw folder's snapshot from what import/folder/read.cpp gathered: ranks and records, counters, link
// events, the span.
// Over 600 lines as one file: every step turns folder::Gathered into the snapshot (raw_folder.cpp calls them in
// order), and they share the private helpers that place ranks and name runs of them.
#include "core/checked_math.h"
#include "import/common/file_bytes.h"
#include "import/folder/gathered.h"

#include "core/time_format.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace stallscope::folder {

namespace {

// Profiler traces join the dumps: a rank with a dump gains the collectives its dump no longer holds (the ring
// buffer keeps the last entries only; a profiler window is often earlier); a rank without one gets a dump made
// of its traces. Several windows of one rank merge.
void mergeTraces(Gathered& g)
{
    std::map<std::uint32_t, std::size_t> dumpOf;
    for (std::size_t i = 0; i < g.dumps.size(); ++i) {
        dumpOf[*g.dumps[i].second.rank] = i;
    }
    for (auto& [file, t] : g.traces) {
        auto it = dumpOf.find(*t.rank);
        if (it == dumpOf.end()) {
            dumpOf[*t.rank] = g.dumps.size();
            g.dumps.emplace_back(file, std::move(t));
            continue;
        }
        auto& d = g.dumps[it->second].second;
        if (t.seqFromOrder || d.seqFromOrder) {
            // Ordinals count from the start of each file: joined by (group, seq) with a dump's sequence numbers or
            // another window's ordinals they would pair unrelated collectives. The first source is kept.
            g.warnings.push_back({ file, 0, -1,
                "rank " + std::to_string(*t.rank)
                    + " has another source of collectives and this one numbers them by order (no Seq): not merged" });
            continue;
        }
        std::set<std::pair<std::string, std::uint32_t>> have;
        for (const auto& e : d.entries) {
            have.insert({ e.pg, e.seq });
        }
        for (auto& e : t.entries) {
            if (have.insert({ e.pg, e.seq }).second) {
                d.entries.push_back(std::move(e));
            }
        }
        for (auto& [name, grp] : t.groups) {
            d.groups.try_emplace(name, std::move(grp));
        }
    }
    g.traces.clear();
}

// Ranks whose traces carry no Seq were numbered by order (docs/formats.md §3d): that holds only if every rank's
// window starts at the same collective. Where the n-th collective of a group differs in operation or size
// between ranks, the numbering has drifted: warn once per rank at the first such collective.
void checkOrderAgreement(Gathered& g)
{
    struct Seen
    {
        CollectiveOp op;
        std::uint64_t bytes;
        std::uint32_t rank;
    };
    std::map<std::pair<std::string, std::uint32_t>, Seen> first;
    for (const auto& [file, d] : g.dumps) {
        if (!d.seqFromOrder) {
            continue;
        }
        for (const auto& e : d.entries) {
            const auto [it, fresh] = first.try_emplace({ e.pg, e.seq }, Seen { e.op, e.bytes, *d.rank });
            if (fresh || (it->second.op == e.op && it->second.bytes == e.bytes)) {
                continue;
            }
            g.warnings.push_back({ file, 0, -1,
                "collective #" + std::to_string(e.seq) + " of group " + e.pg + " is a " + std::string(toString(e.op))
                    + " of " + std::to_string(e.bytes) + " bytes on rank " + std::to_string(*d.rank) + " but a "
                    + std::string(toString(it->second.op)) + " of " + std::to_string(it->second.bytes)
                    + " bytes on rank " + std::to_string(it->second.rank)
                    + ": the traces (numbered by order, no Seq) may not start at the same collective, so matching "
                      "them is unreliable from here" });
            break; // once per rank
        }
    }
}

} // namespace

namespace {

// An older c10 prefix carries no time ("[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught ..."): the line is
// placed by what it names — the record of its sequence number, still open, gave up "ran for" after it was enqueued
// (PyTorch's WorkNCCL starts that clock when it is constructed, at enqueue; the kernel's start when no enqueue time).
void placeUntimedTimeout(OwnedRankColumns& col, const LogEvent& e)
{
    if (e.kind != LogEventKind::WatchdogTimeout || e.ranForMs < 0) {
        return;
    }
    for (std::size_t i = 0; i < col.size(); ++i) {
        const auto st = static_cast<CollectiveState>(col.state[i]);
        if (col.seq[i] != e.seq || st == CollectiveState::Completed || st == CollectiveState::Failed
            || st == CollectiveState::Scheduled) {
            continue;
        }
        const TimeNs began = col.enqueueNs[i] != kNoTime ? col.enqueueNs[i] : col.startNs[i];
        const auto ranFor = checkedMul(e.ranForMs, kNsPerMs);
        const auto end = ranFor ? checkedAdd(began, *ranFor) : std::nullopt;
        if (began == kNoTime || !end) {
            continue;
        }
        col.state[i] = static_cast<std::uint8_t>(CollectiveState::TimedOut);
        col.endNs[i] = *end;
    }
}

} // namespace

// What the logs say that a Flight Recorder dump cannot: a rank whose transport gave up (completion error)
// failed in the collective in flight at that moment; a watchdog timeout names the sequence number and the
// moment the rank gave up. Both end records the dump left open.
void applyLogOutcomes(OwnedColumns& owned, const Gathered& g)
{
    for (const auto& [file, f] : g.logs) {
        if (!f.rank || *f.rank >= owned.ranks.size()) {
            continue;
        }
        auto& col = owned.ranks[*f.rank];
        auto open = [&](std::size_t i) {
            const auto st = static_cast<CollectiveState>(col.state[i]);
            return st != CollectiveState::Completed && st != CollectiveState::Scheduled;
        };
        for (const auto& e : f.events) {
            if (e.timeNs == kNoTime) {
                placeUntimedTimeout(col, e);
                continue;
            }
            if (e.kind == LogEventKind::CompletionError) {
                // The latest record enqueued before the error and still open at it.
                for (std::size_t i = col.size(); i-- > 0;) {
                    if (col.enqueueNs[i] <= e.timeNs && open(i)) {
                        col.state[i] = static_cast<std::uint8_t>(CollectiveState::Failed);
                        col.endNs[i] = e.timeNs;
                        break;
                    }
                }
            } else if (e.kind == LogEventKind::WatchdogTimeout) {
                for (std::size_t i = 0; i < col.size(); ++i) {
                    if (col.seq[i] == e.seq && open(i) && col.enqueueNs[i] <= e.timeNs
                        && static_cast<CollectiveState>(col.state[i]) != CollectiveState::Failed) {
                        col.state[i] = static_cast<std::uint8_t>(CollectiveState::TimedOut);
                        col.endNs[i] = e.timeNs;
                    }
                }
            }
        }
    }
}

// A trap-128 notice names a switch, not its port. The port is the one of that switch's cabled ports that other
// evidence marks: down in an iblinkinfo snapshot, or its link_downed counter rising in the sample interval
// around the trap. With exactly one such port the trap becomes its link event, alternating down and up
// (both ends of a flapping link trap on the way down and again on the way up); otherwise it stays a count.
static void addTrapEvents(JobSnapshot& snap, Gathered& g)
{
    const auto& topo = snap.topology;
    std::set<std::pair<std::uint64_t, std::uint16_t>> seenDown;
    for (const auto& [file, s] : g.linkinfo) {
        for (const auto& p : s.ports) {
            if (!p.up) {
                seenDown.insert({ g.fabric.canonical(p.guid), p.port });
            }
        }
    }
    auto counterRose = [&](std::uint64_t guid, std::uint16_t port, TimeNs t) {
        constexpr TimeNs slack = 5 * kNsPerSec;
        for (const auto& c : snap.counters) {
            const auto& cp = snap.counterPorts[c.port];
            if (c.kind != CounterKind::LinkDowned || cp.guid != guid || cp.port != port) {
                continue;
            }
            for (std::size_t k = 1; k < c.size(); ++k) {
                if (c.timesNs[k - 1] - slack <= t && t <= c.timesNs[k] + slack
                    && counterDelta(c.value(k - 1), c.value(k), c.bits).increase > 0) {
                    return true;
                }
            }
        }
        return false;
    };
    const auto source = snap.strings.intern("opensm trap");
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::pair<TimeNs, bool>> lastDown; // port → (time, down?)
    for (const auto& log : g.opensm) {
        for (const auto& trap : log.traps) {
            const auto guid = trap.guid != 0 ? std::optional<std::uint64_t>(g.fabric.canonical(trap.guid))
                                             : g.fabric.guidOfLid(trap.lid);
            const auto node = guid ? topo.findNodeByGuid(*guid) : std::nullopt;
            if (!node) {
                continue;
            }
            std::vector<std::uint16_t> candidates;
            for (std::uint16_t p = 1; p <= std::max<std::uint16_t>(topo.node(*node).portCount, 64); ++p) {
                if (topo.linkAt({ *node, p }) && (seenDown.count({ *guid, p }) || counterRose(*guid, p, trap.timeNs))) {
                    candidates.push_back(p);
                }
            }
            if (candidates.empty()) {
                // No counter moves when a link comes back (link_downed counts downs): a trap from a switch
                // with exactly one port still down is that port's "up".
                for (const auto& [port, state] : lastDown) {
                    if (port.first == *guid && state.second && trap.timeNs - state.first < 10 * 60 * kNsPerSec) {
                        candidates.push_back(port.second);
                    }
                }
            }
            if (candidates.size() != 1) {
                continue;
            }
            auto& [when, down] = lastDown[{ *guid, candidates[0] }];
            const bool nowDown = !(down && trap.timeNs - when < 10 * 60 * kNsPerSec);
            snap.linkEvents.push_back(
                { trap.timeNs, *guid, candidates[0], nowDown ? LinkState::Down : LinkState::Up, source });
            when = trap.timeNs;
            down = nowDown;
        }
    }
}

namespace {

// Where one log puts its rank: what it states, "" for what it does not.
struct Placement
{
    std::string host, gpu, hca;
    std::string file;
    // Both state a field and it differs.
    bool disagrees(const Placement& o) const
    {
        const auto differ
            = [](const std::string& a, const std::string& b) { return !a.empty() && !b.empty() && a != b; };
        return differ(host, o.host) || differ(gpu, o.gpu) || differ(hca, o.hca);
    }
    // What `o` states replaces what this says; the rest stays (a combined log's share may lack the host line).
    void merge(const Placement& o)
    {
        for (auto [mine, theirs] : { std::pair { &host, &o.host }, { &gpu, &o.gpu }, { &hca, &o.hca } }) {
            if (!theirs->empty()) {
                *mine = *theirs;
            }
        }
        file = o.file;
    }
    std::string format() const
    {
        std::string s = host.empty() ? std::string("host unknown") : host;
        s += gpu.empty() ? std::string() : " GPU " + gpu;
        s += hca.empty() ? std::string() : " " + hca;
        return s + " (" + file + ")";
    }
};

using NearestByGpu = std::map<std::pair<std::string, std::uint16_t>, NearestNic>;

Placement placementOf(const std::string& file, const RankLogFacts& f, const NearestByGpu& nearest)
{
    Placement p { f.host, f.cudaDev ? std::to_string(*f.cudaDev) : std::string(), {}, file };
    if (!f.hcas.empty()) {
        // Several HCAs listed: the one the host's topo -m puts nearest the rank's GPU (NCCL picks the HCA closest
        // to the GPU); without one, the one at the rank's CUDA device index (rail-optimized hosts pair GPU i with
        // HCA i), a guess where NCCL's channel lines would say exactly.
        const auto d = static_cast<std::size_t>(f.cudaDev.value_or(0));
        p.hca = f.hcas.size() == 1 ? f.hcas[0] : f.hcas[std::min(d, f.hcas.size() - 1)];
        const auto n = f.cudaDev && *f.cudaDev >= 0 && *f.cudaDev <= 0xffff
            ? nearest.find({ f.host, static_cast<std::uint16_t>(*f.cudaDev) })
            : nearest.end();
        if (f.hcas.size() > 1 && n != nearest.end() && !n->second.tied
            && std::find(f.hcas.begin(), f.hcas.end(), n->second.nic) != f.hcas.end()) {
            p.hca = n->second.nic;
        }
    }
    return p;
}

// Names every rank two logs place differently: at most kDetailed, the rest counted.
void warnDisagreements(Gathered& g, const std::map<std::uint32_t, std::vector<Placement>>& differing)
{
    constexpr std::size_t kDetailed = 20;
    std::size_t n = 0;
    for (const auto& [rank, claims] : differing) {
        if (++n > kDetailed) {
            break;
        }
        std::string list;
        for (std::size_t i = 0; i < claims.size() && i < 4; ++i) {
            list += (i ? ", " : "") + claims[i].format();
        }
        if (claims.size() > 4) {
            list += ", and " + std::to_string(claims.size() - 4) + " more";
        }
        g.warnings.push_back({ claims.back().file, 0, -1,
            "rank " + std::to_string(rank) + " is placed differently by " + std::to_string(claims.size())
                + " logs: " + list
                + "; the last is used. Two attempts of a restarted job, or two jobs' logs in one folder? A mapping "
                  "file says which (docs/raw-folders.md)" });
    }
    if (differing.size() > kDetailed) {
        g.warnings.push_back({ differing.rbegin()->second.back().file, 0, -1,
            std::to_string(differing.size() - kDetailed) + " more ranks are placed differently by different logs" });
    }
}

// rank → host, GPU and HCA from the logs, each field only where a log states it. Two logs may claim one rank: a
// per-rank file and a launcher's combined log agree; two attempts of a restarted job (torchrun, a Slurm requeue) or
// another job's logs need not, and then which link a stall is blamed on depends on which is right. The last read
// (the folder's path order) is used and every disagreement is named.
void placeRanksFromLogs(JobSnapshot& snap, Gathered& g, std::uint32_t world)
{
    std::map<std::uint32_t, Placement> placed;
    std::map<std::uint32_t, std::vector<Placement>> differing;
    std::vector<GpuPath> paths;
    for (const auto& t : g.nodeTools) {
        paths.insert(paths.end(), t.gpuPaths.begin(), t.gpuPaths.end());
    }
    const auto nearest = nearestNics(paths);
    for (const auto& [file, f] : g.logs) {
        if (!f.rank || *f.rank >= world) {
            continue;
        }
        const auto p = placementOf(file, f, nearest);
        auto [it, fresh] = placed.emplace(*f.rank, p);
        if (!fresh) {
            if (p.disagrees(it->second)) {
                auto& claims = differing[*f.rank];
                if (claims.empty()) {
                    claims.push_back(it->second);
                }
                claims.push_back(p);
            }
            it->second.merge(p);
        }
        auto& ri = snap.ranks[*f.rank];
        if (!p.host.empty()) {
            ri.host = snap.strings.intern(p.host);
        }
        if (f.cudaDev) {
            ri.localGpu = static_cast<std::uint16_t>(*f.cudaDev);
        }
        if (!p.hca.empty()) {
            ri.hca = snap.strings.intern(p.hca);
        }
        if (f.firstNs != kNoTime) { // several logs of one rank (a file and a combined log): the widest
            ri.logFirstNs = ri.logFirstNs == kNoTime ? f.firstNs : std::min(ri.logFirstNs, f.firstNs);
            ri.logLastNs = ri.logLastNs == kNoTime ? f.lastNs : std::max(ri.logLastNs, f.lastNs);
        }
        if (!f.transport.empty() || f.noIbDevice) {
            ri.transport = snap.strings.intern(f.transport.empty() ? "Socket" : f.transport);
        }
    }
    warnDisagreements(g, differing);
}

} // namespace

namespace {

// "17, 40" or "0..999997, 1000": runs of consecutive ranks, at most `most` of them, then how many ranks more.
std::string rankRuns(const std::vector<std::uint32_t>& ranks, std::size_t most)
{
    std::string out;
    std::size_t runs = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        auto j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            ++j;
        }
        if (runs++ == most) {
            return out + ", and " + std::to_string(ranks.size() - i) + " more";
        }
        out += (out.empty() ? "" : ", ") + std::to_string(ranks[i])
            + (j > i ? (j == i + 1 ? ", " : "..") + std::to_string(ranks[j]) : std::string());
        i = j + 1;
    }
    return out;
}

} // namespace

// A rank without records is a blank row in every view, easy to miss at 1,024 rows — and often the story: a process
// killed outright (OOM, a GPU fault) writes no dump. The job's size comes from the largest rank any dump, trace or
// group names, so a folder holding some ranks' dumps has the others' rows empty.
void warnRanksWithoutRecords(const OwnedColumns& owned, const std::string& dir, std::vector<LoadIssue>& warnings)
{
    std::vector<std::uint32_t> empty;
    for (std::size_t r = 0; r < owned.ranks.size(); ++r) {
        if (owned.ranks[r].size() == 0) {
            empty.push_back(static_cast<std::uint32_t>(r));
        }
    }
    if (empty.empty()) {
        return;
    }
    warnings.push_back({ dir, 0, -1,
        "no collective record for " + std::to_string(empty.size()) + " of " + std::to_string(owned.ranks.size())
            + " ranks: " + rankRuns(empty, 12)
            + " — their Flight Recorder dumps or profiler traces are not in the folder, or hold no entries (a rank "
              "killed outright writes none: is one of them the one that failed?)" });
}

// rank → host, GPU and HCA from the logs, then the mapping file, which fills or corrects them.
// The ranks no log placed, from the first hostfile or Slurm node list; a log that places a rank elsewhere wins and
// is counted in a warning (the list may be another attempt's, or the job may have been mapped otherwise).
void placeRanksFromLists(JobSnapshot& snap, Gathered& g, std::uint32_t world)
{
    if (g.placements.empty()) {
        return;
    }
    const auto& [file, list] = g.placements.front();
    std::uint32_t placed = 0, differ = 0;
    for (std::uint32_t r = 0; r < world; ++r) {
        const auto host = list.hostOf(r, world);
        if (host.empty()) {
            continue;
        }
        auto& ri = snap.ranks[r];
        if (snap.str(ri.host).empty()) {
            ri.host = snap.strings.intern(host);
            ++placed;
        } else if (snap.str(ri.host) != host) {
            ++differ;
        }
    }
    if (differ > 0) {
        g.warnings.push_back({ file, list.line, -1,
            std::to_string(differ) + " ranks' logs name another host than this " + list.source
                + " gives them, filling hosts in order: the logs' hosts are used" });
    }
    g.note(file, "rank placement", "placed " + std::to_string(placed) + " ranks no log placed");
}

void placeRanks(JobSnapshot& snap, Gathered& g, std::uint32_t world)
{
    placeRanksFromLogs(snap, g, world);
    placeRanksFromLists(snap, g, world);
    for (const auto& [rank, o] : g.mapping.ranks) {
        if (rank >= world) {
            g.warnings.push_back({ "mapping file", 0, -1,
                "rank " + std::to_string(rank) + " is outside the job (" + std::to_string(world) + " ranks)" });
            continue;
        }
        auto& ri = snap.ranks[rank];
        if (!o.host.empty()) {
            ri.host = snap.strings.intern(o.host);
        }
        if (!o.hca.empty()) {
            ri.hca = snap.strings.intern(o.hca);
        }
        if (o.gpu) {
            ri.localGpu = *o.gpu;
        }
    }
}

// Ranks, groups and collective records from the dumps; rank → host → HCA from the logs.
Result<std::uint32_t> addCollectives(JobSnapshot& snap, OwnedColumns& owned, Gathered& g)
{
    std::uint32_t world = 0;
    std::map<std::uint32_t, std::string> seen;
    std::vector<std::pair<std::string, RankRecords>> unique;
    for (auto& [file, d] : g.dumps) {
        if (auto [it, fresh] = seen.emplace(*d.rank, file); !fresh) {
            g.warnings.push_back({ file, 0, -1,
                "a second dump of rank " + std::to_string(*d.rank) + " (the first is " + it->second
                    + "): this one is left out" });
            continue;
        }
        unique.emplace_back(file, std::move(d));
    }
    g.dumps = std::move(unique);
    mergeTraces(g);
    checkOrderAgreement(g);
    world = g.worldHint;
    for (const auto& [file, d] : g.dumps) {
        world = std::max(world, *d.rank + 1);
        for (const auto& [name, grp] : d.groups) {
            for (auto r : grp.ranks) {
                world = std::max(world, r + 1);
            }
        }
    }
    snap.job.worldSize = world;
    snap.ranks.assign(world, RankInfo {});
    std::map<std::string, std::uint16_t> groupIndex;
    for (const auto& [file, d] : g.dumps) {
        for (const auto& [name, grp] : d.groups) {
            if (groupIndex.count(name)) {
                continue;
            }
            groupIndex[name] = static_cast<std::uint16_t>(snap.groups.size());
            ProcessGroup pg { snap.strings.intern(name), snap.strings.intern(grp.desc), grp.ranks };
            std::sort(pg.ranks.begin(), pg.ranks.end());
            snap.groups.push_back(std::move(pg));
        }
    }
    placeRanks(snap, g, world);
    owned.ranks.resize(world);
    std::map<std::uint16_t, std::set<std::uint32_t>> implicit; // groups no source lists: who ran them
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const auto& [file, d] : g.dumps) {
        auto& col = owned.ranks[*d.rank];
        for (const auto& e : d.entries) {
            auto git = groupIndex.find(e.pg);
            if (git == groupIndex.end()) {
                git = groupIndex.emplace(e.pg, static_cast<std::uint16_t>(snap.groups.size())).first;
                snap.groups.push_back({ snap.strings.intern(e.pg), {}, {} });
                if (d.version != "kineto") { // traces name groups only where an op carries its ranks
                    g.warnings.push_back({ file, 0, -1,
                        "process group \"" + e.pg + "\" is not in pg_config: its members are the ranks that ran it" });
                }
            }
            if (snap.groups[git->second].ranks.empty() || implicit.count(git->second)) {
                implicit[git->second].insert(*d.rank);
            }
            auto shape = internShape(snap.shapes, { git->second, e.op, e.bytes });
            if (!shape) {
                return LoadIssue { file, 0, -1, "more than 65535 distinct (group, op, bytes) shapes" };
            }
            col.push(e.enqueueNs, e.startNs, e.endNs, e.seq, *shape, e.state);
            first = std::min(first, e.enqueueNs);
        }
        col.sortByEnqueue();
    }
    for (const auto& [group, members] : implicit) {
        snap.groups[group].ranks.assign(members.begin(), members.end());
    }
    snap.job.clockOriginNs = first == std::numeric_limits<TimeNs>::max() ? 0 : first;
    snap.job.span = { snap.job.clockOriginNs, snap.job.clockOriginNs };
    return world;
}

// Every counter source into the sink, joined to canonical node GUIDs.
void addCounters(Gathered& g, CounterSink& sink)
{
    auto& fabric = g.fabric;
    // Host-side counters of an HCA no topology source describes still open: as an unplaced port.
    const GuidOfHca guidOfHca = [&](const std::string& desc) { return fabric.placeHca(desc); };
    for (std::size_t k = 0; k < g.csvs.size(); ++k) {
        const auto& file = g.csvs[k];
        if (g.progress) {
            g.progress->report("Reading counter CSVs", k, g.csvs.size());
            if (g.progress->cancelled()) {
                return; // the caller sees the cancel
            }
        }
        auto text = readFileBytes(file);
        if (!text) {
            g.warnings.push_back(text.error());
            continue;
        }
        readCollectorCsv(file, text.value(), guidOfHca, sink, g.warnings);
    }
    for (auto& ps : g.matrix) {
        const auto guid = fabric.placeHca(ps.host + " " + ps.device);
        for (std::size_t i = 0; i < ps.timesNs.size(); ++i) {
            sink.sample(guid, ps.port, ps.kind, ps.timesNs[i], ps.values[i]);
        }
    }
    for (const auto& ss : g.matrixSwitch) {
        const auto guid = fabric.canonical(ss.guid);
        for (std::size_t i = 0; i < ss.timesNs.size(); ++i) {
            sink.sample(guid, ss.port, ss.kind, ss.timesNs[i], ss.values[i]);
        }
    }
    for (const auto& tree : g.sysfs) {
        for (const auto& p : tree.ports) {
            const auto desc = tree.host + " " + p.device;
            const auto guid
                = p.nodeGuid ? fabric.node(NodeKind::Hca, *p.nodeGuid, desc, p.port) : fabric.placeHca(desc);
            for (std::size_t i = 0; i < p.counters.size(); ++i) {
                sink.sample(guid, p.port, p.counters[i].first, tree.timeNs, p.counters[i].second, p.bits[i]);
            }
        }
        g.warnings.push_back({ tree.root, 0, -1,
            "a copy of /sys/class/infiniband is one reading per counter, dated by its files' modification time ("
                + formatUtc(tree.timeNs) + ")" });
    }
    for (const auto& [dated, ef] : g.exposition.files) {
        for (const auto& st : ef.states) {
            fabric.placeHca(st.host + " " + st.device);
        }
    }
    for (const auto& [dated, ef] : g.exposition.files) {
        if (ef.undated) {
            g.warnings.push_back({ dated.file, 0, -1,
                "samples without a timestamp or stamp line are dated by the file's modification time" });
        }
    }
    // The scrapes' readings went in as they were read; now the fabric knows their ports.
    sink.resolveProvisional([&](std::uint64_t id) {
        const auto& s = g.exposition.series.at(id);
        return std::pair { s.hostSide ? fabric.placeHca(s.host + " " + s.device) : fabric.canonical(s.guid), s.port };
    });
    for (const auto& [dated, samples] : g.perfquery) {
        bool undated = false;
        std::set<std::uint32_t> unknownLids;
        BackwardsCheck backwards(dated.file);
        for (const auto& s : samples) {
            if (s.timeNs != kNoTime) {
                backwards.see("LID " + std::to_string(s.lid) + " port " + std::to_string(s.port) + " "
                        + std::string(semantics(s.kind).name) + (s.extended ? " (extended)" : ""),
                    s.timeNs, s.value, s.line, g.warnings);
            }
            // A LID no topology file names is kept as an unplaced port "LID 10" (perfquery run on a node, alone).
            auto guid = fabric.guidOfLid(s.lid);
            if (!guid) {
                if (unknownLids.insert(s.lid).second) {
                    g.warnings.push_back({ dated.file, 0, -1,
                        "LID " + std::to_string(s.lid)
                            + " is in no topology file (ibnetdiscover or iblinkinfo): its counters are kept as an "
                              "unplaced port \"LID " + std::to_string(s.lid) + "\"" });
                }
                guid = fabric.placeHca("LID " + std::to_string(s.lid));
            }
            undated = undated || s.timeNs == kNoTime;
            const bool dataOrPackets = s.kind == CounterKind::PortXmitData || s.kind == CounterKind::PortRcvData
                || s.kind == CounterKind::PortXmitPackets || s.kind == CounterKind::PortRcvPackets;
            sink.sample(*guid, s.port, s.kind, s.timeNs == kNoTime ? dated.modified : s.timeNs, s.value,
                dataOrPackets ? (s.extended ? 64 : 32) : 0);
        }
        if (undated) {
            g.warnings.push_back({ dated.file, 0, -1,
                "perfquery blocks without a stamp line before them are dated by the file's modification time" });
        }
    }
}

// Host port states from node_exporter scrapes over time: each change of a port's state (logical, else physical)
// is a link event, and a port first seen down is down from then ("node_exporter" source).
void addStateEvents(JobSnapshot& snap, Gathered& g)
{
    const auto source = snap.strings.intern("node_exporter");
    struct Seen
    {
        TimeNs timeNs;
        bool up;
        std::int64_t order;
    };
    std::map<std::tuple<std::string, std::string, std::uint16_t, bool>, std::vector<Seen>> byPort;
    std::int64_t order = 0;
    for (const auto& [dated, ef] : g.exposition.files) {
        for (const auto& st : ef.states) {
            const TimeNs t = st.timeNs == kNoTime ? dated.modified : st.timeNs;
            byPort[{ st.host, st.device, st.port, st.physical }].push_back({ t, st.up, order++ });
        }
    }
    std::set<std::pair<std::string, std::string>> logicalSeen;
    for (const auto& [key, seen] : byPort) {
        if (!std::get<3>(key)) {
            logicalSeen.insert({ std::get<0>(key), std::get<1>(key) });
        }
    }
    for (auto& [key, seen] : byPort) {
        const auto& [host, device, port, physical] = key;
        if (physical && logicalSeen.count({ host, device })) {
            continue; // the logical state says it (physical is the fallback of scrapes without it)
        }
        const auto guid = g.fabric.guidOfHca(host + " " + device);
        if (!guid) {
            continue;
        }
        std::sort(seen.begin(), seen.end(),
            [](const Seen& a, const Seen& b) { return std::tie(a.timeNs, a.order) < std::tie(b.timeNs, b.order); });
        bool up = true;
        for (const auto& s : seen) {
            if (s.up != up) {
                snap.linkEvents.push_back({ s.timeNs, *guid, port, s.up ? LinkState::Up : LinkState::Down, source });
                up = s.up;
            }
        }
    }
}

// Port events from the ranks' logs ("nccl"), the subnet manager ("opensm") and dated iblinkinfo snapshots.
void addLinkEvents(JobSnapshot& snap, Gathered& g)
{
    const auto nccl = snap.strings.intern("nccl");
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            // A fatal HCA error takes its port down with it (IBV_EVENT_DEVICE_FATAL).
            const bool down = e.kind == LogEventKind::PortError || e.kind == LogEventKind::DeviceFatal;
            if ((!down && e.kind != LogEventKind::PortActive) || e.timeNs == kNoTime) {
                continue;
            }
            const auto hca = e.hca.empty() && !f.hcas.empty() ? f.hcas[0] : e.hca;
            if (const auto guid = g.fabric.guidOfHca(f.host + " " + hca)) {
                snap.linkEvents.push_back({ e.timeNs, *guid, 1, down ? LinkState::Down : LinkState::Up, nccl });
            }
        }
    }
    const auto sysfs = snap.strings.intern("sysfs");
    for (const auto& tree : g.sysfs) {
        for (const auto& p : tree.ports) {
            if (p.active && !*p.active) { // a port found not ACTIVE in the copy: down when it was taken
                const auto guid = p.nodeGuid ? g.fabric.canonical(*p.nodeGuid)
                                             : g.fabric.guidOfHca(tree.host + " " + p.device).value_or(0);
                snap.linkEvents.push_back({ tree.timeNs, guid, p.port, LinkState::Down, sysfs });
            }
        }
    }
    const auto opensm = snap.strings.intern("opensm");
    for (const auto& log : g.opensm) {
        for (const auto t : log.subnetUp) {
            snap.routeUpdates.push_back({ t, opensm });
        }
        for (const auto& e : log.events) {
            if (const auto guid = g.fabric.guidOfHca(e.nodeDescription)) {
                snap.linkEvents.push_back({ e.timeNs, *guid, 1, e.up ? LinkState::Up : LinkState::Down, opensm });
            }
        }
    }
    // A port seen down in a dated snapshot, on a link another snapshot saw up: the link was down then.
    const auto linkinfo = snap.strings.intern("iblinkinfo");
    std::map<std::pair<std::uint64_t, std::uint16_t>, bool> last;
    std::sort(g.linkinfo.begin(), g.linkinfo.end(),
        [](const auto& a, const auto& b) { return a.second.stampNs < b.second.stampNs; });
    for (const auto& [file, s] : g.linkinfo) {
        if (s.stampNs == kNoTime) {
            continue;
        }
        for (const auto& p : s.ports) {
            const auto guid = g.fabric.canonical(p.guid);
            const auto node = snap.topology.findNodeByGuid(guid);
            if (!node || !snap.topology.linkAt({ *node, p.port })) {
                continue; // never cabled in any snapshot
            }
            auto [it, fresh] = last.try_emplace({ guid, p.port }, true);
            if (it->second != p.up || (fresh && !p.up)) {
                snap.linkEvents.push_back(
                    { s.stampNs, guid, p.port, p.up ? LinkState::Up : LinkState::Down, linkinfo });
            }
            it->second = p.up;
        }
    }
    addStateEvents(snap, g);
    addTrapEvents(snap, g);
    std::stable_sort(snap.linkEvents.begin(), snap.linkEvents.end(),
        [](const LinkEvent& a, const LinkEvent& b) { return a.timeNs < b.timeNs; });
    std::sort(snap.routeUpdates.begin(), snap.routeUpdates.end(),
        [](const RouteUpdate& a, const RouteUpdate& b) { return a.timeNs < b.timeNs; });
}

namespace {
// Fewer than half the ranks have a collective record, but some do.
bool fewRanksRecorded(const JobSnapshot& snap)
{
    const auto recorded = std::count_if(
        snap.collectives.begin(), snap.collectives.end(), [](const RankCollectives& c) { return c.size() > 0; });
    return recorded > 0 && std::size_t(recorded) * 2 < snap.collectives.size();
}
} // namespace

void widenSpan(JobSnapshot& snap)
{
    TimeNs lo = snap.job.span.start, hi = snap.job.span.end;
    for (const auto& c : snap.collectives) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            for (auto t : { c.enqueueNs[i], c.startNs[i], c.endNs[i] }) {
                if (t != kNoTime) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            }
        }
    }
    if (fewRanksRecorded(snap)) {
        // One node's dumps or rank 0's trace: the job ran on past them (a hang after the last record a trace keeps,
        // the others' watchdog timeouts), and the ranks' logs say how far.
        for (const auto& r : snap.ranks) {
            for (auto t : { r.logFirstNs, r.logLastNs }) {
                if (t != kNoTime) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            }
        }
        for (const auto& f : snap.logFacts) {
            if (f.timeNs != kNoTime && !isAnalyzerFinding(f.kind)) {
                lo = std::min(lo, f.timeNs);
                hi = std::max(hi, f.timeNs);
            }
        }
    }
    if (snap.job.worldSize == 0 || snap.collectiveCount() == 0) {
        // Fabric data only, or a job of logs alone: the span of the counters and events, and of what the logs say.
        lo = std::numeric_limits<TimeNs>::max();
        hi = std::numeric_limits<TimeNs>::min();
        if (snap.job.worldSize > 0) {
            auto see = [&](TimeNs t) {
                if (t != kNoTime) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            };
            for (const auto& r : snap.ranks) {
                see(r.logFirstNs);
                see(r.logLastNs);
            }
            for (const auto& f : snap.logFacts) {
                see(f.timeNs);
                // A watchdog timeout's collective began "ran for" before it: the hang is inside the job.
                if (f.kind == LogEventKind::WatchdogTimeout && f.timeNs != kNoTime && f.ranForMs > 0
                    && f.ranForMs < 30LL * 24 * 3600 * 1000) {
                    see(f.timeNs - f.ranForMs * kNsPerMs);
                }
            }
            for (const auto& n : snap.notes) {
                see(n.timeNs);
            }
        }
        for (const auto& s : snap.counters) {
            if (s.size() > 0) {
                lo = std::min(lo, s.timesNs.front());
                hi = std::max(hi, s.timesNs.back());
            }
        }
        for (const auto& e : snap.linkEvents) {
            lo = std::min(lo, e.timeNs);
            hi = std::max(hi, e.timeNs);
        }
        if (lo > hi) {
            // Node files alone (node tools, kernel and Fabric Manager logs): no counter or event dates the
            // fabric, but the hosts' notes do; with fabric data they stay out of its span (a kernel log reaches
            // back days).
            for (const auto& n : snap.notes) {
                if (n.timeNs != kNoTime) {
                    lo = std::min(lo, n.timeNs);
                    hi = std::max(hi, n.timeNs);
                }
            }
        }
        if (lo > hi) {
            lo = hi = 0;
        } else if (lo == hi && snap.job.worldSize > 0) {
            hi = lo + kNsPerSec; // one dated line (Slurm's cancel alone): a second from it, so the views have a width
        }
        snap.job.clockOriginNs = lo;
    }
    snap.job.span = { lo, hi };
}

} // namespace stallscope::folder
