// SPDX-License-Identifier: MIT
#include "bundle/reader.h"
#include "core/document_file.h"
#include "core/os_error.h"

#include "bundle/binary.h"
#include "bundle/format.h"
#include "bundle/json.h"
#include "core/mapped_file.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

std::optional<LoadIssue> readText(const fs::path& path, std::string& out)
{
    auto text = readDocument(path.string(), kBundleDocumentBytes, "bundle's JSON file");
    if (!text) {
        return text.error();
    }
    out = std::move(text.value());
    return std::nullopt;
}

std::uint64_t fileSize(const fs::path& p)
{
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : n;
}

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.ends_with(suffix);
}

std::optional<LoadIssue> loadCollectives(const fs::path& path, JobSnapshot& snap, std::vector<LoadIssue>& warnings,
    Progress& progress, std::shared_ptr<OwnedColumns>& owned)
{
    const auto file = path.string();
    if (auto bad = notAPlainFile(file)) { // opening a named pipe would wait for a writer
        return bad;
    }
    if (endsWith(file, ".jsonl")) {
        std::ifstream in(path);
        if (!in) {
            return LoadIssue { file, 0, -1, "cannot open the file: " + lastOsError() };
        }
        progress.report("Reading collectives", 0, 1);
        return bundle::parseCollectivesJsonl(file, in, snap, *owned, warnings);
    }
    std::string err;
    // Not populated: the validation reads every page anyway, from several threads, each faulting its own slice in
    // (populating 12 GB at 131,072 ranks was one kernel thread's work before the validation could start).
    auto map = MappedFile::open(file, err, false);
    if (!map) {
        return LoadIssue { file, 0, -1, "cannot open the file: " + err };
    }
    auto issue = bundle::readCollectivesBin(file, map, snap, progress);
    return issue || !map->cutShort() ? issue : LoadIssue { file, 0, -1, map->cutShortMessage() };
}

std::optional<LoadIssue> loadCounters(const fs::path& path, JobSnapshot& snap, std::vector<LoadIssue>& warnings,
    std::shared_ptr<OwnedColumns>& owned, std::vector<std::uint32_t>& seriesTimeBlock)
{
    const auto file = path.string();
    if (auto bad = notAPlainFile(file)) {
        return bad;
    }
    if (endsWith(file, ".jsonl")) {
        std::ifstream in(path);
        if (!in) {
            return LoadIssue { file, 0, -1, "cannot open the file: " + lastOsError() };
        }
        return bundle::parseCountersJsonl(file, in, snap, *owned, seriesTimeBlock, warnings);
    }
    std::string err;
    auto map = MappedFile::open(file, err, false); // values page in as views read them; time blocks are checked
    if (!map) {
        return LoadIssue { file, 0, -1, "cannot open the file: " + err };
    }
    auto issue = bundle::readCountersBin(file, map, snap);
    return issue || !map->cutShort() ? issue : LoadIssue { file, 0, -1, map->cutShortMessage() };
}

// Cross-file checks that make a bundle inconsistent but still usable.
void checkConsistency(const JobSnapshot& snap, std::vector<LoadIssue>& warnings, const std::string& dir)
{
    const auto manifest = (fs::path(dir) / bundle::kManifestFile).string();
    for (std::size_t r = 0; r < snap.ranks.size(); ++r) {
        if (!snap.topology.nodes().empty() && !snap.ranks[r].hcaNode) {
            warnings.push_back({ manifest, 0, -1,
                "rank " + std::to_string(r) + ": HCA \"" + snap.str(snap.ranks[r].host) + ' '
                    + snap.str(snap.ranks[r].hca) + "\" is not in the topology" });
            if (warnings.size() > 50) {
                break;
            }
        }
    }
    std::size_t unmatchedPorts = 0;
    for (const auto& p : snap.counterPorts) {
        unmatchedPorts += !p.node.has_value();
    }
    if (unmatchedPorts > 0 && !snap.topology.nodes().empty()) {
        warnings.push_back({ manifest, 0, -1,
            std::to_string(unmatchedPorts) + " counter port(s) name a GUID that is not in the topology" });
    }
}

TimeRange dataSpan(const JobSnapshot& snap)
{
    TimeRange span { std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min() };
    auto take = [&](TimeNs t) {
        if (t != kNoTime) {
            span.start = std::min(span.start, t);
            span.end = std::max(span.end, t);
        }
    };
    for (const auto& c : snap.collectives) {
        if (c.size() > 0) {
            take(c.enqueueNs.front());
            take(c.enqueueNs.back());
            take(c.endNs.back());
        }
    }
    for (const auto& s : snap.counters) {
        if (s.size() > 0) {
            take(s.timesNs.front());
            take(s.timesNs.back());
        }
    }
    return span;
}

Result<LoadedJob> loadImpl(const std::string& dir, Progress& progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    const fs::path root(dir);
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        return LoadIssue { dir, 0, -1,
            fs::exists(root, ec) ? "not a directory (a bundle is a folder)" : "no such folder" };
    }
    auto snap = std::make_shared<JobSnapshot>();
    LoadedJob out;
    const auto manifestPath = root / bundle::kManifestFile;
    std::string text;
    if (!fs::exists(manifestPath, ec)) {
        return LoadIssue { manifestPath.string(), 0, -1, "missing: a bundle folder must contain manifest.json" };
    }
    if (auto err = readText(manifestPath, text)) {
        return *err;
    }
    bundle::ManifestFiles files;
    if (auto err = bundle::parseManifest(manifestPath.string(), text, *snap, files)) {
        return *err;
    }
    for (const auto* name : { &files.collectives, &files.counters, &files.linkEvents, &files.topology }) {
        if (!name->empty() && fs::is_directory(root / *name, ec)) { // read as a file it gave "No such device"
            return LoadIssue { (root / *name).string(), 0, -1,
                "a folder, where manifest.json names one of the bundle's files" };
        }
    }
    progress.report("Reading topology", 0, 1);
    if (!files.topology.empty()) {
        if (auto err = readText(root / files.topology, text)) {
            return *err;
        }
        if (auto err = bundle::parseTopology((root / files.topology).string(), text, *snap)) {
            return *err;
        }
    }
    if (!files.linkEvents.empty()) {
        if (auto bad = notAPlainFile((root / files.linkEvents).string())) {
            return *bad;
        }
        std::ifstream in(root / files.linkEvents);
        if (!in) {
            return LoadIssue { (root / files.linkEvents).string(), 0, -1, "cannot open the file: " + lastOsError() };
        }
        if (auto err = bundle::parseLinkEvents((root / files.linkEvents).string(), in, *snap, out.warnings)) {
            return *err;
        }
    }
    auto owned = std::make_shared<OwnedColumns>();
    std::vector<std::uint32_t> seriesTimeBlock;
    if (auto err = loadCollectives(root / files.collectives, *snap, out.warnings, progress, owned)) {
        return *err;
    }
    if (!files.counters.empty()) {
        progress.report("Reading counters", 0, 1);
        if (auto err = loadCounters(root / files.counters, *snap, out.warnings, owned, seriesTimeBlock)) {
            return *err;
        }
    }
    if (!owned->ranks.empty() || !owned->counterTimes.empty()) {
        // JSON Lines parts: point spans into the arena. Binary parts already point into their mappings.
        attachOwnedColumns(*snap, owned, seriesTimeBlock);
    }
    out.collectiveBytes = owned->ranks.empty() ? fileSize(root / files.collectives) : owned->memoryBytes();
    if (!files.counters.empty()) {
        out.counterBytes = owned->counterTimes.empty()
            ? fileSize(root / files.counters)
            : owned->memoryBytes() - (owned->ranks.empty() ? 0 : out.collectiveBytes);
    }
    resolveJoins(*snap);
    checkConsistency(*snap, out.warnings, dir);
    const auto span = dataSpan(*snap);
    if (span.start <= span.end) {
        snap->job.span = { std::min(snap->job.span.start, span.start), std::max(snap->job.span.end, span.end) };
    }
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        if (entry.is_regular_file(ec)) {
            out.bytesOnDisk += entry.file_size(ec);
        }
    }
    out.snapshot = std::move(snap);
    out.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace

Result<LoadedJob> loadBundle(const std::string& dir, Progress& progress)
{
    try {
        return loadImpl(dir, progress);
    } catch (const std::bad_alloc&) {
        return LoadIssue { dir, 0, -1, "out of memory while loading" };
    } catch (const std::exception& e) {
        return LoadIssue { dir, 0, -1, std::string("unexpected error: ") + e.what() };
    }
}

Result<LoadedJob> loadBundle(const std::string& dir)
{
    NullProgress none;
    return loadBundle(dir, none);
}

std::optional<LoadIssue> attachCollectivesFile(const std::string& path, JobSnapshot& snap, Progress& progress)
{
    snap.shapes.clear();
    snap.collectives.clear();
    std::vector<LoadIssue> warnings; // a binary file has none
    auto owned = std::make_shared<OwnedColumns>();
    auto issue = loadCollectives(path, snap, warnings, progress, owned);
    if (issue) {
        snap.shapes.clear();
        snap.collectives.clear();
    }
    return issue;
}

std::optional<LoadIssue> attachCountersFile(const std::string& path, JobSnapshot& snap)
{
    snap.counterPorts.clear();
    snap.counters.clear();
    std::vector<LoadIssue> warnings; // a binary file has none
    auto owned = std::make_shared<OwnedColumns>();
    std::vector<std::uint32_t> seriesTimeBlock;
    auto issue = loadCounters(path, snap, warnings, owned, seriesTimeBlock);
    if (issue) {
        snap.counterPorts.clear();
        snap.counters.clear();
    }
    return issue;
}

} // namespace stallscope
