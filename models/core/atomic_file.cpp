// SPDX-License-Identifier: MIT
#include "core/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace stallscope {

namespace fs = std::filesystem;

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

} // namespace stallscope
