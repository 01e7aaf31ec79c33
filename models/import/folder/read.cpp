// SPDX-License-Identifier: MIT
// Reading a raw folder: every file listed, recognised through the format table (formats.h) and read into
// folder::Gathered; dumps, traces and scrape files parsed on up to four threads.
#include "core/time_format.h"
#include "import/common/file_bytes.h"
#include "import/folder/formats.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <fstream>
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
    std::uint64_t leftUnread = 0; // > 0: a large binary file no format recognised, not read (its size)
    bool readAgain = false; // its text was let go (over the memory budget): read again when its turn comes
};

// Text held between reading (worker threads) and adding (the calling thread, in phase order) for the formats added
// there — logs, topologies — is held to ScratchPolicy::memoryBytes in all; past it a file's text is let go and read
// again at its turn. 32 rank logs of 64 MiB once held all 2.1 GB until the last was added.
struct TextBudget
{
    std::uint64_t bytes;
    std::atomic<std::uint64_t> held { 0 };

    // True when `n` more bytes may be held (and then they are counted); any thread.
    bool take(std::uint64_t n)
    {
        if (held.fetch_add(n) + n <= bytes) {
            return true;
        }
        held.fetch_sub(n);
        return false;
    }
};

// Frees what a file's input holds. Not `text = std::string()`: libstdc++ keeps a string's buffer when it is
// assigned a short one, so every file read stayed in memory until the whole folder was read.
void release(FileInput& in)
{
    std::string().swap(in.text);
    in.parsed.reset();
}

// Files from ScratchPolicy::streamFromBytes (not gzip) whose head a streamed format recognises are handed over
// unread: a week of scrapes or collector rows is read in pieces, never held whole.
constexpr std::size_t kHeadBytes = 64u << 10;

// The first 64 KiB of a large plain file; nullopt for small, gzip or unreadable files (read whole).
std::optional<std::string> headOfLargeFile(const fs::path& p, std::uint64_t streamFromBytes)
{
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec || size < streamFromBytes) {
        return std::nullopt;
    }
    std::ifstream in(p, std::ios::binary);
    std::string head(kHeadBytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.size() < 2 || (head[0] == '\x1f' && head[1] == '\x8b')) {
        return std::nullopt;
    }
    head.resize(std::min(head.size(), head.rfind('\n') + 1)); // whole lines only
    return head;
}

// Large binary files that no format recognises from their head — core dumps, checkpoints, container images, tarballs
// left in a job's folder — are not read: reading one whole took its size in memory (four at once, one per thread) to
// learn it was nothing (a 6 GiB core and a 3 GiB checkpoint beside two dumps: 113 s and 9.5 GB). Text files are
// always read whole, whatever their head: a log may say what matters in its last line.
constexpr std::uint64_t kUnreadFromBytes = 64ull << 20;
constexpr std::size_t kBinaryHeadBytes = 4u << 20;

// The size of a file to leave unread (0: read it): large, binary (a NUL byte in its first 4 MiB, inflated when it
// is gzip: a tarball of checkpoints) and recognised by no format from those 4 MiB.
std::uint64_t unrecognisedBinarySize(const fs::path& p)
{
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec || size < kUnreadFromBytes) {
        return 0;
    }
    const auto head = readFileHead(p, kBinaryHeadBytes);
    if (head.find('\0') == std::string::npos || recognise(head)) {
        return 0;
    }
    return size;
}

Parsed readAndParse(const fs::path& p, std::uint64_t streamFromBytes, const WarningHold& hold, TextBudget& budget)
{
    Parsed r;
    r.input.path = p;
    if (const auto head = headOfLargeFile(p, streamFromBytes)) {
        if (const auto* f = recognise(*head); f && f->streamed) {
            r.format = f; // `add` reads it in pieces
            return r;
        }
    }
    if ((r.leftUnread = unrecognisedBinarySize(p)) > 0) {
        return r;
    }
    auto bytes = readFileBytes(p);
    if (!bytes) {
        r.unreadable = bytes.error();
        return r;
    }
    r.input.text = std::move(bytes.value());
    r.format = recognise(r.input.text);
    if (r.format && r.format->parse) {
        r.input.parsed = r.format->parse(p.string(), r.input.text, hold);
        std::string().swap(r.input.text); // parsed: the bytes are no longer needed
    } else if (r.format && r.format->streamed && !r.format->parse) {
        std::string().swap(r.input.text); // read again when its samples are joined, one file at a time
    } else if (r.format && !budget.take(r.input.text.size())) {
        std::string().swap(r.input.text);
        r.readAgain = true;
    }
    return r;
}

std::optional<LoadIssue> readOne(Parsed& parsed, Gathered& g, const WarningHold& hold)
{
    if (parsed.unreadable) {
        return parsed.unreadable;
    }
    if (parsed.leftUnread > 0) {
        g.warnings.push_back({ parsed.input.path.string(), 0, -1,
            "binary, and no format Stallscope reads begins like it (a core dump, a checkpoint?): skipped without "
            "reading its "
                + formatBytes(static_cast<double>(parsed.leftUnread)) });
        return std::nullopt;
    }
    if (!parsed.format) {
        g.warnings.push_back({ parsed.input.path.string(), 0, -1, "not a recognised format: skipped" });
        return std::nullopt;
    }
    if (parsed.readAgain) {
        auto bytes = readFileBytes(parsed.input.path);
        if (!bytes) {
            return bytes.error();
        }
        parsed.input.text = std::move(bytes.value());
    }
    const auto before = g.warnings.size();
    auto err = parsed.format->add(parsed.input, g);
    hold(g.warnings, parsed.input.path.string(), before); // the formats read here (logs, topologies, CSVs)
    return err;
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
std::vector<Parsed> readEverything(const std::vector<fs::path>& files, const ScratchPolicy& scratch,
    const WarningHold& hold, Progress& progress, bool& cancelled)
{
    std::vector<Parsed> out(files.size());
    std::atomic<std::size_t> next { 0 }, done { 0 };
    TextBudget budget { scratch.memoryBytes };
    std::atomic<bool> stop { false };
    auto work = [&](bool reporter) {
        for (std::size_t i = next++; i < files.size() && !stop; i = next++) {
            out[i] = readAndParse(files[i], scratch.streamFromBytes, hold, budget);
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

WarningHold WarningHold::forFolderOf(std::size_t files)
{
    WarningHold hold;
    const auto share = kKeptPerFolder / std::max<std::size_t>(files, 1);
    if (share < hold.keep) {
        hold.keep = std::max(share, kKeptAtLeast);
        hold.scope = "each of this folder's " + std::to_string(files) + " files";
    }
    return hold;
}

std::optional<LoadIssue> readFolder(const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes)
{
    std::vector<fs::path> sysfsRoots;
    const auto files = listFiles(dir, bytes, sysfsRoots);
    for (const auto& root : sysfsRoots) {
        auto tree = readSysfsTree(root, g.warnings);
        g.note(root, "sysfs InfiniBand tree", std::to_string(tree.ports.size()) + " ports of " + tree.host);
        g.sysfs.push_back(std::move(tree));
    }
    const auto hold = WarningHold::forFolderOf(files.size());
    bool cancelled = false;
    auto parsed = readEverything(files, g.scratch, hold, progress, cancelled);
    if (cancelled) {
        return LoadIssue { dir, 0, -1, "opening cancelled" };
    }
    for (const auto& p : parsed) {
        bytes -= std::min(bytes, p.leftUnread); // what was read, not what lay there
    }
    std::vector<std::size_t> later;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (phase(parsed[i]) > 0) {
            later.push_back(i);
            continue;
        }
        if (auto err = readOne(parsed[i], g, hold)) {
            leaveOut(*err, g);
        }
        release(parsed[i].input); // moved into g or reported; free the rest early
        if (progress.cancelled()) { // a large scrape read in pieces stops early when cancelled
            return LoadIssue { dir, 0, -1, "opening cancelled" };
        }
    }
    learnYear(g);
    std::stable_sort(
        later.begin(), later.end(), [&](std::size_t a, std::size_t b) { return phase(parsed[a]) < phase(parsed[b]); });
    for (std::size_t k = 0; k < later.size(); ++k) {
        progress.report("Reading files", files.size() + k, files.size() * 2);
        if (auto err = readOne(parsed[later[k]], g, hold)) {
            leaveOut(*err, g);
        }
        release(parsed[later[k]].input);
    }
    dropAmbiguousNames(g);
    return std::nullopt;
}

} // namespace stallscope::folder
