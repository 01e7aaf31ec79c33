// SPDX-License-Identifier: MIT
#include "core/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unistd.h>

namespace stallscope {

namespace fs = std::filesystem;

namespace {
// Bytes after which writes fail (tests only); SIZE_MAX = never. Atomic: sessions are saved off the GUI thread.
std::atomic<std::size_t> g_failAfter { SIZE_MAX };
} // namespace

void injectWriteFailureForTesting(std::optional<std::size_t> bytes)
{
    g_failAfter = bytes.value_or(SIZE_MAX);
}

std::filesystem::path absoluteFolder(const std::string& path)
{
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    while (!p.has_filename() && p.has_relative_path()) {
        p = p.parent_path();
    }
    return p;
}

std::string errnoText()
{
    return std::strerror(errno);
}

DurableFile::DurableFile(const fs::path& path)
    : m_buffer(1 << 20)
{
    m_f = std::fopen(path.c_str(), "wb");
    if (m_f) {
        std::setvbuf(m_f, m_buffer.data(), _IOFBF, m_buffer.size());
    }
}

DurableFile::~DurableFile()
{
    if (m_f) {
        std::fclose(m_f);
    }
}

std::string DurableFile::finish()
{
    std::string err;
    if (std::fflush(m_f) != 0 || ::fsync(fileno(m_f)) != 0) {
        err = errnoText();
    }
    if (std::fclose(m_f) != 0 && err.empty()) {
        err = errnoText();
    }
    m_f = nullptr;
    return err;
}

std::string writeFileDurably(const fs::path& path, std::string_view content)
{
    DurableFile out(path);
    if (!out) {
        return path.string() + ": " + errnoText();
    }
    const std::size_t failAfter = g_failAfter;
    if (failAfter < content.size()) {
        std::fwrite(content.data(), 1, failAfter, out.handle());
        std::fflush(out.handle()); // half a file on disk, as a full disk leaves it
        return path.string() + ": " + std::strerror(ENOSPC);
    }
    if (std::fwrite(content.data(), 1, content.size(), out.handle()) != content.size()) {
        return path.string() + ": " + errnoText();
    }
    auto err = out.finish();
    return err.empty() ? err : path.string() + ": " + err;
}

std::string writeFileAtomic(const std::string& path, std::string_view content)
{
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    if (auto err = writeFileDurably(temp, content); !err.empty()) {
        std::error_code ec;
        fs::remove(temp, ec);
        return err;
    }
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        return path + ": " + ec.message();
    }
    return {};
}

std::string writeFileAtomicWith(const std::string& path, const std::function<std::string(std::FILE*)>& write)
{
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    std::string err;
    {
        DurableFile out(temp);
        err = !out ? errnoText() : write(out.handle());
        if (out && err.empty()) {
            err = out.finish();
        }
    }
    std::error_code ec;
    if (err.empty()) {
        fs::rename(temp, path, ec);
        err = ec ? ec.message() : std::string();
    }
    if (!err.empty()) {
        fs::remove(temp, ec);
        return path + ": " + err;
    }
    return {};
}

} // namespace stallscope
