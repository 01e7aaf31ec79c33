// SPDX-License-Identifier: MIT
#include "view/review_session.h"

#include "core/document_file.h"
#include "core/json_depth.h"
#include "core/json_number.h"
#include "core/json_text.h"
#include "core/os_error.h"

#include "core/atomic_file.h"
#include "core/topology.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallscope {

namespace {

using nlohmann::ordered_json;

ordered_json linkJson(const LinkRefByPorts& l)
{
    return { { "a", { { "guid", formatGuid(l.guidA) }, { "port", l.portA } } },
        { "b", { { "guid", formatGuid(l.guidB) }, { "port", l.portB } } } };
}

LinkRefByPorts parseLink(const nlohmann::json& j)
{
    LinkRefByPorts l;
    auto guid = [](const nlohmann::json& e) {
        auto g = parseGuid(e.at("guid").get<std::string>());
        if (!g) {
            throw std::runtime_error("expected a GUID like \"0x0c42a10300a1b2c4\"");
        }
        return *g;
    };
    l.guidA = guid(j.at("a"));
    l.portA = jsonNumber<std::uint16_t>(j.at("a").at("port"));
    l.guidB = guid(j.at("b"));
    l.portB = jsonNumber<std::uint16_t>(j.at("b").at("port"));
    return l;
}

} // namespace

std::string sessionToJson(const ReviewSession& s)
{
    ordered_json j;
    j["format"] = "stallscope-session";
    j["version"] = ReviewSession::kVersion;
    j["bundle"] = s.bundlePath;
    j["window"] = { { "start_ns", s.window.start }, { "end_ns", s.window.end } };
    j["cursor_ns"] = s.cursorNs == kNoTime ? ordered_json(nullptr) : ordered_json(s.cursorNs);
    const auto ranges = [](const std::vector<TimeRange>& rs) {
        ordered_json a = ordered_json::array();
        for (const auto& r : rs) {
            a.push_back({ { "start_ns", r.start }, { "end_ns", r.end } });
        }
        return a;
    };
    j["zoom_back"] = ranges(s.back);
    j["zoom_forward"] = ranges(s.forward);
    j["row_order"] = s.rowOrder;
    j["metric"] = s.metric;
    j["link_row_order"] = s.linkRowOrder;
    j["rank_rows"] = s.rankRows;
    j["selected_incident"] = s.selectedIncident;
    j["selected_ranks"] = s.selectedRanks;
    j["fabric_find"] = s.fabricFind;
    j["link_filter"] = s.linkFilter;
    ordered_json links = ordered_json::array();
    for (const auto& l : s.plottedLinks) {
        links.push_back(linkJson(l));
    }
    j["plotted_links"] = links;
    j["layout"] = s.layout;
    ordered_json notes = ordered_json::array();
    for (const auto& a : s.annotations) {
        ordered_json n = { { "start_ns", a.startNs }, { "end_ns", a.endNs }, { "text", a.text } };
        n["rank"] = a.rank ? ordered_json(*a.rank) : ordered_json(nullptr);
        n["link"] = a.link ? linkJson(*a.link) : ordered_json(nullptr);
        notes.push_back(std::move(n));
    }
    j["annotations"] = notes;
    return jsonText(j, 1) + "\n";
}

Result<ReviewSession> parseSession(const std::string& file, const std::string& text)
{
    ReviewSession s;
    try {
        const auto j = parseJsonFile(text);
        if (j.value("format", std::string()) != "stallscope-session") {
            return LoadIssue { file, 0, -1, "expected \"format\": \"stallscope-session\"" };
        }
        if (jsonNumber<int>(j.at("version")) != ReviewSession::kVersion) {
            return LoadIssue { file, 0, -1,
                "unsupported session version " + std::to_string(jsonNumber<int>(j.at("version"))) };
        }
        s.bundlePath = j.at("bundle").get<std::string>();
        s.window
            = { jsonNumber<TimeNs>(j.at("window").at("start_ns")), jsonNumber<TimeNs>(j.at("window").at("end_ns")) };
        s.rowOrder = j.value("row_order", std::string("rank"));
        s.metric = j.value("metric", std::string("state"));
        s.linkRowOrder = j.value("link_row_order", std::string("tier"));
        s.rankRows = j.value("rank_rows", std::string("all"));
        if (j.contains("cursor_ns") && !j["cursor_ns"].is_null()) {
            s.cursorNs = jsonNumber<TimeNs>(j["cursor_ns"]);
        }
        const auto ranges = [&](const char* key) {
            std::vector<TimeRange> out;
            for (const auto& r : j.value(key, nlohmann::json::array())) {
                out.push_back({ jsonNumber<TimeNs>(r.at("start_ns")), jsonNumber<TimeNs>(r.at("end_ns")) });
            }
            return out;
        };
        s.back = ranges("zoom_back");
        s.forward = ranges("zoom_forward");
        for (const auto& r : j.value("selected_ranks", nlohmann::json::array())) {
            s.selectedRanks.push_back(jsonNumber<std::uint32_t>(r));
        }
        s.fabricFind = j.value("fabric_find", std::string());
        s.linkFilter = j.value("link_filter", std::string());
        s.selectedIncident = jsonNumber<int>(j.value("selected_incident", nlohmann::json(0)));
        for (const auto& l : j.value("plotted_links", nlohmann::json::array())) {
            s.plottedLinks.push_back(parseLink(l));
        }
        s.layout = j.value("layout", std::string());
        for (const auto& n : j.value("annotations", nlohmann::json::array())) {
            Annotation a;
            a.startNs = jsonNumber<TimeNs>(n.at("start_ns"));
            a.endNs = jsonNumber<TimeNs>(n.value("end_ns", nlohmann::json(a.startNs)));
            a.text = n.at("text").get<std::string>();
            if (n.contains("rank") && !n["rank"].is_null()) {
                a.rank = jsonNumber<std::uint32_t>(n["rank"]);
            }
            if (n.contains("link") && !n["link"].is_null()) {
                a.link = parseLink(n["link"]);
            }
            s.annotations.push_back(std::move(a));
        }
    } catch (const nlohmann::json::parse_error& e) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(e.byte), std::string("invalid JSON: ") + e.what() };
    } catch (const std::exception& e) {
        return LoadIssue { file, 0, -1, std::string("unexpected content: ") + e.what() };
    }
    return s;
}

std::string saveSession(const std::string& path, const ReviewSession& s)
{
    return writeFileAtomic(path, sessionToJson(s));
}

Result<ReviewSession> loadSession(const std::string& path)
{
    auto text = readDocument(path, kSmallDocumentBytes, "review session");
    if (!text) {
        return text.error();
    }
    return parseSession(path, text.value());
}

std::string resolveBundlePath(const std::string& sessionPath, const ReviewSession& s)
{
    const std::filesystem::path bundle(s.bundlePath);
    if (bundle.is_absolute()) {
        return bundle.string();
    }
    return (std::filesystem::path(sessionPath).parent_path() / bundle).lexically_normal().string();
}

} // namespace stallscope
