// SPDX-License-Identifier: MIT
#include "core/document_file.h"

#include "core/os_error.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stallscope {

namespace {

const char* kindOf(mode_t mode)
{
    return S_ISDIR(mode) ? "a folder"
        : S_ISFIFO(mode) ? "a named pipe"
        : S_ISSOCK(mode) ? "a socket"
        : S_ISCHR(mode)  ? "a character device"
        : S_ISBLK(mode)  ? "a block device"
                         : "not a plain file";
}

std::string sizeText(std::uint64_t bytes)
{
    return bytes >= (1ull << 30) ? std::to_string(bytes >> 30) + " GiB"
        : bytes >= (1ull << 20)  ? std::to_string(bytes >> 20) + " MiB"
                                 : std::to_string(bytes) + " bytes";
}

} // namespace

std::optional<LoadIssue> notAPlainFile(const std::string& path)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0) {
        return LoadIssue { path, 0, -1, "cannot open the file: " + lastOsError() };
    }
    if (!S_ISREG(st.st_mode)) {
        return LoadIssue { path, 0, -1, std::string("is ") + kindOf(st.st_mode) + ", not a file" };
    }
    return std::nullopt;
}

Result<std::string> readDocument(const std::string& path, std::uint64_t maxBytes, const std::string& what)
{
    if (auto bad = notAPlainFile(path)) {
        return *bad;
    }
    // O_NONBLOCK: should the name have become a pipe since, open returns at once instead of waiting for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return LoadIssue { path, 0, -1, "cannot open the file: " + lastOsError() };
    }
    struct stat st
    {
    };
    std::optional<LoadIssue> bad;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        bad = LoadIssue { path, 0, -1, std::string("is ") + kindOf(st.st_mode) + ", not a file" };
    } else if (std::uint64_t(st.st_size) > maxBytes) {
        bad = LoadIssue { path, 0, -1,
            "is " + sizeText(std::uint64_t(st.st_size)) + ": more than a " + what + " ever is (at most "
                + sizeText(maxBytes) + "); is it the right file?" };
    }
    std::string text;
    if (!bad) {
        text.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < text.size()) { // a file that shrinks as it is read ends early: what was read is the document
            const auto n = ::read(fd, text.data() + got, text.size() - got);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0) {
                bad = LoadIssue { path, 0, -1, "cannot read the file: " + lastOsError() };
            }
            if (n <= 0) {
                break;
            }
            got += static_cast<std::size_t>(n);
        }
        text.resize(got);
    }
    ::close(fd);
    if (bad) {
        return *bad;
    }
    return text;
}

} // namespace stallscope
