// SPDX-License-Identifier: MIT
#include "sim/openmetrics_writer.h"

#include "core/atomic_file.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

namespace stallscope {

namespace {

constexpr TimeNs kInfoEveryNs = 60 * kNsPerSec; // info series re-sampled inside the server's 5-minute lookback

// Seconds with millisecond precision, as OpenMetrics timestamps are written ("1793491200.250").
void stamp(std::FILE* f, TimeNs t)
{
    std::fprintf(f, " %" PRId64 ".%03" PRId64 "\n", t / kNsPerSec, t % kNsPerSec / kNsPerMs);
}

std::string guidLabel(std::uint64_t g)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64, g);
    return buf;
}

// One family: every series of `kind` on host ports (node_exporter) or switch ports (treydock).
void writeFamily(std::FILE* f, const JobSnapshot& snap, CounterKind kind, bool hostSide)
{
    const auto& sem = semantics(kind);
    const std::string sample
        = hostSide ? std::string(sem.nodeExporter) : "infiniband_switch_port_" + std::string(sem.treydock) + "_total";
    std::fprintf(f, "# TYPE %.*s counter\n", int(sample.size() - 6), sample.c_str()); // family name: no _total
    const std::uint64_t bytes = sem.unitBytes ? sem.unitBytes : 1; // exporters publish data counters in bytes
    for (const auto& s : snap.counters) {
        const auto& cp = snap.counterPorts[s.port];
        if (s.kind != kind || !cp.node) {
            continue;
        }
        const auto& node = snap.topology.node(*cp.node);
        if ((node.kind == NodeKind::Hca) != hostSide) {
            continue;
        }
        const std::string labels = hostSide
            ? "{device=\"" + std::string(snap.str(node.hcaName)) + "\",instance=\"" + std::string(snap.str(node.host))
                + ":9100\",job=\"node\",port=\"" + std::to_string(cp.port) + "\"}"
            : "{guid=\"" + guidLabel(node.guid) + "\",job=\"ib\",port=\"" + std::to_string(cp.port) + "\"}";
        for (std::size_t i = 0; i < s.size(); ++i) {
            std::fprintf(f, "%s%s %" PRIu64, sample.c_str(), labels.c_str(), s.value(i) * bytes);
            stamp(f, s.timesNs[i]);
        }
    }
}

// The switches' names (the fabric review reads them when no topology file is there).
void writeSwitchInfo(std::FILE* f, const JobSnapshot& snap)
{
    std::fprintf(f, "# TYPE infiniband_switch_info gauge\n");
    const auto span = snap.job.span;
    for (const auto& node : snap.topology.nodes()) {
        if (node.kind != NodeKind::Switch) {
            continue;
        }
        const auto labels = "{guid=\"" + guidLabel(node.guid) + "\",job=\"ib\",switch=\""
            + std::string(snap.str(node.description)) + "\"}";
        for (TimeNs t = span.start;; t = std::min(span.end, t + kInfoEveryNs)) {
            std::fprintf(f, "infiniband_switch_info%s 1", labels.c_str());
            stamp(f, t);
            if (t >= span.end) {
                break;
            }
        }
    }
}

} // namespace

std::string writeOpenMetrics(const JobSnapshot& snap, const std::string& file)
{
    const auto tmp = file + ".tmp";
    std::string error;
    {
        DurableFile out(tmp);
        if (!out) {
            return tmp + ": " + errnoText();
        }
        for (const bool hostSide : { true, false }) {
            for (int k = 0; k < kCounterKindCount; ++k) {
                writeFamily(out.handle(), snap, static_cast<CounterKind>(k), hostSide);
            }
        }
        writeSwitchInfo(out.handle(), snap);
        std::fputs("# EOF\n", out.handle());
        if (auto e = out.finish(); !e.empty()) {
            error = tmp + ": " + e;
        }
    }
    std::error_code ec;
    if (error.empty()) {
        std::filesystem::rename(tmp, file, ec);
        if (ec) {
            error = file + ": " + ec.message();
        }
    }
    if (!error.empty()) {
        std::filesystem::remove(tmp, ec);
    }
    return error;
}

} // namespace stallscope
