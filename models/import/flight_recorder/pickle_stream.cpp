// SPDX-License-Identifier: MIT
// Over 600 lines on purpose: one state machine over the pickle opcodes, whose hot loop, cell stack and key
// classification must sit together to be read (and kept) as the one pass they are; split, each part would
// only make sense beside the others.
// The fast path for Flight Recorder pickles: the same safe opcode subset as import/flight_recorder/pickle_reader.cpp,
// but values live on the machine's stack as 16-byte cells instead of tree nodes, and each dict's items are read into
// the entry fields as SETITEMS lands. Keys are classified once, when their string is first seen (they are memoized and
// come back as BINGET), so matching a key costs a byte compare. Any shape this reader does not expect (a
// needed field that is not where the schema puts it, an opcode outside the subset, a truncation) returns
// nullopt and the caller reads the file with the general reader, which also words the error.
#include "import/flight_recorder/entry_semantics.h"

#include "core/parse_number.h"
#include "core/warning_cap.h"

#include <cstring>

namespace stallscope::fr_detail {

namespace {

enum class Tag : std::uint8_t { None, Bool, Int, Float, Str, Mark, List, Tuple, Dict };

// The keys that matter, recognised once per distinct string.
enum Key : std::uint8_t {
    kOther,
    kVersion,
    kPgConfig,
    kEntries,
    kDesc,
    kRanks,
    kIsP2p,
    kProcessGroup,
    kPgId,
    kCollectiveSeqId,
    kSeqId,
    kProfilingName,
    kInputSizes,
    kInputDtypes,
    kTimeCreated,
    kTimeStarted,
    kTimeCompleted,
    kState,
    kRetired,
    kPgStatus,
    kLastEnqueued,
    kLastStarted,
    kLastCompleted,
};

Key classify(std::string_view s)
{
    static const std::pair<std::string_view, Key> keys[]
        = { { "version", kVersion }, { "pg_config", kPgConfig }, { "entries", kEntries }, { "desc", kDesc },
              { "ranks", kRanks }, { "is_p2p", kIsP2p }, { "process_group", kProcessGroup }, { "pg_id", kPgId },
              { "collective_seq_id", kCollectiveSeqId }, { "seq_id", kSeqId }, { "profiling_name", kProfilingName },
              { "input_sizes", kInputSizes }, { "input_dtypes", kInputDtypes }, { "time_created_ns", kTimeCreated },
              { "time_discovered_started_ns", kTimeStarted }, { "time_discovered_completed_ns", kTimeCompleted },
              { "state", kState }, { "retired", kRetired }, { "pg_status", kPgStatus },
              { "last_enqueued_collective", kLastEnqueued }, { "last_started_collective", kLastStarted },
              { "last_completed_collective", kLastCompleted } };
    if (s.size() < 4 || s.size() > 28) {
        return kOther;
    }
    for (const auto& [name, key] : keys) {
        if (name.size() == s.size() && name == s) {
            return key;
        }
    }
    return kOther;
}

struct Cell
{
    Tag tag = Tag::None;
    Key key = kOther; // Str: the key it names
    std::uint32_t a = 0; // Str: length; containers: slot
    std::int64_t i = 0; // Int/Bool: value; Str: offset
};
static_assert(sizeof(Cell) == 16);

// The fields of one entry, as views into the input until the end.
struct Fields
{
    bool p2p = false, retired = false, hasSizes = false;
    std::optional<std::int64_t> seq, seqId, pgId;
    Cell pg, profilingName, dtype, state;
    std::uint32_t sizesSlot = 0;
    TimeNs created = kNoTime, started = kNoTime, completed = kNoTime;
};

struct Slot
{
    Tag tag = Tag::List;
    std::uint32_t head = 0xffffffffu, tail = 0xffffffffu; // item chunks (lists, tuples)
    std::int32_t fields = -1; // dicts with entry keys: index into m_fields
    std::int32_t group = -1; // dicts with desc/ranks: index into m_groups
};

struct Chunk
{
    std::uint32_t offset = 0, count = 0, next = 0xffffffffu;
};

struct GroupFields
{
    Cell desc, ranks; // pg_config
    Cell lastEnqueued, lastStarted, lastCompleted; // pg_status
};

// Buffers kept per thread and reused from file to file: fresh memory costs more than the parse here.
struct Scratch
{
    std::vector<Cell> stack = std::vector<Cell>(1024);
    std::vector<Cell> memo;
    std::vector<Slot> slots;
    std::vector<Chunk> chunks;
    std::vector<Cell> items;
    std::vector<Fields> fields;
    std::vector<GroupFields> groups;
    std::vector<std::vector<std::pair<Cell, std::uint32_t>>> dictChildren; // per slot: (key, child dict slot)
    std::vector<std::pair<Cell, Cell>> topPairs;

    void clear()
    {
        memo.clear();
        slots.clear();
        chunks.clear();
        items.clear();
        fields.clear();
        groups.clear();
        for (auto& c : dictChildren) {
            c.clear();
        }
        topPairs.clear();
    }
};

class Stream
{
public:
    Stream(std::string_view b, Scratch& scratch)
        : m_b(b)
        , m_stack(scratch.stack)
        , m_memo(scratch.memo)
        , m_slots(scratch.slots)
        , m_chunks(scratch.chunks)
        , m_items(scratch.items)
        , m_fields(scratch.fields)
        , m_groups(scratch.groups)
        , m_dictChildren(scratch.dictChildren)
        , m_topPairs(scratch.topPairs)
    {
        scratch.clear();
    }

    // False: not a shape this reader handles; the caller falls back.
    bool run()
    {
        while (m_pos < m_b.size()) {
            const auto op = static_cast<unsigned char>(m_b[m_pos++]);
            if (op == '.') {
                return m_sp == 1 && m_stack[0].tag == Tag::Dict && (m_root = m_stack[0].a, true);
            }
            if (!step(op)) {
                return false;
            }
        }
        return false;
    }

    std::optional<Result<RankRecords>> finish(const std::string& file)
    {
        RankRecords d;
        d.rank = rankFromFileName(file);
        const auto& root = m_topPairs;
        bool versionSeen = false;
        for (const auto& [k, v] : root) {
            if (k.key == kVersion && v.tag == Tag::Str) {
                d.version = std::string(view(v));
                versionSeen = true;
            } else if (k.key == kVersion) {
                versionSeen = true;
            }
        }
        if (!versionSeen) {
            return std::nullopt; // the general reader says what is wrong
        }
        for (const auto& [k, v] : root) {
            if (k.key == kPgConfig && v.tag == Tag::Dict) {
                if (v.a >= m_dictChildren.size()) {
                    continue;
                }
                for (const auto& [name, g] : m_dictChildren[v.a]) {
                    GroupInfo group;
                    if (const auto gi = m_slots[g].group; gi >= 0) {
                        const auto& gf = m_groups[static_cast<std::size_t>(gi)];
                        group.desc = gf.desc.tag == Tag::Str ? std::string(view(gf.desc)) : std::string();
                        if (gf.ranks.tag != Tag::Str) {
                            return std::nullopt; // ranks as a list: the general reader handles it
                        }
                        group.ranks = parseRanks(std::string(view(gf.ranks)));
                    }
                    d.groups[std::string(view(name))] = std::move(group);
                }
            }
        }
        for (const auto& [k, v] : root) {
            if (k.key != kPgStatus || v.tag != Tag::Dict || v.a >= m_dictChildren.size()) {
                continue;
            }
            for (const auto& [name, g] : m_dictChildren[v.a]) {
                const auto gi = m_slots[g].group;
                if (gi < 0) {
                    continue;
                }
                const auto& gf = m_groups[static_cast<std::size_t>(gi)];
                auto loose = [&](const Cell& c) -> std::int64_t {
                    if (c.tag == Tag::Int) {
                        return c.i;
                    }
                    if (c.tag != Tag::Str) {
                        return -1;
                    }
                    return parseNumber<std::int64_t>(view(c)).value_or(-1);
                };
                d.pgStatus[std::string(view(name))]
                    = { loose(gf.lastEnqueued), loose(gf.lastStarted), loose(gf.lastCompleted) };
            }
        }
        for (const auto& [k, v] : root) {
            if (k.key != kEntries) {
                continue;
            }
            if (v.tag != Tag::List) {
                return std::nullopt;
            }
            std::size_t index = 0;
            WarningCap cap(d.warnings);
            for (auto c = m_slots[v.a].head; c != 0xffffffffu; c = m_chunks[c].next) {
                for (std::uint32_t n = 0; n < m_chunks[c].count; ++n, ++index) {
                    cap.trim();
                    const auto& e = m_items[m_chunks[c].offset + n];
                    if (e.tag != Tag::Dict) {
                        d.warnings.push_back(
                            { file, 0, -1, "entry " + std::to_string(index) + " is not a dict: skipped" });
                        continue;
                    }
                    const auto fi = m_slots[e.a].fields;
                    RawEntry r;
                    if (fi >= 0 && !toRaw(m_fields[static_cast<std::size_t>(fi)], r)) {
                        return std::nullopt;
                    }
                    finishEntry(r, index, file, d);
                }
            }
            cap.finish(file);
        }
        return Result<RankRecords>(std::move(d));
    }

private:
    std::string_view view(const Cell& c) const { return m_b.substr(static_cast<std::size_t>(c.i), c.a); }

    bool toRaw(const Fields& f, RawEntry& r) const
    {
        r.p2p = f.p2p;
        r.retired = f.retired;
        r.seq = f.seq ? f.seq : f.seqId;
        if (f.pg.tag == Tag::Str) {
            r.pg = std::string(view(f.pg));
        } else {
            r.pg = std::to_string(f.pgId.value_or(0));
        }
        if (f.profilingName.tag == Tag::Str) {
            r.profilingName = std::string(view(f.profilingName));
        }
        if (f.dtype.tag == Tag::Str) {
            r.dtype = std::string(view(f.dtype));
        }
        if (f.state.tag == Tag::Str) {
            r.state = std::string(view(f.state));
        }
        if (f.hasSizes) {
            std::vector<std::uint64_t> dims;
            for (auto c = m_slots[f.sizesSlot].head; c != 0xffffffffu; c = m_chunks[c].next) {
                for (std::uint32_t n = 0; n < m_chunks[c].count; ++n) {
                    const auto& dim = m_items[m_chunks[c].offset + n];
                    dims.push_back(dim.tag == Tag::Int ? static_cast<std::uint64_t>(dim.i) : 0);
                }
            }
            r.sizes = std::move(dims);
        }
        r.created = f.created;
        r.started = f.started;
        r.completed = f.completed;
        return true;
    }

    const Cell* firstItem(const Cell& c) const
    {
        if (c.tag != Tag::List && c.tag != Tag::Tuple) {
            return nullptr;
        }
        const auto h = m_slots[c.a].head;
        return h == 0xffffffffu || m_chunks[h].count == 0 ? nullptr : &m_items[m_chunks[h].offset];
    }

    static TimeNs time(const Cell& v) { return v.tag == Tag::Int && v.i != 0 ? v.i : kNoTime; }

    // One key/value pair of a dict, as SETITEMS/SETITEM lands it.
    bool setItem(std::uint32_t dict, const Cell& k, const Cell& v)
    {
        if (dict == m_rootCandidate) {
            m_topPairs.emplace_back(k, v);
        }
        if (k.tag != Tag::Str) {
            return true;
        }
        if (v.tag == Tag::Dict) {
            if (m_dictChildren.size() <= dict) {
                m_dictChildren.resize(dict + 1);
            }
            m_dictChildren[dict].emplace_back(k, v.a);
        }
        auto fields = [&]() -> Fields& {
            auto& s = m_slots[dict];
            if (s.fields < 0) {
                s.fields = static_cast<std::int32_t>(m_fields.size());
                m_fields.emplace_back();
            }
            return m_fields[static_cast<std::size_t>(s.fields)];
        };
        auto group = [&]() -> GroupFields& {
            auto& s = m_slots[dict];
            if (s.group < 0) {
                s.group = static_cast<std::int32_t>(m_groups.size());
                m_groups.emplace_back();
            }
            return m_groups[static_cast<std::size_t>(s.group)];
        };
        switch (k.key) {
        case kOther:
        case kVersion:
        case kPgConfig:
        case kPgStatus:
        case kEntries:
            return true;
        case kLastEnqueued:
            group().lastEnqueued = v;
            return true;
        case kLastStarted:
            group().lastStarted = v;
            return true;
        case kLastCompleted:
            group().lastCompleted = v;
            return true;
        case kDesc:
            group().desc = v;
            return true;
        case kRanks:
            group().ranks = v;
            return true;
        case kIsP2p:
            fields().p2p = v.i != 0 && (v.tag == Tag::Bool || v.tag == Tag::Int);
            return true;
        case kRetired:
            fields().retired = v.i != 0 && (v.tag == Tag::Bool || v.tag == Tag::Int);
            return true;
        case kPgId:
            if (v.tag == Tag::Int) {
                fields().pgId = v.i;
            }
            return true;
        case kCollectiveSeqId:
            if (v.tag == Tag::Int) {
                fields().seq = v.i;
            }
            return true;
        case kSeqId:
            if (v.tag == Tag::Int) {
                fields().seqId = v.i;
            }
            return true;
        case kProcessGroup: {
            const auto* first = firstItem(v);
            if (first && first->tag == Tag::Str) {
                fields().pg = *first;
            }
            return true;
        }
        case kProfilingName:
            fields().profilingName = v;
            return true;
        case kState:
            fields().state = v;
            return true;
        case kInputDtypes: {
            const auto* first = firstItem(v);
            if (first) {
                fields().dtype = *first;
            }
            return true;
        }
        case kInputSizes: {
            if (v.tag == Tag::None) {
                return true;
            }
            const auto* first = firstItem(v);
            if (v.tag != Tag::List && v.tag != Tag::Tuple) {
                return false; // the general reader reports it
            }
            if (first) {
                if (first->tag != Tag::List && first->tag != Tag::Tuple) {
                    return false;
                }
                auto& f = fields();
                f.hasSizes = true;
                f.sizesSlot = first->a;
            }
            return true;
        }
        case kTimeCreated:
            fields().created = time(v);
            return true;
        case kTimeStarted:
            fields().started = time(v);
            return true;
        case kTimeCompleted:
            fields().completed = time(v);
            return true;
        }
        return true;
    }

    [[gnu::always_inline]] bool need(std::size_t n) const { return m_b.size() - m_pos >= n; }
    template <std::size_t N> [[gnu::always_inline]] std::uint64_t le()
    {
        std::uint64_t v = 0;
        std::memcpy(&v, m_b.data() + m_pos, N);
        m_pos += N;
        return v;
    }
    [[gnu::always_inline]] void push(const Cell& c)
    {
        if (m_sp == m_stack.size()) [[unlikely]] {
            m_stack.resize(m_stack.size() * 2 + 64);
        }
        m_stack[m_sp++] = c;
    }
    bool pushInt(std::int64_t v)
    {
        push({ Tag::Int, kOther, 0, v });
        return true;
    }
    bool pushStr(std::size_t len)
    {
        if (!need(len) || len > 0xffffffffu) {
            return false;
        }
        const auto key = classify(m_b.substr(m_pos, len));
        push({ Tag::Str, key, static_cast<std::uint32_t>(len), static_cast<std::int64_t>(m_pos) });
        m_pos += len;
        return true;
    }
    bool pushContainer(Tag t)
    {
        const auto slot = static_cast<std::uint32_t>(m_slots.size());
        m_slots.push_back({ t });
        if (t == Tag::Dict && m_rootCandidate == 0xffffffffu) {
            m_rootCandidate = slot; // the first dict of a Flight Recorder pickle is its top level
        }
        push({ t, kOther, slot, 0 });
        return true;
    }
    bool put(std::uint64_t index)
    {
        // A pickler numbers memo entries in order and each PUT costs at least a byte: an index past the file's
        // size is damage, never a reason to allocate (the tree reader then words the error).
        if (m_sp == 0 || m_stack[m_sp - 1].tag == Tag::Mark || index > m_b.size()) {
            return false;
        }
        if (m_memo.size() <= index) {
            m_memo.resize(std::max<std::size_t>(index + 1, m_memo.size() * 2));
        }
        m_memo[index] = m_stack[m_sp - 1];
        m_memoNext = std::max<std::size_t>(m_memoNext, index + 1);
        return true;
    }
    bool get(std::uint64_t index)
    {
        if (index >= m_memo.size() || m_memo[index].tag == Tag::Mark) {
            return false;
        }
        push(m_memo[index]);
        return true;
    }
    bool markAt(std::size_t& mark) const
    {
        std::size_t k = m_sp;
        while (k > 0 && m_stack[k - 1].tag != Tag::Mark) {
            --k;
        }
        if (k == 0) {
            return false;
        }
        mark = k - 1;
        return true;
    }
    void appendItems(std::uint32_t slot, std::size_t from)
    {
        const auto count = static_cast<std::uint32_t>(m_sp - from);
        if (count == 0) {
            return;
        }
        const auto chunk = static_cast<std::uint32_t>(m_chunks.size());
        m_chunks.push_back({ static_cast<std::uint32_t>(m_items.size()), count, 0xffffffffu });
        m_items.insert(m_items.end(), m_stack.begin() + static_cast<std::ptrdiff_t>(from),
            m_stack.begin() + static_cast<std::ptrdiff_t>(m_sp));
        auto& s = m_slots[slot];
        if (s.tail == 0xffffffffu) {
            s.head = chunk;
        } else {
            m_chunks[s.tail].next = chunk;
        }
        s.tail = chunk;
    }
    bool setItems(std::uint32_t dict, std::size_t from)
    {
        if ((m_sp - from) % 2) {
            return false;
        }
        for (std::size_t k = from; k < m_sp; k += 2) {
            if (m_stack[k].tag == Tag::Mark || m_stack[k + 1].tag == Tag::Mark
                || !setItem(dict, m_stack[k], m_stack[k + 1])) {
                return false;
            }
        }
        return true;
    }
    // APPENDS / SETITEMS: the items above the MARK go into the container below it.
    bool intoBelowMark(Tag want)
    {
        std::size_t mark = 0;
        if (!markAt(mark) || mark == 0 || m_stack[mark - 1].tag != want) {
            return false;
        }
        const auto slot = m_stack[mark - 1].a;
        if (want == Tag::Dict ? !setItems(slot, mark + 1) : (appendItems(slot, mark + 1), false)) {
            return false;
        }
        m_sp = mark;
        return true;
    }
    bool intoBelow(std::size_t n, Tag want)
    {
        if (m_sp < n + 1) {
            return false;
        }
        const auto from = m_sp - n;
        for (std::size_t k = from - 1; k < m_sp; ++k) {
            if (m_stack[k].tag == Tag::Mark) {
                return false;
            }
        }
        if (m_stack[from - 1].tag != want) {
            return false;
        }
        const auto slot = m_stack[from - 1].a;
        if (want == Tag::Dict) {
            if (!setItems(slot, from)) {
                return false;
            }
        } else {
            appendItems(slot, from);
        }
        m_sp = from;
        return true;
    }
    bool tuple(std::size_t n)
    {
        if (m_sp < n) {
            return false;
        }
        for (std::size_t k = m_sp - n; k < m_sp; ++k) {
            if (m_stack[k].tag == Tag::Mark) {
                return false;
            }
        }
        const auto slot = static_cast<std::uint32_t>(m_slots.size());
        m_slots.push_back({ Tag::Tuple });
        appendItems(slot, m_sp - n);
        m_sp -= n;
        push({ Tag::Tuple, kOther, slot, 0 });
        return true;
    }
    bool long1(std::size_t n)
    {
        if (n > 8 || !need(n)) {
            return false;
        }
        std::uint64_t v = 0;
        std::memcpy(&v, m_b.data() + m_pos, n);
        m_pos += n;
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) {
            v |= ~std::uint64_t(0) << (8 * n);
        }
        return pushInt(static_cast<std::int64_t>(v));
    }

    bool step(unsigned char op)
    {
        switch (op) {
        case 0x80:
            if (!need(1) || static_cast<unsigned char>(m_b[m_pos]) > 5) {
                return false;
            }
            ++m_pos;
            return true;
        case 0x95:
            return need(8) && (le<8>(), true);
        case '(':
            push({ Tag::Mark, kOther, 0, 0 });
            return true;
        case '}':
            return pushContainer(Tag::Dict);
        case ']':
            return pushContainer(Tag::List);
        case 'N':
            push({ Tag::None, kOther, 0, 0 });
            return true;
        case 0x88:
            push({ Tag::Bool, kOther, 0, 1 });
            return true;
        case 0x89:
            push({ Tag::Bool, kOther, 0, 0 });
            return true;
        case 'K':
            return need(1) && pushInt(static_cast<std::int64_t>(le<1>()));
        case 'M':
            return need(2) && pushInt(static_cast<std::int64_t>(le<2>()));
        case 'J':
            return need(4) && pushInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(le<4>())));
        case 0x8a:
            return need(1) && long1(static_cast<std::size_t>(le<1>()));
        case 'G':
            if (!need(8)) {
                return false;
            }
            m_pos += 8;
            push({ Tag::Float, kOther, 0, 0 }); // no float is read: its value is not kept
            return true;
        case 'X':
            return need(4) && pushStr(static_cast<std::size_t>(le<4>()));
        case 0x8c:
            return need(1) && pushStr(static_cast<std::size_t>(le<1>()));
        case 'q':
            return need(1) && put(le<1>());
        case 'r':
            return need(4) && put(le<4>());
        case 0x94:
            return put(m_memoNext);
        case 'h':
            return need(1) && get(le<1>());
        case 'j':
            return need(4) && get(le<4>());
        case 0x85:
            return tuple(1);
        case 0x86:
            return tuple(2);
        case 0x87:
            return tuple(3);
        case ')':
            return tuple(0);
        case 'a':
            return intoBelow(1, Tag::List);
        case 'e':
            return intoBelowMark(Tag::List);
        case 's':
            return intoBelow(2, Tag::Dict);
        case 'u':
            return intoBelowMark(Tag::Dict);
        default:
            return false; // anything else: the general reader decides
        }
    }

    std::string_view m_b;
    std::size_t m_pos = 0;
    std::vector<Cell>& m_stack;
    std::size_t m_sp = 0;
    std::vector<Cell>& m_memo;
    std::size_t m_memoNext = 0;
    std::vector<Slot>& m_slots;
    std::vector<Chunk>& m_chunks;
    std::vector<Cell>& m_items;
    std::vector<Fields>& m_fields;
    std::vector<GroupFields>& m_groups;
    std::vector<std::vector<std::pair<Cell, std::uint32_t>>>& m_dictChildren;
    std::vector<std::pair<Cell, Cell>>& m_topPairs;
    std::uint32_t m_rootCandidate = 0xffffffffu;
    std::uint32_t m_root = 0;
};

} // namespace

std::optional<Result<RankRecords>> parseFlightRecorderPickleStream(const std::string& file, std::string_view bytes)
{
    thread_local Scratch scratch;
    Stream s(bytes, scratch);
    if (!s.run()) {
        return std::nullopt;
    }
    return s.finish(file);
}

} // namespace stallscope::fr_detail
