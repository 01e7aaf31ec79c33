// SPDX-License-Identifier: MIT
// Reading a raw folder: every file listed, recognised through the format table (formats.h) and read into
// folder::Gathered; dumps, traces and scrape files parsed on up to four threads.
#include "import/common/file_bytes.h"
#include "import/folder/formats.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <set>
#include <thread>

namespace stallscope::folder {

namespace fs = std::filesystem;

namespace {

// Every regular file under `dir`, a few levels deep (clusters leave logs/rank17/stderr.log and the like);
// hidden entries and symbolic links to folders are not followed.
std::vector<fs::path> listFiles(const fs::path& dir, std::uint64_t& bytes, std::vector<fs::path>& sysfsRoots)
{
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (!name.empty() && name[0] == '.') {
            if (it->is_directory(ec)) {
                it.disable_recursion_pending();
            }
            continue;
        }
        if (name == "infiniband" && it->is_directory(ec) && it->path().parent_path().filename() == "class"
            && isSysfsInfinibandRoot(it->path())) {
            sysfsRoots.push_back(it->path()); // a copy of /sys/class/infiniband: read as a tree, not file by file
            it.disable_recursion_pending();
            continue;
        }
        if (it.depth() >= 4 && it->is_directory(ec)) {
            it.disable_recursion_pending();
        }
        if (it->is_regular_file(ec)) {
            files.push_back(it->path());
            bytes += it->file_size(ec);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

void learnYear(Gathered& g)
{
    for (const auto* list : { &g.dumps, &g.traces }) {
        for (const auto& [file, d] : *list) {
            if (d.entries.empty()) {
                continue;
            }
            const auto secs = static_cast<std::time_t>(d.entries.front().enqueueNs / kNsPerSec);
            std::tm tm {};
            gmtime_r(&secs, &tm);
            g.clock.year = tm.tm_year + 1900; // logs carry local times without a year
            return;
        }
    }
}

// A file read, recognised and — when its format parses alone (dumps, traces) — parsed: on any thread.
struct Parsed
{
    const Format* format = nullptr; // nullptr: no format recognised it
    FileInput input;
    std::optional<LoadIssue> unreadable; // the bytes could not be had (I/O error, gzip over its limits)
};

Parsed readAndParse(const fs::path& p)
{
    Parsed r;
    r.input.path = p;
    auto bytes = readFileBytes(p);
    if (!bytes) {
        r.unreadable = bytes.error();
        return r;
    }
    r.input.text = std::move(bytes.value());
    r.format = recognise(r.input.text);
    if (r.format && r.format->parse) {
        r.input.parsed = r.format->parse(p.string(), r.input.text);
        r.input.text = std::string(); // parsed: the bytes are no longer needed
    } else if (r.format && r.format->streamed) {
        r.input.text = std::string(); // read again when its samples are joined, one file at a time
    }
    return r;
}

std::optional<LoadIssue> readOne(Parsed& parsed, Gathered& g)
{
    if (parsed.unreadable) {
        return parsed.unreadable;
    }
    if (!parsed.format) {
        g.warnings.push_back({ parsed.input.path.string(), 0, -1, "not a recognised format: skipped" });
        return std::nullopt;
    }
    return parsed.format->add(parsed.input, g);
}

int phase(const Parsed& p)
{
    return p.format ? p.format->phase : 0;
}

void leaveOut(LoadIssue issue, Gathered& g)
{
    issue.message += " (the file is left out)";
    g.warnings.push_back(std::move(issue));
}

// A rank taken from a file or folder name is dropped when logs of other hosts claim the same rank: torchrun's
// --log-dir names its folders by LOCAL rank (attempt_0/3/stderr.log on every node), which is no global rank.
void dropAmbiguousNames(Gathered& g)
{
    std::map<std::uint32_t, std::set<std::string>> hostsOf;
    for (const auto& [file, f] : g.logs) {
        if (f.rank) {
            hostsOf[*f.rank].insert(f.host);
        }
    }
    std::size_t dropped = 0;
    for (auto i : g.rankFromName) {
        auto& f = g.logs[i].second;
        if (f.rank && hostsOf[*f.rank].size() > 1) {
            f.rank.reset();
            ++dropped;
        }
    }
    if (dropped > 0) {
        g.warnings.push_back({ g.logs.front().first, 0, -1,
            std::to_string(dropped)
                + " logs take their rank from a file or folder name that logs of other hosts share (a local rank?): "
                  "they are not placed; NCCL_DEBUG=INFO lines or a mapping file would place them" });
    }
}

// Every file read, recognised and — for the formats whose parse needs no other file (dumps, traces) — parsed,
// on up to four threads (one of them the caller, which reports progress and watches for cancel). Large folders
// are mostly dumps: this is where opening them spends its time.
std::vector<Parsed> readEverything(const std::vector<fs::path>& files, Progress& progress, bool& cancelled)
{
    std::vector<Parsed> out(files.size());
    std::atomic<std::size_t> next { 0 }, done { 0 };
    std::atomic<bool> stop { false };
    auto work = [&](bool reporter) {
        for (std::size_t i = next++; i < files.size() && !stop; i = next++) {
            out[i] = readAndParse(files[i]);
            const auto n = ++done;
            if (reporter) {
                progress.report("Reading files", n, files.size() * 2);
                if (progress.cancelled()) {
                    stop = true;
                }
            }
        }
    };
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k) {
        pool.emplace_back(work, false);
    }
    work(true);
    for (auto& t : pool) {
        t.join();
    }
    cancelled = stop;
    return out;
}

} // namespace

std::optional<LoadIssue> readFolder(const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes)
{
    std::vector<fs::path> sysfsRoots;
    const auto files = listFiles(dir, bytes, sysfsRoots);
    for (const auto& root : sysfsRoots) {
        auto tree = readSysfsTree(root, g.warnings);
        g.note(root, "sysfs InfiniBand tree", std::to_string(tree.ports.size()) + " ports of " + tree.host);
        g.sysfs.push_back(std::move(tree));
    }
    bool cancelled = false;
    auto parsed = readEverything(files, progress, cancelled);
    if (cancelled) {
        return LoadIssue { dir, 0, -1, "opening cancelled" };
    }
    std::vector<std::size_t> later;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (phase(parsed[i]) > 0) {
            later.push_back(i);
            continue;
        }
        if (auto err = readOne(parsed[i], g)) {
            leaveOut(*err, g);
        }
        parsed[i].input = FileInput(); // moved into g or reported; free the rest early
    }
    learnYear(g);
    std::stable_sort(
        later.begin(), later.end(), [&](std::size_t a, std::size_t b) { return phase(parsed[a]) < phase(parsed[b]); });
    for (std::size_t k = 0; k < later.size(); ++k) {
        progress.report("Reading files", files.size() + k, files.size() * 2);
        if (auto err = readOne(parsed[later[k]], g)) {
            leaveOut(*err, g);
        }
        parsed[later[k]].input = FileInput();
    }
    dropAmbiguousNames(g);
    return std::nullopt;
}

} // namespace stallscope::folder
