// SPDX-License-Identifier: MIT
#include "training/answer.h"
#include "core/json_depth.h"
#include "core/json_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace stallscope::training {

namespace {

using nlohmann::json;

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trimmed(std::string s)
{
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::optional<std::uint16_t> portNumber(std::string_view s)
{
    std::uint32_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc {} || p != s.data() + s.size() || s.empty() || v > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(v);
}

// Splits "NODE port 3" / "NODE p3" / "NODE:3" into the node and the port; no port → nullopt.
std::pair<std::string, std::optional<std::uint16_t>> splitPort(const std::string& name)
{
    const auto n = trimmed(name);
    if (const auto at = lower(n).rfind(" port "); at != std::string::npos) {
        if (auto p = portNumber(trimmed(n.substr(at + 6)))) {
            return { trimmed(n.substr(0, at)), p };
        }
    }
    if (const auto at = n.rfind(" p"); at != std::string::npos) {
        if (auto p = portNumber(n.substr(at + 2))) {
            return { trimmed(n.substr(0, at)), p };
        }
    }
    if (const auto at = n.rfind(':'); at != std::string::npos) {
        if (auto p = portNumber(n.substr(at + 1))) {
            return { trimmed(n.substr(0, at)), p };
        }
    }
    return { n, std::nullopt };
}

std::optional<NodeId> findNode(const JobSnapshot& snap, const std::string& text)
{
    const auto& topo = snap.topology;
    const auto want = lower(text);
    if (want.starts_with("0x")) {
        if (const auto guid = parseGuid(want)) {
            return topo.findNodeByGuid(*guid);
        }
    }
    for (std::uint32_t i = 0; i < topo.nodes().size(); ++i) {
        if (lower(std::string(snap.str(topo.nodes()[i].description))) == want) {
            return NodeId(i);
        }
    }
    return std::nullopt;
}

} // namespace

Result<TraineeAnswer, std::string> parseAnswer(const std::string& text, const std::string& file)
{
    json j;
    try {
        j = parseJsonFile(text);
    } catch (const json::parse_error& e) {
        return file + ": not JSON at byte " + std::to_string(e.byte) + ": " + e.what();
    } catch (const json::exception& e) { // a number too large for a double, and the like
        return file + ": not JSON: " + e.what();
    }
    if (!j.is_object()) {
        return file + ": expected an object like {\"verdict\": \"stretched\", \"links\": [\"leaf-r5 port 3\"]}";
    }
    TraineeAnswer a;
    auto bad = [&](const std::string& key, const std::string& what) { return file + ": " + key + ": " + what; };
    for (const auto& [key, v] : j.items()) {
        if (key == "verdict") {
            a.verdict = v.is_string() ? verdictFromString(v.get<std::string>()) : std::nullopt;
            if (!a.verdict) {
                return bad(key, "expected stretched, crashed, no_fabric_fault or slowed");
            }
        } else if (key == "links") {
            if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); })) {
                return bad(key, "expected an array of link names like \"leaf-r5 port 3\"");
            }
            for (const auto& x : v) {
                a.links.push_back(x.get<std::string>());
            }
        } else if (key == "ranks") {
            if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& x) {
                    return x.is_number_unsigned() && x.get<std::uint64_t>() < (1ULL << 31);
                })) {
                return bad(key, "expected an array of rank numbers");
            }
            for (const auto& x : v) {
                a.ranks.push_back(x.get<std::uint32_t>());
            }
        } else if (key == "culprit_unprovable") {
            if (!v.is_boolean()) {
                return bad(key, "expected true or false");
            }
            a.culpritUnprovable = v.get<bool>();
        } else if (key == "cost_gpu_seconds" || key == "period_seconds") {
            if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e12) {
                return bad(key, "expected a number of seconds, 0 or more");
            }
            (key == "cost_gpu_seconds" ? a.costGpuSeconds : a.periodSeconds) = v.get<double>();
        } else if (key == "hints_used") {
            if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 100) {
                return bad(key, "expected a count of hints");
            }
            a.hintsUsed = v.get<int>();
        } else {
            return bad(key,
                "unknown field (verdict, links, ranks, culprit_unprovable, cost_gpu_seconds, "
                "period_seconds, hints_used)");
        }
    }
    return a;
}

std::string answerToJson(const TraineeAnswer& a)
{
    nlohmann::ordered_json j;
    if (a.verdict) {
        j["verdict"] = std::string(toString(*a.verdict));
    }
    j["links"] = a.links;
    j["ranks"] = a.ranks;
    j["culprit_unprovable"] = a.culpritUnprovable;
    if (a.costGpuSeconds) {
        j["cost_gpu_seconds"] = *a.costGpuSeconds;
    }
    if (a.periodSeconds) {
        j["period_seconds"] = *a.periodSeconds;
    }
    j["hints_used"] = a.hintsUsed;
    return jsonText(j, 1) + "\n";
}

Result<LinkId, std::string> resolveLinkName(const JobSnapshot& snap, const std::string& name)
{
    const auto [nodeText, port] = splitPort(name);
    const auto node = findNode(snap, nodeText);
    if (!node) {
        return "\"" + name + "\": no node of this fabric is called \"" + nodeText + "\"";
    }
    const auto& topo = snap.topology;
    std::vector<LinkId> links;
    for (std::uint32_t i = 0; i < topo.links().size(); ++i) {
        const auto& l = topo.links()[i];
        for (const auto& end : { l.a, l.b }) {
            if (end.node == *node && (!port || end.port == *port)) {
                links.push_back(LinkId(i));
            }
        }
    }
    if (links.size() == 1) {
        return links.front();
    }
    if (links.empty()) {
        return "\"" + name + "\": " + nodeText + " has no link on port " + std::to_string(port.value_or(0));
    }
    return "\"" + name + "\": " + nodeText + " has " + std::to_string(links.size()) + " links: name the port (\""
        + nodeText + " port N\")";
}

std::string linkName(const JobSnapshot& snap, LinkId link)
{
    const auto& l = snap.topology.link(link);
    auto end = [&](const PortRef& p) {
        return std::string(snap.str(snap.topology.node(p.node).description)) + " port " + std::to_string(p.port);
    };
    return end(l.a) + " <-> " + end(l.b);
}

} // namespace stallscope::training
