// SPDX-License-Identifier: MIT
#include "pickle_reader.h"

#include <cstring>

namespace stallscope {

std::span<const PickleDoc::Id> PickleDoc::items(Id id) const
{
    const auto& n = m_nodes[id];
    if (n.type != Type::List && n.type != Type::Tuple && n.type != Type::Dict) {
        return {};
    }
    return m_items[n.items];
}

std::optional<PickleDoc::Id> PickleDoc::get(Id dict, std::string_view key) const
{
    if (m_nodes[dict].type != Type::Dict) {
        return std::nullopt;
    }
    const auto& kv = m_items[m_nodes[dict].items];
    for (std::size_t k = 0; k + 1 < kv.size(); k += 2) {
        const auto& kn = m_nodes[kv[k]];
        if (kn.type == Type::Str && kn.s == key) {
            return kv[k + 1];
        }
    }
    return std::nullopt;
}

namespace {

// Opcodes of pickle protocols 0–4 (CPython Lib/pickle.py). Only the data-building subset is accepted.
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

constexpr PickleDoc::Id kMark = 0xffffffffu;
constexpr std::size_t kMaxMemo = 1u << 26; // memo indices beyond this are not from a real dump

} // namespace

class PickleParser
{
public:
    PickleParser(const std::string& file, std::string_view b)
        : m_file(file)
        , m_b(b)
    {
    }

    Result<PickleDoc> run()
    {
        while (m_pos < m_b.size()) {
            const std::size_t at = m_pos;
            const auto op = static_cast<unsigned char>(m_b[m_pos++]);
            if (op == '.') {
                if (m_stack.size() != 1 || m_stack[0] == kMark) {
                    return fail(at, "STOP with " + std::to_string(m_stack.size()) + " values on the stack, expected 1");
                }
                m_doc.m_root = m_stack[0];
                return std::move(m_doc);
            }
            if (!step(op, at)) {
                return m_error;
            }
        }
        return fail(m_pos, "the pickle ends without STOP (truncated file?)");
    }

private:
    using Id = PickleDoc::Id;
    using Type = PickleDoc::Type;

    LoadIssue fail(std::size_t at, std::string message)
    {
        m_error = { m_file, 0, static_cast<std::int64_t>(at), "pickle: " + std::move(message) };
        return m_error;
    }

    bool need(std::size_t n, std::size_t at)
    {
        if (m_b.size() - m_pos < n) {
            fail(at, "truncated operand (the file ends inside an opcode)");
            return false;
        }
        return true;
    }
    std::uint64_t le(std::size_t n)
    {
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < n; ++k) {
            v |= static_cast<std::uint64_t>(static_cast<unsigned char>(m_b[m_pos + k])) << (8 * k);
        }
        m_pos += n;
        return v;
    }

    Id add(PickleDoc::Node n)
    {
        m_doc.m_nodes.push_back(n);
        return static_cast<Id>(m_doc.m_nodes.size() - 1);
    }
    Id container(Type t, std::vector<Id> items = {})
    {
        PickleDoc::Node n;
        n.type = t;
        n.items = static_cast<std::uint32_t>(m_doc.m_items.size());
        m_doc.m_items.push_back(std::move(items));
        return add(n);
    }
    Id scalar(Type t, std::int64_t i = 0, double f = 0, std::string_view s = {})
    {
        PickleDoc::Node n;
        n.type = t;
        n.i = i;
        n.f = f;
        n.s = s;
        return add(n);
    }

    bool push(Id id)
    {
        m_stack.push_back(id);
        return true;
    }
    bool pop(Id& out, std::size_t at)
    {
        if (m_stack.empty() || m_stack.back() == kMark) {
            fail(at, "stack underflow");
            return false;
        }
        out = m_stack.back();
        m_stack.pop_back();
        return true;
    }
    // Pops everything above the topmost MARK (and the MARK).
    bool popToMark(std::vector<Id>& out, std::size_t at)
    {
        std::size_t k = m_stack.size();
        while (k > 0 && m_stack[k - 1] != kMark) {
            --k;
        }
        if (k == 0) {
            fail(at, "no MARK on the stack");
            return false;
        }
        out.assign(m_stack.begin() + static_cast<std::ptrdiff_t>(k), m_stack.end());
        m_stack.resize(k - 1);
        return true;
    }
    bool top(Id& out, Type want, const char* what, std::size_t at)
    {
        if (m_stack.empty() || m_stack.back() == kMark || m_doc.m_nodes[m_stack.back()].type != want) {
            fail(at, std::string(what) + " on something that is not a " + (want == Type::Dict ? "dict" : "list"));
            return false;
        }
        out = m_stack.back();
        return true;
    }
    bool extend(Id target, const std::vector<Id>& values)
    {
        auto& items = m_doc.m_items[m_doc.m_nodes[target].items];
        items.insert(items.end(), values.begin(), values.end());
        return true;
    }

    bool str(std::size_t len, std::size_t at)
    {
        if (!need(len, at)) {
            return false;
        }
        const auto s = m_b.substr(m_pos, len);
        m_pos += len;
        return push(scalar(Type::Str, 0, 0, s));
    }
    bool put(std::uint64_t index, std::size_t at)
    {
        if (m_stack.empty() || m_stack.back() == kMark) {
            fail(at, "memo PUT with an empty stack");
            return false;
        }
        if (index >= kMaxMemo) {
            fail(at, "memo index " + std::to_string(index) + " is implausibly large");
            return false;
        }
        if (m_memo.size() <= index) {
            m_memo.resize(index + 1, kMark);
        }
        m_memo[index] = m_stack.back();
        return true;
    }
    bool get(std::uint64_t index, std::size_t at)
    {
        if (index >= m_memo.size() || m_memo[index] == kMark) {
            fail(at, "memo GET of index " + std::to_string(index) + " that was never PUT");
            return false;
        }
        return push(m_memo[index]);
    }
    bool tuple(std::size_t n, std::size_t at)
    {
        if (m_stack.size() < n) {
            fail(at, "stack underflow");
            return false;
        }
        std::vector<Id> items(m_stack.end() - static_cast<std::ptrdiff_t>(n), m_stack.end());
        for (auto id : items) {
            if (id == kMark) {
                fail(at, "MARK inside a TUPLE" + std::to_string(n));
                return false;
            }
        }
        m_stack.resize(m_stack.size() - n);
        return push(container(Type::Tuple, std::move(items)));
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
        return push(scalar(Type::Int, static_cast<std::int64_t>(v)));
    }

    bool step(unsigned char op, std::size_t at)
    {
        Id a = 0, b = 0, t = 0;
        std::vector<Id> xs;
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
        case 0x95: // FRAME (protocol 4): an 8-byte length hint
            return need(8, at) && (le(8), true);
        case '(':
            return push(kMark);
        case '}':
            return push(container(Type::Dict));
        case ']':
            return push(container(Type::List));
        case ')':
            return push(container(Type::Tuple));
        case 'N':
            return push(scalar(Type::None));
        case 0x88:
            return push(scalar(Type::Bool, 1));
        case 0x89:
            return push(scalar(Type::Bool, 0));
        case 'K':
            return need(1, at) && push(scalar(Type::Int, static_cast<std::int64_t>(le(1))));
        case 'M':
            return need(2, at) && push(scalar(Type::Int, static_cast<std::int64_t>(le(2))));
        case 'J':
            return need(4, at) && push(scalar(Type::Int, static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4)))));
        case 0x8a:
            return need(1, at) && long1(static_cast<std::size_t>(le(1)), at);
        case 0x8b:
            return need(4, at) && long1(static_cast<std::size_t>(le(4)), at);
        case 'G': {
            if (!need(8, at)) {
                return false;
            }
            std::uint64_t bits = 0;
            for (int k = 0; k < 8; ++k) {
                bits = bits << 8 | static_cast<unsigned char>(m_b[m_pos++]); // big-endian
            }
            double d;
            std::memcpy(&d, &bits, 8);
            return push(scalar(Type::Float, 0, d));
        }
        case 'X':
            return need(4, at) && str(static_cast<std::size_t>(le(4)), at);
        case 0x8c:
            return need(1, at) && str(static_cast<std::size_t>(le(1)), at);
        case 0x8d:
            return need(8, at) && str(static_cast<std::size_t>(le(8)), at);
        case 'U':
            return need(1, at) && str(static_cast<std::size_t>(le(1)), at); // SHORT_BINSTRING
        case 'T':
            return need(4, at) && str(static_cast<std::size_t>(le(4)), at); // BINSTRING
        case 'q':
            return need(1, at) && put(le(1), at);
        case 'r':
            return need(4, at) && put(le(4), at);
        case 0x94:
            return put(m_memo.size(), at); // MEMOIZE
        case 'h':
            return need(1, at) && get(le(1), at);
        case 'j':
            return need(4, at) && get(le(4), at);
        case 0x85:
            return tuple(1, at);
        case 0x86:
            return tuple(2, at);
        case 0x87:
            return tuple(3, at);
        case 't':
            return popToMark(xs, at) && push(container(Type::Tuple, std::move(xs)));
        case 'l':
            return popToMark(xs, at) && push(container(Type::List, std::move(xs)));
        case 'd':
            if (!popToMark(xs, at)) {
                return false;
            }
            if (xs.size() % 2) {
                fail(at, "DICT with an odd number of items");
                return false;
            }
            return push(container(Type::Dict, std::move(xs)));
        case 'a':
            return pop(a, at) && top(t, Type::List, "APPEND", at) && extend(t, { a });
        case 'e':
            return popToMark(xs, at) && top(t, Type::List, "APPENDS", at) && extend(t, xs);
        case 's':
            return pop(b, at) && pop(a, at) && top(t, Type::Dict, "SETITEM", at) && extend(t, { a, b });
        case 'u':
            if (!popToMark(xs, at) || !top(t, Type::Dict, "SETITEMS", at)) {
                return false;
            }
            if (xs.size() % 2) {
                fail(at, "SETITEMS with an odd number of items");
                return false;
            }
            return extend(t, xs);
        case '0':
            return pop(a, at); // POP
        case '2':
            return !m_stack.empty() && m_stack.back() != kMark ? push(m_stack.back())
                                                               : (fail(at, "DUP of nothing"), false);
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            std::string shown = op >= 0x20 && op < 0x7f ? std::string(" '") + static_cast<char>(op) + "'" : "";
            fail(at,
                std::string("opcode ") + hex + shown + " (" + opcodeName(op)
                    + ") is not allowed: a Flight Recorder dump holds only dicts, lists, tuples, strings, numbers, "
                      "booleans and None, and nothing in it is ever executed");
            return false;
        }
        }
    }

    std::string m_file;
    std::string_view m_b;
    std::size_t m_pos = 0;
    std::vector<Id> m_stack;
    std::vector<Id> m_memo;
    PickleDoc m_doc;
    LoadIssue m_error;
};

Result<PickleDoc> parsePickle(const std::string& file, std::string_view bytes)
{
    return PickleParser(file, bytes).run();
}

} // namespace stallscope
