// SPDX-License-Identifier: MIT
// The shard file (shard_codec.h): writing, and reading it back with every field checked.
#include "import/folder/shard_codec.h"

#include "import/flight_recorder/flight_recorder_glue.h"
#include "import/kineto/kineto_glue.h"
#include "import/kineto/kineto_trace.h"

#include <zlib.h>

#include <cstring>
#include <map>

namespace stallscope::folder {

namespace {

constexpr std::string_view kMagic = "STALLSCOPE SHARD";
constexpr std::uint32_t kVersion = 1;

enum class Kind { None, Records, Trace };

Kind kindOf(const Format& f)
{
    if (f.parse == parsePickleDump || f.parse == parseJsonDump) {
        return Kind::Records; // Result<RankRecords>
    }
    return f.parse == parseTrace ? Kind::Trace : Kind::None; // Result<KinetoTrace>
}

std::uint32_t crcOf(std::string_view bytes)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (std::size_t at = 0; at < bytes.size();) { // zlib takes 32-bit lengths
        const auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, 1u << 30));
        crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), n);
        at += n;
    }
    return static_cast<std::uint32_t>(crc);
}

class Writer
{
public:
    std::string out;
    template <typename T> void put(T v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(std::string_view s)
    {
        put(static_cast<std::uint32_t>(s.size()));
        out.append(s);
    }
    void issue(const LoadIssue& i)
    {
        str(i.file);
        put(i.line);
        put(i.offset);
        str(i.message);
    }
    void records(const RankRecords& r);
};

void Writer::records(const RankRecords& r)
{
    put<std::uint8_t>(r.rank.has_value());
    put<std::uint32_t>(r.rank.value_or(0));
    str(r.version);
    put(static_cast<std::uint32_t>(r.groups.size()));
    for (const auto& [key, g] : r.groups) {
        str(key);
        str(g.desc);
        put(static_cast<std::uint32_t>(g.ranks.size()));
        out.append(reinterpret_cast<const char*>(g.ranks.data()), g.ranks.size() * sizeof(std::uint32_t));
    }
    put(static_cast<std::uint32_t>(r.pgStatus.size()));
    for (const auto& [key, s] : r.pgStatus) {
        str(key);
        put(s.lastEnqueued);
        put(s.lastStarted);
        put(s.lastCompleted);
    }
    std::map<std::string_view, std::uint32_t> pgs; // each entry names its group by index: 2,000 entries, 2 groups
    std::vector<std::string_view> table;
    for (const auto& e : r.entries) {
        if (pgs.emplace(e.pg, static_cast<std::uint32_t>(table.size())).second) {
            table.push_back(e.pg);
        }
    }
    put(static_cast<std::uint32_t>(table.size()));
    for (const auto pg : table) {
        str(pg);
    }
    put(static_cast<std::uint64_t>(r.entries.size()));
    for (const auto& e : r.entries) {
        put(pgs.at(e.pg));
        put(e.seq);
        put(static_cast<std::uint8_t>(e.op));
        put(static_cast<std::uint8_t>(e.state));
        put(e.bytes);
        put(e.enqueueNs);
        put(e.startNs);
        put(e.endNs);
    }
    put(static_cast<std::uint64_t>(r.p2pSkipped));
    put<std::uint8_t>(r.seqFromOrder);
    put(static_cast<std::uint32_t>(r.warnings.size()));
    for (const auto& w : r.warnings) {
        issue(w);
    }
}

// Reads fields in order; the first that does not fit the bytes left (or holds an impossible value) stops it with
// `error` set, naming the byte offset. Later calls then return zeros and do nothing.
class Reader
{
public:
    Reader(std::string_view bytes)
        : m_bytes(bytes)
    {
    }
    std::string error;
    std::size_t errorAt = 0;
    bool ok() const { return error.empty(); }
    std::size_t left() const { return m_bytes.size() - m_at; }

    void fail(const std::string& what)
    {
        if (ok()) {
            error = what;
            errorAt = m_at;
        }
    }
    template <typename T> T get()
    {
        T v {};
        if (!ok() || left() < sizeof v) {
            fail("ends early");
            return T {};
        }
        std::memcpy(&v, m_bytes.data() + m_at, sizeof v);
        m_at += sizeof v;
        return v;
    }
    // A count of items of at least `minBytes` each, checked against the bytes left before anything is sized by it.
    std::uint64_t count(std::size_t minBytes)
    {
        const auto n = get<std::uint64_t>();
        if (ok() && n > left() / minBytes) {
            fail("a count of " + std::to_string(n) + " is more than the file holds");
            return 0;
        }
        return n;
    }
    std::uint32_t count32(std::size_t minBytes)
    {
        const auto n = get<std::uint32_t>();
        if (ok() && n > left() / minBytes) {
            fail("a count of " + std::to_string(n) + " is more than the file holds");
            return 0;
        }
        return n;
    }
    std::string str()
    {
        const auto n = count32(1);
        std::string s(ok() ? m_bytes.substr(m_at, n) : std::string_view());
        m_at += ok() ? n : 0;
        return s;
    }
    LoadIssue issue()
    {
        LoadIssue i;
        i.file = str();
        i.line = get<std::int64_t>();
        i.offset = get<std::int64_t>();
        i.message = str();
        return i;
    }
    RankRecords records();

private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
};

RankRecords Reader::records()
{
    RankRecords r;
    const bool hasRank = get<std::uint8_t>() != 0;
    const auto rank = get<std::uint32_t>();
    r.rank = hasRank ? std::optional(rank) : std::nullopt;
    r.version = str();
    for (auto n = count32(12); n > 0 && ok(); --n) {
        auto key = str();
        auto& g = r.groups[key];
        g.desc = str();
        g.ranks.resize(count32(sizeof(std::uint32_t)));
        for (auto& m : g.ranks) {
            m = get<std::uint32_t>();
        }
    }
    for (auto n = count32(28); n > 0 && ok(); --n) {
        auto& s = r.pgStatus[str()];
        s.lastEnqueued = get<std::int64_t>();
        s.lastStarted = get<std::int64_t>();
        s.lastCompleted = get<std::int64_t>();
    }
    std::vector<std::string> table(count32(4));
    for (auto& pg : table) {
        pg = str();
    }
    constexpr std::size_t kEntryBytes = 4 + 4 + 1 + 1 + 8 + 3 * 8;
    r.entries.resize(count(kEntryBytes));
    for (auto& e : r.entries) {
        const auto pg = get<std::uint32_t>();
        e.pg = pg < table.size() ? table[pg] : std::string();
        e.seq = get<std::uint32_t>();
        const auto op = get<std::uint8_t>(), state = get<std::uint8_t>();
        if (pg >= table.size() || op > static_cast<std::uint8_t>(CollectiveOp::Other)
            || state >= kCollectiveStateCount) {
            fail("a collective record out of range");
            break;
        }
        e.op = static_cast<CollectiveOp>(op);
        e.state = static_cast<CollectiveState>(state);
        e.bytes = get<std::uint64_t>();
        e.enqueueNs = get<TimeNs>();
        e.startNs = get<TimeNs>();
        e.endNs = get<TimeNs>();
    }
    r.p2pSkipped = get<std::uint64_t>();
    r.seqFromOrder = get<std::uint8_t>() != 0;
    r.warnings.resize(count32(8 + 16 + 4));
    for (auto& w : r.warnings) {
        w = issue();
    }
    return r;
}

const Format* formatNamed(const std::string& name)
{
    for (const auto& f : formats()) {
        if (name == f.name && kindOf(f) != Kind::None) {
            return &f;
        }
    }
    return nullptr;
}

void encodeEntry(Writer& w, const ShardEntry& e)
{
    w.str(e.path);
    w.put(e.size);
    w.put(e.modified);
    w.str(e.file.format->name);
    w.put(e.file.zeros.head);
    w.put(e.file.zeros.tail);
    if (kindOf(*e.file.format) == Kind::Records) {
        const auto& d = std::any_cast<const Result<RankRecords>&>(e.file.parsed);
        w.put<std::uint8_t>(d.ok());
        d ? w.records(d.value()) : w.issue(d.error());
        return;
    }
    const auto& t = std::any_cast<const Result<KinetoTrace>&>(e.file.parsed);
    w.put<std::uint8_t>(t.ok());
    if (!t) {
        w.issue(t.error());
        return;
    }
    w.put<std::uint8_t>(t->rank.has_value());
    w.put<std::uint32_t>(t->rank.value_or(0));
    w.put(t->worldSize);
    w.put(static_cast<std::uint64_t>(t->kernels));
    w.records(t->collectives);
}

std::optional<ShardEntry> decodeEntry(Reader& r)
{
    ShardEntry e;
    e.path = r.str();
    e.size = r.get<std::uint64_t>();
    e.modified = r.get<TimeNs>();
    const auto name = r.str();
    e.file.format = formatNamed(name);
    if (r.ok() && !e.file.format) {
        r.fail("\"" + name + "\" is no format a shard keeps");
    }
    e.file.zeros.head = r.get<std::uint64_t>();
    e.file.zeros.tail = r.get<std::uint64_t>();
    const bool ok = r.get<std::uint8_t>() != 0;
    if (!r.ok()) {
        return std::nullopt;
    }
    if (kindOf(*e.file.format) == Kind::Records) {
        e.file.parsed = ok ? Result<RankRecords>(r.records()) : Result<RankRecords>(r.issue());
    } else if (!ok) {
        e.file.parsed = Result<KinetoTrace>(r.issue());
    } else {
        KinetoTrace t;
        const bool hasRank = r.get<std::uint8_t>() != 0;
        const auto rank = r.get<std::uint32_t>();
        t.rank = hasRank ? std::optional(rank) : std::nullopt;
        t.worldSize = r.get<std::uint32_t>();
        t.kernels = r.get<std::uint64_t>();
        t.collectives = r.records();
        e.file.parsed = Result<KinetoTrace>(std::move(t));
    }
    return r.ok() ? std::optional(std::move(e)) : std::nullopt;
}

} // namespace

bool keptInShard(const Format& format)
{
    return kindOf(format) != Kind::None;
}

std::string encodeShard(const ShardHeader& header, const std::vector<ShardEntry>& entries)
{
    Writer w;
    w.out.append(kMagic);
    w.put(kVersion);
    w.put(header.index);
    w.put(header.count);
    w.str(header.dir);
    w.put(header.fingerprint);
    w.put(header.folderFiles);
    w.put(static_cast<std::uint32_t>(entries.size()));
    for (const auto& e : entries) {
        encodeEntry(w, e);
    }
    w.put(crcOf(w.out));
    return std::move(w.out);
}

Result<DecodedShard> decodeShard(const std::string& file, const std::string& bytes)
{
    if (bytes.compare(0, kMagic.size(), kMagic) != 0) {
        return LoadIssue { file, 0, -1,
            "not a Stallscope shard (one is written by `stallscope convert RAW_FOLDER --shard K/N --out FILE`)" };
    }
    std::uint32_t crc = 0;
    if (bytes.size() >= kMagic.size() + sizeof kVersion + sizeof crc) {
        std::memcpy(&crc, bytes.data() + bytes.size() - sizeof crc, sizeof crc);
    }
    Reader r(std::string_view(bytes).substr(kMagic.size()));
    if (const auto version = r.get<std::uint32_t>(); r.ok() && version != kVersion) {
        return LoadIssue { file, 0, -1,
            "a shard of version " + std::to_string(version) + ", this Stallscope reads version "
                + std::to_string(kVersion) + ": write the shards again with this version's convert --shard" };
    }
    if (bytes.size() < kMagic.size() + sizeof kVersion + sizeof crc
        || crcOf(std::string_view(bytes).substr(0, bytes.size() - sizeof crc)) != crc) {
        return LoadIssue { file, 0, -1,
            "damaged shard (cut short or changed since it was written: its checksum does not match): write it "
            "again with convert --shard" };
    }
    DecodedShard d;
    d.header.index = r.get<std::uint32_t>();
    d.header.count = r.get<std::uint32_t>();
    d.header.dir = r.str();
    d.header.fingerprint = r.get<std::uint64_t>();
    d.header.folderFiles = r.get<std::uint64_t>();
    for (auto n = r.count32(64); n > 0 && r.ok(); --n) {
        if (auto e = decodeEntry(r)) {
            d.entries.push_back(std::move(*e));
        }
    }
    if (r.ok() && r.left() != sizeof crc) {
        r.fail("bytes after the last entry");
    }
    if (!r.ok()) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(kMagic.size() + r.errorAt), "damaged shard: " + r.error };
    }
    return d;
}

} // namespace stallscope::folder
