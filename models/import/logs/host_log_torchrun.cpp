// SPDX-License-Identifier: MIT
// torchrun's failure table (host_log_lines.h TorchrunTable, docs/formats.md §2d): the elastic agent's summary of
// which workers failed, with the root cause it observed first. Each field line is "  key : value" under an
// "[N]:" entry; the table's sections are "Failures:" and "Root Cause (first observed failure):".
#include "import/common/line_scan.h"
#include "import/logs/host_log_lines.h"

#include "core/job_snapshot.h"

#include <algorithm>
#include <array>

namespace stallscope::host_log {

namespace {

// The line after the wrappers people and launchers put before it: indentation, "> " quote markers, an srun label.
std::string_view unwrapped(std::string_view line)
{
    LineScan s(line);
    for (;;) {
        s.skipSpaces();
        if (s.lit(">")) {
            continue;
        }
        const auto start = s.pos();
        const auto label = s.digits(7);
        if (!label.empty() && s.lit(": ")) {
            continue;
        }
        s.seek(start);
        break;
    }
    auto rest = s.rest();
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) {
        rest.remove_suffix(1);
    }
    return rest;
}

// "=====…" or "-----…": the table's rules (torchrun prints them as wide as its longest line).
char ruleOf(std::string_view line)
{
    constexpr std::size_t kShortest = 10;
    if (line.size() < kShortest || (line[0] != '=' && line[0] != '-')) {
        return 0;
    }
    return std::all_of(line.begin(), line.end(), [&](char c) { return c == line[0]; }) ? line[0] : 0;
}

// "[3]:" — an entry's head.
bool entryHead(std::string_view line)
{
    LineScan s(line);
    return s.lit("[") && !s.digits(7).empty() && s.lit("]:") && s.atEnd();
}

// "key      : value" with a key of lower-case letters and underscores: key and value, else nullopt.
std::optional<std::pair<std::string_view, std::string_view>> fieldOf(std::string_view line)
{
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return std::nullopt;
    }
    auto key = line.substr(0, colon);
    while (!key.empty() && key.back() == ' ') {
        key.remove_suffix(1);
    }
    if (key.empty()
        || !std::all_of(key.begin(), key.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; })) {
        return std::nullopt;
    }
    auto value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    return std::pair(key, value);
}

} // namespace

bool TorchrunTable::line(std::string_view body, std::int64_t lineNo)
{
    const auto line = unwrapped(body);
    if (line == "Failures:") {
        flush();
        m_section = Section::Failures;
        return true;
    }
    if (line.find("Root Cause (first observed failure):") != std::string_view::npos) {
        flush();
        m_section = Section::RootCause;
        return true;
    }
    if (m_section == Section::None) {
        return false;
    }
    if (const char rule = ruleOf(line)) {
        flush();
        if (rule == '=') {
            m_section = Section::None; // the table's last rule
        }
        return true;
    }
    if (line == "<NO_OTHER_FAILURES>") {
        return true;
    }
    if (entryHead(line)) {
        flush();
        m_entry = HostEvent {};
        m_entry->kind = m_section == Section::RootCause ? HostEventKind::RankFailedFirst : HostEventKind::RankFailed;
        m_entryLine = lineNo;
        return true;
    }
    if (!m_entry) {
        m_section = Section::None; // not a table after all ("Failures:" said by something else)
        return false;
    }
    if (const auto f = fieldOf(line); f && !m_inTraceback) {
        field(f->first, f->second, body, lineNo);
        return true;
    }
    if (m_inTraceback) { // "  File …", "    return f(…)", then the exception: its last line is what it says
        if (!line.empty()) {
            m_traceback = clipped(line);
        }
        return true;
    }
    flush();
    m_section = Section::None;
    return false;
}

void TorchrunTable::field(std::string_view key, std::string_view value, std::string_view line, std::int64_t lineNo)
{
    auto& e = *m_entry;
    LineScan s(value);
    if (key == "time") { // "2026-11-02_03:14:15", local time
        std::array<std::optional<int>, 6> d;
        if ((d[0] = s.fixed(4)) && s.lit("-") && (d[1] = s.fixed(2)) && s.lit("-") && (d[2] = s.fixed(2)) && s.lit("_")
            && (d[3] = s.fixed(2)) && s.lit(":") && (d[4] = s.fixed(2)) && s.lit(":") && (d[5] = s.fixed(2))) {
            e.timeNs = logTimeNs(m_clock, *d[0], *d[1], *d[2], *d[3], *d[4], *d[5], 0);
        }
    } else if (key == "host") {
        e.host = clipped(s.word());
    } else if (key == "rank") { // "21 (local_rank: 5)"
        const auto r = s.number<std::uint32_t>();
        if (r && *r >= JobInfo::kMaxWorldSize) {
            m_f.warnings.push_back({ m_file, lineNo, -1,
                "torchrun names rank " + std::to_string(*r) + ", past the largest job Stallscope opens ("
                    + std::to_string(JobInfo::kMaxWorldSize) + " ranks): the entry is not read" });
            m_rankWarned = true;
        } else if (r) {
            e.firstTask = e.lastTask = *r;
            m_rank = true;
            e.line = lineNo;
            e.evidence = clipped(line);
        }
        if (s.skipPast("local_rank: ")) {
            m_localRank = s.number<std::int64_t>().value_or(-1);
        }
    } else if (key == "exitcode") { // "-6 (pid: 48121)": negative, killed by that signal
        m_exitCode = s.number<std::int64_t>();
        if (s.skipPast("pid: ")) {
            m_pid = s.number<std::int64_t>().value_or(-1);
        }
    } else if (key == "traceback") {
        m_inTraceback = value.rfind("Traceback (most recent call last)", 0) == 0;
        // Without an error file torchrun prints where to read about one: no fact of the failure.
        m_traceback = value.rfind("To enable traceback", 0) == 0 ? std::string() : clipped(value);
    }
}

void TorchrunTable::flush()
{
    if (!m_entry) {
        return;
    }
    auto e = std::move(*m_entry);
    m_entry.reset();
    if (m_rank) {
        std::string detail;
        for (const auto& [what, n] : { std::pair("local_rank ", m_localRank), std::pair("pid ", m_pid) }) {
            detail += n >= 0 ? (detail.empty() ? "" : ", ") + std::string(what) + std::to_string(n) : "";
        }
        e.text = (m_exitCode ? "exitcode " + std::to_string(*m_exitCode) : std::string("exitcode unknown"))
            + (detail.empty() ? "" : " (" + detail + ")") + (m_traceback.empty() ? "" : ": " + m_traceback);
        e.code = m_exitCode.value_or(kNoExitCode);
        m_f.events.push_back(std::move(e));
    } else if (!m_rankWarned) {
        m_f.warnings.push_back(
            { m_file, m_entryLine, -1, "a torchrun failure entry without its \"rank : N\" field: not read" });
    }
    m_rank = m_rankWarned = false;
    m_inTraceback = false;
    m_localRank = m_pid = -1;
    m_exitCode.reset();
    m_traceback.clear();
}

} // namespace stallscope::host_log
