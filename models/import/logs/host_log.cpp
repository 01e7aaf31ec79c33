// SPDX-License-Identifier: MIT
// Slurm, kernel and Fabric Manager log lines (host_log.h, docs/formats.md §2d). A line is a time prefix (one of
// six, perhaps behind a pdsh "host: "), then a message; the message readers look for their anchor anywhere after
// the prefix, so a prefix we do not know still yields the fact, only without a time. The NVIDIA and PCIe
// wordings are in host_log_nvidia.cpp.
// Over 600 lines as one file: HostLogReader is one line reader whose state (an open Fabric Manager record, a GPU
// named on one line and fallen off the bus on the next, the last SXid per switch) its message readers share.
#include "import/logs/host_log.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"
#include "import/logs/host_log_lines.h"

#include "core/checked_math.h"
#include "core/time_format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>

namespace stallscope {

namespace {

// "03:04:05" at the cursor.
bool clockAt(LineScan& s, std::array<int, 3>& hms)
{
    const auto start = s.pos();
    const auto h = s.fixed(2);
    const auto m = h && s.lit(":") ? s.fixed(2) : std::nullopt;
    const auto sec = m && s.lit(":") ? s.fixed(2) : std::nullopt;
    if (!sec) {
        s.seek(start);
        return false;
    }
    hms = { *h, *m, *sec };
    return true;
}

struct Head
{
    TimeNs when = kNoTime;
    std::string host;
};

// journalctl -o short-iso[-precise]: "2026-11-02T03:04:05+0000 gpu-b003 kernel: " (also ".123456", "+00:00", "Z").
// The offset is in the line: the time is UTC exactly, whatever the folder's time zone.
std::optional<Head> isoHead(LineScan& s)
{
    const auto start = s.pos();
    std::array<std::optional<int>, 3> d;
    std::array<int, 3> hms {};
    if (!((d[0] = s.fixed(4)) && s.lit("-") && (d[1] = s.fixed(2)) && s.lit("-") && (d[2] = s.fixed(2)) && s.lit("T")
            && clockAt(s, hms))) {
        s.seek(start);
        return std::nullopt;
    }
    TimeNs frac = 0;
    const bool dmesgIso = s.peek() == ','; // dmesg --time-format iso: "…T10:11:12,123456+00:00 " and no host
    if (s.lit(".") || s.lit(",")) {
        auto digits = std::string(s.digits(9));
        digits.resize(9, '0');
        frac = toNumber<TimeNs>(digits);
    }
    TimeNs offset = 0;
    if (!s.lit("Z")) {
        const char sign = s.peek();
        if (sign != '+' && sign != '-') {
            s.seek(start);
            return std::nullopt;
        }
        s.seek(s.pos() + 1);
        const auto oh = s.fixed(2);
        s.lit(":");
        const auto om = s.fixed(2);
        if (!oh || !om) {
            s.seek(start);
            return std::nullopt;
        }
        offset = (sign == '-' ? -1 : 1) * (TimeNs(*oh) * 3600 + TimeNs(*om) * 60) * kNsPerSec;
    }
    Head h;
    const LogClock utc { *d[0], offset };
    h.when = logTimeNs(utc, *d[0], *d[1], *d[2], hms[0], hms[1], hms[2], frac);
    s.skipSpaces();
    if (!dmesgIso) {
        h.host = std::string(s.word());
    }
    return h;
}

// IB/core's port state change (kernels from 2025, recent MOFED): "Port: 1 Link DOWN", "Port: 1 Link ACTIVE";
// INIT and ARMED are steps on the way up, not events of their own.
std::optional<HostEventKind> ibPortState(std::string_view msg)
{
    LineScan s(msg);
    if (!s.lit("Port: ") || s.digits(3).empty() || !s.lit(" Link ")) {
        return std::nullopt;
    }
    const auto state = s.rest();
    if (state.starts_with("DOWN")) {
        return HostEventKind::LinkDown;
    }
    if (state.starts_with("ACTIVE")) {
        return HostEventKind::LinkUp;
    }
    return std::nullopt;
}

// What may come before a kernel line's time: dmesg --decode's "kern  :warn  : " and a /dev/kmsg record's
// "6,1234,5678901,-;" (priority, sequence, µs since boot, flags; the time is since boot, not wall time).
void skipKernelPrefix(LineScan& s)
{
    const auto start = s.pos();
    const auto facility = s.word();
    if (!facility.empty() && facility.size() <= 8) {
        s.skipSpaces();
        if (s.lit(":")) {
            s.word();
            s.skipSpaces();
            if (s.lit(": ")) {
                return;
            }
        }
    }
    s.seek(start);
    if (!s.digits(10).empty() && s.lit(",") && !s.digits(20).empty() && s.lit(",") && !s.digits(20).empty()
        && s.lit(",")) {
        s.until(";");
        if (s.lit(";")) {
            return;
        }
    }
    s.seek(start);
}

// dmesg -T: "[Mon Nov  2 03:04:05 2026] " — local time.
std::optional<Head> dmesgTHead(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    std::array<int, 3> hms {};
    if (s.lit("[")) {
        s.word(); // weekday
        s.skipSpaces();
        const int month = monthFromAbbreviation(s.word());
        s.skipSpaces();
        const auto day = s.number<int>();
        s.skipSpaces();
        if (month > 0 && day && clockAt(s, hms) && s.lit(" ")) {
            if (const auto year = s.fixed(4); year && s.lit("]")) {
                return Head { logTimeNs(clock, *year, month, *day, hms[0], hms[1], hms[2], 0), {} };
            }
        }
    }
    s.seek(start);
    return std::nullopt;
}

// syslog and journalctl's default (short): "Nov  2 03:04:05 gpu-b003 kernel: " — local time, no year (the
// clock's); journalctl -o short-precise adds ".123456" to the seconds.
std::optional<Head> syslogHead(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    std::array<int, 3> hms {};
    const int month = monthFromAbbreviation(s.word());
    s.skipSpaces();
    const auto day = month > 0 ? s.number<int>() : std::nullopt;
    if (day && s.lit(" ") && clockAt(s, hms)) {
        TimeNs frac = 0;
        if (s.lit(".")) {
            auto digits = std::string(s.digits(9));
            digits.resize(9, '0');
            frac = toNumber<TimeNs>(digits);
        }
        if (s.lit(" ")) {
            return Head { logTimeNs(clock, clock.year, month, *day, hms[0], hms[1], hms[2], frac),
                std::string(s.word()) };
        }
    }
    s.seek(start);
    return std::nullopt;
}

// journalctl's own lines between the entries: "-- Logs begin at … --", "-- Journal begins at … --", "-- Boot
// 3f2a… --", "-- Reboot --", "-- No entries --". Read, never facts.
bool journalMarker(std::string_view rest)
{
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) {
        rest.remove_suffix(1);
    }
    return rest.size() >= 6 && rest.starts_with("-- ") && rest.ends_with(" --");
}

// Who logged a journal's or syslog's line, after its prefix: Fabric Manager ("nv-fabricmanager[2311]: ",
// "nvidia-fabricmanager[2311]: ", its start script "nvidia-fabricmanager-start.sh[4753]: ") or systemd about
// Fabric Manager's unit ("systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'."). The cursor
// ends at the message; it is unchanged for any other process.
enum class FmJournal { No, Message, Unit };

FmJournal fmJournalTag(LineScan& s)
{
    const auto start = s.pos();
    s.skipSpaces();
    const auto name = s.word();
    const bool fm = name.starts_with("nv-fabricmanager") || name.starts_with("nvidia-fabricmanager");
    if ((fm || name == "systemd") && (!s.lit("[") || (!s.digits(10).empty() && s.lit("]"))) && s.lit(":")) {
        s.skipSpaces();
        if (fm) {
            return FmJournal::Message;
        }
        if (host_log::namesFabricManagerUnit(s.rest())) {
            return FmJournal::Unit;
        }
    }
    s.seek(start);
    return FmJournal::No;
}

// Fabric Manager's log: "[Dec 04 2026 03:04:55] [ERROR] [tid 1234] " — local time, the folder's zone.
struct FmHead
{
    TimeNs when = kNoTime;
    std::string_view level; // "INFO", "WARNING", "ERROR", ...
};

std::optional<FmHead> fmHead(LineScan& s, const LogClock& clock)
{
    const auto start = s.pos();
    std::array<int, 3> hms {};
    if (s.lit("[")) {
        const int month = monthFromAbbreviation(s.word());
        s.skipSpaces();
        const auto day = month > 0 ? s.digits(2) : std::string_view(); // two digits at most: never a BadNumber
        s.skipSpaces();
        const auto year = day.empty() ? std::nullopt : s.fixed(4);
        if (year && s.lit(" ") && clockAt(s, hms) && s.lit("] [")) {
            const auto level = s.word();
            if (!level.empty() && s.lit("] [tid ") && !s.digits(10).empty() && s.lit("]")) {
                s.skipSpaces();
                const int d = toNumber<int>(day);
                return FmHead { logTimeNs(clock, *year, month, d, hms[0], hms[1], hms[2], 0), level };
            }
        }
    }
    s.seek(start);
    return std::nullopt;
}

// "[Dec 04 20": a line that starts as Fabric Manager's prefix does (a month, not dmesg -T's weekday) — when the
// whole prefix is not there, the line was cut or damaged.
bool startsLikeFmHead(std::string_view line)
{
    LineScan s(line);
    return s.lit("[") && monthFromAbbreviation(s.word()) > 0;
}

// Plain dmesg: "[ 8812.551023] " — seconds since boot: no wall time, only the prefix passed over.
bool monotonicHead(LineScan& s)
{
    const auto start = s.pos();
    if (s.lit("[")) {
        s.skipSpaces();
        if (!s.digits(12).empty() && s.lit(".") && !s.digits(9).empty() && s.lit("]")) {
            s.skipSpaces();
            return true;
        }
    }
    s.seek(start);
    return false;
}

// pdsh's "gpu-b012: " before a line: a host-like word (a digit, '-' or '.' in it, no space) then ": ". Only taken
// when a time prefix follows (the caller checks), so "nvidia-nvswitch2: SXid ..." is never read as a host.
std::optional<std::string_view> pdshHost(LineScan& s)
{
    const auto start = s.pos();
    const auto host = s.word();
    const bool hosty = std::any_of(host.begin(), host.end(),
        [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.'; });
    if (host.empty() || host.size() > 64 || !hosty || !s.lit(": ")) {
        s.seek(start);
        return std::nullopt;
    }
    s.skipSpaces();
    return host;
}

// "Killed" → signal 9, ... as srun words them (strsignal); "Exited with exit code N" is an exit.
std::optional<std::pair<HostEventKind, std::int64_t>> taskFate(std::string_view what)
{
    static constexpr std::array<std::pair<std::string_view, int>, 9> signals
        = { { { "Killed", 9 }, { "Aborted", 6 }, { "Segmentation fault", 11 }, { "Terminated", 15 }, { "Bus error", 7 },
            { "Hangup", 1 }, { "Interrupt", 2 }, { "Floating point exception", 8 }, { "Illegal instruction", 4 } } };
    for (const auto& [name, sig] : signals) {
        if (what.starts_with(name)) {
            return std::pair(HostEventKind::TaskSignal, std::int64_t(sig));
        }
    }
    LineScan s(what);
    if (s.lit("Exited with exit code ")) {
        if (const auto code = s.number<std::int64_t>()) {
            return std::pair(HostEventKind::TaskExit, *code);
        }
    }
    return std::nullopt;
}

class HostLogReader
{
public:
    HostLogReader(const std::string& file, const LogClock& clock, const std::string& fileHost, HostLogFacts& f)
        : m_file(file)
        , m_clock(clock)
        , m_fileHost(fileHost)
        , m_f(f)
    {
    }

    void line(std::string_view line, std::int64_t lineNo)
    {
        LineScan s(line);
        s.skipSpaces();
        if (s.atEnd() || kmsgDictionary(line)) {
            return;
        }
        HostEvent e;
        e.line = lineNo;
        e.host = m_fileHost;
        e.evidence = clipped(line);
        std::string_view level;
        auto prefix = timePrefix(s, e, level);
        if (prefix == Prefix::None) { // a pdsh prefix counts only when a time prefix follows it
            const auto start = s.pos();
            const auto host = pdshHost(s);
            prefix = host ? timePrefix(s, e, level) : Prefix::None;
            if (prefix == Prefix::None) {
                s.seek(start);
            } else if (e.host == m_fileHost) {
                e.host = std::string(*host);
            }
        }
        const auto body = line.substr(s.pos());
        if (prefix == Prefix::Fm) {
            fabricManagerLine(level, body, e);
            return;
        }
        if (prefix == Prefix::None && journalMarkerLine(body)) {
            m_inFmRecord = false;
            return;
        }
        if (prefix == Prefix::Time) {
            LineScan tag(body);
            if (const auto j = fmJournalTag(tag); j != FmJournal::No) {
                fabricManagerJournal(j, tag.rest(), e);
                return;
            }
        }
        if (prefix == Prefix::None && startsLikeFmHead(body)) {
            if (m_cutFm.size() < kMaxRemembered) {
                m_cutFm.push_back(lineNo); // a warning once the file shows it is Fabric Manager's (finish)
            }
            unknown(lineNo, line);
            return;
        }
        if (prefix != Prefix::None) {
            m_inFmRecord = false; // a kernel or syslog line: no Fabric Manager record goes on past it
        }
        if (m_torchrun.line(body, lineNo)) {
            return;
        }
        if (srun(body, e) || stepCancelled(body, e) || mlx5(body, e) || xid(body, e) || nvidia(body, e)) {
            return;
        }
        if (prefix == Prefix::None && m_inFmRecord) { // a field line of the Fabric Manager record above it
            if (m_record) {
                host_log::fabricManagerField(body, m_f.events[*m_record]);
            }
            return;
        }
        unknown(lineNo, line);
    }

    // After the last line: the cut Fabric Manager prefixes are warnings in a file that holds Fabric Manager's
    // lines; elsewhere (a rank log whose own lines start "[Jun 1 …") they are only lines nobody reads.
    void finish()
    {
        m_torchrun.finish();
        if (!m_sawFm) {
            return;
        }
        for (const auto lineNo : m_cutFm) {
            warn(lineNo,
                "a Fabric Manager line whose \"[Mon DD YYYY HH:MM:SS] [LEVEL] [tid N]\" prefix is cut or damaged");
        }
    }

private:
    enum class Prefix { None, Time, Fm };

    // The line's time prefix, passed over: its time and host into `e`, Fabric Manager's level into `level`.
    Prefix timePrefix(LineScan& s, HostEvent& e, std::string_view& level)
    {
        skipKernelPrefix(s);
        if (auto h = isoHead(s)) {
            e.timeNs = h->when;
            if (!h->host.empty()) {
                e.host = h->host;
            }
        } else if (auto t = dmesgTHead(s, m_clock)) {
            e.timeNs = t->when;
        } else if (auto f = fmHead(s, m_clock)) {
            e.timeNs = f->when;
            level = f->level;
            return Prefix::Fm;
        } else if (auto l = syslogHead(s, m_clock)) {
            e.timeNs = l->when;
            e.host = l->host;
        } else if (!monotonicHead(s)) {
            return Prefix::None;
        }
        return Prefix::Time;
    }

    // A /dev/kmsg record's dictionary line after it: " SUBSYSTEM=pci", " DEVICE=+pci:0000:3b:00.0".
    static bool kmsgDictionary(std::string_view line)
    {
        LineScan s(line);
        if (!s.lit(" ")) {
            return false;
        }
        const auto key = s.word();
        return !key.empty() && s.lit("=") && std::all_of(key.begin(), key.end(), [](char ch) {
            return std::isupper(static_cast<unsigned char>(ch)) || ch == '_';
        });
    }

    void warn(std::int64_t lineNo, std::string message)
    {
        m_f.warnings.push_back({ m_file, lineNo, -1, std::move(message) });
    }

    void unknown(std::int64_t lineNo, std::string_view line)
    {
        ++m_f.unknownLines;
        if (m_f.unknown.size() < HostLogFacts::kKeptUnknown) {
            m_f.unknown.emplace_back(lineNo, clipped(line));
        }
    }

    // "[Dec 04 2026 03:04:55] [ERROR] [tid 12] detected NVSwitch fatal error ...": a fact for an error line; any
    // Fabric Manager line starts a record whose field lines follow it.
    void fabricManagerLine(std::string_view level, std::string_view msg, HostEvent& e)
    {
        m_sawFm = true;
        m_inFmRecord = true;
        m_record.reset();
        if (host_log::fabricManagerFact(level, msg, e)) {
            keepFm(std::move(e));
        }
    }

    // A journal's (or syslog's) line from Fabric Manager or about its unit, its prefix already read: the message
    // goes to the rules that read Fabric Manager's own log. journald splits a multi-line record into lines of
    // their own, so a line that is no fact may be a field line of the GPU NVL record before it.
    void fabricManagerJournal(FmJournal j, std::string_view msg, HostEvent& e)
    {
        m_inFmRecord = false; // the journal prefixes every line: no unprefixed field lines follow
        const bool fact
            = j == FmJournal::Unit ? host_log::fabricManagerUnit(msg, e) : host_log::fabricManagerFact({}, msg, e);
        if (fact) {
            keepFm(std::move(e));
        } else if (j == FmJournal::Message && m_record) {
            host_log::fabricManagerField(msg, m_f.events[*m_record]);
        }
    }

    void keepFm(HostEvent e)
    {
        m_f.events.push_back(std::move(e));
        if (m_f.events.back().kind == HostEventKind::FmGpuNvlink) {
            m_record = m_f.events.size() - 1;
        } else {
            m_record.reset();
        }
    }

    // "-- No entries --" and the like, also behind a pdsh prefix.
    static bool journalMarkerLine(std::string_view body)
    {
        LineScan s(body);
        return journalMarker(body) || (pdshHost(s) && journalMarker(s.rest()));
    }

    // The NVIDIA and PCIe wordings (host_log_nvidia.cpp); true when one of them read the line.
    bool nvidia(std::string_view body, HostEvent& e)
    {
        using namespace host_log;
        if (const auto gpu = gpuUuidLine(body)) {
            if (m_uuids.size() < kMaxRemembered) {
                m_uuids[gpu->first] = gpu->second;
            }
            return true;
        }
        if (offBusMessage(body, e)) {
            return true;
        }
        for (const auto reader : { gpuOffBus, sxid, pcieAer, pciehp, libSegfault, peermem }) {
            switch (reader(body, e)) {
            case Read::No:
                continue;
            case Read::Used:
                return true;
            case Read::Damaged:
                warn(e.line, "an NVIDIA or PCIe kernel line cut before its code or slot: not read");
                unknown(e.line, e.evidence);
                return true;
            case Read::Fact:
                keep(std::move(e));
                return true;
            }
        }
        return false;
    }

    // The driver's message over three lines when a GPU is gone at probe: "NVRM: The NVIDIA GPU 0000:b3:00.0", "NVRM:
    // (PCI ID: 10de:26b5) installed in this system has", "NVRM: fallen off the bus and is not responding to
    // commands." (also on one line). The GPU is named first; the fault comes with the line that says it.
    bool offBusMessage(std::string_view body, HostEvent& e)
    {
        constexpr std::string_view kNamed = "NVRM: The NVIDIA GPU ";
        if (const auto at = body.find(kNamed); at != std::string_view::npos) {
            auto rest = body.substr(at + kNamed.size());
            m_goneGpu = host_log::pciName(rest.substr(0, rest.find(' ')));
            m_goneEvent = e;
            if (body.find("fallen off the bus") == std::string_view::npos) {
                return true;
            }
        } else if (m_goneGpu.empty() || body.find("NVRM: ") == std::string_view::npos) {
            return false;
        } else if (body.find("fallen off the bus") == std::string_view::npos) {
            return true; // "(PCI ID: …) installed in this system has"
        }
        HostEvent gone = m_goneEvent.value_or(e);
        gone.kind = HostEventKind::GpuOffBus;
        gone.device = m_goneGpu;
        gone.text = "GPU has fallen off the bus";
        m_goneGpu.clear();
        m_goneEvent.reset();
        keep(std::move(gone));
        return true;
    }

    // A GPU off the bus is its own fact only when no Xid 79 said it first (the driver prints both, or only this
    // line on some branches); the GPU's UUID, when an "NVRM: GPU at" line named it, goes with it.
    void keep(HostEvent e)
    {
        if (!sxidIsNew(e)) {
            return;
        }
        if (e.kind == HostEventKind::GpuOffBus) {
            if (m_offBusXid.count(e.device)) {
                return;
            }
            if (const auto it = m_uuids.find(e.device); it != m_uuids.end()) {
                e.text += " (" + it->second + ")";
            }
        }
        m_f.events.push_back(std::move(e));
    }

    // The driver prints an SXid as its severity line, a "Severity …" line and a "Data {…}" line: the Data line is
    // a fact of its own only when no severity line of that switch and SXid came before it (one fact per SXid).
    bool sxidIsNew(const HostEvent& e)
    {
        const bool severity = e.kind == HostEventKind::SxidFatal || e.kind == HostEventKind::SxidNonFatal;
        if (!severity && e.kind != HostEventKind::SxidUnknown) {
            return true;
        }
        const auto key = e.host + " " + e.device;
        const auto open = m_sxidOpen.find(key);
        if (!severity && open != m_sxidOpen.end() && open->second == e.code) {
            m_sxidOpen.erase(open); // this SXid's Data line: its record is complete
            return false;
        }
        if (severity && (open != m_sxidOpen.end() || m_sxidOpen.size() < kMaxRemembered)) {
            m_sxidOpen[key] = e.code;
        } else if (open != m_sxidOpen.end()) {
            m_sxidOpen.erase(open); // a Data line of another SXid closes the switch's open record
        }
        return true;
    }

    // "srun: error: gpu-b003: task 12: Killed", "srun: error: gpu-b003: tasks 0-3,6: Aborted (core dumped)",
    // "srun: error: gpu-b003: task 5: Exited with exit code 1".
    bool srun(std::string_view body, HostEvent e)
    {
        LineScan s(body);
        if (!s.skipPast("srun: error: ")) {
            return false;
        }
        const auto host = s.until(":");
        if (!s.lit(": ") || !(s.lit("tasks ") || s.lit("task "))) {
            return true; // another srun error ("Unable to ...")
        }
        const auto list = s.until(":");
        if (!s.lit(": ")) {
            return true;
        }
        const auto what = s.rest();
        const auto fate = taskFate(what);
        if (!fate) {
            return true;
        }
        e.host = std::string(host);
        e.kind = fate->first;
        e.code = fate->second;
        e.text = clipped(what);
        LineScan ranges(list);
        while (!ranges.atEnd()) {
            const auto first = ranges.number<std::uint32_t>();
            if (!first) {
                break;
            }
            auto last = first;
            if (ranges.lit("-")) {
                last = ranges.number<std::uint32_t>();
            }
            if (!last || *last < *first || *last - *first >= kMaxTasksPerLine) {
                m_f.warnings.push_back({ m_file, e.line, -1,
                    "a task range that is not a range of fewer than " + std::to_string(kMaxTasksPerLine)
                        + " tasks: skipped" });
                return true;
            }
            e.firstTask = *first;
            e.lastTask = *last;
            m_f.events.push_back(e);
            if (!ranges.lit(",")) {
                break;
            }
        }
        return true;
    }

    // "slurmstepd: error: *** STEP 1234.0 ON gpu-b003 CANCELLED AT 2026-11-02T03:14:15 ***" (local time; also JOB,
    // with " DUE TO TIME LIMIT" and the like).
    bool stepCancelled(std::string_view body, HostEvent e)
    {
        LineScan s(body);
        if (!s.skipPast("slurmstepd: error: *** ")) {
            return false;
        }
        const auto whatStart = s.pos();
        const auto what = s.until("*");
        s.seek(whatStart);
        if (!s.skipPast(" ON ")) {
            return true;
        }
        e.host = std::string(s.word());
        if (s.skipPast(" CANCELLED AT ")) {
            std::array<std::optional<int>, 3> d;
            std::array<int, 3> hms {};
            if ((d[0] = s.fixed(4)) && s.lit("-") && (d[1] = s.fixed(2)) && s.lit("-") && (d[2] = s.fixed(2))
                && s.lit("T") && clockAt(s, hms)) {
                e.timeNs = logTimeNs(m_clock, *d[0], *d[1], *d[2], hms[0], hms[1], hms[2], 0);
            }
        }
        e.kind = HostEventKind::StepCancelled;
        e.text = clipped(what);
        m_f.events.push_back(e);
        return true;
    }

    // "mlx5_core 0000:3b:00.0 ib0: Link down", "mlx5_core 0000:3b:00.0 enp59s0f0np0: Link up",
    // "mlx5_core 0000:3b:00.0: mlx5_port_module_event:1187:(pid 0): Port module event[error]: module 0, ...".
    bool mlx5(std::string_view body, HostEvent e)
    {
        LineScan s(body);
        if (!s.skipPast("mlx5_core ")) {
            // Some kernels print the module event without the driver's device prefix:
            // "mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, High Temperature".
            const auto at = body.find("mlx5_port_module_event:");
            const auto event = body.find("Port module event");
            if (at == std::string_view::npos || event == std::string_view::npos) {
                return false;
            }
            e.kind = HostEventKind::PortModule;
            e.text = clipped(body.substr(event));
            m_f.events.push_back(e);
            return true;
        }
        // "0000:3b:00.0:" alone, or "0000:3b:00.0 ib0:" (the PCI address holds colons of its own).
        const auto pci = s.until(" ");
        std::string device;
        if (pci.ends_with(':')) {
            device = std::string(pci.substr(0, pci.size() - 1));
        } else {
            s.lit(" ");
            device = std::string(pci) + " " + std::string(s.until(":"));
            s.lit(":");
        }
        s.skipSpaces();
        const auto msg = s.rest();
        if (msg.starts_with("Link down") || msg.starts_with("Link up")) {
            e.kind = msg.starts_with("Link down") ? HostEventKind::LinkDown : HostEventKind::LinkUp;
        } else if (const auto state = ibPortState(msg)) {
            e.kind = *state;
            e.text = clipped(msg);
        } else if (const auto at = msg.find("Port module event"); at != std::string_view::npos) {
            e.kind = HostEventKind::PortModule;
            e.text = clipped(msg.substr(at));
        } else {
            return true;
        }
        e.device = device;
        if (e.text.empty()) {
            e.text = std::string(toString(e.kind));
        }
        m_f.events.push_back(e);
        return true;
    }

    // "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus."
    bool xid(std::string_view body, HostEvent e)
    {
        LineScan s(body);
        if (!s.skipPast("NVRM: Xid (")) {
            return false;
        }
        e.device = std::string(s.until(")"));
        if (!s.lit("): ")) {
            warn(e.line, "an Xid line cut before its number: not read");
            unknown(e.line, e.evidence);
            return true;
        }
        const auto code = s.number<std::int64_t>();
        if (!code) {
            warn(e.line, "an Xid line without its number: not read");
            unknown(e.line, e.evidence);
            return true;
        }
        if (*code == 79 && m_offBusXid.size() < kMaxRemembered) {
            m_offBusXid.insert(host_log::pciName(e.device));
        }
        e.kind = HostEventKind::GpuXid;
        e.code = *code;
        // The message after the pid and name fields, which change on every line.
        auto rest = s.rest();
        for (const char* field : { ", pid=", ", name=" }) {
            if (rest.starts_with(field)) {
                const auto comma = rest.find(", ", 2);
                rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma);
            }
        }
        e.text = "Xid " + std::to_string(*code) + (rest.size() > 2 ? ": " + clipped(rest.substr(2)) : "");
        m_f.events.push_back(e);
        return true;
    }

    static constexpr std::size_t kMaxRemembered = 1024; // GPUs per file: a host has 8, a damaged file no more

    const std::string& m_file;
    const LogClock& m_clock;
    const std::string& m_fileHost;
    HostLogFacts& m_f;
    bool m_sawFm = false; // some line carried Fabric Manager's prefix
    bool m_inFmRecord = false; // the last prefixed line was Fabric Manager's: unprefixed lines are its fields
    std::vector<std::int64_t> m_cutFm; // lines that start as Fabric Manager's prefix and are cut
    std::optional<std::size_t> m_record; // the GPU NVLink error whose field lines may follow
    std::set<std::string> m_offBusXid; // GPUs an Xid 79 named (pciName)
    std::map<std::string, std::int64_t> m_sxidOpen; // host and switch → the SXid whose severity line came last
    std::map<std::string, std::string> m_uuids; // GPU (pciName) → "GPU-…" from "NVRM: GPU at PCI:…: GPU-…"
    std::string m_goneGpu; // "NVRM: The NVIDIA GPU <pci>" named it; its "fallen off the bus" line is to come
    std::optional<HostEvent> m_goneEvent; // that first line's time and place
    host_log::TorchrunTable m_torchrun { m_file, m_clock, m_f };
};

} // namespace

namespace {

// A journal's or syslog's line from Fabric Manager or about its unit (`journalctl -u nvidia-fabricmanager`, in
// any of its short formats, perhaps behind a pdsh prefix): known by its prefix and process, not its words.
bool fmJournalLine(std::string_view line, const LogClock& clock)
{
    LineScan s(line);
    s.skipSpaces();
    const auto start = s.pos();
    for (const bool pdsh : { false, true }) {
        s.seek(start);
        if ((!pdsh || pdshHost(s)) && (isoHead(s) || syslogHead(s, clock)) && fmJournalTag(s) != FmJournal::No) {
            return true;
        }
    }
    return false;
}

// Such a line anywhere in the text (a whole host's journal holds Fabric Manager's lines deep in it): the lines
// that name "fabricmanager", the first 64 of them, are tried.
bool hasFmJournalLine(std::string_view text)
{
    const LogClock clock;
    std::size_t at = 0;
    for (int n = 0; n < 64 && (at = findText(text, "fabricmanager", at)) != std::string_view::npos; ++n) {
        const auto from = at > 4096 ? at - 4096 : 0; // a longer line is no journal line: look back no further
        const auto nl = text.substr(from, at - from).rfind('\n');
        const auto begin = nl == std::string_view::npos ? from : from + nl + 1;
        const auto end = std::min(text.find('\n', at), text.size());
        if ((nl != std::string_view::npos || from == 0) && end - begin <= 4096
            && fmJournalLine(text.substr(begin, end - begin), clock)) {
            return true;
        }
        at = end;
    }
    return false;
}

} // namespace

bool looksLikeHostLog(const std::string& text)
{
    for (const char* mark :
        { "srun: error: ", "slurmstepd: error: ***", "Root Cause (first observed failure):", "mlx5_core", "mlx5_port_module_event:", "NVRM: Xid",
            "NVRM: GPU ", "NVRM: The NVIDIA GPU ", "SXid (", "AER: ", "pciehp", ": segfault at ", "nvidia-peermem ",
            "Unable to determine the device handle for GPU" }) {
        if (findText(text, mark) != std::string::npos) {
            return true;
        }
    }
    // Fabric Manager's log has no word of its own on every line: its prefix is the mark. Its first lines suffice
    // (a multi-line record's field lines come between), perhaps behind a pdsh prefix or indentation.
    const LogClock clock;
    std::size_t at = 0;
    for (int n = 0; n < 32 && at < text.size(); ++n) {
        const auto end = std::min(text.find('\n', at), text.size());
        LineScan s(std::string_view(text).substr(at, std::min<std::size_t>(end - at, 4096)));
        s.skipSpaces();
        if (fmHead(s, clock) || (pdshHost(s) && fmHead(s, clock))) {
            return true;
        }
        at = end + 1;
    }
    return hasFmJournalLine(text);
}

Result<HostLogFacts> parseHostLog(
    const std::string& file, const std::string& text, const LogClock& clock, const std::string& fileHost)
{
    HostLogFacts f;
    HostLogReader reader(file, clock, fileHost, f);
    readLines(text, file, f.warnings, [&](const std::string& line, std::int64_t lineNo) { reader.line(line, lineNo); });
    reader.finish();
    if (f.events.empty()) {
        return LoadIssue { file, 0, -1,
            "no Slurm task fate, torchrun failure, kernel link, GPU, NVSwitch or PCIe event or Fabric Manager error "
            "found" };
    }
    return f;
}

} // namespace stallscope
