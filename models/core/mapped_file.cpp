// SPDX-License-Identifier: MIT
#include "core/mapped_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stallscope {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, std::string& error, bool populate)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    auto f = open(fd, error, populate);
    ::close(fd);
    return f;
}

std::shared_ptr<MappedFile> MappedFile::open(int fd, std::string& error, bool populate)
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
    if (f->m_size > 0) {
        void* p = ::mmap(nullptr, f->m_size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED) {
            error = std::strerror(errno);
            return nullptr;
        }
        f->m_data = p;
    }
    return f;
}

void MappedFile::release(std::size_t offset, std::size_t length) const
{
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
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

MappedFile::~MappedFile()
{
    if (m_data) {
        ::munmap(m_data, m_size);
    }
}

} // namespace stallscope
