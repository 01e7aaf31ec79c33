// SPDX-License-Identifier: MIT
// One job clock for a raw folder's sources (docs/formats.md §0): the mapping file's offsets are applied, then the
// sources that can be compared are compared — a watchdog line against the dump entry it names, a profiler
// kernel against the dump entry of the same collective, a rank's port event against the subnet manager's.
// Disagreement beyond a second is reported with its size. Rank logs whose disagreement with the dumps is a
// whole number of quarter hours are local time in another zone: they are moved onto UTC and that is said.
#include "core/time_format.h"
#include "import/folder/gathered.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace stallscope::folder {

namespace {

constexpr TimeNs kTolerance = kNsPerSec; // NCCL's log stamps have one-second resolution
constexpr TimeNs kQuarterHour = 15 * 60 * kNsPerSec;

void shift(TimeNs& t, TimeNs by)
{
    if (t != kNoTime) {
        t += by;
    }
}

void shiftDump(RankRecords& d, TimeNs by)
{
    for (auto& e : d.entries) {
        shift(e.enqueueNs, by);
        shift(e.startNs, by);
        shift(e.endNs, by);
    }
}

void shiftLogs(Gathered& g, TimeNs by)
{
    for (auto& [file, f] : g.logs) {
        for (auto& e : f.events) {
            shift(e.timeNs, by);
        }
    }
}

void applyOffsets(Gathered& g)
{
    const auto& m = g.mapping;
    for (auto& [file, d] : g.dumps) {
        shiftDump(d, m.offset("dumps"));
    }
    for (auto& [file, d] : g.traces) {
        shiftDump(d, m.offset("profiler"));
    }
    shiftLogs(g, m.offset("rank_logs"));
    for (auto& log : g.opensm) {
        for (auto& e : log.events) {
            shift(e.timeNs, m.offset("opensm"));
        }
    }
    for (auto& [file, s] : g.linkinfo) {
        shift(s.stampNs, m.offset("fabric_snapshots"));
    }
    // counters: CounterSink::timeOffsetNs, applied as samples are joined
}

TimeNs median(std::vector<TimeNs> xs)
{
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2), xs.end());
    return xs[xs.size() / 2];
}

std::string signedDuration(TimeNs d)
{
    const auto a = std::llabs(d);
    char buf[48];
    if (a >= 60 * kNsPerSec) {
        std::snprintf(buf, sizeof buf, "%lldh%02lldm%02llds", a / (3600 * kNsPerSec), a / (60 * kNsPerSec) % 60,
            a / kNsPerSec % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%.3fs", double(a) / 1e9);
    }
    return std::string(d < 0 ? "-" : "+") + buf;
}

std::string zoneName(TimeNs offset)
{
    const auto minutes = std::llabs(offset) / (60 * kNsPerSec);
    char buf[16];
    std::snprintf(buf, sizeof buf, "UTC%c%02lld:%02lld", offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
    return buf;
}

// Watchdog lines against the dumps: the work started `ran for` before the line, and the dump says when.
std::vector<TimeNs> logsVersusDumps(const Gathered& g)
{
    std::map<std::uint32_t, const RankRecords*> dumpOf;
    for (const auto& [file, d] : g.dumps) {
        dumpOf[*d.rank] = &d;
    }
    std::vector<TimeNs> deltas;
    for (const auto& [file, f] : g.logs) {
        auto it = f.rank ? dumpOf.find(*f.rank) : dumpOf.end();
        if (it == dumpOf.end()) {
            continue;
        }
        for (const auto& e : f.events) {
            if (e.kind != LogEventKind::WatchdogTimeout || e.timeNs == kNoTime || e.ranForMs < 0) {
                continue;
            }
            for (const auto& entry : it->second->entries) {
                if (entry.seq == e.seq) {
                    // PyTorch's WorkNCCL takes workStartTime_ when it is constructed, at enqueue: "ran for" counts
                    // from there, not from the kernel's start.
                    const auto began = entry.enqueueNs != kNoTime ? entry.enqueueNs : entry.startNs;
                    deltas.push_back(e.timeNs - e.ranForMs * 1'000'000 - began);
                    break;
                }
            }
        }
    }
    return deltas;
}

// Profiler kernels against the dumps, per rank and collective (CPU enqueue against time_created).
std::vector<TimeNs> profilerVersusDumps(const Gathered& g)
{
    std::map<std::pair<std::uint32_t, std::pair<std::string, std::uint32_t>>, TimeNs> created;
    for (const auto& [file, d] : g.dumps) {
        for (const auto& e : d.entries) {
            created[{ *d.rank, { e.pg, e.seq } }] = e.enqueueNs;
        }
    }
    std::vector<TimeNs> deltas;
    for (const auto& [file, t] : g.traces) {
        for (const auto& e : t.entries) {
            if (auto it = created.find({ *t.rank, { e.pg, e.seq } }); it != created.end()) {
                deltas.push_back(e.enqueueNs - it->second);
            }
        }
    }
    return deltas;
}

// A rank's own port events against the subnet manager's removals of the same HCA, nearest pairs.
std::vector<TimeNs> opensmVersusLogs(const Gathered& g)
{
    std::map<std::string, std::vector<TimeNs>> sm;
    for (const auto& log : g.opensm) {
        for (const auto& e : log.events) {
            if (!e.up) {
                sm[e.nodeDescription].push_back(e.timeNs);
            }
        }
    }
    std::vector<TimeNs> deltas;
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if (e.kind != LogEventKind::PortError || e.timeNs == kNoTime) {
                continue;
            }
            const auto hca = e.hca.empty() && !f.hcas.empty() ? f.hcas[0] : e.hca;
            auto it = sm.find(f.host + " " + hca);
            if (it == sm.end()) {
                continue;
            }
            TimeNs best = 0;
            bool found = false;
            for (auto t : it->second) {
                if (!found || std::llabs(t - e.timeNs) < std::llabs(best)) {
                    best = t - e.timeNs;
                    found = true;
                }
            }
            if (found && std::llabs(best) < 24 * 3600 * kNsPerSec) {
                deltas.push_back(best);
            }
        }
    }
    return deltas;
}

// The latest time of any dump entry, or kNoTime.
TimeNs dumpsEnd(const Gathered& g)
{
    TimeNs end = kNoTime;
    for (const auto& [file, d] : g.dumps) {
        for (const auto& e : d.entries) {
            for (const auto t : { e.enqueueNs, e.startNs, e.endNs }) {
                if (t != kNoTime && (end == kNoTime || t > end)) {
                    end = t;
                }
            }
        }
    }
    return end;
}

// Rank logs dated days after the dumps end: another job's log dropped in the folder, or a clock set wrong. Logs
// may begin weeks before the dumps (a dump keeps the last entries of a long job) and go on minutes after them (the
// watchdog's timeout, the teardown), never days after. The view would span both and the stall vanish in it.
void warnLogsLongAfterDumps(Gathered& g)
{
    constexpr TimeNs kDay = 24 * 3600 * kNsPerSec;
    const auto end = dumpsEnd(g);
    if (end == kNoTime) {
        return;
    }
    std::map<std::string, TimeNs> lastOf; // file → its latest line time (a combined log has several entries)
    for (const auto& [file, f] : g.logs) {
        for (const auto& e : f.events) {
            if (e.timeNs != kNoTime) {
                auto [it, fresh] = lastOf.try_emplace(file, e.timeNs);
                it->second = std::max(it->second, e.timeNs);
            }
        }
    }
    for (const auto& [file, last] : lastOf) {
        if (last - end > kDay) {
            g.warnings.push_back({ file, 0, -1,
                "its lines go on to " + formatUtc(last) + ", " + formatDuration(last - end)
                    + " after the Flight Recorder dumps end (" + formatUtc(end)
                    + "): another job's log, or a clock set wrong? The view spans both (clock_offsets.rank_logs in "
                      "a mapping file moves the logs' times)" });
        }
    }
}

} // namespace

void alignClocks(Gathered& g)
{
    applyOffsets(g);
    const std::string where = g.logs.empty() ? std::string() : g.logs.front().first;
    if (const auto d = logsVersusDumps(g); !d.empty()) {
        const auto m = median(d);
        const auto quarters = std::llround(double(m) / double(kQuarterHour));
        const bool zoneGiven = g.mapping.timeZones.count("rank_logs") > 0;
        if (!zoneGiven && quarters != 0 && std::llabs(m - quarters * kQuarterHour) <= 90 * kNsPerSec) {
            const TimeNs zone = quarters * kQuarterHour;
            shiftLogs(g, -zone);
            g.warnings.push_back({ where, 0, -1,
                "the rank logs' local times are " + signedDuration(zone) + " from the dumps' UTC ("
                    + std::to_string(d.size()) + " watchdog lines agree): read as " + zoneName(zone)
                    + "; a mapping file's time_zones.rank_logs overrides this" });
        } else if (std::llabs(m) > kTolerance) {
            g.warnings.push_back({ where, 0, -1,
                "the rank logs disagree with the Flight Recorder dumps by " + signedDuration(m) + " (median of "
                    + std::to_string(d.size())
                    + " watchdog lines); if they should agree, set clock_offsets.rank_logs in a mapping file" });
        }
    }
    if (const auto d = profilerVersusDumps(g); !d.empty()) {
        const auto m = median(d);
        if (std::llabs(m) > kTolerance) {
            g.warnings.push_back({ g.traces.front().first, 0, -1,
                "the profiler traces disagree with the Flight Recorder dumps by " + signedDuration(m) + " (median of "
                    + std::to_string(d.size())
                    + " collectives in both); set clock_offsets.profiler in a mapping file to align them" });
        }
    }
    if (const auto d = opensmVersusLogs(g); !d.empty()) {
        const auto m = median(d);
        if (std::llabs(m) > 2 * kTolerance) {
            g.warnings.push_back({ where, 0, -1,
                "the OpenSM log disagrees with the ranks' own port events by " + signedDuration(m) + " (median of "
                    + std::to_string(d.size())
                    + " port losses); set time_zones.opensm or clock_offsets.opensm in a mapping file" });
        }
    }
    warnLogsLongAfterDumps(g);
}

} // namespace stallscope::folder
