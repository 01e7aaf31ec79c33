// SPDX-License-Identifier: MIT
// Node findings (node_findings.h): rules over one host's ports at a time.
// Over 600 lines as one file: it is the one catalogue of rules, each a short function, that findNodeProblems
// runs, merges and orders, sharing the wording helpers (portName, where, rateText) at the top.
#include "analysis/node_findings.h"

#include "analysis/gpu_links.h"

#include "core/time_format.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace stallscope {

namespace {

std::string portName(const HostPort& p)
{
    return p.device + "/" + std::to_string(p.port);
}

std::string where(const HostPort& p)
{
    return p.file + (p.line > 0 ? ":" + std::to_string(p.line) : std::string()) + ": " + p.evidence;
}

std::string rateText(const PortRate& r)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g Gb/s", r.gbps);
    if (r.width == 0) {
        return buf;
    }
    return std::string(buf) + " (" + std::to_string(r.width) + "X" + (r.speed.empty() ? "" : " " + r.speed) + ")";
}

// The state of one port: at most one finding.
std::optional<NodeFinding> stateFinding(const HostPort& p)
{
    NodeFinding f { p.host, portName(p), {}, {}, where(p), true };
    const auto head = p.device + " port " + std::to_string(p.port) + " is " + std::string(toString(p.state));
    if (p.state == PortState::Down
        || (p.state == PortState::Unknown && p.phys != PhysState::Unknown && p.phys != PhysState::LinkUp)) {
        if (p.phys == PhysState::Disabled) {
            f.kind = "port disabled";
            f.text = head
                + ", physical state Disabled: turned off on purpose (ibportstate, the switch side, "
                  "or the driver), not a cable fault";
        } else if (p.phys == PhysState::Polling || p.phys == PhysState::Sleep || p.phys == PhysState::Training) {
            f.kind = "port down";
            f.text = head + ", physical state " + std::string(toString(p.phys))
                + ": the link is not training — the cable, the transceiver or the peer port";
        } else if (p.phys == PhysState::LinkUp) {
            f.kind = "port down";
            f.text = head + " while its physical link is up";
        } else {
            f.kind = "port down";
            f.text = head
                + (p.phys == PhysState::Unknown ? std::string() : ", physical state " + std::string(toString(p.phys)));
        }
        return f;
    }
    if ((p.state == PortState::Init || p.state == PortState::Armed) && p.infiniband()) {
        const bool noSm = !p.smLid || *p.smLid == 0;
        f.kind = noSm ? "no subnet manager" : "port not activated";
        f.text = head + " (physical " + std::string(toString(p.phys)) + ")"
            + (noSm ? ", SM LID " + (p.smLid ? std::string("0") : std::string("not shown"))
                        + ": no subnet manager has configured it — is opensm running on this subnet?"
                    : ": trained, but the subnet manager (LID " + std::to_string(*p.smLid) + ") has not activated it");
        return f;
    }
    if (p.state == PortState::Active && p.infiniband() && p.smLid && *p.smLid == 0 && !p.linkLayer.empty()) {
        f.kind = "no subnet manager";
        f.portDown = false;
        f.text = p.device + " port " + std::to_string(p.port) + " is Active with SM LID 0: no subnet manager is known";
        return f;
    }
    return std::nullopt;
}

// ibqueryerrors' ports above their thresholds, one finding each (the "port ALL" sums repeat them). An HCA's node
// description "gpu042 mlx5_0" names the host and device; a switch is its own "host".
void errorFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    for (const auto& r : snap.portErrors) {
        if (!r.port) {
            continue;
        }
        std::string said;
        for (const auto& [name, value] : r.counters) {
            const bool atMax = value == 255 || value == 65535 || value == 4294967295ULL;
            said
                += (said.empty() ? "" : ", ") + name + " " + std::to_string(value) + (atMax ? " (at its maximum)" : "");
        }
        const auto space = r.node.rfind(' ');
        const bool hca = !r.switchNode && space != std::string::npos;
        const auto host = hca ? r.node.substr(0, space) : r.node;
        const auto port = (hca ? r.node.substr(space + 1) + "/" : std::string("port ")) + std::to_string(*r.port);
        out.push_back({ host, port, "error counters", port + " is above ibqueryerrors' thresholds: " + said,
            r.file + ":" + std::to_string(r.line) + ": " + r.evidence, false });
    }
}

// sminfo's answer: a subnet manager not MASTER (standby, discovering, not active) or none answering means no SM
// is sweeping the fabric: ports that go down stay unconfigured and new ports never become Active.
void smFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    static constexpr const char* kStates[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };
    for (const auto& sm : snap.subnetManagers) {
        if (sm.master()) {
            continue;
        }
        const auto text = sm.failed
            ? std::string("sminfo got no answer from a subnet manager: no master SM is reachable, so the fabric is "
                          "not swept and ports that come up stay unconfigured")
            : "the subnet manager at LID " + std::to_string(sm.lid) + " is " + kStates[sm.state]
                + ", not MASTER: no master SM sweeps the fabric, so ports that come up stay unconfigured";
        out.push_back({ sm.host, "", "no master subnet manager", text,
            sm.file + ":" + std::to_string(sm.line) + ": " + sm.evidence, false });
    }
}

// ibswinfo's switches: a PSU, a PSU's DC power or fan, or the switch's fans not OK; the temperature above the
// warning threshold the table itself prints (the targeted -o vitals list has none, so it is never judged).
void switchFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    for (const auto& v : snap.switchVitals) {
        for (const auto& st : v.statuses) {
            if (st.value == "OK") {
                continue;
            }
            const bool psu = st.part.starts_with("PSU");
            out.push_back({ v.name, st.part, psu ? "switch PSU not OK" : "switch fan not OK",
                st.part + " is " + st.value
                    + (psu ? ": the switch runs on its other supplies, without redundancy, or browns out under load"
                           : ": the switch's cooling is impaired; it may throttle or shut down as it heats"),
                v.file + ":" + std::to_string(st.line) + ": " + st.part + " " + st.value, false });
        }
        if (v.temperature && v.warnLow && *v.temperature > *v.warnLow) {
            const bool high = v.warnHigh && *v.temperature > *v.warnHigh;
            out.push_back({ v.name, "", "switch over temperature",
                "the switch is at " + std::to_string(*v.temperature) + " C, above its warning threshold of "
                    + std::to_string(high ? *v.warnHigh : *v.warnLow) + " C (" + (high ? "high" : "low")
                    + "): check its fans and airflow",
                v.file + ":" + std::to_string(v.line) + ": temperature " + std::to_string(*v.temperature)
                    + " C, warn threshold " + std::to_string(*v.warnLow) + "/"
                    + (v.warnHigh ? std::to_string(*v.warnHigh) : std::string("?")),
                false });
        }
    }
}

// Rails of one host: the Active ports' rates and link layers compared.
void railFindings(const std::string& host, const std::vector<const HostPort*>& ports, std::vector<NodeFinding>& out)
{
    std::map<std::string, std::vector<const HostPort*>> byLayer;
    std::map<double, std::vector<const HostPort*>> byRate;
    std::set<std::string> seen;
    for (const auto* p : ports) {
        if (p->state != PortState::Active || !seen.insert(portName(*p)).second) {
            continue;
        }
        byLayer[p->linkLayer.empty() ? "InfiniBand" : p->linkLayer].push_back(p);
        if (p->rate.gbps > 0 && p->infiniband()) {
            byRate[p->rate.gbps].push_back(p);
        }
    }
    if (byLayer.size() > 1) {
        std::string said;
        for (const auto& [layer, ps] : byLayer) {
            said += (said.empty() ? "" : ", ") + std::to_string(ps.size()) + " " + layer + " (" + portName(*ps[0])
                + (ps.size() > 1 ? ", …" : "") + ")";
        }
        out.push_back({ host, "", "mixed link layers", "active ports of mixed link layers: " + said,
            where(*byLayer.begin()->second[0]), false });
    }
    if (byRate.size() > 1) {
        // The usual rate is the most common one (ties: the faster); the rest trained below it or are another kind.
        const auto usual = std::max_element(byRate.begin(), byRate.end(), [](const auto& a, const auto& b) {
            return a.second.size() != b.second.size() ? a.second.size() < b.second.size() : a.first < b.first;
        });
        for (const auto& [gbps, ps] : byRate) {
            if (gbps == usual->first) {
                continue;
            }
            for (const auto* p : ps) {
                const bool below = gbps < usual->first;
                out.push_back({ host, portName(*p), below ? "below its tier" : "mixed rates",
                    p->device + " port " + std::to_string(p->port) + " trained at " + rateText(p->rate) + " where "
                        + std::to_string(usual->second.size()) + " of the host's rails run at "
                        + rateText(usual->second[0]->rate)
                        + (below ? ": lanes or speed lost (a cable, a transceiver, a port)" : ""),
                    where(*p), false });
            }
        }
    }
}

// A port read more than once in one source (a loop of `rdma link` or ibstat): each change of state.
void flapFindings(const std::string& host, const std::vector<const HostPort*>& ports, std::vector<NodeFinding>& out)
{
    std::map<std::pair<std::string, std::string>, std::vector<const HostPort*>> readings;
    for (const auto* p : ports) {
        readings[{ p->source, portName(*p) }].push_back(p);
    }
    const auto both
        = [](const HostPort* p) { return std::string(toString(p->state)) + "/" + std::string(toString(p->phys)); };
    for (const auto& [key, rs] : readings) {
        int changes = 0;
        std::string story = both(rs[0]);
        for (std::size_t i = 1; i < rs.size(); ++i) {
            if (rs[i]->state != rs[i - 1]->state || rs[i]->phys != rs[i - 1]->phys) {
                ++changes;
                if (story.size() < 200) {
                    story += " → " + both(rs[i]);
                }
            }
        }
        if (changes > 0) {
            out.push_back({ host, key.second, "port flapping",
                key.second + " changed state " + std::to_string(changes) + " times across " + std::to_string(rs.size())
                    + " readings of " + key.first + ": " + story,
                where(*rs[1]), false });
        }
    }
}

// Devices one source lists for a host and another source of the same host does not: vanished between them.
void missingFindings(const std::string& host, const std::vector<const HostPort*>& ports, std::vector<NodeFinding>& out)
{
    std::map<std::string, std::set<std::string>> bySource; // source → devices
    for (const auto* p : ports) {
        bySource[p->source].insert(p->device);
    }
    if (bySource.size() < 2) {
        return;
    }
    std::set<std::string> all;
    for (const auto& [source, devs] : bySource) {
        all.insert(devs.begin(), devs.end());
    }
    for (const auto& dev : all) {
        std::string in, notIn;
        for (const auto& [source, devs] : bySource) {
            auto& list = devs.count(dev) ? in : notIn;
            list += (list.empty() ? "" : ", ") + source;
        }
        if (notIn.empty()) {
            continue;
        }
        const auto* seen
            = *std::find_if(ports.begin(), ports.end(), [&](const HostPort* p) { return p->device == dev; });
        out.push_back({ host, dev, "HCA missing from a source",
            dev + " is listed by " + in + " but not by " + notIn + ": it vanished between the two (or one ran on "
                + "another host)",
            where(*seen), true });
    }
}

// The kernel's own account of a host's ports (dmesg, journalctl): link downs and module events, one finding per
// host and kind with the count and the last line — for hosts some node tool or sysfs copy describes, for every host
// of a folder with no job (the kernel log is then what the node says), and for a module event that reports an error
// ("Port module event[error]: … Cable error, High Temperature") wherever it comes from.
void kernelFindings(const JobSnapshot& snap, const std::set<std::string>& hosts, std::vector<NodeFinding>& out)
{
    const bool nodeFolder = snap.job.worldSize == 0;
    struct Seen
    {
        int count = 0;
        const HostNote* last = nullptr;
    };
    std::map<std::pair<std::string, std::string>, Seen> byHost;
    for (const auto& n : snap.notes) {
        const auto kind = snap.str(n.kind);
        if (snap.str(n.source) != "kernel" || (kind != "link down" && kind != "port module event")) {
            continue;
        }
        const bool moduleError = kind == "port module event" && snap.str(n.text).find("error") != std::string::npos;
        if (!hosts.count(snap.str(n.host)) && !nodeFolder && !moduleError) {
            continue;
        }
        auto& seen = byHost[{ snap.str(n.host), kind }];
        ++seen.count;
        if (!seen.last || (n.timeNs != kNoTime && (seen.last->timeNs == kNoTime || n.timeNs >= seen.last->timeNs))) {
            seen.last = &n;
        }
    }
    for (const auto& [key, seen] : byHost) {
        const auto when = seen.last->timeNs == kNoTime ? std::string() : " at " + formatUtc(seen.last->timeNs);
        out.push_back({ key.first, "", "kernel " + key.second,
            "the kernel logged " + std::to_string(seen.count) + " " + key.second + (seen.count > 1 ? "s" : "")
                + ", the last" + when + ": " + snap.str(seen.last->text),
            snap.str(seen.last->evidence).empty() ? "kernel log: " + snap.str(seen.last->text)
                                                  : snap.str(seen.last->evidence),
            false });
    }
}

// The GPU, NVSwitch, NVLink and PCIe facts of the hosts' kernel logs and Fabric Manager logs, by the finding they
// make: the note's kind → the finding's kind, whether the device is out of service, and what it means.
struct GpuRule
{
    std::string_view note; // HostNote kind (import/logs/host_log.h toString)
    std::string_view finding;
    bool down; // the GPU, switch, link or Fabric Manager carries no traffic now
    std::string_view means;
};

constexpr GpuRule kGpuRules[] = {
    { "GPU off the bus", "GPU fallen off the bus", true,
        "the GPU stopped answering on PCIe: every process on it is gone until the node is reset" },
    { "NVSwitch SXid fatal", "NVSwitch fatal error", true,
        "an NVSwitch reported a fatal error: NVLink traffic through it stalls until the switch and its GPUs reset" },
    { "NVSwitch fatal error", "NVSwitch fatal error", true,
        "an NVSwitch reported a fatal error: NVLink traffic through it stalls until the switch and its GPUs reset" },
    { "Fabric Manager stopped", "Fabric Manager stopped", true,
        "Fabric Manager exited: new NVLink peer-to-peer setups and multicast (NVLS) fail on this node" },
    { "PCIe link down", "PCIe link down", true,
        "a PCIe link went down (Surprise Down, hot-plug Link Down, Card not present): the device behind it is gone" },
    { "trunk link failure", "NVSwitch trunk link failure", true,
        "a link between NVSwitches failed: the partitions using that trunk lose bandwidth or stall" },
    { "NVLink training failed", "NVLink training failed", true, "an NVLink did not train: the GPU runs without it" },
    { "NVLink down", "NVLink down", true, "an NVLink went down: peer-to-peer traffic over it stops" },
    { "GPU NVLink error", "GPU NVLink error", false, "Fabric Manager saw an NVLink error on a GPU port" },
    { "PCIe uncorrected error", "PCIe uncorrected error", false,
        "PCIe reported an uncorrected error: the device may be reset or lost" },
    { "segfault in a GPU library", "segfault in a GPU library", false,
        "a process crashed inside NCCL or CUDA: its rank died there, the others wait for it" },
    { "nvidia-peermem error", "nvidia-peermem error", false,
        "GPUDirect RDMA (nvidia-peermem) failed to free or map GPU memory: transfers over it may fail" },
    // Only the SXid's Data line is in the log: which SXids are fatal is NVIDIA's table to say, not ours to guess.
    { "NVSwitch SXid, severity not logged", "NVSwitch SXid", false,
        "an NVSwitch reported an SXid; the line saying whether it was fatal is not in the log (NVIDIA's SXid table "
        "gives each number's severity)" },
    { "NVSwitch SXid non-fatal", "NVSwitch non-fatal error", false, "an NVSwitch reported a non-fatal error" },
    { "NVSwitch non-fatal error", "NVSwitch non-fatal error", false, "an NVSwitch reported a non-fatal error" },
    { "Fabric Manager error", "Fabric Manager error", false, "Fabric Manager logged an error" },
    { "PCIe corrected error", "PCIe corrected errors", false,
        "PCIe corrected errors: harmless alone, a failing link or riser when they keep coming" },
};

// NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors, "Analyzing Xid Errors with the Xid Catalog": each Xid's
// immediate action) for the Xids that take a GPU out of service or say what it needs; any other Xid is a finding of
// its own number, its meaning left to the catalog.
struct XidRule
{
    std::int64_t xid;
    GpuRule rule;
};

constexpr XidRule kXidRules[] = {
    { 48, { "", "GPU needs a reset (Xid 48)", true,
              "an uncorrectable double-bit ECC error in GPU memory: NVIDIA's action is to reset the GPU" } },
    { 63, { "", "GPU needs a reset (Xid 63)", false,
              "a memory row or page was marked for remapping or retirement: it takes effect when the GPU is reset" } },
    { 64, { "", "GPU needs a reset (Xid 64)", true,
              "remapping or retiring a failed memory row did not succeed: reset the GPU, and replace it if this "
              "repeats" } },
    { 74, { "", "GPU NVLink error (Xid 74)", true,
              "an NVLink error on the GPU: its peer-to-peer traffic stops until the GPU is reset" } },
    { 94, { "", "GPU contained ECC error (Xid 94)", false,
              "a contained uncorrectable ECC error: the applications that used the memory must restart, the GPU stays "
              "in service" } },
    { 95, { "", "GPU needs a reset (Xid 95)", true,
              "an uncontained uncorrectable ECC error: every process on the GPU is affected; reset the GPU" } },
    { 119, { "", "GPU needs a reset (Xid 119)", true,
               "the GPU's System Processor (GSP) stopped answering the driver: the GPU needs a reset" } },
    { 120, { "", "GPU needs a reset (Xid 120)", true, "the GPU's System Processor (GSP) reported an error: reset the GPU" } },
    { 154, { "", "GPU recovery action (Xid 154)", true,
               "the driver says what the GPU needs to recover (a reset, a node reboot): the line names it" } },
    { 13, { "", "GPU application error (Xid 13/31/43/45)", false,
              "a graphics engine exception, usually the application's fault: its process must restart" } },
    { 31, { "", "GPU application error (Xid 13/31/43/45)", false,
              "a GPU memory page fault, usually the application's fault: its process must restart" } },
    { 43, { "", "GPU application error (Xid 13/31/43/45)", false,
              "the GPU stopped processing the application's work: its process must restart" } },
    { 45, { "", "GPU application error (Xid 13/31/43/45)", false,
              "the driver cleaned up a channel its process left (after a crash or kill): a consequence, not a cause" } },
};

constexpr GpuRule kOtherXid { "", "GPU Xid", false,
    "the GPU driver reported an Xid; NVIDIA's Xid catalog gives its number's meaning and action" };

const GpuRule* gpuRule(const JobSnapshot& snap, const HostNote& n)
{
    const auto kind = snap.str(n.kind);
    if (kind == "GPU Xid" && n.code == 79) { // the driver's Xid for a GPU off the bus: the same finding
        return &kGpuRules[0];
    }
    if (kind == "GPU Xid") {
        for (const auto& x : kXidRules) {
            if (x.xid == n.code) {
                return &x.rule;
            }
        }
        return &kOtherXid;
    }
    for (const auto& r : kGpuRules) {
        if (kind == r.note) {
            return &r;
        }
    }
    return nullptr;
}

std::string noteEvidence(const JobSnapshot& snap, const HostNote& n)
{
    const auto e = snap.str(n.evidence);
    return e.empty() ? snap.str(n.source) + " log: " + snap.str(n.text) : e;
}

// One finding per host and kind, with how many lines said it and the last; what the kernel and Fabric Manager
// both said (an SXid and "detected NVSwitch fatal error") is one finding carrying a line of each. For every host
// with such lines: a GPU off the bus matters whether or not a node tool described the host.
void gpuFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    struct Seen
    {
        const GpuRule* rule = nullptr;
        int count = 0;
        const HostNote* last = nullptr;
        const HostNote* otherSource = nullptr; // the first line from a source the last is not from
    };
    std::map<std::pair<std::string, std::string_view>, Seen> byHost;
    for (const auto& n : snap.notes) {
        const auto* rule = gpuRule(snap, n);
        if (!rule) {
            continue;
        }
        auto& seen = byHost[{ snap.str(n.host), rule->finding }];
        seen.rule = rule;
        ++seen.count;
        if (!seen.last || (n.timeNs != kNoTime && (seen.last->timeNs == kNoTime || n.timeNs >= seen.last->timeNs))) {
            seen.last = &n;
        }
    }
    for (const auto& n : snap.notes) { // a line of the other source, now that the last is known
        const auto* rule = gpuRule(snap, n);
        if (rule) {
            auto& seen = byHost[{ snap.str(n.host), rule->finding }];
            if (!seen.otherSource && n.source != seen.last->source) {
                seen.otherSource = &n;
            }
        }
    }
    for (const auto& [key, seen] : byHost) {
        const auto& last = *seen.last;
        const auto when = last.timeNs == kNoTime ? std::string() : " at " + formatUtc(last.timeNs);
        std::string evidence = noteEvidence(snap, last);
        if (seen.otherSource) {
            evidence += "; also " + noteEvidence(snap, *seen.otherSource);
        }
        out.push_back({ key.first, "", std::string(seen.rule->finding),
            std::string(seen.rule->means) + " — " + std::to_string(seen.count) + " line" + (seen.count > 1 ? "s" : "")
                + ", the last" + when + ": " + snap.str(last.text),
            evidence, seen.rule->down });
    }
}

// One finding per host, port and kind: what two sources show alike (ibstat and sysfs both see the port Down) is one
// finding with both evidence lines.
void mergeAlike(std::vector<NodeFinding>& out)
{
    std::vector<NodeFinding> merged;
    for (auto& f : out) {
        const auto same = std::find_if(merged.begin(), merged.end(),
            [&](const NodeFinding& m) { return m.host == f.host && m.port == f.port && m.kind == f.kind; });
        if (same == merged.end()) {
            merged.push_back(std::move(f));
        } else if (same->evidence.size() < 1000) {
            same->evidence += "; also " + f.evidence;
        }
    }
    out = std::move(merged);
}

int severity(const NodeFinding& f)
{
    static const std::vector<std::string> kOrder = { "GPU fallen off the bus", "GPU needs a reset (Xid 48)",
        "GPU needs a reset (Xid 95)", "GPU needs a reset (Xid 119)", "GPU needs a reset (Xid 120)",
        "GPU needs a reset (Xid 64)", "GPU recovery action (Xid 154)", "GPU NVLink error (Xid 74)", "NVSwitch fatal error",
        "Fabric Manager stopped", "PCIe link down", "HCA vanished", "switch PSU not OK", "switch over temperature",
        "switch fan not OK", "port down", "port disabled", "no master subnet manager", "no subnet manager",
        "port not activated", "NVSwitch trunk link failure", "NVLink training failed", "NVLink down", "GPU without NVLink", "NVLink inactive", "link_downed",
        "port flapping", "error counters", "HCA missing from a source", "kernel link down", "kernel port module event",
        "GPU NVLink error", "fewer NVLinks", "NVLink error counters", "PCIe uncorrected error", "segfault in a GPU library", "nvidia-peermem error",
        "NVSwitch SXid", "NVSwitch non-fatal error", "Fabric Manager error", "below its tier", "mixed rates",
        "mixed link layers", "GPU needs a reset (Xid 63)", "GPU contained ECC error (Xid 94)", "GPU Xid",
        "GPU application error (Xid 13/31/43/45)", "PCIe corrected errors" };
    const auto it = std::find(kOrder.begin(), kOrder.end(), f.kind);
    return static_cast<int>(it - kOrder.begin());
}

// What a port's sampled link_downed series says about the reading of a sysfs copy: how often the register rose
// while it was sampled, and over which span (ns). Empty when the port was not sampled at least twice.
struct SampledDowns
{
    std::uint64_t rises = 0;
    TimeNs from = 0, to = 0;
};

// Sampled ports by where a host tool names them: (node GUID, port) and ("host/device", port), since a collector's
// CSV names the host and device and the topology gives the GUID, or the other way round.
struct Sampled
{
    std::map<std::pair<std::uint64_t, std::uint16_t>, SampledDowns> byGuid;
    std::map<std::pair<std::string, std::uint16_t>, SampledDowns> byName;

    const SampledDowns* find(const HostPort& p) const
    {
        if (const auto g = p.nodeGuid ? byGuid.find({ p.nodeGuid, p.port }) : byGuid.end(); g != byGuid.end()) {
            return &g->second;
        }
        const auto n = byName.find({ p.host + "/" + p.device, p.port });
        return n == byName.end() ? nullptr : &n->second;
    }
};

Sampled sampledDowns(const JobSnapshot& snap)
{
    Sampled out;
    for (const auto& s : snap.counters) {
        if (s.kind != CounterKind::LinkDowned || s.size() < 2 || s.port >= snap.counterPorts.size()) {
            continue;
        }
        const auto& cp = snap.counterPorts[s.port];
        SampledDowns d { 0, s.timesNs.front(), s.timesNs.back() };
        for (std::size_t i = 1; i < s.size(); ++i) {
            const auto a = s.value(i - 1), b = s.value(i);
            d.rises += b >= a ? b - a : b; // a fall is a reset: the count starts again from zero
        }
        out.byGuid[{ cp.guid, cp.port }] = d;
        if (cp.node) {
            const auto& n = snap.topology.node(*cp.node);
            out.byGuid[{ n.guid, cp.port }] = d;
            if (n.kind == NodeKind::Hca) {
                out.byName[{ std::string(snap.str(n.host)) + "/" + std::string(snap.str(n.hcaName)), cp.port }] = d;
            }
        }
    }
    return out;
}

// A port's link_downed count. The register counts every drop since the counters were last cleared, often weeks of
// them, so a count the sampled series shows unchanged predates the data and is no finding; one it shows rising is.
std::optional<NodeFinding> linkDownedFinding(const HostPort& p, const Sampled& sampled)
{
    if (!p.linkDowned || *p.linkDowned == 0) {
        return std::nullopt;
    }
    const auto* series = sampled.find(p);
    if (series && series->rises == 0) {
        return std::nullopt;
    }
    const bool saturated = *p.linkDowned >= 255; // an 8-bit counter at its maximum
    std::string text = p.device + " port " + std::to_string(p.port) + ": link_downed = " + std::to_string(*p.linkDowned)
        + (saturated ? " (saturated: the link went down at least that often since the counters were "
                       "cleared; later drops are not counted)"
                     : ": the link went down since the counters were cleared");
    if (series) {
        text += "; " + std::to_string(series->rises) + " of the drops between " + formatUtc(series->from) + " and "
            + formatUtc(series->to) + ", while the port's counters were sampled";
    }
    return NodeFinding { p.host, portName(p), "link_downed", std::move(text),
        p.file + "/counters/link_downed: " + std::to_string(*p.linkDowned), false };
}

// A port's LinkDowned read once (perfquery, one scrape) above 0: the link went down since the counters were cleared,
// as a sysfs copy's link_downed says (linkDownedFinding) — for ports no host tool describes. Sampled series (two or
// more readings) are the fabric review's to judge.
void snapshotDownFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    std::set<std::uint64_t> described;
    for (const auto& p : snap.hostPorts) {
        described.insert(p.nodeGuid);
    }
    for (const auto& s : snap.counters) {
        if (s.kind != CounterKind::LinkDowned || s.size() != 1 || s.value(0) == 0 || s.port >= snap.counterPorts.size()) {
            continue;
        }
        const auto& cp = snap.counterPorts[s.port];
        const auto* node = cp.node ? &snap.topology.node(*cp.node) : nullptr;
        if (described.count(node ? node->guid : cp.guid)) {
            continue;
        }
        const std::string name = node ? snap.str(node->description) : "GUID " + std::to_string(cp.guid);
        const auto n = s.value(0);
        const bool saturated = n >= 255;
        out.push_back({ name, "port " + std::to_string(cp.port), "link_downed",
            name + " port " + std::to_string(cp.port) + ": LinkDowned = " + std::to_string(n)
                + (saturated ? " (saturated: at least that often since the counters were cleared; later drops are "
                               "not counted)"
                             : ": the link went down since the counters were cleared (one reading: when is not known)"),
            "LinkDownedCounter " + std::to_string(n) + " in one reading", false });
    }
}

// Above these a single reading of an error counter is a finding: ibqueryerrors' manual's example thresholds
// (SymbolErrorCounter=10, LinkErrorRecoveryCounter=10; its VL15Dropped=100 for the drop counters), which a port
// reaches over weeks of healthy running only rarely; 0 would flag every port that ever saw a bit error.
std::optional<std::uint64_t> errorThreshold(CounterKind kind)
{
    switch (kind) {
    case CounterKind::SymbolError:
    case CounterKind::LinkErrorRecovery:
    case CounterKind::PortRcvErrors:
        return 10;
    case CounterKind::PortXmitDiscards:
        return 100;
    default:
        return std::nullopt;
    }
}

// A port's error counters read once (perfquery, one scrape, a sysfs copy) above their thresholds — symbol errors,
// link error recoveries, receive errors, transmit discards: one finding per port naming each. Sampled series are
// the fabric review's.
void snapshotErrorFindings(const JobSnapshot& snap, std::vector<NodeFinding>& out)
{
    std::map<std::uint32_t, std::vector<std::pair<CounterKind, std::uint64_t>>> byPort;
    for (const auto& s : snap.counters) {
        const auto threshold = errorThreshold(s.kind);
        if (threshold && s.size() == 1 && s.value(0) > *threshold && s.port < snap.counterPorts.size()) {
            byPort[s.port].emplace_back(s.kind, s.value(0));
        }
    }
    for (const auto& [port, values] : byPort) {
        const auto& cp = snap.counterPorts[port];
        const auto* node = cp.node ? &snap.topology.node(*cp.node) : nullptr;
        const std::string name = node ? snap.str(node->description) : "GUID " + std::to_string(cp.guid);
        std::string counts;
        for (const auto& [kind, n] : values) {
            const auto bits = semantics(kind).defaultBits;
            const bool saturated = bits < 64 && n >= (std::uint64_t { 1 } << bits) - 1;
            counts += (counts.empty() ? "" : ", ") + std::string(semantics(kind).name) + " " + std::to_string(n)
                + (saturated ? " (saturated)" : "");
        }
        out.push_back({ name, "port " + std::to_string(cp.port), "error counters",
            name + " port " + std::to_string(cp.port) + ": " + counts
                + " since the counters were cleared (one reading: when is not known); symbol errors and recoveries "
                  "point at the cable or transceiver, discards at congestion or a path that stopped",
            counts + " in one reading", false });
    }
}

} // namespace

std::vector<NodeFinding> findNodeProblems(const JobSnapshot& snap)
{
    std::vector<NodeFinding> out;
    std::map<std::string, std::vector<const HostPort*>> byHost;
    // Only a host tool's link_downed reading is judged against the sampled series: without one, the series (2.1 M
    // at 131,072 ranks) are not indexed at all.
    const bool anyDowned = std::any_of(
        snap.hostPorts.begin(), snap.hostPorts.end(), [](const HostPort& p) { return p.linkDowned.value_or(0) > 0; });
    const auto sampled = anyDowned ? sampledDowns(snap) : Sampled {};
    for (const auto& p : snap.hostPorts) {
        byHost[p.host].push_back(&p);
        if (auto f = stateFinding(p)) {
            out.push_back(std::move(*f));
        }
        if (auto f = linkDownedFinding(p, sampled)) {
            out.push_back(std::move(*f));
        }
    }
    for (const auto& g : snap.goneHcas) {
        out.push_back({ g.host, g.device, "HCA vanished",
            g.device + " could not be reached by " + g.source
                + ": the device is gone from the host (fallen off the PCIe bus, driver unloaded or reset)",
            g.file + ":" + std::to_string(g.line) + ": " + g.evidence, true });
    }
    std::set<std::string> described;
    for (const auto& [host, ports] : byHost) {
        railFindings(host, ports, out);
        flapFindings(host, ports, out);
        missingFindings(host, ports, out);
        described.insert(host);
    }
    for (const auto& g : snap.goneHcas) {
        described.insert(g.host);
    }
    kernelFindings(snap, described, out);
    snapshotDownFindings(snap, out);
    snapshotErrorFindings(snap, out);
    gpuFindings(snap, out);
    gpuLinkFindings(snap, out);
    errorFindings(snap, out);
    smFindings(snap, out);
    switchFindings(snap, out);
    mergeAlike(out);
    std::stable_sort(out.begin(), out.end(), [](const NodeFinding& a, const NodeFinding& b) {
        return std::tuple(a.host, severity(a), a.port) < std::tuple(b.host, severity(b), b.port);
    });
    return out;
}

std::string nodeFindingsText(const std::vector<NodeFinding>& findings)
{
    if (findings.empty()) {
        return {};
    }
    std::ostringstream o;
    o << "Node findings (" << findings.size() << "):\n";
    std::string host = "\x01";
    for (const auto& f : findings) {
        if (f.host != host) {
            host = f.host;
            o << "  " << (host.empty() ? "(host not named)" : host) << ":\n";
        }
        o << "    " << f.kind << ": " << f.text << "\n        evidence: " << f.evidence << '\n';
    }
    return o.str();
}

} // namespace stallscope
