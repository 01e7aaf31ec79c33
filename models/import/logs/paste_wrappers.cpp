// SPDX-License-Identifier: MIT
// Paste and logger wrappers before rank-log lines (paste_wrappers.h). Each rule looks at the start of the line and
// either takes a wrapper off or leaves the line alone; a rule whose wrapper is not followed by a record the readers
// know leaves it too, so ordinary prose ("2024-01-01 12:00:00,123 - root - INFO - …") is not touched.
#include "import/logs/paste_wrappers.h"

#include "import/common/line_scan.h"
#include "import/logs/log_prefix.h"

#include <cctype>

namespace stallscope::logs {

namespace {

bool digit(char c)
{
    return c >= '0' && c <= '9';
}

bool asciiLetter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A record the rank-log readers start at: a bracketed prefix ("[rank3]:", "[E0709 …]", "[PG 0 Rank 3]",
// "[1,12]<stdout>:", NCCL's "[2025-…] " stamp), a launcher's prefix, or NCCL's "host:pid:tid [dev] ".
bool recordAt(std::string_view rest)
{
    if (rest.empty()) {
        return false;
    }
    if (rest.front() == '[' || afterLauncherPrefix(rest) > 0) {
        return true;
    }
    LineScan s(rest);
    const LogClock none;
    return ncclPrefixAt(s, none).has_value();
}

// "2025-02-18 12:54", "2025-02-18T12:54:03.123456Z", "2025-02-18 12:54:03,123+02:00", then ":"? and spaces. The
// length taken and, when it had seconds, the stamp as "YYYY-MM-DD hh:mm:ss" (NCCL's own form).
struct Stamp
{
    std::size_t length = 0;
    std::string ncclForm;
};

std::optional<Stamp> isoStampAt(std::string_view line)
{
    LineScan s(line);
    const auto date = line.substr(0, 10);
    if (!s.fixed(4) || !s.lit("-") || !s.fixed(2) || !s.lit("-") || !s.fixed(2)) {
        return std::nullopt;
    }
    if (!s.lit(" ") && !s.lit("T")) {
        return std::nullopt;
    }
    const auto timeAt = s.pos();
    if (!s.fixed(2) || !s.lit(":") || !s.fixed(2)) {
        return std::nullopt;
    }
    Stamp out;
    if (s.lit(":") && s.fixed(2)) {
        out.ncclForm = std::string(date) + " " + std::string(line.substr(timeAt, 8));
        if (s.lit(".") || s.lit(",")) {
            s.digits(9);
        }
    }
    if (!s.lit("Z") && (s.peek() == '+' || s.peek() == '-')) { // a zone offset "+02:00" / "+0200"
        s.seek(s.pos() + 1);
        if (!s.fixed(2)) {
            return std::nullopt;
        }
        s.lit(":");
        s.digits(2);
    }
    s.lit(":");
    if (!s.lit(" ")) {
        return std::nullopt;
    }
    s.skipSpaces();
    out.length = s.pos();
    return out;
}

// pdsh's "gpu-a017: " or "10.0.0.5: ": a host name (not all digits: that is srun's label) and ": ".
std::size_t hostLabelLength(std::string_view line)
{
    std::size_t i = 0;
    bool letter = false, dot = false;
    while (i < line.size() && i < 64 && hostNameChar(line[i])) {
        letter = letter || asciiLetter(line[i]);
        dot = dot || line[i] == '.';
        ++i;
    }
    if (i == 0 || (!letter && !dot) || line.substr(i, 2) != ": ") {
        return 0;
    }
    return i + 2;
}

// A log viewer's or a process's "[80746] " before another bracket.
std::size_t bracketNumberLength(std::string_view line)
{
    std::size_t i = 1;
    if (line.empty() || line.front() != '[') {
        return 0;
    }
    while (i < line.size() && i < 11 && digit(line[i])) {
        ++i;
    }
    return i > 1 && line.substr(i, 3) == "] [" ? i + 2 : 0;
}

// Open MPI's "--tag-output" tag at the start of `line`, "[1,12]<stdout>:" (or <stderr>): its length, 0 when none.
std::size_t ompiTagLength(std::string_view line)
{
    LineScan s(line);
    if (!s.lit("[") || s.digits(10).empty() || !s.lit(",") || s.digits(10).empty()) {
        return 0;
    }
    return s.lit("]<stdout>:") || s.lit("]<stderr>:") ? s.pos() : 0;
}

// One wrapper taken off the start of `line`: the length taken and what replaces it ("" or NCCL's stamp); 0 when
// none is there.
std::pair<std::size_t, std::string> wrapperAt(std::string_view line)
{
    if (line.empty()) {
        return { 0, {} };
    }
    const char c = line.front();
    if (c == ' ' || c == '\t') {
        std::size_t i = 0;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        // srun pads its labels to the widest task id (" 7: "): the label is read with its padding, so leave it.
        LineScan s(line, i);
        if (!s.digits(10).empty() && s.lit(": ")) {
            return { 0, {} };
        }
        return { i, {} };
    }
    if (c == '>') { // "> " quote markers, nested or not
        return { line.size() > 1 && line[1] == ' ' ? 2 : 1, {} };
    }
    if (c == '[') {
        const auto n = bracketNumberLength(line);
        return { n, {} };
    }
    if (c == '(') { // Ray's "(RayWorker pid=12) " before a stamp or a prefix the readers do not know behind it
        const auto n = afterLauncherPrefix(line);
        return { n > 0 && !recordAt(line.substr(n)) ? n : 0, {} };
    }
    if (digit(c)) {
        if (const auto stamp = isoStampAt(line)) {
            const auto rest = line.substr(stamp->length);
            LineScan s(rest);
            const LogClock none;
            if (!stamp->ncclForm.empty() && ncclPrefixAt(s, none)) {
                return { stamp->length, "[" + stamp->ncclForm + "] " };
            }
            // A logger's stamp before Open MPI's tag ("2026-05-20T10:00:01Z [1,0]<stdout>:gpu-c011:…"): the tag
            // stays first, the stamp moves behind it in NCCL's form, so the line keeps its time.
            if (const auto tag = ompiTagLength(rest); tag > 0 && !stamp->ncclForm.empty()) {
                LineScan after(rest.substr(tag));
                if (ncclPrefixAt(after, none)) {
                    return { stamp->length + tag, std::string(rest.substr(0, tag)) + "[" + stamp->ncclForm + "] " };
                }
            }
            return { rest.empty() || !recordAt(rest) ? 0 : stamp->length, {} };
        }
    }
    if (asciiLetter(c) || digit(c)) {
        if (const auto n = ompiTimestampLength(line); n > 0) {
            return { 0, {} }; // Open MPI's stamp before its tag: the readers pass over it
        }
        const auto n = hostLabelLength(line);
        return { n > 0 && recordAt(line.substr(n)) ? n : 0, {} };
    }
    return { 0, {} };
}

// "[10.0.0.5](http://10.0.0.5/)" → "10.0.0.5": a thread's renderer made the address a link; the text is what the
// log said.
void dropAutolinks(std::string& line)
{
    for (auto at = line.find("](http"); at != std::string::npos; at = line.find("](http", at)) {
        const auto open = line.rfind('[', at);
        const auto close = line.find(')', at);
        if (open == std::string::npos || close == std::string::npos || line.find('\n', open) < close) {
            at += 6;
            continue;
        }
        const std::string text = line.substr(open + 1, at - open - 1);
        line.replace(open, close + 1 - open, text);
        at = open + text.size();
    }
}

// The line with its wrappers taken off; nullopt when it has none. Bounded: each rule takes at least one character.
std::optional<std::string> unwrapLine(std::string_view line, bool links)
{
    std::string out;
    std::string_view rest = line;
    bool changed = false;
    for (int rounds = 0; rounds < 16; ++rounds) {
        const auto [n, replacement] = wrapperAt(rest);
        if (n == 0) {
            break;
        }
        changed = true;
        rest.remove_prefix(n);
        if (!replacement.empty()) {
            out += replacement;
            break; // NCCL's prefix follows
        }
    }
    const bool linked = links && rest.find("](http") != std::string_view::npos;
    if (!changed && !linked) {
        return std::nullopt;
    }
    out += rest;
    if (linked) {
        dropAutolinks(out);
    }
    return out;
}

} // namespace

std::optional<std::string> unwrapPastedLines(std::string_view text)
{
    std::optional<std::string> out;
    const bool links = findText(text, "](http") != std::string_view::npos; // one pass, not one per line
    std::size_t begin = 0;
    while (begin < text.size()) {
        auto end = text.find('\n', begin);
        const bool last = end == std::string_view::npos;
        end = last ? text.size() : end;
        const auto line = text.substr(begin, end - begin);
        std::optional<std::string> unwrapped;
        try {
            unwrapped = unwrapLine(line, links);
        } catch (const BadNumber&) {
            // A prefix whose number does not fit ("gpu:18888888888888888888:1 [0]"): the line stays as it is, and
            // the reader's pass warns on it. This pass runs outside readLines, whose catch would turn it into a
            // warning: uncaught, it ended the reading thread and the program.
        }
        if (unwrapped && !out) {
            out.emplace(text.substr(0, begin)); // the lines before, as they were
        }
        if (out) {
            out->append(unwrapped ? *unwrapped : std::string(line));
            if (!last) {
                out->push_back('\n');
            }
        }
        begin = end + 1;
    }
    return out;
}

} // namespace stallscope::logs
