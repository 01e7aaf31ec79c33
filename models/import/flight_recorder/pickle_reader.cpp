// SPDX-License-Identifier: MIT
// The general pickle reader (pickle_reader.h). Over 600 lines as one file: PickleParser is one opcode loop over one
// stack (with its MARKs) and one memo, and reading a dump cut short closes that same stack; split, its parts would
// share all of the parser's state.
#include "import/flight_recorder/pickle_reader.h"

#include <cstdio>
#include <cstring>

namespace stallscope {

double PickleDoc::real(Id id) const
{
    double d;
    std::memcpy(&d, &m_nodes[id].v, 8);
    return d;
}

std::string_view PickleDoc::str(Id id) const
{
    const auto v = static_cast<std::uint64_t>(m_nodes[id].v);
    return m_bytes.substr(v >> 32, v & 0xffffffffu);
}

std::vector<PickleDoc::Id> PickleDoc::items(Id id) const
{
    std::vector<Id> out;
    forEachItem(id, [&](Id x) {
        out.push_back(x);
        return true;
    });
    return out;
}

std::optional<PickleDoc::Id> PickleDoc::first(Id id) const
{
    std::optional<Id> out;
    forEachItem(id, [&](Id x) {
        out = x;
        return false;
    });
    return out;
}

std::optional<PickleDoc::Id> PickleDoc::get(Id dict, std::string_view key) const
{
    if (m_nodes[dict].type != Type::Dict) {
        return std::nullopt;
    }
    std::optional<Id> out;
    bool isKey = true, match = false;
    forEachItem(dict, [&](Id x) {
        if (isKey) {
            match = m_nodes[x].type == Type::Str && str(x) == key;
        } else if (match) {
            out = x;
            return false;
        }
        isKey = !isKey;
        return true;
    });
    return out;
}

namespace {

// Opcodes of pickle protocols 0–5 (CPython Lib/pickle.py) outside the data-building subset.
const char* opcodeName(unsigned char op)
{
    switch (op) {
    case 'c':
        return "GLOBAL";
    case 0x93:
        return "STACK_GLOBAL";
    case 'R':
        return "REDUCE";
    case 'b':
        return "BUILD";
    case 'i':
        return "INST";
    case 'o':
        return "OBJ";
    case 0x81:
        return "NEWOBJ";
    case 0x92:
        return "NEWOBJ_EX";
    case 'P':
        return "PERSID";
    case 'Q':
        return "BINPERSID";
    case 0x82:
    case 0x83:
    case 0x84:
        return "EXT";
    case 'B':
    case 'C':
    case 0x8e:
        return "BYTES";
    case 0x8f:
        return "EMPTY_SET";
    case 0x90:
        return "ADDITEMS";
    case 0x91:
        return "FROZENSET";
    default:
        return "unknown";
    }
}

constexpr PickleDoc::Id kMark = 0xfffffffeu;

// The machine's stack over a reused buffer: push is the hottest operation of the parse, so it is a pointer
// bump with a rare grow, not a vector call.
class Stack
{
public:
    explicit Stack(std::vector<PickleDoc::Id>& buf)
        : m_buf(buf)
    {
        if (m_buf.size() < 1024) {
            m_buf.resize(1024);
        }
    }
    [[gnu::always_inline]] void push_back(PickleDoc::Id id)
    {
        if (m_size == m_buf.size()) [[unlikely]] {
            m_buf.resize(m_buf.size() * 2);
        }
        m_buf[m_size++] = id;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    PickleDoc::Id& back() { return m_buf[m_size - 1]; }
    PickleDoc::Id& operator[](std::size_t i) { return m_buf[i]; }
    const PickleDoc::Id* begin() const { return m_buf.data(); }
    const PickleDoc::Id* end() const { return m_buf.data() + m_size; }
    void pop_back() { --m_size; }
    void resize(std::size_t n) { m_size = n; } // shrink only
    void reserve(std::size_t) { }

private:
    std::vector<PickleDoc::Id>& m_buf;
    std::size_t m_size = 0;
};
constexpr std::size_t kMaxMemo = 1u << 26; // memo indices beyond this are not from a real dump

} // namespace

class PickleParser
{
public:
    PickleParser(const std::string& file, std::string_view b, PickleDoc& doc)
        : m_file(file)
        , m_b(b)
        , m_stack(doc.m_stackBuf)
        , m_memo(doc.m_memoBuf)
        , m_doc(doc)
    {
        m_memo.clear(); // keeps its capacity
    }

    std::optional<LoadIssue> run()
    {
        if (m_b.size() >= (std::size_t(1) << 32)) {
            return fail(0, "a pickle of 4 GiB or more is not a Flight Recorder dump");
        }
        m_doc.m_bytes = m_b;
        m_doc.m_cut.reset();
        m_doc.m_nodes.clear();
        m_doc.m_items.clear();
        m_doc.m_chunks.clear();
        m_doc.m_nodes.reserve(m_b.size() / 6); // about one node per 6 bytes of a Flight Recorder dump
        m_doc.m_items.reserve(m_b.size() / 6);
        m_stack.reserve(256);
        while (m_pos < m_b.size()) {
            const std::size_t at = m_pos;
            const auto op = static_cast<unsigned char>(m_b[m_pos++]);
            if (op == '.') {
                if (m_stack.size() != 1 || m_stack[0] == kMark) {
                    return fail(at, "STOP with " + std::to_string(m_stack.size()) + " values on the stack, expected 1");
                }
                m_doc.m_root = m_stack[0];
                return std::nullopt;
            }
            if (!step(op, at)) {
                return m_cutShort ? readUpToCut() : m_error;
            }
        }
        fail(m_pos, "the pickle ends without STOP (truncated file?)");
        m_cutShort = true;
        return readUpToCut();
    }

private:
    using Id = PickleDoc::Id;
    using Type = PickleDoc::Type;

    [[gnu::cold, gnu::noinline]] LoadIssue fail(std::size_t at, std::string message)
    {
        m_error = { m_file, 0, static_cast<std::int64_t>(at), "pickle: " + std::move(message) };
        return m_error;
    }
    [[gnu::always_inline]] bool need(std::size_t n, std::size_t at)
    {
        if (m_b.size() - m_pos < n) [[unlikely]] {
            return truncated(at);
        }
        return true;
    }
    [[gnu::cold, gnu::noinline]] bool truncated(std::size_t at)
    {
        fail(at, "truncated operand (the file ends inside an opcode)");
        m_cutShort = true;
        return false;
    }

    // The stack of a dump cut inside its entries: [top dict, MARK, key, value, ..., key, list, MARK, item, ...,
    // (the item being written, MARK, its fields...)]. The whole items go into the list, the pairs into the top dict,
    // as the APPENDS and SETITEMS the writer never wrote would have. Any other stack: the error stands.
    [[gnu::cold, gnu::noinline]] std::optional<LoadIssue> readUpToCut()
    {
        const auto n = m_stack.size();
        auto isType = [&](std::size_t k, Type t) { return m_stack[k] != kMark && m_doc.m_nodes[m_stack[k]].type == t; };
        if (n < 2 || !isType(0, Type::Dict) || m_stack[1] != kMark) {
            return m_error;
        }
        std::size_t listMark = 2;
        while (listMark < n && m_stack[listMark] != kMark) {
            ++listMark;
        }
        if (listMark == n) { // the cut fell among the top dict's own items: its whole pairs are kept
            m_stack.resize(n - (n - 2) % 2); // a key whose value was never written
            extend(m_stack[0], 2);
            m_stack.resize(1);
            m_doc.m_root = m_stack[0];
            m_doc.m_cut = PickleDoc::Cut { m_b.size(), {}, 0 };
            return std::nullopt;
        }
        // Pairs before the container: keys are strings; the container (a list, or a dict such as pg_config or
        // nccl_comm_state) is the last pair's value.
        const bool dict = listMark >= 4 && isType(listMark - 1, Type::Dict);
        if ((listMark - 2) % 2 != 0 || !(dict || isType(listMark - 1, Type::List)) || listMark < 4
            || !isType(listMark - 2, Type::Str)) {
            return m_error;
        }
        std::size_t next = listMark + 1;
        while (next < n && m_stack[next] != kMark) {
            ++next;
        }
        // The item being written: the container below the next MARK, or one just opened (empty) on top.
        std::size_t end = next < n ? std::max(next - 1, listMark + 1) : n;
        if (next == n && end > listMark + 1 && isContainerNode(m_stack[end - 1]) && emptyNode(m_stack[end - 1])) {
            --end;
        }
        if (dict && (end - listMark - 1) % 2 != 0) {
            --end; // a key whose value was never written
        }
        const auto list = m_stack[listMark - 1];
        const auto key = m_doc.str(m_stack[listMark - 2]);
        m_stack.resize(end);
        extend(list, listMark + 1);
        m_stack.resize(listMark); // the list's MARK
        extend(m_stack[0], 2);
        m_stack.resize(1); // the top dict's MARK
        m_doc.m_root = m_stack[0];
        m_doc.m_cut = PickleDoc::Cut { m_b.size(), key, (end - listMark - 1) / (dict ? 2 : 1) };
        return std::nullopt;
    }
    bool isContainerNode(Id id) const
    {
        const auto t = m_doc.m_nodes[id].type;
        return t == Type::List || t == Type::Tuple || t == Type::Dict;
    }
    bool emptyNode(Id id) const { return m_doc.head(id) == PickleDoc::kNone; }
    [[gnu::cold, gnu::noinline]] bool neverPut(std::uint64_t index, std::size_t at)
    {
        fail(at, "memo GET of index " + std::to_string(index) + " that was never PUT");
        return false;
    }
    std::uint64_t le(std::size_t n) // little-endian, n ≤ 8 bytes (callers checked need(n))
    {
        std::uint64_t v = 0;
        std::memcpy(&v, m_b.data() + m_pos, n); // x86-64 and aarch64 are little-endian
        m_pos += n;
        return v;
    }
    template <std::size_t N> [[gnu::always_inline]] std::uint64_t le()
    {
        std::uint64_t v = 0;
        std::memcpy(&v, m_b.data() + m_pos, N);
        m_pos += N;
        return v;
    }

    [[gnu::always_inline]] Id add(Type t, std::int64_t v = 0)
    {
        m_doc.m_nodes.push_back({ t, v });
        return static_cast<Id>(m_doc.m_nodes.size() - 1);
    }
    Id container(Type t) { return add(t, static_cast<std::int64_t>(~std::uint64_t(0))); } // head = tail = none
    [[gnu::always_inline]] bool push(Id id)
    {
        m_stack.push_back(id);
        return true;
    }

    // Moves stack items [from, end) into `target` as one chunk of the item arena.
    void extend(Id target, std::size_t from)
    {
        const auto count = static_cast<std::uint32_t>(m_stack.size() - from);
        if (count > 0) {
            const auto chunk = static_cast<std::uint32_t>(m_doc.m_chunks.size());
            m_doc.m_chunks.push_back({ static_cast<std::uint32_t>(m_doc.m_items.size()), count, PickleDoc::kNone });
            m_doc.m_items.insert(m_doc.m_items.end(), m_stack.begin() + from, m_stack.end());
            auto& node = m_doc.m_nodes[target];
            const auto packed = static_cast<std::uint64_t>(node.v);
            const auto tail = static_cast<std::uint32_t>(packed & 0xffffffffu);
            if (tail == PickleDoc::kNone) {
                node.v = static_cast<std::int64_t>(std::uint64_t(chunk) << 32 | chunk);
            } else {
                m_doc.m_chunks[tail].next = chunk;
                node.v = static_cast<std::int64_t>((packed & 0xffffffff00000000ULL) | chunk);
            }
        }
        m_stack.resize(from);
    }
    bool markAt(std::size_t& mark, std::size_t at)
    {
        std::size_t k = m_stack.size();
        while (k > 0 && m_stack[k - 1] != kMark) {
            --k;
        }
        if (k == 0) {
            fail(at, "no MARK on the stack");
            return false;
        }
        mark = k - 1;
        return true;
    }
    bool noMarkFrom(std::size_t from, const char* what, std::size_t at)
    {
        for (std::size_t k = from; k < m_stack.size(); ++k) {
            if (m_stack[k] == kMark) {
                fail(at, std::string(what) + " across a MARK");
                return false;
            }
        }
        return true;
    }
    bool isA(Id id, Type want, const char* what, std::size_t at)
    {
        if (id == kMark || m_doc.m_nodes[id].type != want) {
            fail(at, std::string(what) + " on something that is not a " + (want == Type::Dict ? "dict" : "list"));
            return false;
        }
        return true;
    }
    // TUPLE, LIST, DICT: a container of the items above the topmost MARK, in the MARK's place.
    bool fromMark(Type t, std::size_t at)
    {
        std::size_t mark = 0;
        if (!markAt(mark, at)) {
            return false;
        }
        if (t == Type::Dict && (m_stack.size() - mark - 1) % 2) {
            fail(at, "DICT with an odd number of items");
            return false;
        }
        const auto id = container(t);
        extend(id, mark + 1);
        m_stack.back() = id;
        return true;
    }
    // APPENDS / SETITEMS: the items above the MARK go into the container below it.
    bool intoBelowMark(Type want, const char* what, std::size_t at)
    {
        std::size_t mark = 0;
        if (!markAt(mark, at)) {
            return false;
        }
        if (mark == 0 || !isA(m_stack[mark - 1], want, what, at)) {
            return mark == 0 ? (fail(at, std::string(what) + " with nothing below the MARK"), false) : false;
        }
        if (want == Type::Dict && (m_stack.size() - mark - 1) % 2) {
            fail(at, std::string(what) + " with an odd number of items");
            return false;
        }
        extend(m_stack[mark - 1], mark + 1);
        m_stack.pop_back(); // the MARK
        return true;
    }
    // APPEND / SETITEM: the top `n` items go into the container below them.
    bool intoBelow(std::size_t n, Type want, const char* what, std::size_t at)
    {
        if (m_stack.size() < n + 1) {
            fail(at, "stack underflow");
            return false;
        }
        const auto from = m_stack.size() - n;
        if (!noMarkFrom(from - 1, what, at) || !isA(m_stack[from - 1], want, what, at)) {
            return false;
        }
        extend(m_stack[from - 1], from);
        return true;
    }
    bool tuple(std::size_t n, std::size_t at)
    {
        if (m_stack.size() < n) {
            fail(at, "stack underflow");
            return false;
        }
        if (!noMarkFrom(m_stack.size() - n, "TUPLE", at)) {
            return false;
        }
        const auto id = container(Type::Tuple);
        extend(id, m_stack.size() - n);
        return push(id);
    }
    [[gnu::always_inline]] bool str(std::size_t len, std::size_t at)
    {
        if (!need(len, at)) {
            return false;
        }
        const auto packed = static_cast<std::uint64_t>(m_pos) << 32 | static_cast<std::uint64_t>(len);
        m_pos += len;
        return push(add(Type::Str, static_cast<std::int64_t>(packed)));
    }
    bool put(std::uint64_t index, std::size_t at)
    {
        if (m_stack.empty() || m_stack.back() == kMark) {
            fail(at, "memo PUT with an empty stack");
            return false;
        }
        if (index >= kMaxMemo || index > m_b.size()) { // each PUT costs a byte or more, numbered in order
            fail(at,
                "memo index " + std::to_string(index) + " is beyond what a file of " + std::to_string(m_b.size())
                    + " bytes can hold");
            return false;
        }
        if (m_memo.size() <= index) {
            m_memo.resize(std::max<std::size_t>(index + 1, m_memo.size() * 2), kMark);
        }
        m_memo[index] = m_stack.back();
        m_memoNext = std::max<std::size_t>(m_memoNext, index + 1);
        return true;
    }
    [[gnu::always_inline]] bool get(std::uint64_t index, std::size_t at)
    {
        if (index >= m_memo.size() || m_memo[index] == kMark) [[unlikely]] {
            return neverPut(index, at);
        }
        return push(m_memo[index]);
    }
    bool long1(std::size_t n, std::size_t at)
    {
        if (n > 8) {
            fail(at, "integer of " + std::to_string(n) + " bytes: wider than 64 bits");
            return false;
        }
        if (!need(n, at)) {
            return false;
        }
        std::uint64_t v = le(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) {
            v |= ~std::uint64_t(0) << (8 * n); // sign-extend
        }
        return push(add(Type::Int, static_cast<std::int64_t>(v)));
    }
    bool pop(std::size_t at)
    {
        if (m_stack.empty()) {
            fail(at, "stack underflow");
            return false;
        }
        m_stack.pop_back();
        return true;
    }
    bool refuse(unsigned char op, std::size_t at)
    {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        const std::string shown = op >= 0x20 && op < 0x7f ? std::string(" '") + static_cast<char>(op) + "'" : "";
        fail(at,
            std::string("opcode ") + hex + shown + " (" + opcodeName(op)
                + ") is not allowed: a Flight Recorder dump holds only dicts, lists, tuples, strings, numbers, "
                  "booleans and None, and nothing in it is ever executed");
        return false;
    }

    bool step(unsigned char op, std::size_t at)
    {
        switch (op) {
        case 0x80: // PROTO
            if (!need(1, at)) {
                return false;
            }
            if (static_cast<unsigned char>(m_b[m_pos]) > 5) {
                fail(at, "pickle protocol " + std::to_string(static_cast<unsigned char>(m_b[m_pos])) + " is unknown");
                return false;
            }
            ++m_pos;
            return true;
        case 0x95:
            return need(8, at) && (le(8), true); // FRAME (protocol 4): a length hint
        case '(':
            return push(kMark);
        case '}':
            return push(container(Type::Dict));
        case ']':
            return push(container(Type::List));
        case ')':
            return push(container(Type::Tuple));
        case 'N':
            return push(add(Type::None));
        case 0x88:
            return push(add(Type::Bool, 1));
        case 0x89:
            return push(add(Type::Bool, 0));
        case 'K':
            return need(1, at) && push(add(Type::Int, static_cast<std::int64_t>(le<1>())));
        case 'M':
            return need(2, at) && push(add(Type::Int, static_cast<std::int64_t>(le<2>())));
        case 'J':
            return need(4, at) && push(add(Type::Int, static_cast<std::int32_t>(static_cast<std::uint32_t>(le<4>()))));
        case 0x8a:
            return need(1, at) && long1(static_cast<std::size_t>(le<1>()), at);
        case 0x8b:
            return need(4, at) && long1(static_cast<std::size_t>(le<4>()), at);
        case 'G': {
            if (!need(8, at)) {
                return false;
            }
            std::uint64_t bits = 0;
            for (int k = 0; k < 8; ++k) {
                bits = bits << 8 | static_cast<unsigned char>(m_b[m_pos++]); // big-endian double
            }
            return push(add(Type::Float, static_cast<std::int64_t>(bits)));
        }
        case 'X':
            return need(4, at) && str(static_cast<std::size_t>(le<4>()), at); // BINUNICODE
        case 0x8c:
            return need(1, at) && str(static_cast<std::size_t>(le<1>()), at); // SHORT_BINUNICODE
        case 0x8d:
            return need(8, at) && str(static_cast<std::size_t>(le<8>()), at); // BINUNICODE8
        case 'U':
            return need(1, at) && str(static_cast<std::size_t>(le<1>()), at); // SHORT_BINSTRING
        case 'T':
            return need(4, at) && str(static_cast<std::size_t>(le<4>()), at); // BINSTRING
        case 'q':
            return need(1, at) && put(le<1>(), at);
        case 'r':
            return need(4, at) && put(le<4>(), at);
        case 0x94:
            return put(m_memoNext, at); // MEMOIZE
        case 'h':
            return need(1, at) && get(le<1>(), at);
        case 'j':
            return need(4, at) && get(le<4>(), at);
        case 0x85:
            return tuple(1, at);
        case 0x86:
            return tuple(2, at);
        case 0x87:
            return tuple(3, at);
        case 't':
            return fromMark(Type::Tuple, at);
        case 'l':
            return fromMark(Type::List, at);
        case 'd':
            return fromMark(Type::Dict, at);
        case 'a':
            return intoBelow(1, Type::List, "APPEND", at);
        case 'e':
            return intoBelowMark(Type::List, "APPENDS", at);
        case 's':
            return intoBelow(2, Type::Dict, "SETITEM", at);
        case 'u':
            return intoBelowMark(Type::Dict, "SETITEMS", at);
        case '0':
            return pop(at); // POP
        case '2': // DUP
            if (m_stack.empty() || m_stack.back() == kMark) {
                fail(at, "DUP of nothing");
                return false;
            }
            return push(m_stack.back());
        default:
            return refuse(op, at);
        }
    }

    std::string m_file;
    std::string_view m_b;
    std::size_t m_pos = 0;
    Stack m_stack;
    std::vector<Id>& m_memo;
    std::size_t m_memoNext = 0;
    PickleDoc& m_doc;
    LoadIssue m_error;
    bool m_cutShort = false; // the error is the bytes ending, not what they say
};

Result<PickleDoc> parsePickle(const std::string& file, std::string_view bytes)
{
    PickleDoc doc;
    if (auto err = PickleParser(file, bytes, doc).run()) {
        return *err;
    }
    return doc;
}

std::optional<LoadIssue> parsePickleInto(const std::string& file, std::string_view bytes, PickleDoc& doc)
{
    return PickleParser(file, bytes, doc).run();
}

} // namespace stallscope
