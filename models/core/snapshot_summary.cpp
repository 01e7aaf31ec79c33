// SPDX-License-Identifier: MIT
#include "core/snapshot_summary.h"
#include "core/json_text.h"
#include "core/printable.h"

#include "core/issue_groups.h"

#include "core/time_format.h"
#include "stallscope_version.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace stallscope {

std::uint64_t residentBytes()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stoull(line.substr(6)) * 1024; // kB
        }
    }
    return 0;
}

namespace {

constexpr std::size_t kFirstFacts = 3; // facts shown of each kind; the rest are counted

std::string whoAndWhen(const JobSnapshot& snap, TimeNs t, std::uint32_t rank, StringId host)
{
    std::string s = t == kNoTime ? std::string("(no time)") : formatUtc(t);
    s += rank == kNoRank ? std::string() : " rank " + std::to_string(rank);
    return s + (snap.str(host).empty() ? std::string() : " " + snap.str(host));
}

SnapshotSummary::FactKind& kindOf(std::vector<SnapshotSummary::FactKind>& kinds, std::string source, std::string kind)
{
    for (auto& k : kinds) {
        if (k.source == source && k.kind == kind) {
            return k;
        }
    }
    return kinds.emplace_back(SnapshotSummary::FactKind { std::move(source), std::move(kind), 0, {} });
}

void summarizeFacts(const JobSnapshot& snap, SnapshotSummary& s)
{
    auto see = [&](SnapshotSummary::FactKind& k, std::string line) {
        if (k.count++ < kFirstFacts) {
            k.first.push_back(std::move(line));
        }
        ++s.factCount;
    };
    for (const auto& f : snap.logFacts) {
        const auto file = snap.str(f.file) + ":" + std::to_string(f.line);
        see(kindOf(s.facts, isAnalyzerFinding(f.kind) ? "fr_trace" : "rank logs", std::string(toString(f.kind))),
            whoAndWhen(snap, f.timeNs, f.rank, f.host) + ": " + describe(f, snap.strings) + " (" + file + ")");
    }
    for (const auto& n : snap.notes) {
        if (snap.str(n.source) == "pytorch" || snap.str(n.source) == "nccl") {
            continue; // a rank log's own last words: listed above as its log facts
        }
        see(kindOf(s.facts, snap.str(n.source), snap.str(n.kind)),
            whoAndWhen(snap, n.timeNs, n.rank, n.host) + ": " + snap.str(n.text));
    }
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        const auto& ri = snap.ranks[r];
        if (!snap.str(ri.transport).empty()) {
            s.transports.push_back("rank " + std::to_string(r) + (snap.str(ri.host).empty() ? "" : " (" + snap.str(ri.host) + ")")
                + ": " + snap.str(ri.transport)
                + (snap.str(ri.transport) != "Socket" && !snap.str(ri.hca).empty() ? " via " + snap.str(ri.hca) : ""));
        }
    }
}

} // namespace

SnapshotSummary summarize(const std::string& path, const LoadedJob& loaded)
{
    const auto& snap = *loaded.snapshot;
    SnapshotSummary s;
    s.path = path;
    s.jobName = snap.job.name;
    s.ranks = snap.job.worldSize;
    std::set<std::uint32_t> hosts;
    for (const auto& r : snap.ranks) {
        if (!snap.str(r.host).empty()) { // a rank no line places is on no host we know, not on a host of its own
            hosts.insert(index(r.host));
        }
    }
    s.hosts = static_cast<std::uint32_t>(hosts.size());
    s.unplacedRanks = static_cast<std::uint32_t>(std::count_if(
        snap.ranks.begin(), snap.ranks.end(), [&](const RankInfo& r) { return snap.str(r.host).empty(); }));
    s.switches = static_cast<std::uint32_t>(snap.topology.switchCount());
    s.hcas = static_cast<std::uint32_t>(snap.topology.hcaCount());
    s.links = static_cast<std::uint32_t>(snap.topology.links().size());
    s.processGroups = static_cast<std::uint32_t>(snap.groups.size());
    s.shapes = static_cast<std::uint32_t>(snap.shapes.size());
    s.collectives = snap.collectiveCount();
    s.counterPorts = static_cast<std::uint32_t>(snap.counterPorts.size());
    s.counterSeries = static_cast<std::uint32_t>(snap.counters.size());
    s.counterSamples = snap.counterSampleCount();
    s.linkEvents = static_cast<std::uint32_t>(snap.linkEvents.size());
    s.startNs = snap.job.span.start;
    s.endNs = snap.job.span.end;
    s.policy = snap.policy;
    s.collectiveBytes = loaded.collectiveBytes;
    s.counterBytes = loaded.counterBytes;
    s.bytesOnDisk = loaded.bytesOnDisk;
    s.residentBytes = residentBytes();
    s.bytesPerCollective = s.collectives ? double(s.collectiveBytes) / double(s.collectives) : 0;
    s.loadSeconds = loaded.loadSeconds;
    s.warningCount = loaded.warnings.size();
    for (const auto& g : groupIssues(loaded.warnings)) {
        s.warnings.push_back(g.format());
    }
    s.recognised = loaded.recognised;
    summarizeFacts(snap, s);
    return s;
}

std::string summaryText(const SnapshotSummary& s)
{
    std::ostringstream o;
    char buf[256];
    o << "Bundle       " << printable(s.path) << '\n';
    o << "Job          " << printable(s.jobName) << " (" << s.ranks << " ranks on " << s.hosts << (s.hosts == 1 ? " host" : " hosts")
      << (s.unplacedRanks > 0 ? ", " + std::to_string(s.unplacedRanks) + " ranks on no named host" : std::string())
      << ")\n";
    if (s.startNs == 0 && s.endNs == 0) { // nothing read carries a time (a log of untimed lines)
        o << "Time span    unknown: no line or record read carries a time\n";
    } else {
        o << "Time span    " << formatUtc(s.startNs) << " .. " << formatUtc(s.endNs) << " ("
          << formatDuration(s.endNs - s.startNs) << ")\n";
    }
    o << "Fabric       " << s.switches << " switches, " << s.hcas << " HCAs, " << s.links << " links\n";
    std::snprintf(buf, sizeof buf, "%.1f", s.bytesPerCollective);
    o << "Collectives  " << formatCount(s.collectives) << " records in " << s.processGroups << " process group(s), "
      << s.shapes << " shape(s); " << formatBytes(double(s.collectiveBytes)) << " in memory, " << buf
      << " bytes/record\n";
    o << "Counters     " << s.counterPorts << " ports, " << s.counterSeries << " series, "
      << formatCount(s.counterSamples) << " samples; " << formatBytes(double(s.counterBytes)) << " in memory\n";
    o << "Link events  " << s.linkEvents << '\n';
    o << "Timeout      " << s.policy.timerText();
    if (!s.policy.infiniteRetry()) {
        o << " (" << formatDuration(s.policy.retryPeriodNs()) << " per retry, "
          << formatDuration(s.policy.retryBudgetNs()) << " budget)";
    }
    o << ", collective timeout " << formatDuration(s.policy.collectiveTimeoutNs) << '\n';
    std::snprintf(buf, sizeof buf, "%.3f s", s.loadSeconds);
    o << "Memory       " << formatBytes(double(s.residentBytes)) << " resident; "
      << (s.recognised.empty() ? "bundle " : "files read ") << formatBytes(double(s.bytesOnDisk)) << " on disk\n";
    o << "Load time    " << buf << '\n';
    if (!s.recognised.empty()) {
        o << "Recognised   " << printable(s.recognised.front()) << '\n';
        for (std::size_t i = 1; i < s.recognised.size(); ++i) {
            o << "  " << printable(s.recognised[i]) << '\n';
        }
    }
    if (s.factCount > 0) {
        o << "Facts        " << s.factCount << " from the logs\n";
        for (const auto& k : s.facts) {
            o << "  " << printable(k.source) << ", " << printable(k.kind) << ": " << k.count << '\n';
            for (const auto& line : k.first) {
                o << "    " << printable(line, true) << '\n';
            }
            if (k.count > k.first.size()) {
                o << "    (and " << (k.count - k.first.size()) << " more)\n";
            }
        }
    }
    constexpr std::size_t kTransportsShown = 8;
    for (std::size_t i = 0; i < s.transports.size() && i < kTransportsShown; ++i) {
        o << (i == 0 ? "Transport    " : "             ") << printable(s.transports[i]) << '\n';
    }
    if (s.transports.size() > kTransportsShown) {
        o << "             (and " << (s.transports.size() - kTransportsShown) << " more ranks)\n";
    }
    o << "Warnings     "
      << (s.warnings.empty() ? std::string("none")
                             : std::to_string(s.warningCount)
                     + (s.warningCount > s.warnings.size() ? " in " + std::to_string(s.warnings.size())
                                 + (s.warnings.size() == 1 ? " group" : " groups")
                                                           : std::string()))
      << '\n';
    for (const auto& w : s.warnings) {
        o << "  " << printable(w, true) << '\n';
    }
    return o.str();
}

std::string summaryJson(const SnapshotSummary& s)
{
    nlohmann::ordered_json j = { { "version", STALLSCOPE_VERSION }, { "path", s.path }, { "job", s.jobName },
        { "ranks", s.ranks }, { "hosts", s.hosts }, { "ranks_without_host", s.unplacedRanks }, { "switches", s.switches }, { "hcas", s.hcas },
        { "links", s.links }, { "process_groups", s.processGroups }, { "shapes", s.shapes },
        { "collectives", s.collectives }, { "counter_ports", s.counterPorts }, { "counter_series", s.counterSeries },
        { "counter_samples", s.counterSamples }, { "link_events", s.linkEvents }, { "start_ns", s.startNs },
        { "end_ns", s.endNs }, { "collective_bytes", s.collectiveBytes }, { "counter_bytes", s.counterBytes },
        { "bytes_per_collective", s.bytesPerCollective }, { "bytes_on_disk", s.bytesOnDisk },
        { "resident_bytes", s.residentBytes }, { "load_seconds", s.loadSeconds },
        { "timeout_policy",
            { { "nccl_ib_timeout", s.policy.ncclIbTimeout }, { "nccl_ib_retry_cnt", s.policy.ncclIbRetryCnt },
                { "retry_budget_ns", s.policy.retryBudgetNs() },
                { "collective_timeout_ns", s.policy.collectiveTimeoutNs } } },
        { "warnings", s.warnings }, { "warning_count", s.warningCount }, { "recognised", s.recognised } };
    auto facts = nlohmann::ordered_json::array();
    for (const auto& k : s.facts) {
        facts.push_back({ { "source", k.source }, { "kind", k.kind }, { "count", k.count }, { "first", k.first } });
    }
    j["facts"] = facts;
    j["fact_count"] = s.factCount;
    j["transports"] = s.transports;
    return jsonText(j, 1) + "\n";
}

} // namespace stallscope
