// SPDX-License-Identifier: MIT
#include "core/string_pool.h"

namespace stallscope {

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
