// SPDX-License-Identifier: MIT
#include "import/flight_recorder/flight_recorder.h"
#include "core/json_depth.h"
#include "core/json_number.h"
#include "import/common/line_scan.h"

#include "core/parse_number.h"
#include "core/warning_cap.h"
#include "import/flight_recorder/entry_semantics.h"
#include "import/flight_recorder/pickle_reader.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace stallscope {

// What marks a dump (see looksLikeFlightRecorder*).
namespace {
constexpr unsigned char kPickleProto = 0x80;
constexpr const char* kJsonKeys[] = { "\"version\"", "\"entries\"", "\"pg_config\"" };
constexpr const char* kJsonLinesKey = "\"collective_seq_id\"";
} // namespace

bool looksLikeFlightRecorderPickle(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == kPickleProto && bytes[1] >= 2 && bytes[1] <= 5;
}

bool looksLikeFlightRecorderJson(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] != '{') {
        return false;
    }
    if (findText(text, kJsonKeys[0]) != std::string::npos
        && (findText(text, kJsonKeys[1]) != std::string::npos || findText(text, kJsonKeys[2]) != std::string::npos)) {
        return true;
    }
    return findText(text, kJsonLinesKey) < text.find('\n', first); // JSON lines, one entry a line
}

namespace {

// Times: an int (ns), or 0 / null when not observed.
TimeNs optTime(const nlohmann::json& e, const char* key)
{
    if (!e.contains(key) || e[key].is_null()) {
        return kNoTime;
    }
    const auto v = jsonNumber<std::int64_t>(e[key]);
    return v == 0 ? kNoTime : v;
}

} // namespace

namespace fr_detail {

// Shared semantics of every front end: p2p skipped, bytes = elements × dtype size, retired-not-completed =
// timed out, entries without a creation time skipped with a warning.
void finishEntry(const RawEntry& r, std::size_t index, const std::string& file, RankRecords& d)
{
    const auto where = "entry " + std::to_string(index);
    if (r.p2p) {
        ++d.p2pSkipped;
        return;
    }
    if (!r.seq || *r.seq < 0) {
        d.warnings.push_back({ file, 0, -1, where + " has no collective_seq_id: skipped" });
        return;
    }
    if (r.created == kNoTime) {
        d.warnings.push_back({ file, 0, -1, where + " has no time_created_ns: skipped" });
        return;
    }
    RankRecord fe;
    fe.pg = r.pg;
    fe.seq = static_cast<std::uint32_t>(*r.seq);
    fe.op = opFromProfilingName(r.profilingName);
    if (r.sizes) {
        std::uint64_t elems = 1;
        for (auto dim : *r.sizes) {
            elems *= dim;
        }
        const auto width = dtypeBytes(r.dtype);
        if (width == 0 && !r.dtype.empty()) {
            d.warnings.push_back({ file, 0, -1, where + ": unknown dtype " + r.dtype + ", bytes counted as elements" });
        }
        fe.bytes = elems * (width == 0 ? 1 : width);
    }
    fe.enqueueNs = r.created;
    fe.startNs = r.started;
    fe.endNs = r.completed;
    fe.state = r.state == "completed" ? CollectiveState::Completed
        : r.state == "started"        ? CollectiveState::Started
                                      : CollectiveState::Scheduled;
    if (fe.state != CollectiveState::Completed && r.retired) {
        fe.state = CollectiveState::TimedOut; // retired but not completed = timed out (docs/formats.md §1b)
    }
    d.entries.push_back(fe);
}

} // namespace fr_detail

namespace {

using namespace fr_detail;

RawEntry rawFromJson(const nlohmann::json& e)
{
    RawEntry r;
    r.p2p = e.value("is_p2p", false);
    const auto pg = e.find("process_group");
    r.pg = pg != e.end() && pg->is_array() && !pg->empty()
        ? (*pg)[0].get<std::string>()
        : std::to_string(jsonNumber<std::int64_t>(e.value("pg_id", nlohmann::json(0))));
    const auto seq = e.contains("collective_seq_id") ? e.find("collective_seq_id") : e.find("seq_id");
    if (seq != e.end() && seq->is_number_integer()) {
        r.seq = jsonNumber<std::int64_t>(*seq);
    }
    r.profilingName = e.value("profiling_name", std::string());
    const auto sizes = e.find("input_sizes");
    if (sizes != e.end() && !sizes->is_null() && !sizes->is_array()) {
        throw std::invalid_argument("input_sizes is not a list of shapes");
    }
    if (sizes != e.end() && sizes->is_array() && !sizes->empty()) {
        if (!(*sizes)[0].is_array()) {
            throw std::invalid_argument("input_sizes[0] is not a shape");
        }
        std::vector<std::uint64_t> dims;
        for (const auto& d : (*sizes)[0]) {
            dims.push_back(jsonNumber<std::uint64_t>(d));
        }
        r.sizes = std::move(dims);
    }
    const auto dtypes = e.find("input_dtypes");
    if (dtypes != e.end() && dtypes->is_array() && !dtypes->empty()) {
        r.dtype = (*dtypes)[0].get<std::string>();
    }
    r.created = optTime(e, "time_created_ns");
    r.started = optTime(e, "time_discovered_started_ns");
    r.completed = optTime(e, "time_discovered_completed_ns");
    r.state = e.value("state", std::string("scheduled"));
    r.retired = e.value("retired", false);
    return r;
}

} // namespace

Result<RankRecords> parseFlightRecorderJsonLines(const std::string& file, const std::string& text)
{
    RankRecords d;
    d.rank = rankFromFileName(file);
    d.version = "json-lines";
    std::size_t pos = 0, index = 0;
    std::int64_t lineNo = 0;
    WarningCap cap(d.warnings);
    for (; pos < text.size(); cap.trim()) {
        const auto end = std::min(text.find('\n', pos), text.size());
        const auto line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        try {
            // Parsed without exceptions first: a file of bad lines threw one per line (over 1 s per MB); only the
            // lines whose warning is kept are parsed again for nlohmann's account of what is wrong.
            const auto e = jsonTooDeepAt(line) == std::string_view::npos
                ? nlohmann::json::parse(line, nullptr, false)
                : nlohmann::json(nlohmann::json::value_t::discarded);
            if (e.is_discarded()) {
                if (cap.full()) {
                    cap.count();
                    continue;
                }
                [[maybe_unused]] const auto again = parseJsonFile(line); // throws the error reported below
            }
            if (!e.is_object()) { // JSON, but no entry: said without a type_error thrown per line ("1" lines: 3 s per
                                  // MB)
                if (cap.full()) {
                    cap.count();
                } else {
                    d.warnings.push_back({ file, lineNo, -1,
                        "expected one Flight Recorder entry as a JSON object, got another JSON value: line skipped" });
                }
                continue;
            }
            if (e.contains("rank") && e["rank"].is_number_integer() && !d.rank) {
                d.rank = jsonNumber<std::uint32_t>(e["rank"]);
            }
            finishEntry(rawFromJson(e), index++, file, d);
        } catch (const std::exception& e) {
            d.warnings.push_back({ file, lineNo, -1,
                std::string("expected one Flight Recorder entry as a JSON object: ") + e.what() + ": line skipped" });
        }
    }
    cap.finish(file);
    return d;
}

namespace {

using namespace fr_detail;

// Pickle front end: the same fields from the PickleDoc (tuples for process_group, None for missing times),
// read in one pass over each entry's items.
class PickleEntries
{
public:
    explicit PickleEntries(const PickleDoc& doc)
        : m_doc(doc)
    {
    }
    using Id = PickleDoc::Id;
    using T = PickleDoc::Type;

    std::optional<std::int64_t> integer(Id id) const
    {
        const auto t = m_doc.type(id);
        return t == T::Int || t == T::Bool ? std::optional<std::int64_t>(m_doc.integer(id)) : std::nullopt;
    }
    std::string string(Id id) const { return m_doc.type(id) == T::Str ? std::string(m_doc.str(id)) : std::string(); }
    std::string string(Id dict, std::string_view key) const
    {
        const auto id = m_doc.get(dict, key);
        return id ? string(*id) : std::string();
    }
    TimeNs time(Id id) const
    {
        const auto v = integer(id);
        return !v || *v == 0 ? kNoTime : *v;
    }
    std::string firstString(Id list) const
    {
        const auto f = m_doc.first(list);
        return f ? string(*f) : std::string();
    }

    RawEntry raw(Id e) const
    {
        RawEntry r;
        std::optional<std::int64_t> pgId, seqId;
        Id key = 0;
        bool haveKey = false; // items alternate key, value
        m_doc.forEachItem(e, [&](Id x) {
            if (!haveKey) {
                key = x;
                haveKey = true;
                return true;
            }
            const auto k = m_doc.type(key) == T::Str ? m_doc.str(key) : std::string_view();
            haveKey = false;
            switch (k.size()) { // dispatch on length first: most keys differ in it
            case 5:
                if (k == "state") {
                    r.state = string(x);
                }
                break;
            case 5 + 1:
                if (k == "is_p2p") {
                    r.p2p = integer(x).value_or(0) != 0;
                } else if (k == "seq_id") {
                    seqId = integer(x);
                }
                break;
            case 7:
                if (k == "retired") {
                    r.retired = integer(x).value_or(0) != 0;
                }
                break;
            default:
                if (k == "pg_id") {
                    pgId = integer(x);
                } else if (k == "process_group") {
                    r.pg = firstString(x);
                } else if (k == "collective_seq_id") {
                    r.seq = integer(x);
                } else if (k == "profiling_name") {
                    r.profilingName = string(x);
                } else if (k == "input_sizes") {
                    if (const auto shape = m_doc.first(x)) {
                        std::vector<std::uint64_t> dims;
                        m_doc.forEachItem(*shape, [&](Id dim) {
                            dims.push_back(
                                m_doc.type(dim) == T::Int ? static_cast<std::uint64_t>(m_doc.integer(dim)) : 0);
                            return true;
                        });
                        r.sizes = std::move(dims);
                    }
                } else if (k == "input_dtypes") {
                    r.dtype = firstString(x);
                } else if (k == "time_created_ns") {
                    r.created = time(x);
                } else if (k == "time_discovered_started_ns") {
                    r.started = time(x);
                } else if (k == "time_discovered_completed_ns") {
                    r.completed = time(x);
                }
            }
            return true;
        });
        if (!r.seq) {
            r.seq = seqId;
        }
        if (r.pg.empty()) {
            r.pg = std::to_string(pgId.value_or(0));
        }
        return r;
    }

private:
    const PickleDoc& m_doc;
};

} // namespace

Result<RankRecords> parseFlightRecorderPickle(const std::string& file, std::string_view bytes)
{
    if (auto fast = fr_detail::parseFlightRecorderPickleStream(file, bytes)) {
        return std::move(*fast);
    }
    return fr_detail::parseFlightRecorderPickleTree(file, bytes);
}

Result<RankRecords> fr_detail::parseFlightRecorderPickleTree(const std::string& file, std::string_view bytes)
{
    thread_local PickleDoc doc; // arenas reused across the per-rank files this thread reads
    if (auto err = parsePickleInto(file, bytes, doc)) {
        return *err;
    }
    const PickleDoc& p = doc;
    using T = PickleDoc::Type;
    if (p.type(p.root()) != T::Dict || !p.get(p.root(), "version")) {
        return LoadIssue { file, 0, -1, "expected a Flight Recorder dump: a dict with \"version\"" };
    }
    RankRecords d;
    d.rank = rankFromFileName(file);
    const PickleEntries pe(p);
    d.version = pe.string(p.root(), "version");
    if (const auto cfg = p.get(p.root(), "pg_config"); cfg && p.type(*cfg) == T::Dict) {
        const auto kv = p.items(*cfg);
        for (std::size_t k = 0; k + 1 < kv.size(); k += 2) {
            if (p.type(kv[k]) != T::Str) {
                continue;
            }
            GroupInfo group;
            group.desc = pe.string(kv[k + 1], "desc");
            if (const auto ranks = p.get(kv[k + 1], "ranks"); ranks && p.type(*ranks) == T::Str) {
                group.ranks = parseRanks(std::string(p.str(*ranks)));
            } else if (ranks) {
                p.forEachItem(*ranks, [&](PickleDoc::Id r) {
                    if (p.type(r) == T::Int && p.integer(r) >= 0) {
                        group.ranks.push_back(static_cast<std::uint32_t>(p.integer(r)));
                    }
                    return true;
                });
            }
            d.groups[std::string(p.str(kv[k]))] = std::move(group);
        }
    }
    if (const auto status = p.get(p.root(), "pg_status"); status && p.type(*status) == T::Dict) {
        const auto kv = p.items(*status);
        for (std::size_t k = 0; k + 1 < kv.size(); k += 2) {
            if (p.type(kv[k]) != T::Str || p.type(kv[k + 1]) != T::Dict) {
                continue;
            }
            auto loose = [&](const char* key) -> std::int64_t {
                const auto v = p.get(kv[k + 1], key);
                if (!v) {
                    return -1;
                }
                if (p.type(*v) == T::Int) {
                    return p.integer(*v);
                }
                return p.type(*v) == T::Str ? parseNumber<std::int64_t>(p.str(*v)).value_or(-1) : -1;
            };
            d.pgStatus[std::string(p.str(kv[k]))] = { loose("last_enqueued_collective"),
                loose("last_started_collective"), loose("last_completed_collective") };
        }
    }
    if (const auto entries = p.get(p.root(), "entries")) {
        if (p.type(*entries) != T::List) {
            return LoadIssue { file, 0, -1, "\"entries\" is not a list" };
        }
        std::size_t i = 0;
        WarningCap cap(d.warnings);
        p.forEachItem(*entries, [&](PickleDoc::Id e) {
            cap.trim();
            if (p.type(e) != T::Dict) {
                d.warnings.push_back({ file, 0, -1, "entry " + std::to_string(i) + " is not a dict: skipped" });
            } else {
                finishEntry(pe.raw(e), i, file, d);
            }
            ++i;
            return true;
        });
        cap.finish(file);
    }
    if (const auto& cut = p.cut()) {
        const auto where = cut->key.empty() ? std::string("after its last whole key")
                                            : "inside its \"" + std::string(cut->key) + "\"";
        d.warnings.push_back({ file, 0, static_cast<std::int64_t>(cut->at),
            "the dump ends " + where
                + " (cut off while written: the process killed as it dumped, or the disk full?): read the "
                + std::to_string(d.entries.size()) + (d.entries.size() == 1 ? " collective" : " collectives")
                + " before the cut" });
    }
    return d;
}

} // namespace stallscope
