// SPDX-License-Identifier: MIT
#include "import/prometheus/exposition.h"
#include "core/checked_math.h"
#include "core/parse_number.h"

#include "import/common/sample_stamp.h"
#include "import/prometheus/http_answers.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

namespace stallscope {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One parsed sample line, reused from line to line: its strings keep their capacity (a scrape file has
// hundreds of thousands of lines, and allocation dominated the parse).
struct Line
{
    std::string name;
    Labels labels; // the first `count` are this line's
    std::size_t count = 0;
    double value = 0;
    std::optional<std::int64_t> timestampMs;
};

// name{a="x",b="y"} value [timestamp_ms]; label values may hold escaped quotes.
bool parseLine(std::string_view s, Line& l)
{
    std::size_t i = 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':')) {
        ++i;
    }
    if (i == 0) {
        return false;
    }
    l.name.assign(s.data(), i);
    l.count = 0;
    l.timestampMs.reset();
    if (i < s.size() && s[i] == '{') {
        ++i;
        while (i < s.size() && s[i] != '}') {
            while (i < s.size() && (s[i] == ',' || s[i] == ' ')) {
                ++i;
            }
            if (i < s.size() && s[i] == '}') {
                break;
            }
            const auto eq = s.find('=', i);
            if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') {
                return false;
            }
            if (l.labels.size() <= l.count) {
                l.labels.emplace_back();
            }
            auto& [key, value] = l.labels[l.count++];
            key.assign(s.data() + i, eq - i);
            value.clear();
            std::size_t j = eq + 2;
            for (; j < s.size() && s[j] != '"'; ++j) {
                if (s[j] == '\\' && j + 1 < s.size()) {
                    ++j;
                    value += s[j] == 'n' ? '\n' : s[j];
                } else {
                    value += s[j];
                }
            }
            if (j >= s.size()) {
                return false;
            }
            i = j + 1;
        }
        if (i >= s.size()) {
            return false;
        }
        ++i; // '}'
    }
    auto skip = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) {
            ++i;
        }
    };
    skip();
    const auto valueEnd = std::min(s.find_first_of(" \t", i), s.size());
    const std::string_view value = s.substr(i, valueEnd - i);
    if (value.empty()) {
        return false;
    }
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), l.value);
    if (ec != std::errc {} || end != value.data() + value.size()) {
        // NaN / +Inf spellings from_chars does not take
        if (value == "NaN" || value == "+Inf" || value == "-Inf") {
            l.value = value == "NaN" ? NAN : value == "+Inf" ? INFINITY : -INFINITY;
        } else {
            return false;
        }
    }
    i = valueEnd;
    skip();
    if (i < s.size()) {
        std::int64_t ts = 0;
        const auto [tend, tec] = std::from_chars(s.data() + i, s.data() + s.size(), ts);
        if (tec != std::errc {} || (tend != s.data() + s.size() && *tend != ' ' && *tend != '\r')) {
            return false;
        }
        l.timestampMs = ts;
    }
    return true;
}

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

const std::string* findLabel(const Line& l, std::string_view key)
{
    for (std::size_t i = 0; i < l.count; ++i) {
        if (l.labels[i].first == key) {
            return &l.labels[i].second;
        }
    }
    return nullptr;
}

std::optional<std::uint64_t> guidLabel(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? parseGuid(*v) : std::nullopt;
}

std::uint16_t portLabel(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? parseNumber<std::uint16_t>(*v).value_or(0) : 1; // 0: no such port, the sample finds no link
}

std::string label(const Line& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? *v : std::string();
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool endsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

} // namespace

bool looksLikePrometheusExposition(const std::string& text)
{
    return text.find("node_infiniband_") != std::string::npos || text.find("infiniband_switch_") != std::string::npos
        || text.find("infiniband_hca_") != std::string::npos
        || (text.find("infiniband_") != std::string::npos && text.find("local_guid=") != std::string::npos);
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

// A host port's state sample, or nullopt for any other series.
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
    st.physical = physical;
    st.up = logical ? l.value >= 4 : l.value >= 5 || l.value == 0; // physical 0: "no state change"
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

} // namespace

// The line of `text` at `pos` (advanced past it) without its CR and its leading blanks and tabs: exporters' test
// fixtures and hand-edited .prom files indent their lines.
static std::string_view nextLine(const std::string& text, std::size_t& pos)
{
    const auto end = std::min(text.find('\n', pos), text.size());
    std::string_view raw(text.data() + pos, end - pos);
    pos = end + 1;
    if (!raw.empty() && raw.back() == '\r') {
        raw.remove_suffix(1);
    }
    const auto first = raw.find_first_not_of(" \t");
    raw.remove_prefix(first == std::string_view::npos ? raw.size() : first);
    return raw;
}

Result<ExpositionFile> readPrometheusExposition(const std::string& file, const std::string& text, FabricBuilder& fabric)
{
    ExpositionFile out;
    Context ctx;
    ctx.fileHost = std::filesystem::path(file).filename().string();
    ctx.fileHost = ctx.fileHost.substr(0, ctx.fileHost.find('.'));
    // Pass 1: the info series and node_uname_info, wherever they are in the file.
    for (std::size_t pos = 0; pos < text.size();) {
        const std::string_view raw = nextLine(text, pos);
        if (startsWith(raw, "infiniband_switch_info") || startsWith(raw, "infiniband_hca_info")
            || startsWith(raw, "infiniband_switch_uplink_info") || startsWith(raw, "infiniband_hca_uplink_info")
            || startsWith(raw, "node_uname_info")) {
            Line l;
            if (parseLine(raw, l) && isInfoSeries(l.name)) {
                readInfoSeries(l, fabric, out);
            } else if (l.name == "node_uname_info") {
                ctx.unameHost = label(l, "nodename");
            }
        }
    }
    // Pass 2: samples, dated by their own timestamp or the stamp line in force.
    TimeNs stamp = kNoTime;
    std::int64_t lineNo = 0;
    Line l;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::string_view raw = nextLine(text, pos);
        ++lineNo;
        if (raw.empty()) {
            continue;
        }
        if (raw[0] == '#' || std::isdigit(static_cast<unsigned char>(raw[0]))) {
            if (auto t = parseSampleStamp(raw)) {
                stamp = *t;
            }
            continue; // HELP / TYPE, or a stamp
        }
        if (!startsWith(raw, "node_infiniband_") && !startsWith(raw, "infiniband_")) {
            continue;
        }
        if (!parseLine(raw, l)) {
            out.warnings.push_back(
                { file, lineNo, -1, "expected a sample `name{label=\"value\",...} value [timestamp]`: line skipped" });
            continue;
        }
        if (!std::isfinite(l.value) || l.value < 0 || isInfoSeries(l.name)) {
            continue;
        }
        // Counters are 64-bit: a value of 2^63 or more (or a timestamp whose ns do not fit) is damage.
        const auto timeNs = l.timestampMs ? checkedMul(*l.timestampMs, 1'000'000) : std::optional<TimeNs>(stamp);
        if (l.value >= 9.2e18 || !timeNs) {
            out.warnings.push_back({ file, lineNo, -1,
                !timeNs ? "a timestamp beyond what epoch nanoseconds hold: sample skipped"
                        : "a counter value beyond 64 bits: sample skipped" });
            continue;
        }
        if (auto st = readState(file, lineNo, l, ctx, out)) {
            st->timeNs = *timeNs;
            out.states.push_back(std::move(*st));
            continue;
        }
        auto s = readSample(file, lineNo, l, fabric, ctx, out);
        if (!s) {
            continue;
        }
        s->timeNs = *timeNs;
        s->line = lineNo;
        out.undated = out.undated || s->timeNs == kNoTime;
        out.samples.push_back(std::move(*s));
    }
    if (out.samples.empty() && out.infoSeries == 0 && out.states.empty()) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    return out;
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
