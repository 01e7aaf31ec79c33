// SPDX-License-Identifier: MIT
#include "import/kineto/kineto_trace.h"

#include "core/checked_math.h"
#include "core/parse_number.h"
#include "core/warning_cap.h"

#include "import/common/json_fields.h"

#include <simdjson.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <unordered_map>

namespace stallscope {

namespace ond = simdjson::ondemand;

bool looksLikeKinetoTrace(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{' && text.find("\"traceEvents\"") != std::string::npos;
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

Result<KinetoTrace> parseKinetoTrace(const std::string& file, const std::string& text)
{
    KinetoTrace out;
    out.collectives.version = "kineto";
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
        return LoadIssue { file, 0, -1, "internal: the buffer lacks simdjson's padding" };
    }
    thread_local ond::parser parser; // one parser reused across files: its buffers stay warm
    std::vector<Event> events;
    std::optional<std::int64_t> baseNs;
    try {
        auto doc = parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity()));
        ond::object top;
        if (auto err = doc.get_object().get(top)) {
            return LoadIssue { file, 0, -1, std::string("expected a JSON object: ") + simdjson::error_message(err) };
        }
        std::optional<LoadIssue> failed;
        forEachField(top, [&](std::string_view key, ond::value v) {
            if (key == "baseTimeNanoseconds") {
                baseNs = integer(v);
            } else if (key == "distributedInfo") {
                ond::object info;
                if (v.get_object().get(info)) {
                    return;
                }
                forEachField(info, [&](std::string_view k, ond::value iv) {
                    if (k == "rank") {
                        const auto r = integer(iv);
                        if (r >= 0) {
                            out.rank = static_cast<std::uint32_t>(r);
                        }
                    } else if (k == "world_size") {
                        out.worldSize = static_cast<std::uint32_t>(std::max<std::int64_t>(0, integer(iv)));
                    }
                });
            } else if (key == "traceEvents") {
                ond::array arr;
                if (v.get_array().get(arr)) {
                    failed = LoadIssue { file, 0, -1, "\"traceEvents\" is not an array" };
                    return;
                }
                for (auto item : arr) {
                    ond::object o;
                    if (item.get_object().get(o)) {
                        continue;
                    }
                    auto e = readEvent(o);
                    if ((e.kernel && (!e.collective.empty() || !e.kernelOp.empty()))
                        || (e.paramComms && e.externalId >= 0)) {
                        events.push_back(std::move(e));
                    }
                }
            }
        });
        if (failed) {
            return *failed;
        }
    } catch (const simdjson::simdjson_error& e) {
        return LoadIssue { file, 0, -1, std::string("invalid JSON: ") + e.what() };
    }
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
        if (!e.pgRanks.empty() && !out.collectives.groups.count(e.pg.empty() ? "0" : e.pg)) {
            out.collectives.groups[e.pg.empty() ? "0" : e.pg] = GroupInfo { e.pgDesc, parseRanks(e.pgRanks) };
        }
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
