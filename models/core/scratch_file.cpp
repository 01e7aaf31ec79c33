// SPDX-License-Identifier: MIT
#include "core/scratch_file.h"
#include "core/parse_number.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace stallscope {

namespace {

constexpr std::size_t kBufferBytes = 4u << 20; // appends reach the kernel in 4 MiB writes

// A number in a one-line file ("max" and unreadable files: nullopt).
std::optional<std::uint64_t> numberIn(const std::string& path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text)) {
        return std::nullopt;
    }
    return parseNumber<std::uint64_t>(text);
}

// The memory limit of this process's cgroup (v2 memory.max, else v1 memory.limit_in_bytes), when it has one: a
// container or a Slurm job step is given less than the machine has, and exceeding it is an OOM kill.
std::optional<std::uint64_t> cgroupLimit()
{
    std::ifstream in("/proc/self/cgroup");
    std::optional<std::uint64_t> limit;
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) {
            continue;
        }
        const auto controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        std::optional<std::uint64_t> l;
        if (controllers.empty()) {
            l = numberIn("/sys/fs/cgroup" + path + "/memory.max");
            l = l ? l : numberIn("/sys/fs/cgroup/unified" + path + "/memory.max");
        } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            l = numberIn("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
        }
        if (l && (!limit || *l < *limit)) {
            limit = l;
        }
    }
    return limit;
}

} // namespace

std::string defaultScratchDir()
{
    const char* t = std::getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

std::uint64_t defaultMemoryBudget()
{
    // Judged once per process (thread-safe static): a cgroup's limit is set when the container or job step starts,
    // and every ScratchPolicy made asks — reading /proc/self/cgroup and the limit's files each time was 8.5 % of
    // the folder fuzz target's time (perf, session 21), and is work a folder read did two or three times over.
    static const std::uint64_t budget = [] {
        const auto pages = ::sysconf(_SC_PHYS_PAGES);
        const auto pageSize = ::sysconf(_SC_PAGESIZE);
        std::uint64_t ram = pages > 0 && pageSize > 0 ? std::uint64_t(pages) * std::uint64_t(pageSize) : 0;
        if (const auto cg = cgroupLimit(); cg && *cg < ram) {
            ram = *cg;
        }
        return std::max<std::uint64_t>(ram / 8, 64ull << 20);
    }();
    return budget;
}

std::unique_ptr<ScratchFile> ScratchFile::create(const std::string& dir, std::string& error)
{
    std::unique_ptr<ScratchFile> f(new ScratchFile);
    f->m_dir = dir.empty() ? defaultScratchDir() : dir;
    std::string name = f->m_dir + "/.stallscope-scratch-XXXXXX";
    f->m_fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (f->m_fd < 0) {
        error = "cannot make a scratch file in " + f->m_dir + ": " + std::strerror(errno);
        return nullptr;
    }
    ::unlink(name.c_str()); // nameless from now on: nothing to clean up after a crash
    f->m_buffer.reserve(kBufferBytes);
    return f;
}

ScratchFile::~ScratchFile()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

bool ScratchFile::drain()
{
    const char* p = m_buffer.data();
    std::size_t left = m_buffer.size();
    while (left > 0 && m_error.empty()) {
        const auto n = ::write(m_fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_error = "writing a scratch file in " + m_dir + " failed: " + std::strerror(n < 0 ? errno : ENOSPC);
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    m_buffer.clear();
    return m_error.empty();
}

bool ScratchFile::append(const void* data, std::size_t bytes)
{
    if (!m_error.empty()) {
        return false;
    }
    const char* p = static_cast<const char*>(data);
    m_size += bytes;
    while (bytes > 0) {
        const auto room = kBufferBytes - m_buffer.size();
        const auto n = bytes < room ? bytes : room;
        m_buffer.insert(m_buffer.end(), p, p + n);
        p += n;
        bytes -= n;
        if (m_buffer.size() == kBufferBytes && !drain()) {
            return false;
        }
    }
    return true;
}

bool ScratchFile::align(std::size_t alignment)
{
    static const char zeros[64] = {};
    const auto pad = (alignment - m_size % alignment) % alignment;
    return pad == 0 || (pad <= sizeof zeros ? append(zeros, pad) : false);
}

bool ScratchFile::read(std::uint64_t offset, void* out, std::size_t bytes)
{
    if (!drain() || offset > m_size || bytes > m_size - offset) {
        return false;
    }
    char* p = static_cast<char*>(out);
    while (bytes > 0) {
        const auto n = ::pread(m_fd, p, bytes, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_error = "reading a scratch file in " + m_dir + " back failed: " + std::strerror(n < 0 ? errno : EIO);
            return false;
        }
        p += n;
        offset += static_cast<std::uint64_t>(n);
        bytes -= static_cast<std::size_t>(n);
    }
    return true;
}

std::shared_ptr<MappedFile> ScratchFile::map()
{
    if (!drain()) {
        return nullptr;
    }
    std::string error;
    auto m = MappedFile::open(m_fd, error, false);
    if (!m) {
        m_error = "mapping a scratch file in " + m_dir + " failed: " + error;
    }
    return m;
}

bool releaseReadPart(std::FILE* f)
{
    constexpr long kGrain = 1L << 20;
    const long at = std::ftell(f); // stdio's position: bytes handed to the reader, all of them read from the file
    return at < kGrain
        || fallocate(fileno(f), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, at / kGrain * kGrain) == 0;
}

} // namespace stallscope
