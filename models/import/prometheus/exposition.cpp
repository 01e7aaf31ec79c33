// SPDX-License-Identifier: MIT
#include "import/prometheus/exposition.h"
#include "core/checked_math.h"
#include "core/parse_number.h"
#include "import/common/line_scan.h"

#include "import/common/sample_stamp.h"
#include "import/prometheus/exposition_line.h"
#include "import/prometheus/http_answers.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

namespace stallscope {

using namespace exposition;

namespace {

// treydock's counter names (after infiniband_{switch,hca}_port_ and before _total), from the counters' table.
std::optional<PromMetric> treydockKind(std::string_view name)
{
    for (int k = 0; k < kCounterKindCount; ++k) {
        const auto& sem = semantics(static_cast<CounterKind>(k));
        if (sem.treydock == name) {
            return PromMetric { static_cast<CounterKind>(k), sem.unitBytes ? sem.unitBytes : 1 };
        }
    }
    return std::nullopt;
}

} // namespace

bool looksLikePrometheusExposition(const std::string& text)
{
    return findText(text, "node_infiniband_") != std::string::npos
        || findText(text, "infiniband_switch_") != std::string::npos
        || findText(text, "infiniband_hca_") != std::string::npos
        || (findText(text, "infiniband_") != std::string::npos && findText(text, "local_guid=") != std::string::npos);
}

bool looksLikeExpositionHead(const std::string& text)
{
    const std::string_view head = std::string_view(text).substr(0, 8192);
    std::size_t pos = 0;
    for (int n = 0; n < 64 && pos < head.size(); ++n) {
        const auto end = std::min(head.find('\n', pos), head.size());
        auto line = head.substr(pos, end - pos);
        pos = end + 1;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos) {
            continue;
        }
        line.remove_prefix(first);
        if (line[0] == '#' || std::isdigit(static_cast<unsigned char>(line[0]))) {
            continue; // comments, HELP / TYPE, stamp lines
        }
        return startsWith(line, "node_infiniband_") || startsWith(line, "infiniband_switch_")
            || startsWith(line, "infiniband_hca_")
            || (startsWith(line, "infiniband_") && line.find("local_guid=") != std::string_view::npos);
    }
    return false;
}

namespace {

// The fabric the info series describe (treydock): switch and HCA names, LIDs, and what each port faces.
void readInfoSeries(const Line& l, FabricBuilder& fabric, ExpositionFile& out)
{
    const bool isSwitch = startsWith(l.name, "infiniband_switch_");
    const bool uplink = l.name.find("_uplink_info") != std::string::npos;
    ++out.infoSeries;
    const auto guid = guidLabel(l, "guid");
    if (!guid) {
        return;
    }
    const auto self
        = fabric.node(isSwitch ? NodeKind::Switch : NodeKind::Hca, *guid, label(l, isSwitch ? "switch" : "hca"));
    if (const auto lid = label(l, "lid"); !lid.empty() && !uplink) {
        if (const auto n = parseNumber<std::uint32_t>(lid)) {
            fabric.lid(*n, self);
        }
    }
    if (const auto far = uplink ? guidLabel(l, "uplink_guid") : std::nullopt) {
        const auto type = label(l, "uplink_type");
        const auto farGuid = fabric.node(type == "CA" ? NodeKind::Hca : NodeKind::Switch, *far, label(l, "uplink"));
        fabric.link(self, portLabel(l, "port"), farGuid, portLabel(l, "uplink_port"));
    }
}

struct Context
{
    std::string unameHost, fileHost;
    bool warnedFileHost = false;
};

// node_exporter's host for a series: instance, nodename, node_uname_info, else the file name (said once).
std::string hostOf(const std::string& file, std::int64_t lineNo, const Line& l, Context& ctx, ExpositionFile& out)
{
    const auto instance = label(l, "instance");
    const auto nodename = label(l, "nodename");
    if (instance.empty() && nodename.empty() && ctx.unameHost.empty() && !ctx.warnedFileHost) {
        out.warnings.push_back({ file, lineNo, -1,
            "no instance label or node_uname_info: the host is taken from the file name (\"" + ctx.fileHost + "\")" });
        ctx.warnedFileHost = true;
    }
    return !instance.empty()     ? instance.substr(0, instance.find(':'))
        : !nodename.empty()      ? nodename
        : !ctx.unameHost.empty() ? ctx.unameHost
                                 : ctx.fileHost;
}

// A host port's state series (its identity), or nullopt for any other series.
std::optional<ExpositionState> readState(
    const std::string& file, std::int64_t lineNo, const Line& l, Context& ctx, ExpositionFile& out)
{
    const bool logical = l.name == "node_infiniband_state_id";
    const bool physical = l.name == "node_infiniband_physical_state_id";
    if (!logical && !physical) {
        return std::nullopt;
    }
    ExpositionState st;
    st.host = hostOf(file, lineNo, l, ctx, out);
    st.device = label(l, "device");
    st.port = portLabel(l, "port");
    st.physical = physical; // `up` and the time come from each reading (resolvePrometheusExposition)
    st.line = lineNo;
    return st;
}

// One counter sample, or nullopt for series that are not port counters.
std::optional<ExpositionSample> readSample(const std::string& file, std::int64_t lineNo, const Line& l,
    FabricBuilder& fabric, Context& ctx, ExpositionFile& out, std::uint64_t* divisorOut = nullptr)
{
    ExpositionSample s;
    std::uint64_t divisor = 1;
    if (startsWith(l.name, "node_infiniband_")) {
        const auto& hostMap = prometheusNodeExporterMetrics();
        auto it = hostMap.find(l.name);
        if (it == hostMap.end()) {
            return std::nullopt;
        }
        s.hostSide = true;
        s.kind = it->second.kind;
        divisor = it->second.divisor;
        s.host = hostOf(file, lineNo, l, ctx, out);
        s.device = label(l, "device");
        s.port = portLabel(l, "port");
        ++out.hostSeries;
    } else if ((startsWith(l.name, "infiniband_switch_port_") || startsWith(l.name, "infiniband_hca_port_"))
        && endsWith(l.name, "_total")) {
        const auto prefix = startsWith(l.name, "infiniband_switch_port_") ? 23u : 20u;
        const auto k = treydockKind(std::string_view(l.name).substr(prefix, l.name.size() - prefix - 6));
        const auto guid = guidLabel(l, "guid");
        if (!k || !guid) {
            return std::nullopt;
        }
        s.kind = k->kind;
        divisor = k->divisor;
        s.guid = *guid;
        s.port = portLabel(l, "port");
        ++out.fabricSeries;
    } else if (startsWith(l.name, "infiniband_") && endsWith(l.name, "_total") && findLabel(l, "local_guid")) {
        const auto k = counterKindFromPerfName(l.name.substr(11, l.name.size() - 11 - 6)); // ibqueryerrors' names
        const auto local = guidLabel(l, "local_guid");
        if (!k || !local) {
            return std::nullopt;
        }
        const auto localName = label(l, "local_name");
        const auto self = fabric.node(guessKindFromDescription(localName), *local, localName, 0, false);
        if (const auto remote = guidLabel(l, "remote_guid")) {
            const auto remoteName = label(l, "remote_name");
            const auto far = fabric.node(guessKindFromDescription(remoteName), *remote, remoteName, 0, false);
            fabric.link(self, portLabel(l, "local_port"), far, portLabel(l, "remote_port"));
        }
        s.kind = *k;
        s.guid = self;
        s.port = portLabel(l, "local_port");
        ++out.fabricSeries;
    } else {
        return std::nullopt;
    }
    s.value = static_cast<std::uint64_t>(std::llround(l.value)) / divisor;
    if (divisorOut) {
        *divisorOut = divisor;
    }
    return s;
}

bool isInfoSeries(std::string_view name)
{
    return name == "infiniband_switch_info" || name == "infiniband_hca_info" || name == "infiniband_switch_uplink_info"
        || name == "infiniband_hca_uplink_info";
}

// What a series (a line's name and labels) is, resolved on its first line.
} // namespace

namespace {

// What a series is, resolved once per file.
struct Resolved
{
    enum What { Other, Info, State, Sample } what = Other; // Other: not a port counter, state or info series
    ExpositionState state;
    ExpositionSample sample;
    std::uint64_t divisor = 1;
    std::uint32_t kept = ~0u; // its index in ExpositionFile::series once a reading is kept
};

Resolved resolve(const std::string& file, const ExpositionScan::Series& series, FabricBuilder& fabric, Context& ctx,
    ExpositionFile& out)
{
    Resolved r;
    Line l;
    if (!parseLine(series.text + " 0", l)) {
        return r;
    }
    if (isInfoSeries(l.name)) {
        r.what = Resolved::Info;
        readInfoSeries(l, fabric, out);
        --out.infoSeries; // counted per reading
    } else if (auto st = readState(file, series.firstLine, l, ctx, out)) {
        r.what = Resolved::State;
        r.state = std::move(*st);
    } else if (auto sm = readSample(file, series.firstLine, l, fabric, ctx, out, &r.divisor)) {
        r.what = Resolved::Sample;
        r.sample = std::move(*sm);
        --(r.sample.hostSide ? out.hostSeries : out.fabricSeries); // counted per reading
    }
    return r;
}

} // namespace

Result<ExpositionFile> resolvePrometheusExposition(const std::string& file, ExpositionScan scan, FabricBuilder& fabric)
{
    ExpositionFile out;
    out.warnings = std::move(scan.warnings);
    Context ctx;
    ctx.unameHost = scan.unameHost;
    ctx.fileHost = std::filesystem::path(file).filename().string();
    ctx.fileHost = ctx.fileHost.substr(0, ctx.fileHost.find('.'));
    std::vector<Resolved> resolved;
    resolved.reserve(scan.series.size());
    for (const auto& series : scan.series) {
        resolved.push_back(resolve(file, series, fabric, ctx, out));
    }
    out.points.reserve(scan.readings.size());
    for (const auto& r : scan.readings) {
        auto& what = resolved[r.series];
        if (what.what == Resolved::Info) {
            ++out.infoSeries;
            continue;
        }
        if (what.what == Resolved::Other || !std::isfinite(r.value) || r.value < 0) {
            continue;
        }
        // Counters are 64-bit: a value of 2^63 or more (or a timestamp whose ns do not fit) is damage.
        if (r.value >= 9.2e18 || r.timeBad) {
            out.warnings.push_back({ file, r.line, -1,
                r.timeBad ? "a timestamp beyond what epoch nanoseconds hold: sample skipped"
                          : "a counter value beyond 64 bits: sample skipped" });
            continue;
        }
        if (what.what == Resolved::State) {
            auto st = what.state;
            st.up = st.physical ? r.value >= 5 || r.value == 0 : r.value >= 4; // physical 0: "no state change"
            st.timeNs = r.timeNs;
            st.line = r.line;
            out.states.push_back(std::move(st));
            continue;
        }
        ++(what.sample.hostSide ? out.hostSeries : out.fabricSeries);
        const auto value = static_cast<std::uint64_t>(std::llround(r.value)) / what.divisor;
        if (what.kept == ~0u) {
            what.kept = static_cast<std::uint32_t>(out.series.size());
            auto& first = out.series.emplace_back(what.sample);
            first.series = what.kept;
            first.value = value;
            first.timeNs = r.timeNs;
            first.line = r.line;
        }
        out.points.push_back({ what.kept, r.timeNs, value, r.line });
        out.undated = out.undated || r.timeNs == kNoTime;
    }
    if (out.points.empty() && out.infoSeries == 0 && out.states.empty()) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    return out;
}

Result<ExpositionFile> readPrometheusExposition(const std::string& file, const std::string& text, FabricBuilder& fabric)
{
    return resolvePrometheusExposition(file, scanPrometheusExposition(file, text), fabric);
}

std::optional<ExpositionSeriesKey> readExpositionSeriesKey(
    const std::string& file, const std::string& line, FabricBuilder& fabric, ExpositionFile& out)
{
    Line l;
    if (!parseLine(line + " 0", l)) {
        out.warnings.push_back({ file, 0, -1,
            "a series whose labels do not read as `name{label=\"value\",...}`: " + line.substr(0, 120) + ", skipped" });
        return std::nullopt;
    }
    if (isInfoSeries(l.name)) {
        readInfoSeries(l, fabric, out);
        return std::nullopt;
    }
    Context ctx;
    ExpositionSeriesKey key;
    auto s = readSample(file, 0, l, fabric, ctx, out, &key.divisor);
    if (!s) {
        return std::nullopt;
    }
    key.key = std::move(*s);
    return key;
}

} // namespace stallscope
