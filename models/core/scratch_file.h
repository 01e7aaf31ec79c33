// SPDX-License-Identifier: MIT
#pragma once

// A scratch file for data too large to hold in memory while a folder is read (a week of counter samples,
// issue #13): created in a folder and unlinked at once, so a crash or a kill leaves nothing behind and the space
// returns when the last user closes or unmaps it. Written by appending (buffered), read back by offset, or mapped
// whole once written. One thread at a time.

#include "core/mapped_file.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace stallscope {

class ScratchFile
{
public:
    // nullptr and `error` set when no file can be made in `dir` ("" = $TMPDIR, else /tmp).
    static std::unique_ptr<ScratchFile> create(const std::string& dir, std::string& error);
    ~ScratchFile();
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    // Appends `bytes`; false once a write failed (full disk…): error() says why and every later call fails too.
    bool append(const void* data, std::size_t bytes);
    // Appends zeros up to a multiple of `alignment` (columns mapped later must be aligned for their type).
    bool align(std::size_t alignment);
    std::uint64_t size() const { return m_size; }
    // Reads back what was appended; false on a failed read or a range past the end.
    bool read(std::uint64_t offset, void* out, std::size_t bytes);
    // Maps everything written so far, read-only and not populated; the mapping outlives this object.
    std::shared_ptr<MappedFile> map();
    const std::string& error() const { return m_error; }
    const std::string& dir() const { return m_dir; }

private:
    ScratchFile() = default;
    bool drain(); // writes the buffer out
    int m_fd = -1;
    std::string m_dir;
    std::vector<char> m_buffer; // appends not yet written (reads and maps drain it first)
    std::uint64_t m_size = 0; // bytes appended, written or buffered
    std::string m_error;
};

// Gives the disk space of the part of `f` already read (from its start to its read position, rounded down to 1 MiB)
// back to the file system as a hole, for a scratch file read once front to back into its final form: the copy then
// needs its own space only, not twice (a 131,072-rank simulation's records and counters are tens of GB). The size
// stays; the part reads as zeros after. `f` must be open for writing too ("r+b": the file system takes holes only
// from a writer). Best effort: false when the file system refused (errno says why; EOPNOTSUPP: it has no holes).
bool releaseReadPart(std::FILE* f);

// The folder scratch files go in when none is named: $TMPDIR, else /tmp.
std::string defaultScratchDir();
// An eighth of the memory this process may use — the machine's, or its cgroup's limit when lower (a container, a
// Slurm step) — and at least 64 MiB: what a reader holds before spilling (ScratchPolicy). Judged once per process.
std::uint64_t defaultMemoryBudget();

// How much a reader may hold in memory before it spills to scratch files, and where they go. Opening a folder
// uses it for counter samples: a week of 1 s counters of a large fabric is larger than the machine's memory.
struct ScratchPolicy
{
    std::uint64_t memoryBytes = defaultMemoryBudget();
    std::string dir; // "" = defaultScratchDir(); `convert` puts them beside the bundle it writes
    // Plain files from this size whose format can be read in pieces (scrapes, collector rows) are, in pieces of
    // pieceBytes of whole lines, never held whole. Tests lower both to read small files the same way.
    std::uint64_t streamFromBytes = 256ull << 20;
    std::size_t pieceBytes = 64u << 20;
    // Files read whole (every other format) in memory at once across the reading threads: half of what the process
    // may use. A file waits until it fits beside the others; a larger one is left out with a warning.
    std::uint64_t wholeFileBytes = defaultMemoryBudget() * 4;
    // Threads that read and parse a folder's files, the calling one among them: 0 = one per core, at most four.
    // The folder fuzz target uses one for most inputs: under AddressSanitizer starting and ending the threads (each
    // stack's shadow cleared, the thread's own allocator caches) took 30 % of its time.
    unsigned readerThreads = 0;
};

} // namespace stallscope
