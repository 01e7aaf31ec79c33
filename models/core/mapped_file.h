// SPDX-License-Identifier: MIT
#pragma once

// A read-only memory mapping of a whole file (POSIX mmap, MAP_PRIVATE, MAP_POPULATE unless asked not to).
// Populating at map time brings the file in at ~0.3 s/GiB from the page cache instead of faulting page by
// page (shared/docs/performance-notes.md). Read-only: nothing is ever written into a file the user opened.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stallscope {

class MappedFile
{
public:
    // Returns nullptr and sets `error` when the file cannot be opened or mapped.
    // `populate` off: pages come in when first read (counters.bin: most views read a few series; a week of them
    // read whole would hold up the first frame — issue #13).
    static std::shared_ptr<MappedFile> open(const std::string& path, std::string& error, bool populate = true);
    // The same for a file already open (a scratch file unlinked at creation); `fd` stays the caller's to close.
    static std::shared_ptr<MappedFile> open(int fd, std::string& error, bool populate = true);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return { static_cast<const std::byte*>(m_data), m_size }; }
    std::size_t size() const { return m_size; }
    // Drops the pages of [offset, offset + length) that are wholly inside it from memory (they come back from the
    // file if read again): a file read once, front to back, in pieces (a week of scrapes) then holds one piece.
    void release(std::size_t offset, std::size_t length) const;

private:
    MappedFile() = default;
    void* m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace stallscope
