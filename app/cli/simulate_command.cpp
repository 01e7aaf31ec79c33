// SPDX-License-Identifier: MIT
#include "cli/bundle_output.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "open/load_job.h"

#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "core/time_format.h"
#include "import/folder/shard.h"
#include "sim/config.h"
#include "sim/openmetrics_writer.h"
#include "sim/raw_writer.h"
#include "sim/simulator.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <ostream>
#include <unistd.h>

namespace stallscope::cli {

namespace {

const std::vector<OptionSpec> kOwnSpecs = {
    { "preset", true, "small | hourly-flap | bench-hour | three-tier | fabric-week (default small)" },
    { "fabric-only", false,
        "no training job: the fabric's topology, counters and SM events alone (rank= of a\n"
        "host-leaf fault is then the HCA index, host × GPUs per host + GPU)" },
    { "ports", true, "with --fabric-only: size the fabric to about N ports (link ends) by choosing --hosts" },
    { "seed", true, "random seed (default 1); same preset, flags and seed give the same bytes" },
    { "out", true, "output bundle folder (required); replaced if it is a bundle already" },
    { "raw", false, "write the folder of raw files a cluster leaves behind instead of a bundle" },
    { "fr-format", true, "with --raw: pickle | json Flight Recorder dumps (default pickle)" },
    { "records-from", true,
        "with --raw: Flight Recorder dumps and profiler traces of these ranks only, e.g. 0-7 (one host) or 0" },
    { "fr-entries", true, "with --raw: keep the last N entries per rank, like TORCH_FR_BUFFER_SIZE (default all)" },
    { "kineto", false, "with --raw: also write a PyTorch profiler trace per rank" },
    { "no-flight-recorder", false, "with --raw: write no Flight Recorder dumps (logs, traces, counters only)" },
    { "no-counters", false, "with --raw: write no port counters (e.g. they are in --openmetrics for a server)" },
    { "node-files", false,
        "with --raw: also write each host's ibstat, dmesg and /sys/class/infiniband copy under\n"
        "nodes/<host>/, as they stand at the end of the window" },
    { "shard", true,
        "with --raw: K/N, write the files of shard K of N of the hosts (and, in shard 0, the folder's own):\n"
        "N processes, a Slurm job array's tasks, write one folder together (docs/sharded-convert.md)" },
    { "openmetrics", true,
        "also write every port's counters to FILE as OpenMetrics with timestamps (node_exporter and\n"
        "treydock names), for `promtool tsdb create-blocks-from openmetrics`" },
    { "job-name", true, "job name in the manifest" },
    { "hosts", true, "hosts (8 GPUs and HCAs each by default)" },
    { "gpus-per-host", true, "GPUs = HCAs = rails per host" },
    { "spines", true, "spine switches (per pod)" },
    { "pods", true, "scalable units, each with its own rail leaves and spines (default 1: two tiers)" },
    { "cores", true, "core switches joining every pod's spines (needed with --pods > 1)" },
    { "duration", true, "job length, e.g. 10m, 70m, 1h" },
    { "step", true, "nominal training step, e.g. 1s" },
    { "collectives-per-step", true, "collectives per step" },
    { "bucket-bytes", true, "payload per collective per rank, bytes" },
    { "bus-bandwidth", true, "per-rank link bandwidth in bytes/s (default 45e9)" },
    { "start", true, "job start, Unix-epoch seconds (default 1793491200 = 2026-11-01T00:00:00Z)" },
    { "fsdp", false, "alternate all_gather / reduce_scatter instead of all_reduce" },
    { "pod-groups", false,
        "every other collective in a process group per pod (hybrid sharding), the rest global; needs --pods" },
    { "jitter", true, "relative std-dev of per-rank compute time (default 0.01)" },
    { "clock-skew", true, "max per-host clock offset, e.g. 3ms" },
    { "counter-interval", true, "counter sampling interval, e.g. 1s" },
    { "data-counter-bits", true, "32 (old adapters, saturating) or 64" },
    { "nccl-ib-timeout", true, "NCCL_IB_TIMEOUT exponent (default 20)" },
    { "nccl-ib-retry-cnt", true, "NCCL_IB_RETRY_CNT (default 7)" },
    { "adaptive-retransmission", true,
        "RoCE adapters' adaptive retransmission profile, e.g. init=10..13,ranges=13..17x2,18..20x3 (exponents of "
        "4.096 us; replaces NCCL_IB_TIMEOUT/RETRY_CNT)" },
    { "collective-timeout", true, "PyTorch collective timeout (default 10m)" },
    { "checkpoint-interval", true, "checkpoint interval (default 30m)" },
    { "restart-time", true, "time to restart the job after a crash (default 10m)" },
    { "sm-reroute", true, "without adaptive routing: trap to new routes in the subnet manager (default 5s)" },
    { "ar-reroute", true, "with adaptive routing: the switch moves a failed uplink's flows (default 50ms)" },
    { "link-events", true, "on | off: write the subnet manager's link events (default on)" },
    { "fault", true, "a fault, repeatable; replaces the preset's faults (see below)" },
    { "no-faults", false, "remove the preset's faults" },
};

// --format and --memory-mb as convert has them, after --out.
const std::vector<OptionSpec> kSpecs = [] {
    auto s = kOwnSpecs;
    const auto more = bundleOutputOptions();
    s.insert(s.begin() + 5, more.begin(), more.end());
    return s;
}();

// The folder the simulator spills its records into (sim/record_spill.h): beside the output, on the disk that must
// hold the bundle anyway; removed with what is left in it when the command ends.
class SpillFolder
{
public:
    explicit SpillFolder(const std::string& out)
        : m_path(absoluteFolder(out).string() + ".records-" + std::to_string(::getpid()))
    {
        std::error_code ec;
        std::filesystem::create_directories(m_path, ec);
    }
    ~SpillFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    SpillFolder(const SpillFolder&) = delete;
    SpillFolder& operator=(const SpillFolder&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

std::string usage()
{
    std::string s = "Usage: stallscope simulate --preset NAME [--seed N] --out DIR [OPTIONS]\n"
                    "Writes a Stallscope bundle and truth.json (every injected fault and the stalls it caused).\n"
                    "With --raw, writes instead what the cluster would have left behind: Flight Recorder dumps, rank\n"
                    "logs, ibnetdiscover output, counters (collector CSV, switch exporter), the OpenSM log.\n\n"
                    "Options:\n";
    s += formatOptions(kSpecs);
    s += "\nFaults (--fault):\n"
         "  flap:host-leaf:rank=R:at=5m:for=2s[:every=1h]      the HCA link of rank R goes down\n"
         "  flap:leaf-spine:[pod=P:]leaf=L:spine=S:at=5m:for=2s[:ar=on|off][:every=1h]\n"
         "  flap:spine-core:pod=P:spine=S:core=C:at=5m:for=2s[:ar=on|off][:every=1h]   (with --pods, --cores)\n"
         "  errors:host-leaf:rank=R|leaf-spine:leaf=L:spine=S:at=5m[:count=5][:gap=10s][:pause=200ms][:every=1h]\n"
         "        [:retrain=off]                                the link retrains (link_error_recovery) count times;\n"
         "                                                      retrain=off: symbol-error bursts drop packets instead\n"
         "  degraded:host-leaf:rank=R|leaf-spine:...|spine-core:...:width=1x[:speed=HDR]\n"
         "                                                      the link trained below 4xNDR for the whole job\n"
         "  noisy:host-leaf:rank=R|leaf-spine:...:at=0s[:rate=600]\n"
         "                                                      symbol errors per minute, never down (harmless)\n"
         "  dead-rank:rank=R:at=5m                              rank R hangs (stops issuing collectives)\n"
         "  slow-rank:rank=R:at=2m:factor=1.3                   rank R computes 1.3x slower\n"
         "  A periodic flap or burst takes :jitter=5s: each occurrence moves by up to \u00b1 that (uniform).\n"
         "\nExit codes: 0 ok, 1 bad input or write failure, 2 usage error.\n";
    return s;
}

template <typename T> bool parseNumber(const std::string& s, T& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc {} && p == s.data() + s.size();
}

// Applies the flags to the preset's config; returns an error message or "".
// A preset's name ends in its size ("llm-pretrain-1024", "llm-pretrain-16k"): resized by --hosts or
// --gpus-per-host, the name says the new size (a 16,384-rank render titled "llm-pretrain-1024" misleads).
std::string resizedJobName(const std::string& name, std::uint32_t world)
{
    const auto dash = name.rfind('-');
    const std::string tail = dash == std::string::npos ? std::string() : name.substr(dash + 1);
    const bool sized = !tail.empty() && std::isdigit(static_cast<unsigned char>(tail[0]))
        && tail.find_first_not_of("0123456789k") == std::string::npos;
    if (!sized) {
        return name;
    }
    const std::string size
        = world >= 4096 && world % 1024 == 0 ? std::to_string(world / 1024) + "k" : std::to_string(world);
    return name.substr(0, dash + 1) + size;
}

std::string applyFlags(const ParsedArgs& a, SimConfig& c)
{
    auto num = [&](const char* name, auto& field) -> std::string {
        if (auto v = a.find(name)) {
            std::remove_reference_t<decltype(field)> x {};
            if (!parseNumber(*v, x)) {
                return std::string("--") + name + ": expected a number, got \"" + *v + "\"";
            }
            field = x;
        }
        return {};
    };
    auto dur = [&](const char* name, TimeNs& field) -> std::string {
        if (auto v = a.find(name)) {
            auto d = parseDuration(*v);
            if (!d) {
                return std::string("--") + name + ": expected a duration like 2s, 500ms, 10m, got \"" + *v + "\"";
            }
            field = *d;
        }
        return {};
    };
    std::uint32_t dataBits = c.dataCounterBits;
    const std::uint32_t presetWorld = c.worldSize();
    for (auto err :
        { num("seed", c.seed), num("hosts", c.hosts), num("gpus-per-host", c.gpusPerHost), num("spines", c.spines),
            num("pods", c.pods), num("cores", c.cores), num("collectives-per-step", c.collectivesPerStep),
            num("bucket-bytes", c.bucketBytes), num("nccl-ib-timeout", c.policy.ncclIbTimeout),
            num("nccl-ib-retry-cnt", c.policy.ncclIbRetryCnt), num("data-counter-bits", dataBits),
            dur("duration", c.durationNs), dur("step", c.stepNs), dur("clock-skew", c.clockSkewNs),
            dur("counter-interval", c.counterIntervalNs), dur("collective-timeout", c.policy.collectiveTimeoutNs),
            dur("checkpoint-interval", c.policy.checkpointIntervalNs), dur("restart-time", c.policy.restartTimeNs),
            dur("sm-reroute", c.smRerouteNs), dur("ar-reroute", c.arRerouteNs) }) {
        if (!err.empty()) {
            return err;
        }
    }
    c.dataCounterBits = static_cast<std::uint8_t>(dataBits);
    if (auto v = a.find("adaptive-retransmission")) {
        std::string error;
        const auto adp = parseAdaptiveRetransmission(*v, error);
        if (!adp) {
            return "--adaptive-retransmission: " + error;
        }
        c.policy.adaptive = *adp;
    }
    if (auto v = a.find("jitter")) {
        try {
            c.jitter = std::stod(*v);
        } catch (...) {
            return "--jitter: expected a number";
        }
    }
    if (auto v = a.find("bus-bandwidth")) {
        try {
            c.busBandwidthBytesPerSec = std::stod(*v);
        } catch (...) {
            return "--bus-bandwidth: expected a number of bytes per second";
        }
        if (!(c.busBandwidthBytesPerSec >= 1e6 && c.busBandwidthBytesPerSec <= 1e13)) {
            return "--bus-bandwidth: expected 1e6 .. 1e13 bytes per second";
        }
    }
    if (auto v = a.find("start")) {
        std::int64_t secs = 0;
        if (!parseNumber(*v, secs) || secs < 0 || secs > 4'000'000'000LL) {
            return "--start: expected Unix-epoch seconds";
        }
        c.startNs = secs * kNsPerSec;
    }
    if (auto v = a.find("link-events")) {
        if (*v != "on" && *v != "off") {
            return "--link-events: expected on or off";
        }
        c.linkEvents = *v == "on";
    }
    if (auto v = a.find("job-name")) {
        c.jobName = *v;
    } else if (c.worldSize() != presetWorld) {
        c.jobName = resizedJobName(c.jobName, c.worldSize());
    }
    c.fsdp = c.fsdp || a.options.count("fsdp");
    c.podGroups = c.podGroups || a.options.count("pod-groups");
    c.fabricOnly = c.fabricOnly || a.has("fabric-only");
    if (auto v = a.find("ports")) {
        std::uint32_t ports = 0;
        // Ports = 2 × links; links = hosts × rails (HCA links) + pods × rails × spines (uplinks) + core links.
        const std::uint32_t fixed = c.pods * c.gpusPerHost * c.spines + c.pods * c.spines * c.cores;
        if (!c.fabricOnly || !parseNumber(*v, ports) || ports / 2 <= fixed + c.gpusPerHost * c.pods) {
            return "--ports: expected a port count, with --fabric-only, large enough for one host per pod";
        }
        c.hosts = (ports / 2 - fixed) / c.gpusPerHost / c.pods * c.pods;
    }
    if (a.options.count("no-faults") || a.options.count("fault")) {
        c.faults.clear();
    }
    if (auto it = a.options.find("fault"); it != a.options.end()) {
        for (const auto& text : it->second) {
            auto f = parseFaultSpec(text);
            if (!f) {
                return "--fault " + text + ": " + f.error();
            }
            c.faults.push_back(f.value());
        }
    }
    return validateConfig(c);
}

// The options of --raw, read before anything is simulated: a typo must not cost a run of minutes.
std::string readRawOptions(const ParsedArgs& parsed, const SimConfig& config, RawWriteOptions& raw)
{
    if (auto v = parsed.find("fr-format")) {
        if (*v != "pickle" && *v != "json") {
            return "--fr-format: expected pickle or json";
        }
        raw.pickle = *v == "pickle";
    }
    if (auto v = parsed.find("fr-entries"); v && !parseNumber(*v, raw.frEntries)) {
        return "--fr-entries: expected a number of entries";
    }
    if (auto v = parsed.find("records-from")) {
        auto ranks = parseRankSet(*v, config.worldSize());
        if (!ranks) {
            return "--records-from: expected ranks below " + std::to_string(config.worldSize())
                + " as a list of numbers and ranges, e.g. 0-7,16";
        }
        raw.recordRanks = std::move(*ranks);
    }
    raw.kineto = parsed.has("kineto");
    raw.flightRecorder = !parsed.has("no-flight-recorder");
    raw.counters = !parsed.has("no-counters");
    raw.nodeFiles = parsed.has("node-files");
    if (auto v = parsed.find("shard")) {
        const auto shard = folder::parseShardSpec(*v);
        if (!shard || !parsed.has("raw")) {
            return "--shard: expected K/N with 0 <= K < N <= " + std::to_string(folder::kMaxShards) + ", with --raw";
        }
        raw.shard = shard->index;
        raw.shards = shard->count;
    }
    return {};
}

} // namespace

int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const auto parsed = parseArgs(args, kSpecs);
    if (parsed.help) {
        out << usage();
        return kExitOk;
    }
    if (!parsed.error.empty() || !parsed.positional.empty() || !parsed.options.count("out")) {
        err << "stallscope simulate: "
            << (!parsed.error.empty()              ? parsed.error
                       : parsed.positional.empty() ? "--out DIR is required"
                                                   : "unexpected argument " + parsed.positional[0])
            << "\n"
            << usage();
        return kExitUsage;
    }
    const auto presetName = parsed.options.count("preset") ? parsed.options.at("preset").back() : std::string("small");
    auto config = presetConfig(presetName);
    if (!config) {
        err << "stallscope simulate: unknown preset \"" << presetName << "\" (small, hourly-flap, bench-hour)\n";
        return kExitUsage;
    }
    if (auto e = applyFlags(parsed, *config); !e.empty()) {
        err << "stallscope simulate: " << e << '\n';
        return kExitUsage;
    }
    const auto& dir = parsed.options.at("out").back();
    BundleWriteOptions options;
    ScratchPolicy scratch;
    if (auto e = readBundleOutputOptions(parsed, dir, options, scratch); !e.empty()) {
        err << "stallscope simulate: " << e << '\n';
        return kExitUsage;
    }
    RawWriteOptions raw;
    if (auto e = readRawOptions(parsed, *config, raw); !e.empty()) {
        err << "stallscope simulate: " << e << '\n';
        return kExitUsage;
    }
    const auto t0 = std::chrono::steady_clock::now();
    NullProgress progress;
    const SpillFolder spill(dir);
    auto result = simulate(*config, progress, RecordSpillPolicy { spill.path(), scratch.memoryBytes });
    if (!result) {
        err << "stallscope simulate: " << result.error() << '\n';
        return kExitBadInput;
    }
    if (options.collectives == ColumnFormat::Binary) { // written once, moved into the bundle
        options.collectivesFile = result->collectivesFile;
        options.countersFile = result->countersFile;
    }
    const bool asRaw = parsed.has("raw");
    SimulationWritten written;
    if (asRaw) { // what a cluster leaves behind, and beside it the truth it was made from
        written.error = writeRawFolder(*result->snapshot, dir, raw);
        if (written.error.empty() && raw.shard == 0) {
            written.error = writeFileAtomic(
                (std::filesystem::path(dir) / "truth.json").string(), truthToJson(*config, result.value()));
        }
    } else {
        written = writeSimulatedBundle(*config, result.value(), dir, options);
    }
    if (!written.warning.empty()) {
        err << "warning: " << written.warning << '\n';
    }
    if (!written.error.empty()) {
        err << "stallscope simulate: " << written.error << '\n';
        return kExitBadInput;
    }
    if (auto file = parsed.find("openmetrics")) {
        if (auto e = writeOpenMetrics(*result->snapshot, *file); !e.empty()) {
            err << "stallscope simulate: " << e << '\n';
            return kExitBadInput;
        }
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (config->fabricOnly) {
        out << "Simulated " << config->jobName << ": fabric only, " << result->snapshot->counterPorts.size()
            << " ports, " << formatDuration(config->durationNs) << ", counters every "
            << formatDuration(config->counterIntervalNs) << ", " << result->outages.size() << " outage(s)\n";
    } else {
        out << "Simulated " << config->jobName << ": " << config->worldSize() << " ranks, "
            << formatDuration(config->durationNs) << ", " << formatCount(result->snapshot->collectiveCount())
            << " collectives, " << result->stalls.size() << " stall(s)"
            << (result->crashNs ? ", job crashed at " + formatUtc(*result->crashNs) : std::string()) << '\n';
    }
    for (const auto& f : config->faults) {
        out << "  fault: " << describeFault(f) << '\n';
    }
    out << "Wrote " << dir << " and truth.json in " << std::fixed;
    out.precision(2);
    out << secs << " s\n";
    return kExitOk;
}

} // namespace stallscope::cli
