// SPDX-License-Identifier: MIT
#include "import_prom_text.h"

#include "import_fabric_tools.h"
#include "import_prometheus.h"
#include "sample_stamp.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

namespace stallscope {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Line
{
    std::string name;
    Labels labels;
    double value = 0;
    std::optional<std::int64_t> timestampMs;
};

// name{a="x",b="y"} value [timestamp_ms]; label values may hold escaped quotes.
std::optional<Line> parseLine(const std::string& s)
{
    Line l;
    std::size_t i = 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':')) {
        ++i;
    }
    if (i == 0) {
        return std::nullopt;
    }
    l.name = s.substr(0, i);
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
            if (eq == std::string::npos || eq + 1 >= s.size() || s[eq + 1] != '"') {
                return std::nullopt;
            }
            const std::string key = s.substr(i, eq - i);
            std::string value;
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
                return std::nullopt;
            }
            l.labels.emplace_back(key, std::move(value));
            i = j + 1;
        }
        if (i >= s.size()) {
            return std::nullopt;
        }
        ++i; // '}'
    }
    std::istringstream rest(s.substr(i));
    std::string value, ts;
    if (!(rest >> value)) {
        return std::nullopt;
    }
    char* end = nullptr;
    l.value = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0') {
        return std::nullopt;
    }
    if (rest >> ts) {
        try {
            l.timestampMs = std::stoll(ts);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    return l;
}

struct Kind
{
    CounterKind kind;
    std::uint64_t divisor; // bytes → 4-byte words
};

// treydock's counter names (after infiniband_{switch,hca}_port_ and before _total).
std::optional<Kind> treydockKind(const std::string& name)
{
    static const std::map<std::string, Kind> m = {
        { "transmit_data_bytes", { CounterKind::PortXmitData, 4 } },
        { "receive_data_bytes", { CounterKind::PortRcvData, 4 } },
        { "transmit_packets", { CounterKind::PortXmitPackets, 1 } },
        { "receive_packets", { CounterKind::PortRcvPackets, 1 } },
        { "symbol_error", { CounterKind::SymbolError, 1 } },
        { "link_error_recovery", { CounterKind::LinkErrorRecovery, 1 } },
        { "link_downed", { CounterKind::LinkDowned, 1 } },
        { "receive_errors", { CounterKind::PortRcvErrors, 1 } },
        { "transmit_discards", { CounterKind::PortXmitDiscards, 1 } },
        { "transmit_wait", { CounterKind::PortXmitWait, 1 } },
    };
    auto it = m.find(name);
    return it == m.end() ? std::nullopt : std::optional<Kind>(it->second);
}

const std::string* findLabel(const Labels& labels, std::string_view key)
{
    for (const auto& [k, v] : labels) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

std::optional<std::uint64_t> guidLabel(const Labels& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return v ? parseGuid(*v) : std::nullopt;
}

std::uint16_t portLabel(const Labels& labels, const char* key)
{
    const auto* v = findLabel(labels, key);
    return static_cast<std::uint16_t>(v ? std::atoi(v->c_str()) : 1);
}

std::string label(const Labels& labels, const char* key)
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
    const auto guid = guidLabel(l.labels, "guid");
    if (!guid) {
        return;
    }
    const auto self
        = fabric.node(isSwitch ? NodeKind::Switch : NodeKind::Hca, *guid, label(l.labels, isSwitch ? "switch" : "hca"));
    if (const auto lid = label(l.labels, "lid"); !lid.empty() && !uplink) {
        fabric.lid(static_cast<std::uint32_t>(std::atoi(lid.c_str())), self);
    }
    if (const auto far = uplink ? guidLabel(l.labels, "uplink_guid") : std::nullopt) {
        const auto type = label(l.labels, "uplink_type");
        const auto farGuid
            = fabric.node(type == "CA" ? NodeKind::Hca : NodeKind::Switch, *far, label(l.labels, "uplink"));
        fabric.link(self, portLabel(l.labels, "port"), farGuid, portLabel(l.labels, "uplink_port"));
    }
}

struct Context
{
    std::string unameHost, fileHost;
    bool warnedFileHost = false;
};

// One counter sample, or nullopt for series that are not port counters.
std::optional<ExpositionSample> readSample(const std::string& file, std::int64_t lineNo, const Line& l,
    FabricBuilder& fabric, Context& ctx, ExpositionFile& out)
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
        const auto instance = label(l.labels, "instance");
        const auto nodename = label(l.labels, "nodename");
        s.host = !instance.empty()   ? instance.substr(0, instance.find(':'))
            : !nodename.empty()      ? nodename
            : !ctx.unameHost.empty() ? ctx.unameHost
                                     : ctx.fileHost;
        if (instance.empty() && nodename.empty() && ctx.unameHost.empty() && !ctx.warnedFileHost) {
            out.warnings.push_back({ file, lineNo, -1,
                "no instance label or node_uname_info: the host is taken from the file name (\"" + ctx.fileHost
                    + "\")" });
            ctx.warnedFileHost = true;
        }
        s.device = label(l.labels, "device");
        s.port = portLabel(l.labels, "port");
        ++out.hostSeries;
    } else if ((startsWith(l.name, "infiniband_switch_port_") || startsWith(l.name, "infiniband_hca_port_"))
        && endsWith(l.name, "_total")) {
        const auto prefix = startsWith(l.name, "infiniband_switch_port_") ? 23u : 20u;
        const auto k = treydockKind(l.name.substr(prefix, l.name.size() - prefix - 6));
        const auto guid = guidLabel(l.labels, "guid");
        if (!k || !guid) {
            return std::nullopt;
        }
        s.kind = k->kind;
        divisor = k->divisor;
        s.guid = *guid;
        s.port = portLabel(l.labels, "port");
        ++out.fabricSeries;
    } else if (startsWith(l.name, "infiniband_") && endsWith(l.name, "_total") && findLabel(l.labels, "local_guid")) {
        const auto k = counterKindFromPerfName(l.name.substr(11, l.name.size() - 11 - 6)); // ibqueryerrors' names
        const auto local = guidLabel(l.labels, "local_guid");
        if (!k || !local) {
            return std::nullopt;
        }
        const auto localName = label(l.labels, "local_name");
        const auto self = fabric.node(guessKindFromDescription(localName), *local, localName, 0, false);
        if (const auto remote = guidLabel(l.labels, "remote_guid")) {
            const auto remoteName = label(l.labels, "remote_name");
            const auto far = fabric.node(guessKindFromDescription(remoteName), *remote, remoteName, 0, false);
            fabric.link(self, portLabel(l.labels, "local_port"), far, portLabel(l.labels, "remote_port"));
        }
        s.kind = *k;
        s.guid = self;
        s.port = portLabel(l.labels, "local_port");
        ++out.fabricSeries;
    } else {
        return std::nullopt;
    }
    s.value = static_cast<std::uint64_t>(std::llround(l.value)) / divisor;
    return s;
}

bool isInfoSeries(std::string_view name)
{
    return name == "infiniband_switch_info" || name == "infiniband_hca_info" || name == "infiniband_switch_uplink_info"
        || name == "infiniband_hca_uplink_info";
}

} // namespace

Result<ExpositionFile> readPrometheusExposition(const std::string& file, const std::string& text, FabricBuilder& fabric)
{
    ExpositionFile out;
    Context ctx;
    ctx.fileHost = std::filesystem::path(file).filename().string();
    ctx.fileHost = ctx.fileHost.substr(0, ctx.fileHost.find('.'));
    // Pass 1: the info series and node_uname_info, wherever they are in the file.
    for (std::size_t pos = 0; pos < text.size();) {
        const auto end = std::min(text.find('\n', pos), text.size());
        const std::string_view raw(text.data() + pos, end - pos);
        pos = end + 1;
        if (startsWith(raw, "infiniband_switch_info") || startsWith(raw, "infiniband_hca_info")
            || startsWith(raw, "infiniband_switch_uplink_info") || startsWith(raw, "infiniband_hca_uplink_info")
            || startsWith(raw, "node_uname_info")) {
            const auto l = parseLine(std::string(raw));
            if (l && isInfoSeries(l->name)) {
                readInfoSeries(*l, fabric, out);
            } else if (l && l->name == "node_uname_info") {
                ctx.unameHost = label(l->labels, "nodename");
            }
        }
    }
    // Pass 2: samples, dated by their own timestamp or the stamp line in force.
    TimeNs stamp = kNoTime;
    std::int64_t lineNo = 0;
    std::string raw;
    for (std::size_t pos = 0; pos < text.size();) {
        const auto end = std::min(text.find('\n', pos), text.size());
        raw.assign(text, pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!raw.empty() && raw.back() == '\r') {
            raw.pop_back();
        }
        if (raw.find_first_not_of(" \t") == std::string::npos) {
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
        auto l = parseLine(raw);
        if (!l) {
            out.warnings.push_back(
                { file, lineNo, -1, "expected a sample `name{label=\"value\",...} value [timestamp]`: line skipped" });
            continue;
        }
        if (!std::isfinite(l->value) || l->value < 0 || isInfoSeries(l->name)) {
            continue;
        }
        auto s = readSample(file, lineNo, *l, fabric, ctx, out);
        if (!s) {
            continue;
        }
        s->timeNs = l->timestampMs ? *l->timestampMs * 1'000'000 : stamp;
        s->line = lineNo;
        out.undated = out.undated || s->timeNs == kNoTime;
        out.samples.push_back(std::move(*s));
    }
    if (out.samples.empty() && out.infoSeries == 0) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    return out;
}

} // namespace stallscope
