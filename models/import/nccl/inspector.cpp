// SPDX-License-Identifier: MIT
#include "import/nccl/inspector.h"

#include "core/checked_math.h"
#include "core/parse_number.h"
#include "import/common/rank_records.h"

#include "import/common/json_fields.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace stallscope {

namespace ond = simdjson::ondemand;

bool looksLikeNcclInspector(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text.compare(first, 10, "{\"header\":") != 0) {
        return false;
    }
    const auto head = std::string_view(text).substr(first, 4096);
    return head.find("\"inspector_output_format_version\"") != std::string_view::npos
        || head.find("\"coll_perf\"") != std::string_view::npos || head.find("\"p2p_perf\"") != std::string_view::npos;
}

namespace {

// More comms than this in one process's file is not a job, it is a damaged file: comm indices stay small.
constexpr std::size_t kMaxComms = 1u << 16;

std::string_view str(ond::value v)
{
    std::string_view s;
    return v.get_string().get(s) ? std::string_view() : s;
}

// A non-negative integer field; -1 when absent, negative, fractional beyond int64 or not a number.
std::int64_t integer(ond::value v)
{
    std::int64_t i = -1;
    if (!v.get_int64().get(i)) {
        return i < 0 ? -1 : i;
    }
    std::uint64_t u = 0;
    if (!v.get_uint64().get(u)) {
        return -1; // beyond int64: not a value this format writes
    }
    double d = 0;
    if (!v.get_double().get(d)) {
        return checkedFromDouble(d).value_or(-1);
    }
    return -1;
}

// Epoch µs → ns; kNoTime when absent or when it would leave int64 ns.
TimeNs usToNs(std::int64_t us)
{
    if (us <= 0) {
        return kNoTime;
    }
    return checkedMul(us, std::int64_t { 1000 }).value_or(kNoTime);
}

CollectiveOp opOf(std::string_view name)
{
    std::string lowered(name.substr(0, 40));
    for (auto& c : lowered) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return opFromProfilingName(lowered);
}

struct Header
{
    std::string id, name;
    std::int64_t rank = -1, size = -1, nodes = -1;
};

struct Line
{
    Header header;
    std::string version, host;
    std::int64_t pid = -1, dumpUs = -1;
    bool coll = false, p2p = false;
    std::string_view op;
    std::int64_t sn = -1, bytes = -1, execUs = -1;
    std::string_view timing;
    std::int64_t collStartUs = -1, kernelStartUs = -1, kernelStopUs = -1;
    bool verbose = false;
};

void readHeader(ond::object o, Header& h)
{
    forEachField(o, [&](std::string_view k, ond::value v) {
        if (k == "id") {
            h.id = std::string(str(v).substr(0, 64));
        } else if (k == "comm_name") {
            h.name = std::string(str(v).substr(0, 128));
        } else if (k == "rank") {
            h.rank = integer(v);
        } else if (k == "n_ranks") {
            h.size = integer(v);
        } else if (k == "nnodes") {
            h.nodes = integer(v);
        }
    });
}

void readMetadata(ond::object o, Line& l)
{
    forEachField(o, [&](std::string_view k, ond::value v) {
        if (k == "inspector_output_format_version") {
            l.version = std::string(str(v).substr(0, 16));
        } else if (k == "dump_timestamp_us") {
            l.dumpUs = integer(v);
        } else if (k == "hostname") {
            l.host = std::string(str(v).substr(0, 128));
        } else if (k == "pid") {
            l.pid = integer(v);
        }
    });
}

// event_trace_ts: the collective's start and, over its channels, the first kernel start and the last stop.
void readTraceTimes(ond::object o, Line& l)
{
    forEachField(o, [&](std::string_view k, ond::value v) {
        if (k == "coll_start_ts") {
            l.collStartUs = integer(v);
        } else if (k == "kernel_events") {
            ond::array arr;
            if (v.get_array().get(arr)) {
                return;
            }
            for (auto item : arr) {
                ond::object ch;
                if (item.get_object().get(ch)) {
                    continue;
                }
                forEachField(ch, [&](std::string_view ck, ond::value cv) {
                    const auto t = integer(cv);
                    if (t <= 0) {
                        return;
                    }
                    if (ck == "kernel_start_ts") {
                        l.kernelStartUs = l.kernelStartUs < 0 ? t : std::min(l.kernelStartUs, t);
                    } else if (ck == "kernel_stop_ts") {
                        l.kernelStopUs = std::max(l.kernelStopUs, t);
                    }
                });
            }
        }
    });
    l.verbose = true;
}

void readPerf(ond::object o, Line& l)
{
    forEachField(o, [&](std::string_view k, ond::value v) {
        if (k == "coll") {
            l.op = str(v);
        } else if (k == "coll_sn") {
            l.sn = integer(v);
        } else if (k == "coll_msg_size_bytes") {
            l.bytes = integer(v);
        } else if (k == "coll_exec_time_us") {
            l.execUs = integer(v);
        } else if (k == "coll_timing_source") {
            l.timing = str(v);
        } else if (k == "event_trace_ts") {
            ond::object t;
            if (!v.get_object().get(t)) {
                readTraceTimes(t, l);
            }
        }
    });
}

// One line into `l`; false when it is not a JSON object (cut mid-write, another program's output).
bool readLine(ond::parser& parser, const std::string& text, std::size_t at, std::size_t len, Line& l)
{
    // A line cut mid-write (the process died, the file was copied while written) ends before its last brace;
    // On-Demand would read the fields before the cut and never notice.
    const auto last = std::string_view(text).substr(at, len).find_last_not_of(" \t\r");
    if (last == std::string_view::npos || text[at + last] != '}') {
        return false;
    }
    auto doc = parser.iterate(simdjson::padded_string_view(text.data() + at, len, text.capacity() - at));
    ond::object top;
    if (doc.get_object().get(top)) {
        return false;
    }
    forEachField(top, [&](std::string_view k, ond::value v) {
        ond::object o;
        if (v.get_object().get(o)) {
            return;
        }
        if (k == "header") {
            readHeader(o, l.header);
        } else if (k == "metadata") {
            readMetadata(o, l);
        } else if (k == "coll_perf") {
            l.coll = true;
            readPerf(o, l);
        } else if (k == "p2p_perf") {
            l.p2p = true;
        }
    });
    return true;
}

// Lines left out, grouped by reason: one warning per reason with the count and the first line.
class Skipped
{
public:
    void add(const std::string& reason, std::int64_t line)
    {
        auto& [count, first] = m_reasons[reason];
        first = count++ == 0 ? line : first;
    }
    void report(const std::string& file, std::vector<LoadIssue>& out) const
    {
        for (const auto& [reason, cf] : m_reasons) {
            out.push_back({ file, cf.second, -1,
                std::to_string(cf.first) + (cf.first == 1 ? " line " : " lines ") + reason
                    + (cf.first > 1 ? " (first: this line)" : "") + ": left out" });
        }
    }

private:
    std::map<std::string, std::pair<std::size_t, std::int64_t>> m_reasons;
};

// The communicator a header names, added on first sight; nullopt when the header is unusable.
std::optional<std::uint32_t> commOf(InspectorFile& out, std::map<std::string, std::uint32_t>& index, const Header& h)
{
    if (h.id.empty() || h.rank < 0 || h.size <= 0 || h.rank >= h.size || h.size > (1 << 24)) {
        return std::nullopt;
    }
    if (auto it = index.find(h.id); it != index.end()) {
        return it->second;
    }
    if (out.comms.size() >= kMaxComms) {
        return std::nullopt;
    }
    const auto i = static_cast<std::uint32_t>(out.comms.size());
    out.comms.push_back({ h.id, h.name.empty() ? "unknown" : h.name, static_cast<std::uint32_t>(h.rank),
        static_cast<std::uint32_t>(h.size), static_cast<std::uint32_t>(std::max<std::int64_t>(0, h.nodes)) });
    index.emplace(h.id, i);
    return i;
}

} // namespace

Result<InspectorFile> parseNcclInspector(const std::string& file, const std::string& text)
{
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
        return LoadIssue { file, 0, -1, "internal: the buffer lacks simdjson's padding" };
    }
    InspectorFile out;
    thread_local ond::parser parser;
    std::map<std::string, std::uint32_t> index;
    Skipped skipped;
    std::int64_t lineNo = 0;
    Line last; // the last line that named its communicator and writer
    for (std::size_t at = 0; at < text.size();) {
        auto nl = text.find('\n', at);
        nl = nl == std::string::npos ? text.size() : nl;
        const auto len = nl - at;
        ++lineNo;
        const auto lineAt = at;
        at = nl + 1;
        if (std::string_view(text).substr(lineAt, len).find_first_not_of(" \t\r") == std::string_view::npos) {
            continue;
        }
        Line l;
        try {
            if (!readLine(parser, text, lineAt, len, l)) {
                skipped.add("not a JSON object (cut mid-write?)", lineNo);
                continue;
            }
        } catch (const simdjson::simdjson_error&) {
            skipped.add("not valid JSON (cut mid-write?)", lineNo);
            continue;
        }
        // A line may carry its communicator and writer for the records after it (newer writers state them once
        // per dump): a record without a header takes the last one seen, and its dump time with it.
        if (!l.header.id.empty()) {
            last = l;
        } else if (l.coll || l.p2p) {
            l.header = last.header;
            l.dumpUs = l.dumpUs < 0 ? last.dumpUs : l.dumpUs;
        }
        if (!l.coll && !l.p2p) {
            if (l.header.id.empty()) {
                skipped.add("without coll_perf or p2p_perf", lineNo);
            }
            continue;
        }
        if (out.host.empty() && !last.host.empty()) {
            out.host = last.host;
            out.pid = last.pid;
            out.version = last.version;
        }
        if (l.p2p) {
            ++out.p2p;
            continue;
        }
        const auto comm = commOf(out, index, l.header);
        if (!comm) {
            skipped.add("with a header lacking its communicator id, rank or n_ranks", lineNo);
            continue;
        }
        if (l.op.empty() || l.sn < 0 || l.execUs < 0) {
            skipped.add("without coll, coll_sn or coll_exec_time_us", lineNo);
            continue;
        }
        InspectorRecord r;
        r.comm = *comm;
        r.op = opOf(l.op);
        r.sn = static_cast<std::uint64_t>(l.sn);
        r.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.bytes));
        r.execUs = l.execUs;
        r.gpuTimed = l.timing.empty() || l.timing == "kernel_gpu";
        r.dumpNs = usToNs(l.dumpUs);
        if (l.verbose) {
            ++out.verbose;
            r.enqueueNs = usToNs(l.collStartUs);
            r.startNs = usToNs(l.kernelStartUs);
            r.endNs = usToNs(l.kernelStopUs);
            if (r.startNs != kNoTime && (r.endNs == kNoTime || r.endNs < r.startNs)) {
                r.endNs
                    = checkedAdd(r.startNs, checkedMul(r.execUs, std::int64_t { 1000 }).value_or(0)).value_or(kNoTime);
            }
        }
        out.records.push_back(r);
    }
    skipped.report(file, out.warnings);
    if (out.records.empty() && out.p2p == 0) {
        return LoadIssue { file, 0, -1,
            "expected NCCL Inspector lines ({\"header\":…, \"metadata\":…, \"coll_perf\":…}), found none" };
    }
    return out;
}

} // namespace stallscope
