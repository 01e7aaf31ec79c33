// SPDX-License-Identifier: MIT
// The JSON form of Flight Recorder dumps through simdjson On-Demand (a few hundred MB/s per core where a DOM
// parser manages tens; bench/RESULTS.md), one parser per thread reused across files.
#include "import/common/json_cut.h"
#include "import/flight_recorder/entry_semantics.h"

#include "core/parse_number.h"
#include "core/warning_cap.h"

#include <algorithm>

#include <simdjson.h>

namespace stallscope {

namespace {

namespace ond = simdjson::ondemand;
using fr_detail::RawEntry;

struct BadEntry : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

std::string stringOf(ond::value v)
{
    std::string_view s;
    return v.get_string().get(s) ? std::string() : std::string(s);
}

// Times: an int (ns), or 0 / null when not observed.
TimeNs time(ond::value v)
{
    std::int64_t t = 0;
    return v.get_int64().get(t) || t == 0 ? kNoTime : t;
}

bool boolean(ond::value v)
{
    bool b = false;
    return !v.get_bool().get(b) && b;
}

// input_sizes[0]: the first tensor's shape.
std::optional<std::vector<std::uint64_t>> firstShape(ond::value v)
{
    if (v.is_null()) {
        return std::nullopt;
    }
    ond::array shapes;
    if (v.get_array().get(shapes)) {
        throw BadEntry("input_sizes is not a list of shapes");
    }
    for (auto shape : shapes) {
        ond::array dims;
        if (shape.get_array().get(dims)) {
            throw BadEntry("input_sizes holds something that is not a shape");
        }
        std::vector<std::uint64_t> out;
        for (auto dim : dims) {
            std::uint64_t d = 0;
            if (dim.get_uint64().get(d)) {
                throw BadEntry("a dimension in input_sizes is not a non-negative integer");
            }
            out.push_back(d);
        }
        return out; // only the first tensor is used
    }
    return std::nullopt;
}

RawEntry readEntry(ond::object e)
{
    RawEntry r;
    std::optional<std::int64_t> pgId;
    for (auto field : e) {
        std::string_view k;
        ond::value v;
        if (field.unescaped_key().get(k) || field.value().get(v)) {
            throw BadEntry("unreadable field");
        }
        if (k == "is_p2p") {
            r.p2p = boolean(v);
        } else if (k == "process_group") {
            ond::array pg;
            if (!v.get_array().get(pg)) {
                for (auto name : pg) {
                    std::string_view s;
                    if (!name.get_string().get(s)) {
                        r.pg = std::string(s);
                    }
                    break;
                }
            }
        } else if (k == "pg_id") {
            std::int64_t i = 0;
            if (!v.get_int64().get(i)) {
                pgId = i;
            }
        } else if (k == "collective_seq_id" || k == "seq_id") {
            std::int64_t i = 0;
            if (!v.get_int64().get(i) && (k == "collective_seq_id" || !r.seq)) {
                r.seq = i;
            }
        } else if (k == "profiling_name") {
            r.profilingName = stringOf(v);
        } else if (k == "input_sizes") {
            r.sizes = firstShape(v);
        } else if (k == "input_dtypes") {
            ond::array dtypes;
            if (!v.get_array().get(dtypes)) {
                for (auto d : dtypes) {
                    std::string_view s;
                    if (!d.get_string().get(s)) {
                        r.dtype = std::string(s);
                    }
                    break;
                }
            }
        } else if (k == "time_created_ns") {
            r.created = time(v);
        } else if (k == "time_discovered_started_ns") {
            r.started = time(v);
        } else if (k == "time_discovered_completed_ns") {
            r.completed = time(v);
        } else if (k == "state") {
            r.state = stringOf(v);
        } else if (k == "retired") {
            r.retired = boolean(v);
        }
    }
    if (r.pg.empty()) {
        r.pg = std::to_string(pgId.value_or(0));
    }
    return r;
}

void readGroups(ond::object cfg, RankRecords& d)
{
    for (auto field : cfg) {
        std::string_view name;
        ond::object g;
        if (field.unescaped_key().get(name) || field.value().get_object().get(g)) {
            continue;
        }
        const std::string key(name);
        GroupInfo group;
        for (auto f : g) {
            std::string_view k;
            ond::value v;
            if (f.unescaped_key().get(k) || f.value().get(v)) {
                continue;
            }
            if (k == "desc") {
                group.desc = stringOf(v);
            } else if (k == "ranks") {
                group.ranks = parseRanks(stringOf(v));
            }
        }
        d.groups[key] = std::move(group);
    }
}

// An int, or an int in a string (JSON dumps quote pg_status values); -1 otherwise.
std::int64_t looseInt(ond::value v)
{
    std::int64_t i = -1;
    if (!v.get_int64().get(i)) {
        return i;
    }
    std::string_view s;
    if (!v.get_string().get(s)) {
        return parseNumber<std::int64_t>(s).value_or(-1);
    }
    return -1;
}

void readPgStatus(ond::object status, RankRecords& d)
{
    for (auto field : status) {
        std::string_view pg;
        ond::object o;
        if (field.unescaped_key().get(pg) || field.value().get_object().get(o)) {
            continue;
        }
        const std::string key(pg);
        GroupStatus st;
        for (auto f : o) {
            std::string_view k;
            ond::value v;
            if (f.unescaped_key().get(k) || f.value().get(v)) {
                continue;
            }
            if (k == "last_enqueued_collective") {
                st.lastEnqueued = looseInt(v);
            } else if (k == "last_started_collective") {
                st.lastStarted = looseInt(v);
            } else if (k == "last_completed_collective") {
                st.lastCompleted = looseInt(v);
            }
        }
        d.pgStatus[key] = st;
    }
}

LoadIssue invalid(const std::string& file, const std::string& text, ond::document& doc, simdjson::error_code err)
{
    std::int64_t offset = -1;
    const char* at = nullptr;
    if (!doc.current_location().get(at) && at >= text.data() && at <= text.data() + text.size()) {
        offset = at - text.data();
    }
    return LoadIssue { file, 0, offset, std::string("invalid JSON: ") + simdjson::error_message(err) };
}

} // namespace

namespace {

// One walk over a dump's JSON, whole or up to where it was cut.
struct DumpWalk
{
    RankRecords d;
    std::size_t index = 0; // entries seen, for messages
    std::size_t wholeEntries = SIZE_MAX; // walking up to a cut: the entries before it (what follows is no entry)
    bool versionSeen = false;
    std::optional<LoadIssue> failed; // JSON that is wrong, not merely cut (or content no dump holds)
    bool endedEarly = false; // the JSON stops where it cannot (cut off while written?)
};

void readEntries(const std::string& file, ond::array entries, DumpWalk& w)
{
    WarningCap cap(w.d.warnings);
    for (auto item : entries) {
        if (w.index == w.wholeEntries) {
            break; // simdjson yields one more value where the walked bytes stop
        }
        cap.trim();
        ond::object e;
        if (auto err = item.get_object().get(e)) {
            if (err == simdjson::INCORRECT_TYPE) {
                w.d.warnings.push_back(
                    { file, 0, -1, "entry " + std::to_string(w.index++) + " is not an object: skipped" });
                continue;
            }
            throw simdjson::simdjson_error(err);
        }
        const auto raw = readEntry(e); // may throw BadEntry naming `index`
        fr_detail::finishEntry(raw, w.index++, file, w.d);
    }
    cap.finish(file);
}

void walkDump(const std::string& file, const std::string& text, simdjson::padded_string_view view, DumpWalk& w)
{
    thread_local ond::parser parser;
    ond::document doc;
    if (auto err = parser.iterate(view).get(doc)) {
        w.failed = LoadIssue { file, 0, -1, std::string("invalid JSON: ") + simdjson::error_message(err) };
        w.endedEarly = true;
        return;
    }
    try {
        ond::object top;
        if (auto err = doc.get_object().get(top)) {
            throw simdjson::simdjson_error(err);
        }
        for (auto field : top) {
            std::string_view key;
            ond::value v;
            if (auto err = field.unescaped_key().get(key)) {
                throw simdjson::simdjson_error(err);
            }
            if (auto err = field.value().get(v)) {
                throw simdjson::simdjson_error(err);
            }
            if (key == "version") {
                w.versionSeen = true;
                w.d.version = stringOf(v);
            } else if (key == "pg_config") {
                ond::object cfg;
                if (!v.get_object().get(cfg)) {
                    readGroups(cfg, w.d);
                }
            } else if (key == "pg_status") {
                ond::object status;
                if (!v.get_object().get(status)) {
                    readPgStatus(status, w.d);
                }
            } else if (key == "entries") {
                ond::array entries;
                if (v.get_array().get(entries)) {
                    w.failed = LoadIssue { file, 0, -1, "\"entries\" is not a list" };
                    return;
                }
                readEntries(file, entries, w);
            }
        }
        if (!doc.is_alive()) { // stopped right after a nested '}': no error, but the document did not close
            w.failed = LoadIssue { file, 0, static_cast<std::int64_t>(text.size()), "invalid JSON: it stops early" };
            w.endedEarly = true;
        }
    } catch (const BadEntry& e) {
        w.failed = LoadIssue { file, 0, -1,
            "entry " + std::to_string(w.index) + ": unexpected content in a Flight Recorder dump: " + e.what() };
    } catch (const simdjson::simdjson_error& e) {
        w.failed = invalid(file, text, doc, e.error());
        w.endedEarly = true;
    }
}

// A dump whose JSON ended early, walked again up to its last whole entry: the records, with a warning saying where
// it stops; or the error it was when it was not cut inside its entries.
Result<RankRecords> readUpToCut(const std::string& file, const std::string& text, DumpWalk& w)
{
    const auto cut = findJsonArrayCut(text, "entries");
    if (cut.topClosed || !cut.found || cut.wholeRecords == 0) {
        return *w.failed; // not cut, or cut before its first whole entry
    }
    w = DumpWalk {};
    w.d.rank = rankFromFileName(file);
    w.wholeEntries = cut.wholeRecords;
    walkDump(file, text, simdjson::padded_string_view(text.data(), cut.readableEnd, text.capacity()), w);
    if (w.failed && !w.endedEarly) {
        return *w.failed;
    }
    std::string said = "the dump ends " + std::string(cut.closed ? "after" : "inside") + " its \"entries\" at byte "
        + std::to_string(cut.readableEnd) + " of " + std::to_string(text.size())
        + " (cut off while written: the process killed as it dumped, or the disk full?): read the "
        + std::to_string(w.d.entries.size()) + (w.d.entries.size() == 1 ? " collective" : " collectives")
        + " before the cut";
    if (!w.versionSeen) {
        w.versionSeen = true;
        w.d.version = "unknown";
        said += "; its version, groups and status were to come after them (PyTorch's JSON dumps sort their keys), "
                "so each group's members are the ranks that ran it";
    }
    w.d.warnings.push_back({ file, 0, static_cast<std::int64_t>(cut.readableEnd), said });
    return std::move(w.d);
}

} // namespace

Result<RankRecords> parseFlightRecorderJson(const std::string& file, const std::string& input)
{
    // One entry per line, and a file of one line is one entry (a rank that ran a single collective), not a dump
    // without "version": a dump has "entries".
    const auto first = input.find_first_not_of(" \t\r\n");
    const auto firstLineEnd = std::min(input.find('\n', first == std::string::npos ? 0 : first), input.size());
    if (first != std::string::npos && input.compare(first, 1, "{") == 0
        && input.find("\"collective_seq_id\"") < firstLineEnd && input.find("\"entries\"") == std::string::npos) {
        return parseFlightRecorderJsonLines(file, input);
    }
    // simdjson reads up to its padding past the end: callers that read files leave room; copy otherwise.
    std::string copy;
    const bool padded = input.capacity() >= input.size() + simdjson::SIMDJSON_PADDING;
    if (!padded) {
        copy.reserve(input.size() + simdjson::SIMDJSON_PADDING);
        copy = input;
    }
    const std::string& text = padded ? input : copy;
    DumpWalk w;
    w.d.rank = rankFromFileName(file);
    walkDump(file, text, simdjson::padded_string_view(text.data(), text.size(), text.capacity()), w);
    if (w.failed) {
        return w.endedEarly ? readUpToCut(file, text, w) : Result<RankRecords>(*w.failed);
    }
    if (!w.versionSeen) {
        return LoadIssue { file, 0, -1, "expected a Flight Recorder dump: an object with \"version\"" };
    }
    return std::move(w.d);
}

} // namespace stallscope
