// SPDX-License-Identifier: MIT
#include "core/mapped_file.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stallscope {

namespace {

// The fault guard's table: one slot per live mapping. The SIGBUS handler reads it with atomics only (no lock, no
// allocation); slots are taken and given back under `g_mutex` on ordinary threads.
struct GuardSlot
{
    std::atomic<std::uintptr_t> begin { 0 }; // 0: free
    std::atomic<std::uintptr_t> end { 0 };
    std::atomic<std::uintptr_t> firstZeroed { UINTPTR_MAX }; // lowest offset of a page replaced by zeros
    std::atomic<bool> hit { false };
    const MappedFile* owner = nullptr; // under g_mutex
};

constexpr std::size_t kGuardSlots = 4096; // live mappings: a bundle holds two, a folder read one per large file
std::array<GuardSlot, kGuardSlots> g_slots;
std::mutex g_mutex;
struct sigaction g_previous
{
};
std::uintptr_t g_pageSize = 4096;

// Hands the fault to whatever handled SIGBUS before us (a sanitizer's report), or to the default action (the
// faulting read runs again and ends the process as it would have without the guard).
void passOn(int sig, siginfo_t* info, void* context)
{
    if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(sig, info, context);
        return;
    }
    if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
        g_previous.sa_handler(sig);
        return;
    }
    struct sigaction dfl
    {
    };
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGBUS, &dfl, nullptr);
    ::raise(sig); // pending until we return (blocked in its handler), then the default: the process ends
}

// Signal context: async-signal-safe calls only (mmap, sigaction) and lock-free atomics.
void onBusError(int sig, siginfo_t* info, void* context)
{
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (auto& s : g_slots) {
        const auto b = s.begin.load(std::memory_order_acquire);
        if (b == 0 || addr < b || addr >= s.end.load(std::memory_order_acquire)) {
            continue;
        }
        const auto page = addr & ~(g_pageSize - 1);
        void* p = ::mmap(
            reinterpret_cast<void*>(page), g_pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED) {
            break;
        }
        auto low = s.firstZeroed.load();
        const auto offset = page > b ? page - b : 0;
        while (offset < low && !s.firstZeroed.compare_exchange_weak(low, offset)) { }
        s.hit.store(true, std::memory_order_release);
        return; // the read runs again and finds zeros
    }
    passOn(sig, info, context);
}

void installGuard()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (const long page = ::sysconf(_SC_PAGESIZE); page > 0) {
            g_pageSize = static_cast<std::uintptr_t>(page);
        }
        struct sigaction sa
        {
        };
        sa.sa_sigaction = onBusError;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}

int takeSlot(const MappedFile* owner, const void* data, std::size_t size)
{
    installGuard();
    const std::lock_guard lock(g_mutex);
    for (std::size_t i = 0; i < g_slots.size(); ++i) {
        auto& s = g_slots[i];
        if (s.begin.load() == 0) {
            s.owner = owner;
            s.hit.store(false);
            s.firstZeroed.store(UINTPTR_MAX);
            s.end.store(reinterpret_cast<std::uintptr_t>(data) + size);
            s.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void giveBack(int slot)
{
    if (slot < 0) {
        return;
    }
    const std::lock_guard lock(g_mutex);
    auto& s = g_slots[static_cast<std::size_t>(slot)];
    s.begin.store(0, std::memory_order_release);
    s.end.store(0);
    s.owner = nullptr;
}

// The file's size on disk now; -1 when it cannot be asked (a scratch file has no name) or another file has taken its
// name (renamed over it: the mapping still holds the old one, whole).
std::int64_t fileSizeNow(const std::string& path, std::uint64_t device, std::uint64_t inode)
{
    struct stat st
    {
    };
    if (path.empty() || ::stat(path.c_str(), &st) != 0 || st.st_dev != device || st.st_ino != inode) {
        return -1;
    }
    return std::int64_t(st.st_size);
}

} // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, std::string& error, bool populate)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK); // a named pipe: no wait for a writer
    if (fd < 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    auto f = open(fd, error, populate, path);
    ::close(fd);
    return f;
}

std::shared_ptr<MappedFile> MappedFile::open(int fd, std::string& error, bool populate, std::string name)
{
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_size = static_cast<std::size_t>(st.st_size);
    f->m_path = std::move(name);
    f->m_device = st.st_dev;
    f->m_inode = st.st_ino;
    if (f->m_size > 0) {
        void* p = ::mmap(nullptr, f->m_size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED) {
            error = std::strerror(errno);
            return nullptr;
        }
        f->m_data = p;
        f->m_guard = takeSlot(f.get(), p, f->m_size);
    }
    return f;
}

void MappedFile::release(std::size_t offset, std::size_t length) const
{
    const auto page = static_cast<std::size_t>(g_pageSize); // set when the first file was mapped
    if (!m_data || offset >= m_size || page == 0) {
        return;
    }
    const auto end = std::min(offset + length, m_size);
    const auto first = (offset + page - 1) / page * page;
    const auto last = end == m_size ? end : end / page * page;
    if (last > first) {
        ::madvise(static_cast<char*>(m_data) + first, last - first, MADV_DONTNEED);
    }
}

bool MappedFile::cutShort() const
{
    return m_guard >= 0 && g_slots[static_cast<std::size_t>(m_guard)].hit.load(std::memory_order_acquire);
}

bool MappedFile::intact(std::size_t offset, std::size_t length) const
{
    const volatile char* p = static_cast<const char*>(m_data);
    const auto end = std::min(m_size, offset + std::min(length, m_size));
    for (auto at = offset / g_pageSize * g_pageSize; at < end; at += g_pageSize) { // every page the range touches
        (void)p[at]; // faults here, not in a parser, when the page is gone
    }
    return !cutShort();
}

std::size_t MappedFile::readableBytes() const
{
    if (!cutShort()) {
        return m_size;
    }
    auto from = std::min<std::uintptr_t>(g_slots[static_cast<std::size_t>(m_guard)].firstZeroed.load(), m_size);
    if (const auto now = fileSizeNow(m_path, m_device, m_inode); now >= 0 && std::uint64_t(now) < from) {
        from = std::uintptr_t(now);
    }
    return from;
}

std::string MappedFile::cutShortMessage() const
{
    const auto now = fileSizeNow(m_path, m_device, m_inode);
    if (!cutShort()) {
        if (now < 0 || std::uint64_t(now) >= m_size) {
            return {};
        }
        return "cut short on disk while open (now " + std::to_string(now) + " bytes, was " + std::to_string(m_size)
            + " bytes): what is read past byte " + std::to_string(now)
            + " will be zeros, not the file — rotated, or copied over? Open it again";
    }
    return "cut short on disk while open (" + (now >= 0 ? "now " + std::to_string(now) + " bytes, " : std::string())
        + "was " + std::to_string(m_size) + " bytes): what was read from byte " + std::to_string(readableBytes())
        + " on is zeros, not the file — rotated, or copied over? Open it again";
}

MappedFile::~MappedFile()
{
    giveBack(m_guard);
    if (m_data) {
        ::munmap(m_data, m_size);
    }
}

std::vector<FileCutShort> mappedFilesCutShort()
{
    std::vector<FileCutShort> out;
    const std::lock_guard lock(g_mutex);
    for (const auto& s : g_slots) {
        if (!s.owner) {
            continue;
        }
        if (auto m = s.owner->cutShortMessage(); !m.empty()) {
            out.push_back({ s.owner->path(), std::move(m) });
        }
    }
    return out;
}

} // namespace stallscope
