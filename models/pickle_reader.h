// SPDX-License-Identifier: MIT
#pragma once

// A safe reader for the Python pickles PyTorch writes as Flight Recorder dumps (formats.md §1d): protocol 2
// from torch::jit::Pickler with type tags off. It builds only None, booleans, integers (up to 64 bits),
// floats, strings, lists, tuples and dicts, and refuses every other opcode (GLOBAL, REDUCE, BUILD, ...), so
// no code is ever named or executed. The memo is honoured: a BINGET yields the same node again.
// Strings are views into the input bytes, which must outlive the document.

#include "result.h"

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

    struct Node
    {
        Type type = Type::None;
        std::int64_t i = 0; // Int, Bool (0/1)
        double f = 0; // Float
        std::string_view s; // Str
        std::uint32_t items = 0; // List/Tuple/Dict: index into the item lists
    };

    Id root() const { return m_root; }
    const Node& node(Id id) const { return m_nodes[id]; }
    Type type(Id id) const { return m_nodes[id].type; }
    // List/Tuple: the elements; Dict: keys and values alternating (insertion order).
    std::span<const Id> items(Id id) const;
    // Dict lookup by string key; nullopt when absent or `id` is not a dict.
    std::optional<Id> get(Id dict, std::string_view key) const;

    std::size_t nodeCount() const { return m_nodes.size(); }

private:
    friend class PickleParser;
    std::vector<Node> m_nodes;
    std::vector<std::vector<Id>> m_items;
    Id m_root = 0;
};

// Errors name the byte offset and the opcode ("unknown opcode 0x63 'c' (GLOBAL) at byte 17: not allowed").
Result<PickleDoc> parsePickle(const std::string& file, std::string_view bytes);

} // namespace stallscope
