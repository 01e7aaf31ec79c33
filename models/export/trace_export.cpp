// SPDX-License-Identifier: MIT
#include "export/trace_export.h"
#include "core/json_text.h"

#include "core/checked_math.h"
#include "core/parse_number.h"
#include "core/time_format.h"
#include "view/counter_plot_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

namespace stallscope {

namespace {

constexpr int kRanksPid = 1;
constexpr int kLinksPid = 2;

// µs since origin with ns precision, as Chrome traces write it.
std::string us(TimeNs t, TimeNs origin)
{
    char buf[48];
    const TimeNs d = t - origin;
    std::snprintf(
        buf, sizeof buf, "%lld.%03lld", static_cast<long long>(d / 1000), static_cast<long long>(std::llabs(d % 1000)));
    return buf;
}

std::string quoted(const std::string& s)
{
    return jsonText(nlohmann::json(s));
}

} // namespace

std::optional<std::vector<std::uint32_t>> parseRankList(const std::string& text, std::uint32_t worldSize)
{
    std::set<std::uint32_t> out;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        unsigned a = 0, b = 0;
        char extra = 0;
        if (std::sscanf(part.c_str(), "%u-%u%c", &a, &b, &extra) == 2) {
        } else if (std::sscanf(part.c_str(), "%u%c", &a, &extra) == 1) {
            b = a;
        } else {
            return std::nullopt;
        }
        if (a > b || b >= worldSize) {
            return std::nullopt;
        }
        for (auto r = a; r <= b; ++r) {
            out.insert(r);
        }
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return std::vector<std::uint32_t>(out.begin(), out.end());
}

namespace {

// One end of a window: a duration since `origin`, or nanoseconds since the epoch when it is a long run of digits.
Result<TimeNs, std::string> parseWindowEnd(const std::string& t, TimeNs origin)
{
    const bool epochNs = t.size() > 15 && t.find_first_not_of("0123456789") == std::string::npos;
    if (epochNs) {
        if (const auto ns = parseNumber<TimeNs>(t)) {
            return *ns;
        }
        return "\"" + t + "\" is beyond the times Stallscope holds (nanoseconds since 1970, up to 2262)";
    }
    const auto d = parseDuration(t);
    if (!d) {
        return "cannot read \"" + t
            + "\" as a time: expected a duration since the job's start (90s, 4m, 1h30m) or nanoseconds since "
              "the epoch (more than 15 digits)";
    }
    if (const auto at = checkedAdd(origin, *d)) {
        return *at;
    }
    return "\"" + t + "\" after the job's start is beyond the times Stallscope holds (up to 2262)";
}

} // namespace

Result<TimeRange, std::string> parseTimeWindow(const std::string& text, TimeNs origin)
{
    const auto dots = text.find("..");
    if (dots == std::string::npos) {
        return std::string("expected START..END, e.g. 4m..6m");
    }
    const auto a = parseWindowEnd(text.substr(0, dots), origin);
    if (!a) {
        return a.error();
    }
    const auto b = parseWindowEnd(text.substr(dots + 2), origin);
    if (!b) {
        return b.error();
    }
    if (b.value() <= a.value()) {
        return "the end (" + text.substr(dots + 2) + ") must come after the start (" + text.substr(0, dots) + ")";
    }
    return TimeRange { a.value(), b.value() };
}

TraceExportCounts writeChromeTrace(
    std::ostream& out, const JobSnapshot& snap, const AnalysisResult* analysis, const TraceExportOptions& options)
{
    TraceExportCounts counts;
    const TimeNs origin = snap.job.clockOriginNs;
    const TimeRange window = options.window.value_or(snap.job.span);
    std::vector<std::uint32_t> ranks = options.ranks;
    if (ranks.empty()) {
        for (std::uint32_t r = 0; r < snap.collectives.size(); ++r) {
            ranks.push_back(r);
        }
    }
    out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"stallscope export-trace\",\"job\":"
        << quoted(snap.job.name) << ",\"clock_origin_ns\":" << origin << ",\"ts_unit\":\"us since clock_origin_ns\"},\n"
        << "\"traceEvents\":[\n";
    out << "{\"ph\":\"M\",\"pid\":" << kRanksPid << ",\"name\":\"process_name\",\"args\":{\"name\":\"Ranks\"}},\n"
        << "{\"ph\":\"M\",\"pid\":" << kLinksPid << ",\"name\":\"process_name\",\"args\":{\"name\":\"Fabric links\"}}";
    for (const auto r : ranks) {
        const auto& ri = snap.ranks[r];
        out << ",\n{\"ph\":\"M\",\"pid\":" << kRanksPid << ",\"tid\":" << r
            << ",\"name\":\"thread_name\",\"args\":{\"name\":"
            << quoted("rank " + std::to_string(r) + " " + snap.str(ri.host) + " " + snap.str(ri.hca)) << "}}";
        out << ",\n{\"ph\":\"M\",\"pid\":" << kRanksPid << ",\"tid\":" << r
            << ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" << r << "}}";
    }
    for (const auto r : ranks) {
        const auto& c = snap.collectives[r];
        auto i = static_cast<std::size_t>(
            std::lower_bound(c.enqueueNs.begin(), c.enqueueNs.end(), window.start - snap.policy.collectiveTimeoutNs)
            - c.enqueueNs.begin());
        for (; i < c.size() && c.enqueueNs[i] < window.end; ++i) {
            const TimeNs a = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
            const TimeNs b = c.endNs[i] != kNoTime ? c.endNs[i] : snap.job.span.end;
            if (b < window.start || a >= window.end || c.stateAt(i) == CollectiveState::Scheduled) {
                continue;
            }
            const auto& shape = snap.shapes[c.shape[i]];
            out << ",\n{\"ph\":\"X\",\"pid\":" << kRanksPid << ",\"tid\":" << r << ",\"ts\":" << us(a, origin)
                << ",\"dur\":" << us(b, a) << ",\"name\":\"" << toString(shape.op)
                << "\",\"cat\":\"collective\",\"args\":{\"pg\":" << quoted(snap.str(snap.groups[shape.group].name))
                << ",\"seq\":" << c.seq[i] << ",\"bytes\":" << shape.bytes << ",\"state\":\"" << toString(c.stateAt(i))
                << "\"}}";
            ++counts.slices;
        }
    }
    // Counter tracks: traffic and link_downed of the chosen links, both ends.
    std::set<std::uint32_t> links;
    if (options.allLinks) {
        for (std::uint32_t i = 0; i < snap.topology.links().size(); ++i) {
            links.insert(i);
        }
    } else if (analysis) {
        for (const auto& inc : analysis->incidents) {
            if (inc.culprit) {
                links.insert(index(inc.culprit->link));
            }
        }
    }
    for (const auto li : links) {
        const auto& l = snap.topology.link(static_cast<LinkId>(li));
        for (const auto& end : { l.a, l.b }) {
            const auto& node = snap.topology.node(end.node);
            const std::string name = snap.str(node.description) + " port " + std::to_string(end.port);
            for (const auto& [kind, scale, label] : { std::tuple { CounterKind::PortXmitData, 4.0 / 1e9, "xmit GB/s" },
                     std::tuple { CounterKind::LinkDowned, 1.0, "link_downed /s" } }) {
                const auto* s = findSeries(snap, node.guid, end.port, kind);
                if (!s) {
                    continue;
                }
                const auto pts = counterRate(*s, window, 1 << 20, scale, origin);
                for (std::size_t k = 0; k < pts.keys.size(); ++k) {
                    const auto t = origin + static_cast<TimeNs>(std::llround(pts.keys[k] * 1e9));
                    out << ",\n{\"ph\":\"C\",\"pid\":" << kLinksPid << ",\"ts\":" << us(t, origin)
                        << ",\"name\":" << quoted(name + " " + label) << ",\"args\":{\"value\":" << pts.values[k]
                        << "}}";
                    ++counts.counterSamples;
                }
            }
        }
    }
    for (const auto& e : snap.linkEvents) {
        if (e.timeNs < window.start || e.timeNs >= window.end) {
            continue;
        }
        const auto node = snap.topology.findNodeByGuid(e.guid);
        const std::string where = node ? snap.str(snap.topology.node(*node).description) : formatGuid(e.guid);
        out << ",\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":" << kLinksPid << ",\"ts\":" << us(e.timeNs, origin)
            << ",\"name\":"
            << quoted(std::string("link ") + (e.state == LinkState::Down ? "DOWN " : "up ") + where + " port "
                   + std::to_string(e.port))
            << "}";
        ++counts.instants;
    }
    out << "\n]}\n";
    return counts;
}

} // namespace stallscope
