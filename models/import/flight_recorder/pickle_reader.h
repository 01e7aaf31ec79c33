// SPDX-License-Identifier: MIT
#pragma once

// A safe reader for the Python pickles PyTorch writes as Flight Recorder dumps (docs/formats.md §1a): protocol 2
// from torch::jit::Pickler with type tags off. It builds only None, booleans, integers (up to 64 bits),
// floats, strings, lists, tuples and dicts, and refuses every other opcode (GLOBAL, REDUCE, BUILD, ...), so
// no code is ever named or executed. The memo is honoured: a BINGET yields the same node again.
// Strings are views into the input bytes, which must outlive the document.

#include "core/result.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace stallscope {

class PickleDoc
{
public:
    enum class Type : std::uint8_t { None, Bool, Int, Float, Str, List, Tuple, Dict };
    using Id = std::uint32_t;
    static constexpr Id kNone = 0xffffffffu;

    Id root() const { return m_root; }
    Type type(Id id) const { return m_nodes[id].type; }
    std::int64_t integer(Id id) const { return m_nodes[id].v; } // Int, Bool (0/1)
    double real(Id id) const;
    std::string_view str(Id id) const; // Str: a view into the input bytes

    // List/Tuple: the elements; Dict: key, value, key, value... (insertion order). Containers grow in
    // chunks (one per APPENDS/SETITEMS batch) kept in one arena: no allocation per container.
    template <typename F> void forEachItem(Id id, F&& f) const
    {
        if (!isContainer(id)) {
            return;
        }
        for (auto c = head(id); c != kNone; c = m_chunks[c].next) {
            for (std::uint32_t k = 0; k < m_chunks[c].count; ++k) {
                if (!f(m_items[m_chunks[c].offset + k])) {
                    return; // the callback stops the walk by returning false
                }
            }
        }
    }
    std::vector<Id> items(Id id) const; // a copy, for callers that want indexing
    std::optional<Id> first(Id id) const;
    // Dict lookup by string key; nullopt when absent or `id` is not a dict.
    std::optional<Id> get(Id dict, std::string_view key) const;

    std::size_t nodeCount() const { return m_nodes.size(); }

    // A pickle cut off while written, read up to the cut (see parsePickleInto): where the bytes stop, the key of
    // the top dict whose list the cut fell in ("entries"), and how many of that list's items were whole.
    struct Cut
    {
        std::size_t at = 0;
        std::string_view key;
        std::size_t wholeItems = 0;
    };
    const std::optional<Cut>& cut() const { return m_cut; }

private:
    friend class PickleParser;
    struct Node
    {
        Type type = Type::None;
        std::int64_t v = 0; // Int/Bool value; Float bits; Str offset << 32 | length; container head << 32 | tail
    };
    struct Chunk
    {
        std::uint32_t offset = 0, count = 0, next = kNone;
    };
    bool isContainer(Id id) const
    {
        const auto t = m_nodes[id].type;
        return t == Type::List || t == Type::Tuple || t == Type::Dict;
    }
    std::uint32_t head(Id id) const
    {
        return static_cast<std::uint32_t>(static_cast<std::uint64_t>(m_nodes[id].v) >> 32);
    }

    std::string_view m_bytes;
    std::vector<Id> m_stackBuf, m_memoBuf; // the parser's scratch, kept with the arenas for reuse
    std::vector<Node> m_nodes;
    std::vector<Id> m_items;
    std::vector<Chunk> m_chunks;
    Id m_root = 0;
    std::optional<Cut> m_cut;
};

// Errors name the byte offset and the opcode ("unknown opcode 0x63 'c' (GLOBAL) at byte 17: not allowed").
Result<PickleDoc> parsePickle(const std::string& file, std::string_view bytes);
// The same into `doc`, whose arenas are cleared and reused: across many per-rank files only the first one
// pays for fresh memory (page faults cost more than parsing here; docs/performance-notes.md). On error `doc`
// holds a partial tree and must not be read.
// A pickle that ends early (cut off while written: the writer killed, the disk full) inside a list that is a value
// of the top dict — a Flight Recorder dump's "entries", the bulk of its bytes, written after version, pg_config and
// pg_status — is not an error: the top dict holds the items written before that list, the list its whole items
// (the one being written at the cut is dropped), and `doc.cut()` says where and how many. A cut anywhere else is
// the error it was.
std::optional<LoadIssue> parsePickleInto(const std::string& file, std::string_view bytes, PickleDoc& doc);

} // namespace stallscope
