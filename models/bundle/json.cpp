// SPDX-License-Identifier: MIT
// The bundle's JSON documents (bundle/json.h), written and read. Over 600 lines as one file: each document's writer
// and reader sit side by side so its schema is stated in one place, and they share the checked accessors
// (need*, SchemaError) private to this file.
#include "bundle/json.h"
#include "core/json_depth.h"
#include "core/json_number.h"
#include "core/json_text.h"

#include "bundle/format.h"
#include "stallscope_version.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <istream>
#include <map>
#include <ostream>

namespace stallscope::bundle {

using nlohmann::json;

namespace {

// Thrown inside this file only; converted to LoadIssue at each entry point.
struct SchemaError
{
    std::string message;
};

const json& need(const json& obj, const char* key, const std::string& path)
{
    if (!obj.is_object() || !obj.contains(key)) {
        throw SchemaError { "missing \"" + path + key + "\"" };
    }
    return obj[key];
}

std::int64_t needInt(const json& obj, const char* key, const std::string& path)
{
    const auto& v = need(obj, key, path);
    if (!v.is_number_integer()) {
        throw SchemaError { "expected \"" + path + key + "\" to be an integer" };
    }
    return jsonNumber<std::int64_t>(v);
}

std::uint64_t needUInt(const json& obj, const char* key, const std::string& path)
{
    const auto& v = need(obj, key, path);
    if (!v.is_number_unsigned()) {
        throw SchemaError { "expected \"" + path + key + "\" to be a non-negative integer" };
    }
    return jsonNumber<std::uint64_t>(v);
}

std::string needString(const json& obj, const char* key, const std::string& path)
{
    const auto& v = need(obj, key, path);
    if (!v.is_string()) {
        throw SchemaError { "expected \"" + path + key + "\" to be a string" };
    }
    return v.get<std::string>();
}

std::uint64_t needGuid(const json& obj, const char* key, const std::string& path)
{
    auto g = parseGuid(needString(obj, key, path));
    if (!g) {
        throw SchemaError { "expected \"" + path + key + "\" to be a GUID like \"0x0c42a10300a1b2c4\"" };
    }
    return *g;
}

std::optional<std::int64_t> optInt(const json& obj, const char* key, const std::string& path)
{
    if (!obj.contains(key) || obj[key].is_null()) {
        return std::nullopt;
    }
    return needInt(obj, key, path);
}

// nlohmann reports a byte offset; users want a line.
std::int64_t lineOfOffset(const std::string& text, std::size_t byte)
{
    byte = std::min(byte, text.size());
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n');
}

std::optional<LoadIssue> parseDocument(const std::string& file, const std::string& text, json& out)
{
    try {
        out = parseJsonFile(text);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        if (auto p = what.find("parse error"); p != std::string::npos) {
            what = what.substr(p);
        }
        return LoadIssue { file, lineOfOffset(text, e.byte > 0 ? e.byte - 1 : 0), -1, "invalid JSON: " + what };
    }
    return std::nullopt;
}

// ---------------------------------------------------------------- simdjson accessors (manifest, topology)
// The two documents that grow with the job (the manifest names every rank, the topology every node and link: 14 and
// 32 MB at 131,072 ranks) are read with simdjson's DOM, which nlohmann took 1.6 s over. The same checks and words as
// the nlohmann accessors above.

namespace sj = simdjson::dom;

sj::element need(sj::element obj, const char* key, const std::string& path)
{
    sj::element v;
    if (!obj.is_object() || obj.get_object().at_key(key).get(v) != simdjson::SUCCESS) {
        throw SchemaError { "missing \"" + path + key + "\"" };
    }
    return v;
}

bool has(sj::element obj, const char* key)
{
    sj::element v;
    return obj.is_object() && obj.get_object().at_key(key).get(v) == simdjson::SUCCESS;
}

std::string numberText(sj::element v)
{
    return simdjson::minify(v);
}

// Any integer (nlohmann's is_number_integer): int64, or uint64 that fits it.
std::int64_t needInt(sj::element obj, const char* key, const std::string& path)
{
    const auto v = need(obj, key, path);
    if (v.is_uint64() && !v.is_int64()) {
        throw BadNumber("the number " + numberText(v) + " does not fit 64 bits");
    }
    if (!v.is_int64()) {
        throw SchemaError { "expected \"" + path + key + "\" to be an integer" };
    }
    return v.get_int64().value_unsafe();
}

std::optional<std::int64_t> optInt(sj::element obj, const char* key, const std::string& path)
{
    if (!has(obj, key) || need(obj, key, path).is_null()) {
        return std::nullopt;
    }
    return needInt(obj, key, path);
}

std::string_view needString(sj::element obj, const char* key, const std::string& path)
{
    std::string_view out;
    if (need(obj, key, path).get_string().get(out) != simdjson::SUCCESS) {
        throw SchemaError { "expected \"" + path + key + "\" to be a string" };
    }
    return out;
}

std::string_view optString(sj::element obj, const char* key, const std::string& path)
{
    return has(obj, key) ? needString(obj, key, path) : std::string_view();
}

std::uint64_t needGuid(sj::element obj, const char* key, const std::string& path)
{
    auto g = parseGuid(std::string(needString(obj, key, path)));
    if (!g) {
        throw SchemaError { "expected \"" + path + key + "\" to be a GUID like \"0x0c42a10300a1b2c4\"" };
    }
    return *g;
}

// A non-negative integer below `limit` (nlohmann's is_number_unsigned, then the caller's range).
std::optional<std::uint64_t> unsignedBelow(sj::element v, std::uint64_t limit)
{
    std::uint64_t u = 0;
    if (v.get_uint64().get(u) != simdjson::SUCCESS || u >= limit) {
        return std::nullopt;
    }
    return u;
}

// Parses `text` into `doc` with `parser`; a document simdjson refuses is parsed again with nlohmann, whose error
// names the byte (a line for the user). `text` is copied once into padded memory when it lacks simdjson's padding.
std::optional<LoadIssue> parseDom(
    const std::string& file, const std::string& text, sj::parser& parser, sj::element& doc)
{
    if (parser.parse(text).get(doc) == simdjson::SUCCESS) { // simdjson has its own depth limit (1,024)
        return std::nullopt;
    }
    json j;
    if (auto err = parseDocument(file, text, j)) {
        return err;
    }
    const auto e = parser.parse(text).error();
    return LoadIssue { file, 0, -1, std::string("invalid JSON: ") + simdjson::error_message(e) };
}

std::string u64(std::uint64_t v)
{
    return std::to_string(v);
}

} // namespace

// ---------------------------------------------------------------- writing

std::string manifestToJson(const JobSnapshot& snap, const ManifestFiles& files)
{
    json m;
    m["format"] = kFormatName;
    m["version"] = kFormatVersion;
    m["written_by"] = "stallscope " STALLSCOPE_VERSION;
    m["job"] = { { "name", snap.job.name }, { "world_size", snap.job.worldSize },
        { "clock_origin_ns", snap.job.clockOriginNs }, { "start_ns", snap.job.span.start },
        { "end_ns", snap.job.span.end } };
    const auto& p = snap.policy;
    m["timeout_policy"] = { { "nccl_ib_timeout", p.ncclIbTimeout }, { "nccl_ib_retry_cnt", p.ncclIbRetryCnt },
        { "collective_timeout_ms", p.collectiveTimeoutNs / kNsPerMs },
        { "checkpoint_interval_s", p.checkpointIntervalNs / kNsPerSec },
        { "restart_time_s", p.restartTimeNs / kNsPerSec } };
    if (p.adaptive.on) {
        m["timeout_policy"]["adaptive_retransmission"] = p.adaptive.text();
    }
    json ranks = json::array();
    for (std::size_t r = 0; r < snap.ranks.size(); ++r) {
        const auto& ri = snap.ranks[r];
        ranks.push_back({ { "rank", r }, { "host", snap.str(ri.host) }, { "local_gpu", ri.localGpu },
            { "hca", snap.str(ri.hca) }, { "port", ri.hcaPort } });
    }
    m["ranks"] = std::move(ranks);
    json groups = json::array();
    for (const auto& g : snap.groups) {
        json jg = { { "name", snap.str(g.name) }, { "desc", snap.str(g.desc) } };
        if (g.ranks.size() == snap.ranks.size()) {
            jg["ranks"] = "all";
        } else {
            jg["ranks"] = g.ranks;
        }
        groups.push_back(std::move(jg));
    }
    m["process_groups"] = std::move(groups);
    json f = { { "collectives", files.collectives } };
    if (!files.counters.empty()) {
        f["counters"] = files.counters;
    }
    if (!files.linkEvents.empty()) {
        f["link_events"] = files.linkEvents;
    }
    if (!files.topology.empty()) {
        f["topology"] = files.topology;
    }
    m["files"] = std::move(f);
    return jsonText(m, 1) + "\n";
}

std::string topologyToJson(const JobSnapshot& snap)
{
    const auto& topo = snap.topology;
    std::string out = "{\"nodes\": [\n";
    for (std::size_t i = 0; i < topo.nodes().size(); ++i) {
        const auto& n = topo.nodes()[i];
        json jn = { { "guid", formatGuid(n.guid) }, { "kind", n.kind == NodeKind::Switch ? "switch" : "hca" },
            { "desc", snap.str(n.description) }, { "tier", n.tier }, { "ports", n.portCount } };
        if (n.kind == NodeKind::Hca) {
            jn["host"] = snap.str(n.host);
            jn["hca"] = snap.str(n.hcaName);
        }
        out += jsonText(jn) + (i + 1 < topo.nodes().size() ? ",\n" : "\n");
    }
    out += "], \"links\": [\n";
    for (std::size_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        json jl = { { "a", { { "guid", formatGuid(topo.node(l.a.node).guid) }, { "port", l.a.port } } },
            { "b", { { "guid", formatGuid(topo.node(l.b.node).guid) }, { "port", l.b.port } } },
            { "width", std::to_string(l.width) + "x" }, { "speed", snap.str(l.speed) } };
        if (l.endsDisagree) {
            jl["ends_disagree"] = true;
        }
        out += jsonText(jl) + (i + 1 < topo.links().size() ? ",\n" : "\n");
    }
    out += "]}\n";
    return out;
}

void writeLinkEventsJsonl(const JobSnapshot& snap, std::ostream& out)
{
    for (const auto& e : snap.linkEvents) {
        json j = { { "t_ns", e.timeNs }, { "guid", formatGuid(e.guid) }, { "port", e.port },
            { "state", e.state == LinkState::Down ? "down" : "up" }, { "source", snap.str(e.source) } };
        out << jsonText(j) << '\n';
    }
    for (const auto& r : snap.routeUpdates) {
        out << jsonText(json { { "t_ns", r.timeNs }, { "routes", "updated" }, { "source", snap.str(r.source) } })
            << '\n';
    }
    for (const auto& n : snap.notes) {
        json j = { { "t_ns", n.timeNs == kNoTime ? json(nullptr) : json(n.timeNs) }, { "note", snap.str(n.kind) },
            { "host", snap.str(n.host) }, { "rank", n.rank == kNoRank ? json(nullptr) : json(n.rank) },
            { "code", n.code }, { "text", snap.str(n.text) }, { "source", snap.str(n.source) } };
        out << jsonText(j) << '\n';
    }
}

void writeCollectivesJsonl(const JobSnapshot& snap, std::ostream& out)
{
    auto time = [](TimeNs t) { return t == kNoTime ? std::string("null") : std::to_string(t); };
    for (std::size_t r = 0; r < snap.collectives.size(); ++r) {
        const auto& c = snap.collectives[r];
        for (std::size_t i = 0; i < c.size(); ++i) {
            const auto& s = snap.shapes.at(c.shape[i]);
            out << "{\"rank\":" << r << ",\"pg\":\"" << snap.str(snap.groups.at(s.group).name)
                << "\",\"seq\":" << c.seq[i] << ",\"op\":\"" << toString(s.op) << "\",\"bytes\":" << s.bytes
                << ",\"enqueue_ns\":" << time(c.enqueueNs[i]) << ",\"start_ns\":" << time(c.startNs[i])
                << ",\"end_ns\":" << time(c.endNs[i]) << ",\"state\":\"" << toString(c.stateAt(i)) << "\"}\n";
        }
    }
}

void writeCountersJsonl(const JobSnapshot& snap, std::ostream& out)
{
    for (const auto& s : snap.counters) {
        const auto& p = snap.counterPorts.at(s.port);
        const auto& sem = semantics(s.kind);
        for (std::size_t i = 0; i < s.size(); ++i) {
            out << "{\"guid\":\"" << formatGuid(p.guid) << "\",\"port\":" << p.port << ",\"counter\":\"" << sem.name
                << "\",\"bits\":" << int(s.bits) << ",\"t_ns\":" << s.timesNs[i] << ",\"value\":" << u64(s.value(i))
                << "}\n";
        }
    }
}

// ---------------------------------------------------------------- reading

std::optional<LoadIssue> parseManifest(
    const std::string& file, const std::string& text, JobSnapshot& snap, ManifestFiles& files)
{
    sj::parser parser;
    sj::element m;
    if (auto err = parseDom(file, text, parser, m)) {
        return err;
    }
    try {
        if (!m.is_object()) {
            throw SchemaError { "expected a JSON object" };
        }
        if (needString(m, "format", "") != kFormatName) {
            throw SchemaError { "expected \"format\" to be \"stallscope-bundle\"" };
        }
        const auto version = needInt(m, "version", "");
        if (version != kFormatVersion) {
            throw SchemaError { "unsupported bundle version " + std::to_string(version) + " (this build reads "
                + std::to_string(kFormatVersion) + ")" };
        }
        const auto job = need(m, "job", "");
        snap.job.name = snap.strings.str(snap.strings.intern(needString(job, "name", "job."))); // held to kMaxBytes
        const auto world = needInt(job, "world_size", "job.");
        if (world < 0 || world > JobInfo::kMaxWorldSize) {
            throw SchemaError { "expected \"job.world_size\" to be between 0 (fabric data only) and "
                + std::to_string(JobInfo::kMaxWorldSize) };
        }
        snap.job.worldSize = static_cast<std::uint32_t>(world);
        snap.job.clockOriginNs = needInt(job, "clock_origin_ns", "job.");
        snap.job.span = { optInt(job, "start_ns", "job.").value_or(snap.job.clockOriginNs),
            optInt(job, "end_ns", "job.").value_or(snap.job.clockOriginNs) };

        if (has(m, "timeout_policy")) {
            const auto p = need(m, "timeout_policy", "");
            const std::string path = "timeout_policy.";
            snap.policy.ncclIbTimeout = static_cast<int>(optInt(p, "nccl_ib_timeout", path).value_or(20));
            snap.policy.ncclIbRetryCnt = static_cast<int>(optInt(p, "nccl_ib_retry_cnt", path).value_or(7));
            snap.policy.collectiveTimeoutNs = optInt(p, "collective_timeout_ms", path).value_or(600000) * kNsPerMs;
            snap.policy.checkpointIntervalNs = optInt(p, "checkpoint_interval_s", path).value_or(1800) * kNsPerSec;
            snap.policy.restartTimeNs = optInt(p, "restart_time_s", path).value_or(600) * kNsPerSec;
            if (has(p, "adaptive_retransmission")) {
                std::string error;
                const auto a
                    = parseAdaptiveRetransmission(std::string(needString(p, "adaptive_retransmission", path)), error);
                if (!a) {
                    throw SchemaError { "timeout_policy.adaptive_retransmission: " + error };
                }
                snap.policy.adaptive = *a;
            }
        }

        const auto ranksEl = need(m, "ranks", "");
        if (!ranksEl.is_array() || ranksEl.get_array().size() != snap.job.worldSize) {
            throw SchemaError { "expected \"ranks\" to be an array of job.world_size (" + std::to_string(world)
                + ") entries" };
        }
        snap.ranks.assign(snap.job.worldSize, RankInfo {});
        std::vector<bool> seen(snap.job.worldSize, false);
        std::size_t i = 0;
        for (const sj::element entry : ranksEl.get_array()) {
            const std::string path = "ranks[" + std::to_string(i++) + "].";
            const auto r = needInt(entry, "rank", path);
            if (r < 0 || r >= world || seen[r]) {
                throw SchemaError { "\"" + path + "rank\" is out of range or repeated" };
            }
            seen[r] = true;
            auto& ri = snap.ranks[r];
            ri.host = snap.strings.intern(needString(entry, "host", path));
            ri.localGpu = static_cast<std::uint16_t>(optInt(entry, "local_gpu", path).value_or(0));
            ri.hca = snap.strings.intern(optString(entry, "hca", path));
            ri.hcaPort = static_cast<std::uint16_t>(optInt(entry, "port", path).value_or(1));
        }

        const auto groups = need(m, "process_groups", "");
        if (!groups.is_array() || (groups.get_array().size() == 0 && world > 0)) {
            throw SchemaError { "expected \"process_groups\" to be a non-empty array" };
        }
        i = 0;
        for (const sj::element group : groups.get_array()) {
            const std::string path = "process_groups[" + std::to_string(i++) + "].";
            ProcessGroup g;
            g.name = snap.strings.intern(needString(group, "name", path));
            g.desc = snap.strings.intern(optString(group, "desc", path));
            const auto gr = need(group, "ranks", path);
            std::string_view all;
            if (gr.get_string().get(all) == simdjson::SUCCESS && all == "all") {
                g.ranks.resize(snap.job.worldSize);
                for (std::uint32_t r = 0; r < snap.job.worldSize; ++r) {
                    g.ranks[r] = r;
                }
            } else if (gr.is_array()) {
                for (const sj::element v : gr.get_array()) {
                    const auto r = unsignedBelow(v, snap.job.worldSize);
                    if (!r) {
                        throw SchemaError { "\"" + path + "ranks\" holds a rank outside 0..world_size-1" };
                    }
                    g.ranks.push_back(static_cast<std::uint32_t>(*r));
                }
                std::sort(g.ranks.begin(), g.ranks.end());
            } else {
                throw SchemaError { "expected \"" + path + "ranks\" to be \"all\" or an array of ranks" };
            }
            snap.groups.push_back(std::move(g));
        }

        const auto f = need(m, "files", "");
        files.collectives = std::string(needString(f, "collectives", "files."));
        files.counters = std::string(optString(f, "counters", "files."));
        files.linkEvents = std::string(optString(f, "link_events", "files."));
        files.topology = std::string(optString(f, "topology", "files."));
        if (files.collectives.empty()) {
            throw SchemaError { "expected \"files.collectives\" to name the bundle's collectives file" };
        }
        for (const auto* name : { &files.collectives, &files.counters, &files.linkEvents, &files.topology }) {
            if (name->find('/') != std::string::npos || *name == ".." || *name == ".") {
                throw SchemaError { "file names in \"files\" must be plain names inside the bundle: " + *name };
            }
        }
    } catch (const SchemaError& e) {
        return LoadIssue { file, 0, -1, e.message };
    } catch (const BadNumber& e) {
        return LoadIssue { file, 0, -1, e.what() };
    }
    return std::nullopt;
}

std::optional<LoadIssue> parseTopology(const std::string& file, const std::string& text, JobSnapshot& snap)
{
    sj::parser parser;
    sj::element t;
    if (auto err = parseDom(file, text, parser, t)) {
        return err;
    }
    try {
        const auto nodes = need(t, "nodes", "");
        if (!nodes.is_array()) {
            throw SchemaError { "expected \"nodes\" to be an array" };
        }
        std::size_t i = 0;
        for (const sj::element node : nodes.get_array()) {
            const std::string path = "nodes[" + std::to_string(i++) + "].";
            FabricNode n;
            n.guid = needGuid(node, "guid", path);
            if (snap.topology.findNodeByGuid(n.guid)) {
                throw SchemaError { "\"" + path + "guid\" repeats an earlier node's GUID" };
            }
            const auto kind = needString(node, "kind", path);
            if (kind != "switch" && kind != "hca") {
                throw SchemaError { "expected \"" + path + "kind\" to be \"switch\" or \"hca\"" };
            }
            n.kind = kind == "switch" ? NodeKind::Switch : NodeKind::Hca;
            n.description = snap.strings.intern(needString(node, "desc", path));
            n.tier = static_cast<std::uint8_t>(optInt(node, "tier", path).value_or(n.kind == NodeKind::Hca ? 0 : 1));
            n.portCount = static_cast<std::uint16_t>(optInt(node, "ports", path).value_or(0));
            if (n.kind == NodeKind::Hca) {
                n.host = snap.strings.intern(optString(node, "host", path));
                n.hcaName = snap.strings.intern(optString(node, "hca", path));
            }
            snap.topology.addNode(n);
        }
        const auto links = need(t, "links", "");
        if (!links.is_array()) {
            throw SchemaError { "expected \"links\" to be an array" };
        }
        i = 0;
        for (const sj::element link : links.get_array()) {
            const std::string path = "links[" + std::to_string(i++) + "].";
            FabricLink l;
            auto end = [&](const char* key) {
                const auto e = need(link, key, path);
                const std::string epath = path + key + ".";
                const auto guid = needGuid(e, "guid", epath);
                auto node = snap.topology.findNodeByGuid(guid);
                if (!node) {
                    throw SchemaError { "\"" + epath + "guid\" " + formatGuid(guid) + " names no node in \"nodes\"" };
                }
                return PortRef { *node, static_cast<std::uint16_t>(needInt(e, "port", epath)) };
            };
            l.a = end("a");
            l.b = end("b");
            const std::string width(has(link, "width") ? needString(link, "width", path) : std::string_view("4x"));
            l.width = parseNumber<std::uint8_t>(width.substr(0, width.find_first_not_of("0123456789"))).value_or(0);
            l.speed = snap.strings.intern(optString(link, "speed", path));
            if (has(link, "ends_disagree") && need(link, "ends_disagree", path).get_bool().get(l.endsDisagree)) {
                throw SchemaError { "expected \"" + path + "ends_disagree\" to be true or false" };
            }
            snap.topology.addLink(l);
        }
    } catch (const SchemaError& e) {
        return LoadIssue { file, 0, -1, e.message };
    } catch (const BadNumber& e) {
        return LoadIssue { file, 0, -1, e.what() };
    }
    return std::nullopt;
}

namespace {

// Runs `fn(json, lineNo)` for every non-empty line; a fatal SchemaError stops with file:line.
template <typename Fn> std::optional<LoadIssue> forEachJsonLine(const std::string& file, std::istream& in, Fn fn)
{
    std::string line;
    std::int64_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        json j;
        try {
            j = parseJsonFile(line);
        } catch (const json::parse_error& e) {
            std::string what = e.what();
            if (auto p = what.find("parse error"); p != std::string::npos) {
                what = what.substr(p);
            }
            return LoadIssue { file, lineNo, -1, "invalid JSON: " + what };
        }
        try {
            fn(j, lineNo);
        } catch (const SchemaError& e) {
            return LoadIssue { file, lineNo, -1, e.message };
        } catch (const BadNumber& e) {
            return LoadIssue { file, lineNo, -1, e.what() };
        } catch (const json::exception& e) {
            return LoadIssue { file, lineNo, -1, e.what() };
        }
    }
    return std::nullopt;
}

TimeNs optTime(const json& j, const char* key)
{
    if (!j.contains(key) || j[key].is_null()) {
        return kNoTime;
    }
    if (!j[key].is_number_integer()) {
        throw SchemaError { std::string("expected \"") + key
            + "\" to be an integer (ns since the Unix epoch) or null" };
    }
    return jsonNumber<TimeNs>(j[key]);
}

} // namespace

std::optional<LoadIssue> parseLinkEvents(
    const std::string& file, std::istream& in, JobSnapshot& snap, std::vector<LoadIssue>& warnings)
{
    auto err = forEachJsonLine(file, in, [&](const json& j, std::int64_t lineNo) {
        if (j.contains("note")) {
            HostNote n;
            n.timeNs = optTime(j, "t_ns");
            n.kind = snap.strings.intern(needString(j, "note", ""));
            n.host = snap.strings.intern(j.value("host", std::string()));
            if (j.contains("rank") && !j["rank"].is_null()) {
                const auto r = needInt(j, "rank", "");
                if (r < 0 || r >= std::int64_t(snap.job.worldSize)) {
                    throw SchemaError { "expected \"rank\" below the world size " + std::to_string(snap.job.worldSize)
                        + " or null" };
                }
                n.rank = static_cast<std::uint32_t>(r);
            }
            n.code = j.contains("code") ? needInt(j, "code", "") : -1;
            n.text = snap.strings.intern(j.value("text", std::string()));
            n.source = snap.strings.intern(j.value("source", std::string("unknown")));
            snap.notes.push_back(n);
            return;
        }
        if (j.contains("routes")) {
            if (needString(j, "routes", "") != "updated") {
                throw SchemaError { "expected \"routes\" to be \"updated\"" };
            }
            snap.routeUpdates.push_back(
                { needInt(j, "t_ns", ""), snap.strings.intern(j.value("source", std::string("unknown"))) });
            return;
        }
        LinkEvent e;
        e.timeNs = needInt(j, "t_ns", "");
        e.guid = needGuid(j, "guid", "");
        e.port = static_cast<std::uint16_t>(needInt(j, "port", ""));
        const auto state = needString(j, "state", "");
        if (state != "down" && state != "up") {
            throw SchemaError { "expected \"state\" to be \"down\" or \"up\"" };
        }
        e.state = state == "down" ? LinkState::Down : LinkState::Up;
        e.source = snap.strings.intern(j.value("source", std::string("unknown")));
        if (!snap.topology.nodes().empty() && !snap.topology.findNodeByGuid(e.guid)) {
            warnings.push_back({ file, lineNo, -1, "GUID " + formatGuid(e.guid) + " is not in the topology" });
        }
        snap.linkEvents.push_back(e);
    });
    std::stable_sort(snap.linkEvents.begin(), snap.linkEvents.end(),
        [](const LinkEvent& a, const LinkEvent& b) { return a.timeNs < b.timeNs; });
    std::stable_sort(snap.routeUpdates.begin(), snap.routeUpdates.end(),
        [](const RouteUpdate& a, const RouteUpdate& b) { return a.timeNs < b.timeNs; });
    sortNotes(snap.notes);
    return err;
}

std::optional<LoadIssue> parseCollectivesJsonl(
    const std::string& file, std::istream& in, JobSnapshot& snap, OwnedColumns& owned, std::vector<LoadIssue>& warnings)
{
    owned.ranks.resize(snap.job.worldSize);
    std::map<std::string, std::uint16_t> groupByName;
    for (std::size_t g = 0; g < snap.groups.size(); ++g) {
        groupByName.emplace(snap.str(snap.groups[g].name), static_cast<std::uint16_t>(g));
    }
    auto err = forEachJsonLine(file, in, [&](const json& j, std::int64_t lineNo) {
        const auto rank = needInt(j, "rank", "");
        if (rank < 0 || rank >= snap.job.worldSize) {
            throw SchemaError { "\"rank\" " + std::to_string(rank) + " is outside 0.."
                + std::to_string(snap.job.worldSize - 1) };
        }
        const auto pg = needString(j, "pg", "");
        auto git = groupByName.find(pg);
        if (git == groupByName.end()) {
            throw SchemaError { "\"pg\" \"" + pg + "\" is not a process group of the manifest" };
        }
        const auto opName = needString(j, "op", "");
        auto op = parseCollectiveOp(opName);
        if (!op) {
            warnings.push_back({ file, lineNo, -1, "unknown op \"" + opName + "\", shown as \"other\"" });
            op = CollectiveOp::Other;
        }
        const auto stName = needString(j, "state", "");
        auto st = parseCollectiveState(stName);
        if (!st) {
            throw SchemaError { "expected \"state\" to be one of scheduled, started, completed, failed, timed_out" };
        }
        const auto seq = needUInt(j, "seq", "");
        if (seq > 0xFFFFFFFFULL) {
            throw SchemaError { "\"seq\" does not fit in 32 bits" };
        }
        auto shape = internShape(snap.shapes, { git->second, *op, needUInt(j, "bytes", "") });
        if (!shape) {
            throw SchemaError { "more than 65535 distinct (pg, op, bytes) shapes" };
        }
        const TimeNs enq = optTime(j, "enqueue_ns");
        const TimeNs start = optTime(j, "start_ns");
        const TimeNs end = optTime(j, "end_ns");
        if (enq == kNoTime) {
            throw SchemaError { "missing \"enqueue_ns\"" };
        }
        if ((start != kNoTime && start < enq) || (end != kNoTime && end < (start != kNoTime ? start : enq))) {
            warnings.push_back({ file, lineNo, -1, "times are not ordered enqueue <= start <= end" });
        }
        owned.ranks[rank].push(enq, start, end, static_cast<std::uint32_t>(seq), *shape, *st);
    });
    if (!err) {
        for (auto& r : owned.ranks) {
            r.sortByEnqueue();
        }
    }
    return err;
}

std::optional<LoadIssue> parseCountersJsonl(const std::string& file, std::istream& in, JobSnapshot& snap,
    OwnedColumns& owned, std::vector<std::uint32_t>& seriesTimeBlock, std::vector<LoadIssue>& warnings)
{
    struct Acc
    {
        std::uint8_t bits = 64;
        std::vector<std::pair<TimeNs, std::uint64_t>> samples;
    };
    std::map<std::tuple<std::uint64_t, std::uint16_t, int>, Acc> series; // (guid, port, kind)
    auto err = forEachJsonLine(file, in, [&](const json& j, std::int64_t lineNo) {
        const auto guid = needGuid(j, "guid", "");
        const auto port = static_cast<std::uint16_t>(needInt(j, "port", ""));
        const auto name = needString(j, "counter", "");
        auto kind = parseCounterKind(name);
        if (!kind) {
            warnings.push_back({ file, lineNo, -1, "unknown counter \"" + name + "\" skipped" });
            return;
        }
        auto& acc = series[{ guid, port, static_cast<int>(*kind) }];
        const auto bits = optInt(j, "bits", "").value_or(semantics(*kind).defaultBits);
        if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 4) {
            throw SchemaError { "expected \"bits\" to be 4, 8, 16, 32 or 64" };
        }
        acc.bits = static_cast<std::uint8_t>(bits);
        const auto value = needUInt(j, "value", "");
        if (bits < 64 && value > ((1ULL << bits) - 1)) {
            throw SchemaError { "\"value\" " + std::to_string(value) + " does not fit the counter's "
                + std::to_string(bits) + " bits" };
        }
        acc.samples.emplace_back(needInt(j, "t_ns", ""), value);
    });
    if (err) {
        return err;
    }
    std::map<std::pair<std::uint64_t, std::uint16_t>, std::uint32_t> portIndex;
    for (auto& [key, acc] : series) {
        const auto [guid, port, kind] = key;
        auto [pit, inserted]
            = portIndex.try_emplace({ guid, port }, static_cast<std::uint32_t>(snap.counterPorts.size()));
        if (inserted) {
            snap.counterPorts.push_back({ guid, port, std::nullopt });
        }
        std::stable_sort(acc.samples.begin(), acc.samples.end(), [](auto& a, auto& b) { return a.first < b.first; });
        CounterSeries s;
        s.port = pit->second;
        s.kind = static_cast<CounterKind>(kind);
        s.bits = acc.bits;
        s.storageBytes = storageBytesFor(acc.bits);
        std::vector<TimeNs> times;
        std::vector<std::uint8_t> values(acc.samples.size() * s.storageBytes);
        for (std::size_t i = 0; i < acc.samples.size(); ++i) {
            times.push_back(acc.samples[i].first);
            std::memcpy(values.data() + i * s.storageBytes, &acc.samples[i].second, s.storageBytes); // little-endian
        }
        seriesTimeBlock.push_back(static_cast<std::uint32_t>(owned.counterTimes.size()));
        owned.counterTimes.push_back(std::move(times));
        owned.counterValues.push_back(std::move(values));
        snap.counters.push_back(s);
    }
    return std::nullopt;
}

} // namespace stallscope::bundle
