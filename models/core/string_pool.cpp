// SPDX-License-Identifier: MIT
#include "core/string_pool.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace stallscope {

StringId StringPool::internCut(std::string_view s)
{
    char tag[24];
    std::snprintf(tag, sizeof tag, "\xe2\x80\xa6#%08zx", std::hash<std::string_view> {}(s)&0xffffffffu); // …#hash
    std::size_t keep = kMaxBytes - std::char_traits<char>::length(tag);
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xc0) == 0x80) {
        --keep; // not inside a UTF-8 sequence: s[keep] starts a character
    }
    auto cut = std::string(s.substr(0, keep)) + tag;
    if (auto it = m_lookup.find(cut); it != m_lookup.end()) {
        return it->second; // cut before: counted then
    }
    ++m_cut;
    m_longestCut = std::max(m_longestCut, s.size());
    return intern(cut);
}

std::size_t StringPool::memoryBytes() const
{
    std::size_t bytes = m_strings.capacity() * sizeof(std::string);
    for (const auto& s : m_strings) {
        bytes += s.capacity() > 15 ? s.capacity() : 0;
    }
    // Hash map: one node per entry (key string + id + next pointer) plus the bucket array.
    bytes += m_lookup.size() * (sizeof(std::string) + 16) + m_lookup.bucket_count() * sizeof(void*);
    return bytes;
}

} // namespace stallscope
