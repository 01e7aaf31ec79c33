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

struct Line
{
    std::string name;
    std::map<std::string, std::string> labels;
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
            l.labels[key] = value;
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

std::optional<std::uint64_t> guidLabel(const std::map<std::string, std::string>& labels, const char* key)
{
    auto it = labels.find(key);
    return it == labels.end() ? std::nullopt : parseGuid(it->second);
}

std::uint16_t portLabel(const std::map<std::string, std::string>& labels, const char* key)
{
    auto it = labels.find(key);
    return static_cast<std::uint16_t>(it == labels.end() ? 1 : std::atoi(it->second.c_str()));
}

std::string label(const std::map<std::string, std::string>& labels, const char* key)
{
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
}

// "gpu-b020 mlx5_7" names an HCA; "spine-05" or "leaf-07 Quantum-2" a switch.
NodeKind kindFromDescription(const std::string& desc)
{
    static const std::regex hca(R"(\s(mlx\d+_\d+|hfi\d+_\d+|irdma\d+|bnxt_re\d+|qedr\d+|[a-z]+\d*_\d+)$)");
    return std::regex_search(desc, hca) ? NodeKind::Hca : NodeKind::Switch;
}

} // namespace

bool looksLikePrometheusExposition(const std::string& text)
{
    return text.find("node_infiniband_") != std::string::npos || text.find("infiniband_switch_") != std::string::npos
        || text.find("infiniband_hca_") != std::string::npos
        || (text.find("infiniband_") != std::string::npos && text.find("local_guid=") != std::string::npos);
}

Result<ExpositionFile> readPrometheusExposition(const std::string& file, const std::string& text, FabricBuilder& fabric)
{
    ExpositionFile out;
    std::vector<std::pair<Line, std::int64_t>> lines;
    std::map<std::int64_t, TimeNs> stampOf; // line number → the stamp in force
    TimeNs stamp = kNoTime;
    std::string unameHost;
    std::istringstream in(text);
    std::string raw;
    std::int64_t lineNo = 0;
    while (std::getline(in, raw)) {
        ++lineNo;
        if (!raw.empty() && raw.back() == '\r') {
            raw.pop_back();
        }
        if (raw.find_first_not_of(" \t") == std::string::npos) {
            continue;
        }
        if (auto t = parseSampleStamp(raw)) {
            stamp = *t;
            continue;
        }
        if (raw[0] == '#') {
            continue; // HELP / TYPE
        }
        auto l = parseLine(raw);
        if (!l) {
            out.warnings.push_back(
                { file, lineNo, -1, "expected a sample `name{label=\"value\",...} value [timestamp]`: line skipped" });
            continue;
        }
        if (l->name == "node_uname_info" && l->labels.count("nodename")) {
            unameHost = l->labels["nodename"];
        }
        stampOf[lineNo] = l->timestampMs ? *l->timestampMs * 1'000'000 : stamp;
        lines.emplace_back(std::move(*l), lineNo);
    }
    // Info series first: they name the fabric the counters are joined to.
    for (const auto& [l, no] : lines) {
        static const std::regex info(R"(^infiniband_(switch|hca)_(uplink_)?info$)");
        std::smatch m;
        if (!std::regex_match(l.name, m, info)) {
            continue;
        }
        ++out.infoSeries;
        const auto guid = guidLabel(l.labels, "guid");
        if (!guid) {
            continue;
        }
        const bool isSwitch = m[1] == "switch";
        const auto self = fabric.node(
            isSwitch ? NodeKind::Switch : NodeKind::Hca, *guid, label(l.labels, isSwitch ? "switch" : "hca"));
        if (const auto lid = label(l.labels, "lid"); !lid.empty() && !m[2].matched) {
            fabric.lid(static_cast<std::uint32_t>(std::atoi(lid.c_str())), self);
        }
        if (m[2].matched) {
            const auto far = guidLabel(l.labels, "uplink_guid");
            if (far) {
                const auto type = label(l.labels, "uplink_type");
                const auto farGuid
                    = fabric.node(type == "CA" ? NodeKind::Hca : NodeKind::Switch, *far, label(l.labels, "uplink"));
                fabric.link(self, portLabel(l.labels, "port"), farGuid, portLabel(l.labels, "uplink_port"));
            }
        }
    }
    std::string fileHost = std::filesystem::path(file).filename().string();
    fileHost = fileHost.substr(0, fileHost.find('.'));
    bool warnedFileHost = false;
    std::map<std::string, bool> seriesSeen;
    for (const auto& [l, no] : lines) {
        if (!std::isfinite(l.value) || l.value < 0) {
            continue;
        }
        ExpositionSample s;
        s.timeNs = stampOf[no];
        std::uint64_t divisor = 1;
        const auto& hostMap = prometheusNodeExporterMetrics();
        static const std::regex trey(R"(^infiniband_(switch|hca)_port_(\w+?)_total$)");
        static const std::regex cable(R"(^infiniband_(\w+)_total$)");
        std::smatch m;
        if (auto it = hostMap.find(l.name); it != hostMap.end()) {
            s.hostSide = true;
            s.kind = it->second.kind;
            divisor = it->second.divisor;
            const auto instance = label(l.labels, "instance");
            s.host = !instance.empty()                 ? instance.substr(0, instance.find(':'))
                : !label(l.labels, "nodename").empty() ? label(l.labels, "nodename")
                : !unameHost.empty()                   ? unameHost
                                                       : fileHost;
            if (s.host == fileHost && instance.empty() && unameHost.empty() && !warnedFileHost) {
                out.warnings.push_back({ file, no, -1,
                    "no instance label or node_uname_info: the host is taken from the file name (\"" + fileHost
                        + "\")" });
                warnedFileHost = true;
            }
            s.device = label(l.labels, "device");
            s.port = portLabel(l.labels, "port");
            ++out.hostSeries;
        } else if (std::regex_match(l.name, m, trey)) {
            const auto k = treydockKind(m[2]);
            const auto guid = guidLabel(l.labels, "guid");
            if (!k || !guid) {
                continue;
            }
            s.kind = k->kind;
            divisor = k->divisor;
            s.guid = fabric.canonical(*guid);
            s.port = portLabel(l.labels, "port");
            ++out.fabricSeries;
        } else if (l.labels.count("local_guid") && std::regex_match(l.name, m, cable)) {
            const auto k = counterKindFromPerfName(m[1]); // ibqueryerrors' names lower-cased
            const auto local = guidLabel(l.labels, "local_guid");
            if (!k || !local) {
                continue;
            }
            const auto localName = label(l.labels, "local_name");
            const auto self = fabric.node(kindFromDescription(localName), *local, localName);
            if (const auto remote = guidLabel(l.labels, "remote_guid")) {
                const auto remoteName = label(l.labels, "remote_name");
                const auto far = fabric.node(kindFromDescription(remoteName), *remote, remoteName);
                fabric.link(self, portLabel(l.labels, "local_port"), far, portLabel(l.labels, "remote_port"));
            }
            s.kind = *k;
            s.guid = self;
            s.port = portLabel(l.labels, "local_port");
            ++out.fabricSeries;
        } else {
            continue;
        }
        s.value = static_cast<std::uint64_t>(std::llround(l.value)) / divisor;
        out.undated = out.undated || s.timeNs == kNoTime;
        out.samples.push_back(std::move(s));
    }
    if (out.samples.empty() && out.infoSeries == 0) {
        return LoadIssue { file, 0, -1, "no InfiniBand counter samples found in the Prometheus exposition" };
    }
    return out;
}

} // namespace stallscope
