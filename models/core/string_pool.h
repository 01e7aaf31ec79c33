// SPDX-License-Identifier: MIT
#pragma once

// Interned strings: host names, HCA names and node descriptions repeat across thousands of ranks and ports.
// Immutable once built into a snapshot; safe to read from any thread then.

#include "core/types.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope {

class StringPool
{
public:
    StringPool() { intern({}); } // StringId{0} is always the empty string

    StringId intern(std::string_view s)
    {
        if (auto it = m_lookup.find(std::string(s)); it != m_lookup.end()) {
            return it->second;
        }
        const auto id = static_cast<StringId>(m_strings.size());
        m_strings.emplace_back(s);
        m_lookup.emplace(m_strings.back(), id);
        return id;
    }
    const std::string& str(StringId id) const { return m_strings.at(index(id)); }
    std::size_t size() const { return m_strings.size(); }
    std::size_t memoryBytes() const;

private:
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, StringId> m_lookup;
};

} // namespace stallscope
