// SPDX-License-Identifier: MIT
#pragma once

// Interned strings: host names, HCA names and node descriptions repeat across thousands of ranks and ports.
// Immutable once built into a snapshot; safe to read from any thread then.
//
// No string is longer than kMaxBytes: a bundle's topology naming a host in 2 MB (JSON has no line to cut) took a
// render from 0.3 s to 10.7 s (every label laid out whole) and pushed the views' labels off the image. The tools
// that name things never come near it — an InfiniBand NodeDescription is 64 bytes, a DNS name 253, a log line here
// at most 4 KiB — so a longer string is cut at a UTF-8 boundary and ends with "…#" and a hash of the whole (two
// names that share their first 4 KiB stay two names). How many were cut is kept for one warning (openJob).

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

    static constexpr std::size_t kMaxBytes = 4096;

    StringId intern(std::string_view s)
    {
        if (s.size() > kMaxBytes) {
            return internCut(s);
        }
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
    // Distinct strings cut to kMaxBytes, and the length of the longest before it was cut.
    std::size_t cutCount() const { return m_cut; }
    std::size_t longestCut() const { return m_longestCut; }

private:
    StringId internCut(std::string_view s);

    std::size_t m_cut = 0;
    std::size_t m_longestCut = 0;
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, StringId> m_lookup;
};

} // namespace stallscope
