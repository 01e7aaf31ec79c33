// SPDX-License-Identifier: MIT
#include "import/kineto/kineto_trace.h"
#include "import/common/line_scan.h"

#include "core/checked_math.h"
#include "core/job_snapshot.h"
#include "core/parse_number.h"
#include "core/warning_cap.h"

#include "import/common/json_cut.h"
#include "import/common/json_fields.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

namespace stallscope {

namespace ond = simdjson::ondemand;

bool looksLikeKinetoTrace(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{' && findText(text, "\"traceEvents\"") != std::string::npos;
}

namespace {

// The fields of one trace event that matter here.
struct Event
{
    bool kernel = false; // cat "kernel" / "Kernel"
    bool paramComms = false; // the CPU record_param_comms op
    double ts = NAN, dur = NAN; // µs
    std::int64_t externalId = -1;
    std::string collective, dtype, pg, pgDesc, pgRanks;
    std::string kernelOp; // "AllReduce" from "ncclKernel_AllReduce_RING_LL_Sum_float(...)" / "ncclDevKernel_…"
    std::int64_t nelems = -1, seq = -1;
    std::uint32_t groupSize = 0; // "Group size": how many ranks "Process Group Ranks" lists before PyTorch cuts it
};

// The operation an NCCL kernel's name carries: "ncclKernel_AllReduce_RING_LL_Sum_float(...)" (NCCL ≤ 2.18) and
// "ncclDevKernel_AllGather_RING_LL(...)" (2.19+) → "AllReduce" / "AllGather"; "" for any other name.
std::string ncclKernelOp(std::string_view name)
{
    for (std::string_view prefix : { "ncclKernel_", "ncclDevKernel_" }) {
        if (name.substr(0, prefix.size()) == prefix) {
            const auto rest = name.substr(prefix.size());
            return std::string(rest.substr(0, rest.find_first_of("_(")));
        }
    }
    return {};
}

bool isPointToPoint(const std::string& op)
{
    return op == "SendRecv" || op == "Send" || op == "Recv" || op == "send" || op == "recv" || op == "sendrecv";
}

std::string lowered(std::string s)
{
    for (auto& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

std::string str(ond::value v)
{
    std::string_view s;
    return v.get_string().get(s) ? std::string() : std::string(s);
}

std::int64_t integer(ond::value v)
{
    std::int64_t i = -1;
    if (v.get_int64().get(i)) {
        double d = 0;
        if (!v.get_double().get(d)) {
            i = checkedFromDouble(d).value_or(-1); // 1e20 does not fit: treated as absent
        } else {
            std::string_view s; // some writers quote numbers
            if (!v.get_string().get(s)) {
                i = parseNumber<std::int64_t>(s).value_or(-1);
            }
        }
    }
    return i;
}

void readArgs(ond::object args, Event& e)
{
    forEachField(args, [&](std::string_view k, ond::value v) {
        if (k == "Collective name") {
            e.collective = str(v);
        } else if (k == "In msg nelems") {
            e.nelems = integer(v);
        } else if (k == "dtype") {
            e.dtype = str(v);
        } else if (k == "Process Group Name") {
            e.pg = str(v);
        } else if (k == "Process Group Description") {
            e.pgDesc = str(v); // "undefined" unless the group was given one (PyTorch's new_group(group_desc=))
        } else if (k == "Process Group Ranks") {
            e.pgRanks = str(v);
        } else if (k == "Seq") {
            e.seq = integer(v);
        } else if (k == "Group size") {
            e.groupSize = static_cast<std::uint32_t>(std::clamp<std::int64_t>(integer(v), 0, JobInfo::kMaxWorldSize));
        } else if (k == "External id") {
            e.externalId = integer(v);
        }
    });
}

Event readEvent(ond::object o)
{
    Event e;
    forEachField(
        o, [&](std::string_view k, ond::value v) __attribute__((always_inline)) { // the hot loop: every event
            if (k == "cat") {
                const auto cat = str(v);
                e.kernel = cat == "kernel" || cat == "Kernel";
            } else if (k == "name") {
                std::string_view name;
                if (!v.get_string().get(name)) {
                    e.paramComms = name == "record_param_comms";
                    e.kernelOp = ncclKernelOp(name);
                }
            } else if (k == "ts") {
                if (v.get_double().get(e.ts)) {
                    e.ts = NAN;
                }
            } else if (k == "dur") {
                if (v.get_double().get(e.dur)) {
                    e.dur = NAN;
                }
            } else if (k == "args") {
                ond::object args;
                if (!v.get_object().get(args)) {
                    readArgs(args, e);
                }
            }
        });
    return e;
}

// Without Seq, the n-th collective a rank launched in a group is the n-th on every other rank (NCCL requires every
// member to issue a group's collectives in one order): number them by kernel start within each group.
void numberByOrder(RankRecords& d)
{
    std::stable_sort(d.entries.begin(), d.entries.end(),
        [](const RankRecord& a, const RankRecord& b) { return a.startNs < b.startNs; });
    std::map<std::string, std::uint32_t> next;
    for (auto& e : d.entries) {
        e.seq = ++next[e.pg];
    }
    d.seqFromOrder = true;
}

} // namespace

std::optional<std::uint32_t> rankFromTraceFileName(const std::string& path)
{
    const auto name = lowered(std::filesystem::path(path).filename().string());
    for (auto at = name.rfind("rank"); at != std::string::npos;
         at = at == 0 ? std::string::npos : name.rfind("rank", at - 1)) {
        auto i = at + 4;
        if (i < name.size() && (name[i] == '-' || name[i] == '_')) {
            ++i;
        }
        auto j = i;
        while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) {
            ++j;
        }
        if (j > i) {
            return parseNumber<std::uint32_t>(std::string_view(name).substr(i, j - i));
        }
    }
    return std::nullopt;
}

namespace {

// What one walk over a trace's JSON (whole, or up to where it was cut) found.
struct Walk
{
    std::vector<Event> events; // NCCL kernels and record_param_comms ops only
    std::optional<std::int64_t> baseNs;
    std::optional<std::uint32_t> rank;
    std::uint32_t worldSize = 0;
    std::map<std::string, GroupInfo> pgConfig; // distributedInfo.pg_config: whole member lists, by pg_name
    std::vector<std::string> cutLists; // groups whose member list PyTorch cut and that could not be filled in
    // Members filled in from cut lists so far: a list of 20 bytes may stand for a million members, so the file's
    // size bounds nothing here (kMaxFilledMembers does).
    std::uint64_t filledMembers = 0;
    bool opened = false; // the top object could be walked at all
    bool endedEarly = false; // the document stops where JSON cannot (cut off while written?)
    std::string why; // simdjson's words when it did
};

// One group of distributedInfo.pg_config: {"pg_name", "pg_desc", "pg_size", "ranks"}, ranks a JSON array (what
// torch.distributed's _get_pg_config gives the profiler) or a string (Kineto's own on-demand metadata, cut past 30
// members like the kernels' args).
// A whole job's groups, each rank in a few of them: 16,384 ranks in four dimensions fill in 65,536 members.
constexpr std::uint64_t kMaxFilledMembers = 1u << 24; // 64 MiB of ranks

// A cut member list filled in within what is left of the trace's budget; nullopt when it cannot be.
std::optional<std::vector<std::uint32_t>> fillIn(std::string_view listed, std::uint32_t size, Walk& w)
{
    const auto left = kMaxFilledMembers - std::min(w.filledMembers, kMaxFilledMembers);
    auto ranks = parseGroupRanks(
        listed, size, static_cast<std::uint32_t>(std::min<std::uint64_t>(left, JobInfo::kMaxWorldSize)));
    if (ranks) {
        w.filledMembers += ranks->size();
    }
    return ranks;
}

void readPgConfig(ond::value v, Walk& w)
{
    ond::array groups;
    if (v.get_array().get(groups)) {
        return;
    }
    for (auto item : groups) {
        ond::object g;
        if (item.get_object().get(g)) {
            continue;
        }
        std::string name, desc, listed;
        std::vector<std::uint32_t> ranks;
        std::uint32_t size = 0;
        bool array = false;
        forEachField(g, [&](std::string_view k, ond::value gv) {
            if (k == "pg_name") {
                name = str(gv);
            } else if (k == "pg_desc") {
                desc = str(gv);
            } else if (k == "pg_size") {
                size = static_cast<std::uint32_t>(std::clamp<std::int64_t>(integer(gv), 0, JobInfo::kMaxWorldSize));
            } else if (k == "ranks") {
                ond::array list;
                if (!gv.get_array().get(list)) {
                    array = true;
                    for (auto r : list) {
                        std::int64_t rank = -1;
                        if (!r.get_int64().get(rank) && rank >= 0 && rank < JobInfo::kMaxWorldSize
                            && ranks.size() < JobInfo::kMaxWorldSize) {
                            ranks.push_back(static_cast<std::uint32_t>(rank));
                        }
                    }
                } else {
                    listed = str(gv);
                }
            }
        });
        if (name.empty()) {
            continue;
        }
        if (!array) {
            auto filled = fillIn(listed, size, w);
            if (!filled) {
                continue; // the kernels' args may still say
            }
            ranks = std::move(*filled);
        }
        w.pgConfig[name] = GroupInfo { desc, std::move(ranks) };
    }
}

void readDistributedInfo(ond::value v, Walk& w)
{
    ond::object info;
    if (v.get_object().get(info)) {
        return;
    }
    forEachField(info, [&](std::string_view k, ond::value iv) {
        if (k == "rank") {
            const auto r = integer(iv);
            if (r >= 0 && r <= std::numeric_limits<std::uint32_t>::max()) {
                w.rank = static_cast<std::uint32_t>(r);
            }
        } else if (k == "world_size") {
            w.worldSize = static_cast<std::uint32_t>(
                std::clamp<std::int64_t>(integer(iv), 0, std::numeric_limits<std::uint32_t>::max()));
        } else if (k == "pg_config") {
            readPgConfig(iv, w);
        }
    });
}

// The events array; false when it is not an array. An element that is not an object is skipped; any other error
// is the document ending (a cut): the walk stops there.
bool readEvents(ond::value v, Walk& w)
{
    ond::array arr;
    if (v.get_array().get(arr)) {
        return false;
    }
    for (auto item : arr) {
        ond::object o;
        if (const auto err = item.get_object().get(o)) {
            if (err == simdjson::INCORRECT_TYPE) {
                continue;
            }
            w.endedEarly = true;
            w.why = simdjson::error_message(err);
            break;
        }
        auto e = readEvent(o);
        if ((e.kernel && (!e.collective.empty() || !e.kernelOp.empty())) || (e.paramComms && e.externalId >= 0)) {
            w.events.push_back(std::move(e));
        }
    }
    return true;
}

// Walks the first `len` bytes of `text` (its capacity holds simdjson's padding past them). An error only for what
// no cut explains: "traceEvents" that is not an array.
std::optional<LoadIssue> walk(const std::string& file, const std::string& text, std::size_t len, Walk& w)
{
    thread_local ond::parser parser; // one parser reused across files: its buffers stay warm
    try {
        ond::document doc;
        ond::object top;
        auto err = parser.iterate(simdjson::padded_string_view(text.data(), len, text.capacity())).get(doc);
        if (err || (err = doc.get_object().get(top))) {
            w.endedEarly = true;
            w.why = simdjson::error_message(err);
            return std::nullopt;
        }
        w.opened = true;
        for (auto field : top) {
            std::string_view key;
            ond::value v;
            const auto keyError = field.unescaped_key().get(key);
            if (const auto err = keyError ? keyError : field.value().get(v)) {
                w.endedEarly = true;
                w.why = simdjson::error_message(err);
                break;
            }
            if (key == "baseTimeNanoseconds") {
                w.baseNs = integer(v);
            } else if (key == "distributedInfo") {
                readDistributedInfo(v, w);
            } else if (key == "traceEvents") {
                if (!readEvents(v, w)) {
                    return LoadIssue { file, 0, -1, "\"traceEvents\" is not an array" };
                }
                if (w.endedEarly) {
                    break;
                }
            }
        }
        // A document that stops right after a nested '}' ends the walk without an error: the iterator is dead.
        if (!w.endedEarly && !doc.is_alive()) {
            w.endedEarly = true;
            w.why = "the document stops before its top object closes";
        }
    } catch (const simdjson::simdjson_error& e) {
        w.endedEarly = true;
        w.why = e.what();
    }
    return std::nullopt;
}

// Kineto's ts of 2024-era traces count µs from baseTimeNanoseconds; all of them far below epoch µs (1e15 µs is
// September 2001) say the trace relies on a base it does not hold.
bool timesAreRelative(const std::vector<Event>& events)
{
    double latest = -1;
    for (const auto& e : events) {
        if (std::isfinite(e.ts)) {
            latest = std::max(latest, e.ts);
        }
    }
    return latest >= 0 && latest < 1e15;
}

// The members of the group an event names: distributedInfo.pg_config's whole list when it has the group, else the
// event's own "Process Group Ranks" — filled in when PyTorch cut it past 30 members, left to the ranks that ran
// the group when it cannot be (noted in w.cutLists, said once per group).
void addGroup(const Event& e, Walk& w, std::map<std::string, GroupInfo>& groups)
{
    const auto pg = e.pg.empty() ? std::string("0") : e.pg;
    if (groups.count(pg)) {
        return;
    }
    if (const auto it = w.pgConfig.find(pg); it != w.pgConfig.end()) {
        groups[pg] = it->second;
        return;
    }
    if (e.pgRanks.empty()) {
        return;
    }
    if (auto ranks = fillIn(e.pgRanks, e.groupSize, w)) {
        groups[pg] = GroupInfo { e.pgDesc, std::move(*ranks) };
    } else if (std::find(w.cutLists.begin(), w.cutLists.end(), pg) == w.cutLists.end()) {
        w.cutLists.push_back(pg);
    }
}

std::string count(std::size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Why a trace would stop early: PyTorch's profiler writes "<name>.tmp" and renames it once the trace is whole.
std::string cutCause(const std::string& file)
{
    return file.size() > 4 && file.compare(file.size() - 4, 4, ".tmp") == 0
        ? "a .tmp file: PyTorch's profiler renames a trace when it is whole, so this one never was"
        : "cut off while written, or copied before it was whole?";
}

// A trace that ended early: walked again up to its last whole event. The walk it leaves in `w`, and the warning
// saying where the file stops; or why nothing can be read from it; nullopt when the file was not cut after all.
std::optional<Result<std::string>> readUpToCut(const std::string& file, const std::string& text, Walk& w)
{
    const auto cut = findJsonArrayCut(text, "traceEvents");
    if (cut.topClosed) {
        return std::nullopt; // not cut: what the walk read stands (an error inside it is not a cut's)
    }
    if (!cut.found) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(text.size()),
            "the trace ends before its \"traceEvents\" begin (" + w.why + "; " + cutCause(file)
                + "): nothing to read" };
    }
    if (cut.wholeRecords == 0) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(text.size()),
            std::string(cut.closed ? "the trace holds no events and ends early ("
                                   : "the trace ends before its first event is whole (")
                + cutCause(file) + "): nothing to read" };
    }
    w = Walk {};
    if (auto bad = walk(file, text, cut.readableEnd, w)) {
        return *bad;
    }
    if (!w.opened) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(cut.readableEnd),
            "the trace cannot be read up to its last whole event either (" + w.why + "): nothing to read" };
    }
    if (!w.baseNs && timesAreRelative(w.events)) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(cut.readableEnd),
            "the trace was cut off before its baseTimeNanoseconds (some PyTorch releases write it after the "
            "events; "
                + cutCause(file)
                + "): its times count from a start it no longer says, so they cannot be "
                  "placed; left out" };
    }
    const bool gz = file.size() > 3 && file.compare(file.size() - 3, 3, ".gz") == 0;
    const auto at = "at byte " + std::to_string(cut.readableEnd) + " of " + std::to_string(text.size())
        + (gz ? " it inflates to (" : " (") + cutCause(file) + ")";
    if (!cut.closed) {
        return "the trace ends inside its events " + at + ": read the "
            + count(cut.wholeRecords, "whole event", "whole events") + " before the cut";
    }
    return "the trace ends after its events, in what PyTorch writes behind them, " + at + ": read all "
        + count(cut.wholeRecords, "event", "events");
}

} // namespace

Result<KinetoTrace> parseKinetoTrace(const std::string& file, const std::string& text)
{
    KinetoTrace out;
    out.collectives.version = "kineto";
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
        return LoadIssue { file, 0, -1, "internal: the buffer lacks simdjson's padding" };
    }
    Walk w;
    if (auto bad = walk(file, text, text.size(), w)) {
        return *bad;
    }
    if (w.endedEarly) {
        if (auto said = readUpToCut(file, text, w); said && !*said) {
            return said->error();
        } else if (said) {
            out.collectives.warnings.push_back({ file, 0, -1, said->value() });
        }
    }
    out.rank = w.rank;
    out.worldSize = w.worldSize;
    const auto& events = w.events;
    const auto& baseNs = w.baseNs;
    // ts is µs after baseTimeNanoseconds, or epoch µs in traces older than torch 2.4.
    // Integer base plus the offset: a double holding epoch ns would lose 256 ns of precision.
    const TimeNs base = baseNs.value_or(0);
    // Whole µs and the fraction apart (epoch µs has 16 digits); nullopt when the sum leaves int64 ns.
    auto toNs = [&](double us) -> std::optional<TimeNs> {
        const double whole = std::floor(us);
        const auto wholeUs = checkedFromDouble(whole);
        const auto wholeNs = wholeUs ? checkedMul(*wholeUs, 1000) : std::nullopt;
        const auto withBase = wholeNs ? checkedAdd(base, *wholeNs) : std::nullopt;
        return withBase ? checkedAdd(*withBase, std::llround((us - whole) * 1000.0)) : std::nullopt;
    };
    std::unordered_map<std::int64_t, TimeNs> enqueue; // External id → CPU op start
    for (const auto& e : events) {
        if (e.paramComms && std::isfinite(e.ts)) {
            if (const auto t = toNs(e.ts)) {
                enqueue.emplace(e.externalId, *t);
            }
        }
        addGroup(e, w, out.collectives.groups);
    }
    for (const auto& pg : w.cutLists) {
        out.collectives.warnings.push_back({ file, 0, -1,
            "process group \"" + pg
                + "\": the profiler lists only some of its members (PyTorch keeps 30), and "
                  "they cannot be filled in (they do not step evenly to the last, or this trace's groups already "
                  "hold more members than a job has): its members are the ranks that ran it" });
    }
    std::size_t withoutSeq = 0;
    WarningCap cap(out.collectives.warnings);
    for (const auto& e : events) {
        cap.trim();
        if (!e.kernel) {
            continue;
        }
        ++out.kernels;
        const std::string opName = !e.collective.empty() ? e.collective : e.kernelOp;
        if (isPointToPoint(opName)) {
            ++out.collectives.p2pSkipped; // send/recv pairs are not collectives every rank joins
            continue;
        }
        if (!std::isfinite(e.ts) || !std::isfinite(e.dur)) {
            out.collectives.warnings.push_back(
                { file, 0, -1, "an NCCL kernel without ts or dur (" + opName + "): skipped" });
            continue;
        }
        RankRecord fe;
        fe.pg = e.pg.empty() ? "0" : e.pg;
        fe.seq = e.seq >= 0 ? static_cast<std::uint32_t>(e.seq) : 0;
        withoutSeq += e.seq < 0 ? 1 : 0;
        fe.op = opFromProfilingName(lowered(opName));
        const auto width = dtypeBytes(e.dtype);
        fe.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, e.nelems)) * (width == 0 ? 1 : width);
        const auto start = toNs(e.ts);
        const auto durNs = checkedFromDouble(std::round(e.dur * 1000.0));
        const auto end = start && durNs && *durNs >= 0 ? checkedAdd(*start, *durNs) : std::nullopt;
        if (!end) {
            out.collectives.warnings.push_back({ file, 0, -1,
                "an NCCL kernel whose ts or dur lies outside what epoch nanoseconds hold (" + e.collective
                    + "): skipped" });
            continue;
        }
        fe.startNs = *start;
        fe.endNs = *end;
        auto it = enqueue.find(e.externalId);
        fe.enqueueNs = it != enqueue.end() && it->second <= fe.startNs ? it->second : fe.startNs;
        fe.state = CollectiveState::Completed;
        out.collectives.entries.push_back(fe);
    }
    cap.finish(file);
    if (withoutSeq > 0) {
        numberByOrder(out.collectives);
        out.collectives.warnings.push_back({ file, 0, -1,
            std::to_string(withoutSeq)
                + " NCCL kernels carry no Seq: collectives are matched across ranks by their "
                  "order within each process group" });
    }
    std::sort(out.collectives.entries.begin(), out.collectives.entries.end(),
        [](const RankRecord& a, const RankRecord& b) { return a.enqueueNs < b.enqueueNs; });
    out.collectives.rank = out.rank;
    return out;
}

} // namespace stallscope
