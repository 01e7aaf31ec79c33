// SPDX-License-Identifier: MIT
// The node tools' outputs into a raw folder's facts, each noted with what it says first: its tools, ports and GPUs,
// the ports not Active, devices gone. Calling thread.
#include "import/node_tools/node_tools_glue.h"

#include "import/node_tools/node_tools.h"

#include <set>

namespace stallscope {

namespace {

// "mlx5_1/1 Down/Polling" for the ports not Active: what a reader of `info` wants first.
std::string notActive(const NodeToolsFile& f)
{
    std::string s;
    std::size_t n = 0;
    for (const auto& p : f.ports) {
        if (p.state == PortState::Active || p.state == PortState::Unknown) {
            continue;
        }
        if (++n <= 4) {
            s += (s.empty() ? "" : ", ") + (p.host.empty() ? "" : p.host + " ") + p.device + "/"
                + std::to_string(p.port) + " " + std::string(toString(p.state)) + "/" + std::string(toString(p.phys));
        }
    }
    if (n > 4) {
        s += " and " + std::to_string(n - 4) + " more";
    }
    return s;
}

std::string summary(const NodeToolsFile& f)
{
    std::string tools;
    for (const auto& t : f.tools) {
        tools += (tools.empty() ? "" : ", ") + t;
    }
    std::string s = (tools.empty() ? std::string("ibstat") : tools) + ": " + std::to_string(f.ports.size()) + " ports";
    if (!f.gpuPaths.empty() || !f.nvlinks.empty()) {
        std::set<std::pair<std::string, std::uint16_t>> gpus;
        for (const auto& p : f.gpuPaths) {
            gpus.insert({ p.host, p.gpu });
        }
        for (const auto& g : f.nvlinks) {
            gpus.insert({ g.host, g.gpu });
        }
        s += ", " + std::to_string(gpus.size()) + " GPUs";
    }
    if (!f.hosts.empty()) {
        s += " on " + (f.hosts.size() == 1 ? f.hosts[0] : std::to_string(f.hosts.size()) + " hosts");
    }
    if (const auto down = notActive(f); !down.empty()) {
        s += "; not active: " + down;
    }
    for (const auto& g : f.gone) {
        s += "; " + g.device + " vanished (line " + std::to_string(g.line) + ")";
    }
    if (!f.errors.empty()) {
        s += "; " + std::to_string(f.errors.size()) + " ports above ibqueryerrors' thresholds";
    }
    if (f.unknownLines > 0) {
        s += "; " + std::to_string(f.unknownLines) + " other lines kept unread (first: line "
            + std::to_string(f.unknown.front().first) + " \"" + f.unknown.front().second.substr(0, 60) + "\")";
    }
    return s;
}

} // namespace

std::optional<LoadIssue> addNodeTools(FileInput& in, FolderSink& sink, std::vector<NodeToolsFile>& nodeTools)
{
    const auto file = in.path.string();
    const auto host = hostOfNodeFile(file);
    auto r = parseNodeTools(file, in.text, host);
    if (!r) {
        return r.error();
    }
    sink.warn(r->warnings);
    sink.note(in.path, "node InfiniBand tools output", summary(r.value()));
    nodeTools.push_back(std::move(r.value()));
    return std::nullopt;
}

} // namespace stallscope
