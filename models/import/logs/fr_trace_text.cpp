// SPDX-License-Identifier: MIT
// The Flight Recorder analyzer's saved output (fr_trace_text.h, docs/formats.md §2f). Its wordings, from PyTorch's
// torch/distributed/flight_recorder/components/utils.py (error_analysis), types.py (EntryState.log,
// MatchInfo.__str__) and the older tools/flight_recorder/components/builder.py:
//   newest  "Not all ranks joining collective, sequence number: 57", "Collective sequence number: 57 has errors",
//           "Input/output mismatch in the collective sequence number: 57", then the field lines
//   middle  "Not all ranks joining collective 57 at entry 56", "Collective 57 at entry 56 errors",
//           "Input/output mismatch in the collective 57 at entry 56"; "expected ranks: 8" is a count there
//   oldest  one printed line: "Not all ranks joining collective for group 0:default_pg collective nccl:all_reduce
//           Missing ranks are {3}"
// A record ends at the next anchor or at its stack trace (whose frames are not read).
#include "import/logs/fr_trace_text.h"
#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include "core/job_snapshot.h"

#include <algorithm>
#include <cctype>

namespace stallscope {

namespace {

constexpr std::string_view kNotAllJoined = "Not all ranks joining collective";
constexpr std::string_view kHasErrors = "Collective sequence number:";
constexpr std::string_view kSizeMismatch = "Input/output mismatch in the collective";
constexpr std::string_view kCannotDecide = "We cannot decide what's wrong with this collective entry";
constexpr std::string_view kCulprit = "Culprit rank ";

bool wordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Where `key` starts a word in `line` (at its start, or after a character that is no letter, digit or '_'), so a
// logging prefix ("INFO:Flight Recorder:", a timestamp), indentation or a "> " quote before it is passed over.
std::size_t keyAt(std::string_view line, std::string_view key)
{
    for (auto at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        if (at == 0 || !wordChar(line[at - 1])) {
            return at;
        }
    }
    return std::string_view::npos;
}

enum class Field {
    Group,
    Collective,
    Missing,
    InNumel,
    OutNumel,
    InSizes,
    OutSizes,
    Expected,
    State,
    ErrorMsg,
    StackTrace,
    Other, // read and not needed: the record id, the world size
};

struct FieldKey
{
    std::string_view key;
    Field field;
};

constexpr FieldKey kFields[] = {
    { "group info:", Field::Group },
    { "collective:", Field::Collective },
    { "missing ranks:", Field::Missing },
    { "total input numel:", Field::InNumel },
    { "total output numel:", Field::OutNumel },
    { "input sizes:", Field::InSizes },
    { "output sizes:", Field::OutSizes },
    { "expected ranks:", Field::Expected },
    { "collective state:", Field::State },
    { "error msg:", Field::ErrorMsg },
    { "error message:", Field::ErrorMsg }, // the middle wording
    { "collective stack trace:", Field::StackTrace },
    { "internal record id:", Field::Other },
    { "world size:", Field::Other },
};

// The field a line gives: the key that comes first in it (a value may quote another key: an error message names
// "Expected input sizes: ..."), and where its value starts.
std::optional<std::pair<Field, std::size_t>> fieldOf(std::string_view line)
{
    std::optional<std::pair<Field, std::size_t>> best;
    std::size_t bestAt = std::string_view::npos;
    for (const auto& [key, field] : kFields) {
        const auto at = keyAt(line, key);
        if (at < bestAt) {
            bestAt = at;
            best = std::pair(field, at + key.size());
        }
    }
    return best;
}

enum class Anchor { NotAllJoined, HasErrors, SizeMismatch, CannotDecide };

struct AnchorHit
{
    Anchor kind;
    std::size_t rest; // where the text after the anchor's words starts
};

std::optional<AnchorHit> anchorOf(std::string_view line)
{
    const std::pair<std::string_view, Anchor> words[]
        = { { kNotAllJoined, Anchor::NotAllJoined }, { kHasErrors, Anchor::HasErrors },
              { kSizeMismatch, Anchor::SizeMismatch }, { kCannotDecide, Anchor::CannotDecide } };
    for (const auto& [w, kind] : words) {
        if (const auto at = keyAt(line, w); at != std::string_view::npos) {
            return AnchorHit { kind, at + w.size() };
        }
    }
    // The middle wording of a mismatch: "Collective 57 at entry 56 errors".
    if (const auto at = keyAt(line, "Collective "); at != std::string_view::npos) {
        LineScan s(line, at + 11);
        if (!s.digits().empty() && s.lit(" at entry ")) {
            return AnchorHit { Anchor::HasErrors, at + 11 };
        }
    }
    return std::nullopt;
}

std::string valueText(std::string_view line, std::size_t from)
{
    LineScan s(line, from);
    s.skipSpaces();
    return clipped(s.rest(), " \t\r");
}

// "Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: ..." (MatchInfo.__str__) or the middle wording's
// "MatchState.SIZE_OR_SYNTAX_MISMATCH": the type and its detail, without the words around them.
std::string errorText(std::string_view s)
{
    LineScan scan(s);
    scan.skipSpaces();
    scan.lit("Error type:");
    scan.skipSpaces();
    scan.lit("MatchState.");
    return clipped(scan.rest(), " ,\t");
}

// One anchor and its field lines, until the next anchor or the stack trace.
struct Record
{
    Anchor kind = Anchor::NotAllJoined;
    std::int64_t line = 0;
    std::int64_t seq = -1;
    std::string pg, op, state, inSizes, outSizes;
    std::int64_t inNumel = -1, outNumel = -1;
    std::optional<std::vector<std::uint32_t>> missing;
    std::int64_t missingLine = 0;
    std::vector<std::pair<std::uint32_t, std::string>> culprits;
    bool sawError = false;
    std::int64_t errorLine = 0;
    bool inTrace = false; // past "collective stack trace:": frames until the next anchor
};

class Reader
{
public:
    explicit Reader(const std::string& file)
        : m_file(file)
    {
    }

    void line(std::string_view l, std::int64_t n)
    {
        if (const auto a = anchorOf(l)) {
            close();
            m_any = true;
            open(*a, l, n);
            return;
        }
        if (!m_rec || m_rec->inTrace) {
            return;
        }
        if (const auto f = fieldOf(l)) {
            field(f->first, l, f->second, n);
        }
    }
    void close();
    bool any() const { return m_any; }
    FrTraceText out;

private:
    void open(const AnchorHit& a, std::string_view l, std::int64_t n);
    void field(Field f, std::string_view l, std::size_t at, std::int64_t n);
    void readCulprits(std::string_view value, std::int64_t n);
    std::optional<std::vector<std::uint32_t>> ranks(
        std::string_view l, std::size_t at, std::int64_t n, std::string_view what);
    void fact(LogEventKind k, std::uint32_t rank, std::int64_t line, std::string text)
    {
        const auto& r = *m_rec;
        out.facts.push_back({ k, rank, r.seq, r.pg, r.op, std::move(text), line });
    }
    void warn(std::int64_t n, std::string message) { out.warnings.push_back({ m_file, n, -1, std::move(message) }); }
    std::optional<std::int64_t> seqAfter(LineScan& s, std::int64_t n, std::string_view anchor)
    {
        s.skipSpaces();
        s.lit("sequence number:");
        s.skipSpaces();
        auto seq = s.number<std::int64_t>();
        if (!seq) {
            warn(n, "expected a sequence number after \"" + std::string(anchor) + "\"");
        }
        return seq;
    }

    std::string m_file;
    std::optional<Record> m_rec;
    bool m_any = false;
};

void Reader::open(const AnchorHit& a, std::string_view l, std::int64_t n)
{
    LineScan s(l, a.rest);
    if (a.kind == Anchor::CannotDecide) { // "... missed FR dumps from ranks ({1, 3}) so ...": no record follows
        if (!s.skipPast("from ranks (")) {
            warn(n, "expected \"missed FR dumps from ranks ({...})\" after \"" + std::string(kCannotDecide) + "\"");
            return;
        }
        for (const auto r :
            ranks(l, s.pos(), n, "missed FR dumps from ranks (").value_or(std::vector<std::uint32_t> {})) {
            out.facts.push_back({ LogEventKind::AnalyzerNoDump, r, -1, {}, {},
                "no Flight Recorder dump from this rank: fr_trace could not decide", n });
        }
        return;
    }
    m_rec = Record {};
    auto& r = *m_rec;
    r.kind = a.kind;
    r.line = n;
    if (a.kind == Anchor::NotAllJoined) {
        s.skipSpaces();
        if (s.lit("for group ")) { // the oldest wording: one line with the group, the collective and the ranks
            r.pg = std::string(s.until(" "));
            s.skipSpaces();
            if (s.lit("collective ")) {
                r.op = std::string(s.until(" "));
            }
            if (s.skipPast("Missing ranks are ")) {
                r.missing = ranks(l, s.pos(), n, "Missing ranks are");
                r.missingLine = n;
            }
            return;
        }
        if (!s.lit(",")) {
            s.lit(":");
        }
    }
    r.seq = seqAfter(s, n,
        a.kind == Anchor::NotAllJoined       ? kNotAllJoined
            : a.kind == Anchor::SizeMismatch ? kSizeMismatch
                                             : kHasErrors)
                .value_or(-1);
}

void Reader::field(Field f, std::string_view l, std::size_t at, std::int64_t n)
{
    auto& r = *m_rec;
    LineScan s(l, at);
    s.skipSpaces();
    switch (f) {
    case Field::Group:
        r.pg = valueText(l, at);
        break;
    case Field::Collective:
        r.op = valueText(l, at);
        break;
    case Field::Missing:
        r.missing = ranks(l, at, n, "missing ranks:");
        r.missingLine = n;
        break;
    case Field::InNumel:
    case Field::OutNumel:
        if (const auto v = s.number<std::int64_t>()) {
            (f == Field::InNumel ? r.inNumel : r.outNumel) = *v;
        } else {
            warn(n,
                "expected a number after \"total " + std::string(f == Field::InNumel ? "input" : "output")
                    + " numel:\"");
        }
        break;
    case Field::InSizes:
        r.inSizes = valueText(l, at);
        break;
    case Field::OutSizes:
        r.outSizes = valueText(l, at);
        break;
    case Field::Expected:
        if (s.peek() == '{') { // a count in the middle wording: nothing to read
            ranks(l, at, n, "expected ranks:");
        }
        break;
    case Field::State:
        r.state = valueText(l, at);
        break;
    case Field::ErrorMsg:
        r.sawError = true;
        r.errorLine = n;
        readCulprits(l.substr(at), n);
        break;
    case Field::StackTrace:
        r.inTrace = true;
        break;
    case Field::Other:
        break;
    }
}

// "Culprit rank 2; Error type: ..., Culprit rank 6; Error type: ...": each culprit and what was wrong with it.
void Reader::readCulprits(std::string_view value, std::int64_t n)
{
    auto at = keyAt(value, kCulprit);
    if (at == std::string_view::npos) {
        warn(n, "expected \"Culprit rank N; Error type: ...\" in the error message");
        return;
    }
    while (at != std::string_view::npos) {
        const auto from = at + kCulprit.size();
        const auto next = keyAt(value.substr(from), kCulprit);
        const auto piece = value.substr(from, next == std::string_view::npos ? std::string_view::npos : next);
        at = next == std::string_view::npos ? next : from + next;
        LineScan s(piece);
        const auto rank = s.number<std::uint64_t>();
        if (!rank) {
            warn(n, "expected a rank after \"Culprit rank\"");
            continue;
        }
        if (*rank >= JobInfo::kMaxWorldSize) {
            warn(n,
                "culprit rank " + std::to_string(*rank) + " is past the largest job Stallscope opens ("
                    + std::to_string(JobInfo::kMaxWorldSize) + " ranks): left out");
            continue;
        }
        s.lit(";");
        const auto r = static_cast<std::uint32_t>(*rank);
        out.topRank = std::max(out.topRank.value_or(0), r);
        m_rec->culprits.emplace_back(r, errorText(s.rest()));
    }
}

// A Python set of ranks as printed: "{3, 5}", "set()". Ranks no job has are counted and left out; a line cut at
// TextLines' limit keeps the ranks before the cut (the cut is reported once for the file).
std::optional<std::vector<std::uint32_t>> Reader::ranks(
    std::string_view l, std::size_t at, std::int64_t n, std::string_view what)
{
    LineScan s(l, at);
    s.skipSpaces();
    std::vector<std::uint32_t> got;
    const auto damaged = [&] {
        warn(n, "expected a set of ranks such as {3, 5} after \"" + std::string(what) + "\"");
        return std::nullopt;
    };
    if (s.lit("set()")) {
        return got;
    }
    if (!s.lit("{")) {
        return damaged();
    }
    const bool cut = l.size() >= TextLines::kMaxLineBytes;
    std::size_t beyond = 0;
    for (bool done = false; !done;) {
        s.skipSpaces();
        if (s.lit("}")) {
            break;
        }
        const auto r = s.number<std::uint64_t>();
        if (!r) {
            if (s.atEnd() && cut) {
                break;
            }
            return damaged();
        }
        if (*r >= JobInfo::kMaxWorldSize) {
            ++beyond;
        } else {
            got.push_back(static_cast<std::uint32_t>(*r));
        }
        s.skipSpaces();
        done = s.lit("}") || (s.atEnd() && cut);
        if (!done && !s.lit(",")) {
            return damaged();
        }
    }
    if (beyond > 0) {
        warn(n,
            std::to_string(beyond) + " rank(s) after \"" + std::string(what)
                + "\" are past the largest job Stallscope opens (" + std::to_string(JobInfo::kMaxWorldSize)
                + " ranks): left out");
    }
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    if (!got.empty()) {
        out.topRank = std::max(out.topRank.value_or(0), got.back());
    }
    return got;
}

// The record's facts: one per rank it names.
void Reader::close()
{
    if (!m_rec) {
        return;
    }
    const auto& r = *m_rec;
    switch (r.kind) {
    case Anchor::NotAllJoined:
        if (!r.missing) {
            warn(r.line, "expected a \"missing ranks: {...}\" line after \"" + std::string(kNotAllJoined) + "\"");
        }
        for (const auto rank : r.missing.value_or(std::vector<std::uint32_t> {})) {
            fact(LogEventKind::AnalyzerMissingRank, rank, r.missingLine,
                "never joined" + (r.state.empty() ? std::string() : "; state where joined: " + r.state));
        }
        break;
    case Anchor::HasErrors:
        if (!r.sawError) {
            warn(r.line, "expected an \"error msg: Culprit rank N; ...\" line after the collective's errors");
        }
        for (const auto& [rank, text] : r.culprits) {
            fact(LogEventKind::AnalyzerMismatch, rank, r.errorLine, text);
        }
        break;
    case Anchor::SizeMismatch: // fr_trace cannot tell which rank of an all-to-all is wrong: no rank
        fact(LogEventKind::AnalyzerMismatch, kNoRank, r.line,
            r.inNumel >= 0 || r.outNumel >= 0
                ? "SIZE_OR_SYNTAX_MISMATCH, total input numel " + std::to_string(r.inNumel)
                    + " does not match total output numel " + std::to_string(r.outNumel)
                : clipped("SIZE_OR_SYNTAX_MISMATCH, input sizes " + r.inSizes + ", output sizes " + r.outSizes));
        break;
    case Anchor::CannotDecide:
        break;
    }
    m_rec.reset();
}

} // namespace

bool looksLikeFrTraceText(const std::string& text)
{
    if (findText(text, kCannotDecide) != std::string::npos
        && findText(text, "missed FR dumps from ranks") != std::string::npos) {
        return true;
    }
    const auto hasField = [](std::string_view l) {
        for (const std::string_view key : { "group info:", "collective:", "missing ranks:", "expected ranks:" }) {
            if (keyAt(l, key) != std::string_view::npos) {
                return true;
            }
        }
        return false;
    };
    const std::string_view all(text);
    // A line as the recogniser looks at it: no longer than a line reader reads.
    const auto lineFrom = [&](std::size_t from) {
        const auto end = all.find('\n', from);
        return all.substr(
            from, std::min(end == std::string_view::npos ? all.size() : end, from + TextLines::kMaxLineBytes) - from);
    };
    constexpr int kLooks = 64; // occurrences of each anchor looked at: enough for any real output
    for (const std::string_view anchor : { kNotAllJoined, kHasErrors, kSizeMismatch, std::string_view(" at entry ") }) {
        auto pos = findText(all, anchor);
        for (int k = 0; k < kLooks && pos != std::string_view::npos; ++k, pos = findText(all, anchor, pos + 1)) {
            const auto start = all.rfind('\n', pos);
            const auto own = lineFrom(start == std::string_view::npos ? 0 : start + 1);
            if (anchor == kNotAllJoined && own.find("Missing ranks are {") != std::string_view::npos) {
                return true;
            }
            auto next = all.find('\n', pos);
            for (int i = 0; i < 4 && next != std::string_view::npos; ++i) {
                const auto l = lineFrom(next + 1);
                if (hasField(l)) {
                    return true;
                }
                next = all.find('\n', next + 1);
            }
        }
    }
    return false;
}

Result<FrTraceText> parseFrTraceText(const std::string& file, const std::string& text)
{
    Reader r(file);
    // The reader's warnings go where readLines holds them to WarningCap's share: a file of damaged records cannot
    // grow them without bound.
    readLines(text, file, r.out.warnings, [&](const std::string& l, std::int64_t n) { r.line(l, n); });
    r.close();
    if (!r.any()) {
        return LoadIssue {
            file, 0, -1,
            "no Flight Recorder analyzer (fr_trace) record found: expected a line such as \""
                + std::string(kNotAllJoined)
                + ", sequence number: N\" followed by its \"group info:\", \"collective:\" and \"missing ranks:\" lines"
        };
    }
    return std::move(r.out);
}

} // namespace stallscope
