// SPDX-License-Identifier: MIT
// Reading a raw folder: every file listed, recognised through the format table (formats.h) and read into
// folder::Gathered; dumps, traces and scrape files parsed on up to four threads, then (the clock known) logs.
// Over 600 lines as one file: listing, the memory gate, the worker pool and the phase order share the per-file
// Parsed state and the gate, which nothing outside this file sees.
#include "core/time_format.h"
#include "import/common/file_bytes.h"
#include "import/common/line_scan.h"
#include "import/common/packed.h"
#include "import/common/text_encoding.h"
#include "import/folder/formats.h"
#include "import/folder/preparsed.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <ctime>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

namespace stallscope::folder {

namespace fs = std::filesystem;

namespace {

// Folders nested deeper than this are not entered: files are read down to dir/a/b/c/d/file (torchrun's
// logs/<run>/attempt_0/3/stderr.log is four deep); deeper is more likely a copied home folder than a job's.
constexpr int kDeepest = 4;

// What kind of thing other than a file or folder an entry is, for the warning that skips it.
std::string specialKind(const fs::directory_entry& e, std::error_code& ec)
{
    switch (e.status(ec).type()) {
    case fs::file_type::fifo:
        return "a named pipe (reading it would wait for a writer)";
    case fs::file_type::socket:
        return "a socket";
    case fs::file_type::block:
    case fs::file_type::character:
        return "a device";
    default:
        return "not a regular file";
    }
}

// Why a symbolic link leads to no file ("No such file or directory", "Too many levels of symbolic links"); empty
// when it leads to one.
std::string brokenLink(const fs::path& p)
{
    std::error_code why;
    static_cast<void>(fs::status(p, why));
    return why ? why.message() : std::string();
}

// What to do about a link that leads nowhere when it is sysfs' own: /sys/class/infiniband/mlx5_0 is a link into
// /sys/devices, and a copy made with `cp -r` (or tar, or rsync -a) keeps the links, not the files. Following every
// link (`cp -rL`) is no answer: /sys/devices links back into itself. Naming the files through the links with
// `cp --parents` copies them as files under the same path (tried on /sys/class/net).
std::string sysfsHint(const fs::path& link)
{
    std::error_code ec;
    const auto target = fs::read_symlink(link, ec).generic_string();
    const auto path = link.generic_string();
    const bool sysfs = target.find("devices/") != std::string::npos
        && (path.find("/class/infiniband/") != std::string::npos || path.find("/class/net/") != std::string::npos);
    return sysfs ? "; a copy of /sys keeps its links into /sys/devices, not the files: copy what is read with "
                   "`cp -r --parents /sys/class/infiniband/*/node_guid /sys/class/infiniband/*/ports DEST`"
                 : "";
}

} // namespace

// Every regular file under `dir`, a few levels deep (clusters leave logs/rank17/stderr.log and the like);
// hidden entries and symbolic links to folders are not followed. What is left out and why — a folder that cannot
// be listed, a named pipe, a folder too deep — is a warning: an unlisted file must not look like an absent one.
// An error when `dir` itself cannot be listed.
Result<FolderListing> listFolder(const fs::path& dir, std::vector<LoadIssue>& warnings)
{
    FolderListing out;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    if (ec) {
        return LoadIssue { dir.string(), 0, -1, "cannot list the folder: " + ec.message() };
    }
    if (isSysfsInfinibandRoot(dir)) { // the copy of /sys/class/infiniband itself was opened
        out.sysfsRoots.push_back(dir);
        return out;
    }
    std::vector<std::string> tooDeep;
    fs::path last;
    for (; it != end; it.increment(ec)) {
        if (ec) { // the entry after the last one listed could not be had: what follows is unknown
            warnings.push_back({ dir.string(), 0, -1,
                "the listing stopped early (" + ec.message() + "): files after " + last.lexically_relative(dir).string()
                    + " may be left out" });
            break;
        }
        const auto& e = *it;
        last = e.path();
        const auto name = e.path().filename().string();
        const bool isDir = e.is_directory(ec);
        if (!name.empty() && name[0] == '.') {
            if (isDir) {
                it.disable_recursion_pending();
            }
            continue;
        }
        if (isDir) {
            if (isSysfsInfinibandRoot(e.path())) { // by its structure, whatever the path above it
                out.sysfsRoots.push_back(e.path()); // a copy of /sys/class/infiniband: a tree, not file by file
                it.disable_recursion_pending();
            } else if (e.is_symlink(ec)) {
                it.disable_recursion_pending(); // not followed (a link to .. would list the folder again)
            } else if (it.depth() >= kDeepest) {
                tooDeep.push_back(e.path().lexically_relative(dir).string());
                it.disable_recursion_pending();
            } else if (std::error_code sub; fs::directory_iterator(e.path(), sub), sub) {
                warnings.push_back({ e.path().string(), 0, -1,
                    "cannot list the folder: " + sub.message() + " (the files in it are left out)" });
                it.disable_recursion_pending();
            }
            continue;
        }
        if (e.is_regular_file(ec)) {
            out.files.push_back(e.path());
            out.bytes += e.file_size(ec);
        } else if (const auto why = e.is_symlink(ec) ? brokenLink(e.path()) : std::string(); !why.empty()) {
            warnings.push_back({ e.path().string(), 0, -1,
                "a symbolic link that leads to no file (" + why + "): skipped" + sysfsHint(e.path()) });
        } else {
            warnings.push_back({ e.path().string(), 0, -1, specialKind(e, ec) + ": skipped" });
        }
    }
    if (!tooDeep.empty()) {
        warnings.push_back({ dir.string(), 0, -1,
            std::to_string(tooDeep.size()) + " folder" + (tooDeep.size() > 1 ? "s" : "") + " nested more than "
                + std::to_string(kDeepest) + " deep not read (" + tooDeep.front() + (tooDeep.size() > 1 ? ", …" : "")
                + "): open a folder nearer to their files" });
    }
    std::sort(out.files.begin(), out.files.end());
    return out;
}

namespace {

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
            g.yearKnown = true;
            return;
        }
    }
}

// The year a log line states in full: NCCL's "[2026-03-14 09:00:01]" stamp, Slurm's "CANCELLED AT 2026-03-14T…",
// an ISO time — the first "20YY-MM-DD" after a bracket, blank or line start — or a ctime stamp's "16:24:18 2025]"
// (dmesg -T) or Fabric Manager's "[Feb 27 2025 15:10:02]", in the text's first 4 MiB. 0 when none.
int yearInText(std::string_view text)
{
    constexpr std::size_t kLooked = std::size_t(4) << 20;
    text = text.substr(0, kLooked);
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (auto at = findText(text, "20"); at != std::string_view::npos && at + 10 <= text.size();
         at = findText(text, "20", at + 1)) {
        const auto t = text.substr(at, 10);
        const bool after = at == 0 || text[at - 1] == '[' || text[at - 1] == ' ' || text[at - 1] == '\n';
        if (after && digit(t[2]) && digit(t[3]) && t[4] == '-' && digit(t[5]) && digit(t[6]) && t[7] == '-'
            && digit(t[8]) && digit(t[9])) {
            return 2000 + (t[2] - '0') * 10 + (t[3] - '0');
        }
        // "… 16:24:18 2025]" and "Feb 27 2025 15:10:02": a year between a time's seconds and ']', or between a
        // day and a time.
        const bool ctime = at >= 4 && text[at - 1] == ' ' && digit(text[at - 2]) && text[at - 4] == ':' && t[4] == ']';
        const bool dayFirst = at >= 3 && text[at - 1] == ' ' && digit(text[at - 2]) && t[4] == ' ' && digit(t[5])
            && digit(t[6]) && t[7] == ':';
        if ((ctime || dayFirst) && digit(t[2]) && digit(t[3])) {
            return 2000 + (t[2] - '0') * 10 + (t[3] - '0');
        }
    }
    return 0;
}

// A file read, recognised and — when its format parses alone (dumps, traces) — parsed: on any thread.
struct Parsed
{
    const Format* format = nullptr; // nullptr: no format recognised it
    FileInput input;
    std::optional<LoadIssue> unreadable; // the bytes could not be had (I/O error, gzip over its limits)
    std::uint64_t leftUnread = 0; // > 0: a large binary file no format recognised, not read (its size)
    std::optional<Packing> packed; // an archive or another tool's compression (packed.h): named, not read
    bool readAgain = false; // its text was let go (over the memory budget): read again when its turn comes
    ZeroRuns zeros; // zero bytes dropped from its start and end (readFileBytes)
};

// Without a dump the year of c10's "[E0314 09:51:02…]" (no year) comes from a log line that states one, else from
// the first log's modification time — said in a warning; never 1970.
void learnYearFromLogs(Gathered& g, const std::vector<Parsed>& parsed, const std::vector<std::size_t>& later)
{
    if (g.yearKnown) {
        return;
    }
    for (const auto i : later) {
        if (const auto y = yearInText(parsed[i].input.text)) {
            g.clock.year = y;
            g.yearKnown = true;
            return;
        }
    }
    for (const auto i : later) {
        struct stat st {};
        if (::stat(parsed[i].input.path.c_str(), &st) != 0) {
            continue;
        }
        std::tm tm {};
        const std::time_t secs = st.st_mtime;
        gmtime_r(&secs, &tm);
        g.clock.year = tm.tm_year + 1900;
        g.yearKnown = true;
        g.yearGuess = LoadIssue { parsed[i].input.path.string(), 0, -1,
            "no dump or log line gives the year: log times without one are read in " + std::to_string(g.clock.year)
                + ", the year this file was last written" };
        return;
    }
}

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

// Whole files in memory at once across the worker threads — read, inflated, parsed — held to
// ScratchPolicy::wholeFileBytes (half of what the process may use): four 678 MB logs read at once in a 2 GiB
// cgroup (a Slurm step, a container) had the kernel kill the process. A file waits until it fits beside the
// others; one larger than the whole gate is never read (readAndParse says so). Any thread.
class WholeFileGate
{
public:
    explicit WholeFileGate(std::uint64_t bytes)
        : m_bytes(bytes)
    {
    }
    std::uint64_t bytes() const { return m_bytes; }

    // Holds `n` bytes of the gate while alive (all of it when n is larger: then alone).
    class Hold
    {
    public:
        Hold(WholeFileGate& gate, std::uint64_t n)
            : m_gate(gate)
            , m_n(std::min(n, gate.m_bytes))
        {
            std::unique_lock lock(m_gate.m_mutex);
            m_gate.m_freed.wait(lock, [&] { return m_gate.m_held + m_n <= m_gate.m_bytes; });
            m_gate.m_held += m_n;
        }
        ~Hold()
        {
            {
                std::lock_guard lock(m_gate.m_mutex);
                m_gate.m_held -= m_n;
            }
            m_gate.m_freed.notify_all();
        }
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;

    private:
        WholeFileGate& m_gate;
        std::uint64_t m_n;
    };

private:
    std::uint64_t m_bytes;
    std::uint64_t m_held = 0;
    std::mutex m_mutex;
    std::condition_variable m_freed;
};

// What a file read whole takes while it is read: its size, or for gzip its likely inflated size (a trace compresses
// about 10:1), never more than the gate.
std::uint64_t wholeFileBytes(const fs::path& p, std::uint64_t size)
{
    std::ifstream in(p, std::ios::binary);
    char magic[2] = {};
    in.read(magic, 2);
    if (in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b') {
        return size * 10;
    }
    const bool utf16 = in.gcount() == 2
        && ((magic[0] == '\xff' && magic[1] == '\xfe') || (magic[0] == '\xfe' && magic[1] == '\xff'));
    return utf16 ? size + utf8BytesAtMostFromUtf16(size) : size; // both held while it is transcoded
}

// Why a file too large to read whole within the gate is left out, and what to do.
LoadIssue tooLargeToRead(const fs::path& p, std::uint64_t size, std::uint64_t gate)
{
    return { p.string(), 0, -1,
        formatBytes(static_cast<double>(size)) + " is more than Stallscope reads of one file at once here ("
            + formatBytes(static_cast<double>(gate))
            + ", half the memory this process may use). Scrapes and collector CSVs are read in pieces at any "
              "size, other files whole: cut it to the hours that matter (a log: tail -c, or the lines around the "
              "incident)" };
}

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

// Large binary files that no format recognises from their head — core dumps, checkpoints, container images, tarballs
// left in a job's folder — are not read: reading one whole took its size in memory (four at once, one per thread) to
// learn it was nothing (a 6 GiB core and a 3 GiB checkpoint beside two dumps: 113 s and 9.5 GB). Text files are
// always read whole, whatever their head: a log may say what matters in its last line.
constexpr std::uint64_t kUnreadFromBytes = 64ull << 20;
constexpr std::size_t kBinaryHeadBytes = 4u << 20;

// What a large file's head says before the file is read whole: another tool packed it (an archive, xz, zstd: named,
// never read — a 40 GB tarball of a job's folder is not inflated to learn it), a streamed format takes it unread, or
// it is binary (a NUL byte in its first 4 MiB, inflated when gzip) and no format's, so it is left unread (its size).
// None of these for small files, which are judged once read. One read of the head answers all three.
struct HeadVerdict
{
    const Format* streamed = nullptr;
    std::uint64_t leaveUnread = 0;
    std::optional<Packing> packed;
};

HeadVerdict judgeByHead(const fs::path& p, std::uint64_t size, std::uint64_t hole, std::uint64_t streamFromBytes)
{
    size -= hole; // judged by what was written: a hole at the start is skipped, never read
    if (size < std::min(streamFromBytes, kUnreadFromBytes)) {
        return {};
    }
    const bool mayLeaveUnread = size >= kUnreadFromBytes; // else only a streamed format's 64 KiB are looked at
    std::ifstream in(p, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(hole));
    std::string head(std::min<std::uint64_t>(size, mayLeaveUnread ? kBinaryHeadBytes : kHeadBytes), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const bool gzip = head.size() >= 2 && head[0] == '\x1f' && head[1] == '\x8b';
    if (gzip) {
        if (!mayLeaveUnread) {
            return {}; // gzip is never streamed: it is inflated whole
        }
        head = inflateGzipHead(head, kBinaryHeadBytes);
    }
    if (const auto packing = packingOf(head)) { // before any format: a tar of logs reads as a log
        return { nullptr, 0, packing };
    }
    if (!gzip && size >= streamFromBytes) {
        auto lines = head.substr(0, kHeadBytes);
        lines.resize(std::min(lines.size(), lines.rfind('\n') + 1)); // whole lines only
        if (const auto* f = recognise(lines); f && f->streamed) {
            return { f, 0, std::nullopt };
        }
    }
    if (!mayLeaveUnread || head.find('\0') == std::string::npos || recognise(head)) {
        return {};
    }
    return { nullptr, size, std::nullopt };
}

Parsed readAndParse(
    const fs::path& p, std::uint64_t streamFromBytes, const WarningHold& hold, TextBudget& budget, WholeFileGate& gate)
{
    Parsed r;
    r.input.path = p;
    std::error_code ec;
    const auto size = fs::file_size(p, ec); // 0 when unknown: readFileBytes then says why
    const auto hole = ec ? 0 : leadingHoleBytes(p); // logrotate's copytruncate under a writer that does not append
    const auto verdict = judgeByHead(p, ec ? 0 : size, hole, streamFromBytes);
    if (verdict.streamed) {
        r.format = verdict.streamed; // `add` reads it in pieces, without the zeros at either end
        r.zeros.head = hole;
        r.zeros.tail = trailingZeroBytes(p);
        return r;
    }
    r.leftUnread = verdict.leaveUnread;
    r.packed = verdict.packed;
    if (r.leftUnread > 0 || r.packed) {
        return r;
    }
    if (!ec && size - hole > gate.bytes()) {
        r.unreadable = tooLargeToRead(p, size - hole, gate.bytes());
        return r;
    }
    WholeFileGate::Hold held(gate, ec ? 0 : wholeFileBytes(p, size - hole)); // until parsed, or its text let go
    GzipLimits limits;
    limits.ceilingBytes = gate.bytes();
    auto bytes = readFileBytes(p, limits, &r.zeros);
    if (!bytes) {
        r.unreadable = bytes.error();
        return r;
    }
    r.input.text = std::move(bytes.value());
    if ((r.packed = packingOf(r.input.text))) { // a small archive, or a gzip'd tar read whole
        std::string().swap(r.input.text);
        return r;
    }
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
    const auto path = parsed.input.path.string();
    if (parsed.packed) {
        g.warnings.push_back({ path, 0, -1, packedMessage(*parsed.packed) });
        return std::nullopt;
    }
    const auto& z = parsed.zeros;
    if (!parsed.format) {
        g.warnings.push_back({ path, 0, -1,
            z.tail > 0 && parsed.input.text.empty() ? "holds nothing but zero bytes (" + formatCount(z.tail)
                    + "): blocks allocated but never written — the host stopped while writing it?"
                                                    : std::string("not a recognised format: skipped") });
        return std::nullopt;
    }
    if (z.head > 0) {
        g.warnings.push_back({ path, 0, -1,
            "begins with " + formatCount(z.head)
                + " zero bytes, read without them: a writer that does not append went on at its old offset after "
                  "the file was truncated (logrotate's copytruncate?)" });
    }
    if (z.tail > 0) {
        g.warnings.push_back({ path, 0, -1,
            "ends in " + formatCount(z.tail)
                + " zero bytes, read without them: blocks allocated but never written — the host stopped while "
                  "writing it? (what comes before is read as it is; it may end early)" });
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

// Runs `work(i)` for i in [0, n) on `wanted` threads (0: one per core, at most four), the calling one among them
// (it alone reports progress, as `done` of `n`, and is where a cancel is seen). False when cancelled.
template <typename Work>
bool onWorkers(std::size_t n, unsigned wanted, Progress& progress, std::size_t doneBefore, std::size_t total, Work work)
{
    std::atomic<std::size_t> next { 0 }, done { 0 };
    std::atomic<bool> stop { false };
    auto run = [&](bool reporter) {
        for (std::size_t i = next++; i < n && !stop; i = next++) {
            work(i);
            const auto k = ++done;
            if (reporter) {
                progress.report("Reading files", doneBefore + k, total);
                if (progress.cancelled()) {
                    stop = true;
                }
            }
        }
    };
    const unsigned threads = wanted > 0 ? wanted : std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads && k < n; ++k) {
        pool.emplace_back(run, false);
    }
    run(true);
    for (auto& t : pool) {
        t.join();
    }
    return !stop;
}

// Every file read, recognised and — for the formats whose parse needs no other file (dumps, traces) — parsed,
// on up to four threads (one of them the caller, which reports progress and watches for cancel). Large folders
// are mostly dumps: this is where opening them spends its time.
// A file a shard parsed (preparsed.h) moved out of `preparsed`, as readAndParse would have left it; nullopt when
// `preparsed` does not hold it. Several threads at once: each takes its own file's entry, and none adds or erases.
std::optional<Parsed> takePreparsed(const fs::path& p, PreparsedFiles* preparsed)
{
    if (!preparsed) {
        return std::nullopt;
    }
    const auto it = preparsed->files.find(p.string());
    if (it == preparsed->files.end()) {
        return std::nullopt;
    }
    Parsed r;
    r.input.path = p;
    r.format = it->second.format;
    r.input.parsed = std::move(it->second.parsed);
    r.zeros = it->second.zeros;
    return r;
}

std::vector<Parsed> readEverything(const std::vector<fs::path>& files, const ScratchPolicy& scratch,
    const WarningHold& hold, Progress& progress, PreparsedFiles* preparsed, bool& cancelled)
{
    std::vector<Parsed> out(files.size());
    TextBudget budget { scratch.memoryBytes };
    WholeFileGate gate(scratch.wholeFileBytes);
    cancelled = !onWorkers(files.size(), scratch.readerThreads, progress, 0, files.size() * 2, [&](std::size_t i) {
        auto taken = takePreparsed(files[i], preparsed);
        out[i] = taken ? std::move(*taken) : readAndParse(files[i], scratch.streamFromBytes, hold, budget, gate);
    });
    return out;
}

// Logs parsed on the worker threads once phase 0 gave the clock (Format::parseWithClock): a folder of rank logs
// spent its time parsing them one after another on the calling thread (1.4 GB of logs: 57 s). Their text is let go
// as each is parsed; what they say is added in file order after. False when cancelled.
bool parseLogs(std::vector<Parsed>& parsed, const std::vector<std::size_t>& later, const LogClock& clock,
    const ScratchPolicy& scratch, Progress& progress, std::size_t files)
{
    WholeFileGate gate(scratch.wholeFileBytes);
    return onWorkers(later.size(), scratch.readerThreads, progress, files, files * 2, [&](std::size_t k) {
        auto& p = parsed[later[k]];
        if (!p.format->parseWithClock || p.unreadable) {
            return;
        }
        // Its text, and the copy a combined log is split into, while it is parsed.
        std::error_code ec;
        const auto size = p.readAgain ? fs::file_size(p.input.path, ec) : p.input.text.size();
        WholeFileGate::Hold held(gate, ec ? 0 : 2 * (p.readAgain ? wholeFileBytes(p.input.path, size) : size));
        if (p.readAgain) {
            auto bytes = readFileBytes(p.input.path);
            if (!bytes) {
                p.unreadable = bytes.error();
                return;
            }
            p.input.text = std::move(bytes.value());
            p.readAgain = false;
        }
        p.input.parsed = p.format->parseWithClock(p.input.path.string(), p.input.text, clock);
        std::string().swap(p.input.text); // parsed: the bytes are no longer needed
    });
}

} // namespace

std::optional<std::vector<std::optional<PreparsedFile>>> parseAlone(
    const std::vector<fs::path>& files, std::size_t folderFiles, const ScratchPolicy& scratch, Progress& progress)
{
    std::vector<std::optional<PreparsedFile>> out(files.size());
    const auto hold = WarningHold::forFolderOf(folderFiles); // as readFolder holds them: the same warnings kept
    TextBudget budget { scratch.memoryBytes };
    WholeFileGate gate(scratch.wholeFileBytes);
    const bool done = onWorkers(files.size(), scratch.readerThreads, progress, 0, files.size(), [&](std::size_t i) {
        auto r = readAndParse(files[i], scratch.streamFromBytes, hold, budget, gate);
        if (r.format && r.format->parse && r.input.parsed.has_value()) {
            out[i] = PreparsedFile { r.format, std::move(r.input.parsed), r.zeros };
        }
    });
    if (!done) {
        return std::nullopt;
    }
    return out;
}

std::optional<LoadIssue> readFolder(
    const std::string& dir, Gathered& g, Progress& progress, std::uint64_t& bytes, PreparsedFiles* preparsed)
{
    auto listing = listFolder(dir, g.warnings);
    if (!listing) {
        return listing.error();
    }
    g.root = dir;
    bytes += listing->bytes;
    const auto& files = listing->files;
    for (const auto& root : listing->sysfsRoots) {
        auto tree = readSysfsTree(root, g.warnings);
        tree.host = hostOfSysfsCopy(root, dir);
        g.note(root, "sysfs InfiniBand tree", std::to_string(tree.ports.size()) + " ports of " + tree.host);
        g.sysfs.push_back(std::move(tree));
    }
    const auto hold = WarningHold::forFolderOf(files.size());
    bool cancelled = false;
    auto parsed = readEverything(files, g.scratch, hold, progress, preparsed, cancelled);
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
    learnYearFromLogs(g, parsed, later);
    std::stable_sort(
        later.begin(), later.end(), [&](std::size_t a, std::size_t b) { return phase(parsed[a]) < phase(parsed[b]); });
    if (!parseLogs(parsed, later, g.clock, g.scratch, progress, files.size())) {
        return LoadIssue { dir, 0, -1, "opening cancelled" };
    }
    for (std::size_t k = 0; k < later.size(); ++k) {
        if (auto err = readOne(parsed[later[k]], g, hold)) {
            leaveOut(*err, g);
        }
        release(parsed[later[k]].input);
    }
    dropAmbiguousNames(g);
    return std::nullopt;
}

} // namespace stallscope::folder
