// SPDX-License-Identifier: MIT
#pragma once

// A read-only memory mapping of a whole file (POSIX mmap, MAP_PRIVATE, MAP_POPULATE unless asked not to).
// Populating at map time brings the file in at ~0.3 s/GiB from the page cache instead of faulting page by
// page (shared/docs/performance-notes.md). Read-only: nothing is ever written into a file the user opened.
//
// A file cut short on disk while mapped (log rotation by truncation, `cp` over an open bundle, a collector
// rewriting its .prom file) would raise SIGBUS on the next read past its new end and end the process. Every mapping
// is guarded instead: a fault inside one maps a page of zeros over the faulting page (POSIX lets a process replace
// pages of its own mappings; mmap is a plain system call, safe in a signal handler) and marks the mapping cut short.
// Readers ask cutShort() after reading and refuse what they read; a window asks filesCutShort() to tell the user.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace stallscope {

class MappedFile
{
public:
    // Returns nullptr and sets `error` when the file cannot be opened or mapped.
    // `populate` off: pages come in when first read (counters.bin: most views read a few series; a week of them
    // read whole would hold up the first frame — issue #13).
    static std::shared_ptr<MappedFile> open(const std::string& path, std::string& error, bool populate = true);
    // The same for a file already open (a scratch file unlinked at creation); `fd` stays the caller's to close.
    // `name` is what messages call it.
    static std::shared_ptr<MappedFile> open(
        int fd, std::string& error, bool populate = true, std::string name = "a scratch file");
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return { static_cast<const std::byte*>(m_data), m_size }; }
    std::size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }
    // Drops the pages of [offset, offset + length) that are wholly inside it from memory (they come back from the
    // file if read again): a file read once, front to back, in pieces (a week of scrapes) then holds one piece.
    void release(std::size_t offset, std::size_t length) const;
    // True once a read fell past the file's end on disk: the file was cut short while mapped, and what was read
    // from there on is zeros, not the file. Any thread.
    bool cutShort() const;
    // Reads one byte of each page of [offset, offset + length), so that a cut inside it is known before its bytes
    // are parsed; then !cutShort().
    bool intact(std::size_t offset, std::size_t length) const;
    // Bytes from the start that are the file's: size() unless cut short, else where the zeros begin (the file's
    // size now, when it is smaller than the first page found missing).
    std::size_t readableBytes() const;
    // "cut short on disk while open (now N bytes, was M bytes): what was read from byte K on is zeros, not the
    // file — …" for a mapping that is; the same, in the future tense, for one whose file (the same file, not one
    // renamed over it) is now shorter though nothing read past its end yet; empty otherwise. Without the file's
    // name (messages carry it apart).
    std::string cutShortMessage() const;

private:
    MappedFile() = default;
    void* m_data = nullptr;
    std::size_t m_size = 0;
    std::string m_path;
    int m_guard = -1; // slot in the fault guard's table; -1 when the table was full (then unguarded)
    std::uint64_t m_device = 0, m_inode = 0; // which file was mapped: one renamed over its name is another
};

// Every live mapping whose file was cut short on disk (see above), for a window to show. Any thread.
struct FileCutShort
{
    std::string path;
    std::string message; // cutShortMessage()
    std::string format() const { return path + ": " + message; }
};
std::vector<FileCutShort> mappedFilesCutShort();

} // namespace stallscope
