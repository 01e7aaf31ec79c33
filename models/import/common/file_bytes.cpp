// SPDX-License-Identifier: MIT
#include "import/common/file_bytes.h"

#include "core/os_error.h"
#include "import/common/text_encoding.h"

#include <simdjson.h>
#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace stallscope {

namespace fs = std::filesystem;

std::size_t jsonPadding()
{
    return simdjson::SIMDJSON_PADDING;
}

namespace {

ZeroRuns dropZeroRuns(std::string& bytes)
{
    const auto keep = bytes.find_last_not_of('\0') + 1; // npos + 1 == 0: all zeros
    ZeroRuns z;
    z.tail = bytes.size() - keep;
    bytes.resize(keep); // capacity kept: the padding is still there
    z.head = std::min<std::uint64_t>(bytes.find_first_not_of('\0'), bytes.size());
    bytes.erase(0, z.head);
    return z;
}

// Where the first data of the open file lies past a hole at its start; 0 when it begins with data or the
// filesystem does not tell (SEEK_DATA unsupported: EINVAL). A file that is all hole has no data: its size.
std::uint64_t holeAtStart(int fd, std::uint64_t size)
{
    errno = 0;
    const auto data = ::lseek(fd, 0, SEEK_DATA);
    if (data < 0) {
        return errno == ENXIO ? size : 0;
    }
    return std::min<std::uint64_t>(static_cast<std::uint64_t>(data), size);
}

// A file opened to read without waiting (a named pipe would), with its size; fd -1 when it cannot be. Closed with it.
struct OpenFile
{
    explicit OpenFile(const fs::path& p)
    {
        std::error_code ec;
        size = fs::file_size(p, ec);
        fd = ec ? -1 : ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
    ~OpenFile()
    {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    int fd = -1;
    std::uint64_t size = 0;
};

} // namespace

std::uint64_t leadingHoleBytes(const fs::path& p)
{
    const OpenFile f(p);
    return f.fd < 0 ? 0 : holeAtStart(f.fd, f.size);
}

std::uint64_t trailingZeroBytes(const fs::path& p)
{
    const OpenFile f(p);
    if (f.fd < 0) {
        return 0;
    }
    const int fd = f.fd;
    const auto size = f.size;
    std::uint64_t zeros = 0;
    char block[64 << 10];
    while (zeros < size) {
        const auto n = std::min<std::uint64_t>(sizeof block, size - zeros);
        const auto got = ::pread(fd, block, n, static_cast<off_t>(size - zeros - n));
        if (got != static_cast<ssize_t>(n)) {
            break; // shrank or failed: what was counted stands
        }
        const std::string_view b(block, n);
        const auto last = b.find_last_not_of('\0');
        if (last != std::string_view::npos) {
            zeros += n - last - 1;
            break;
        }
        zeros += n;
    }
    return zeros;
}

Result<std::string> readFileBytes(const fs::path& p, const GzipLimits& limits, ZeroRuns* zeros)
{
    std::string bytes;
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
        return LoadIssue { p.string(), 0, -1, "cannot read the file: " + ec.message() };
    }
    std::FILE* f = std::fopen(p.c_str(), "rb");
    if (!f) {
        return LoadIssue { p.string(), 0, -1, "cannot open the file: " + lastOsError() };
    }
    const auto hole = holeAtStart(fileno(f), size); // never read: zeros the filesystem would make up
    if (hole > 0 && std::fseek(f, static_cast<long>(hole), SEEK_SET) != 0) {
        const auto why = lastOsError();
        std::fclose(f);
        return LoadIssue { p.string(), 0, static_cast<std::int64_t>(hole), "cannot read the file: " + why };
    }
    bytes.reserve(size - hole + jsonPadding()); // simdjson reads up to its padding past the end
    bytes.resize(size - hole);
    bytes.resize(std::fread(bytes.data(), 1, size - hole, f));
    // A file that shrank while read (a log being rotated) ends early and is read as far as it went; a read
    // error (a failing disk, a vanished network mount) is not a short file and must not pass for one.
    const bool failed = std::ferror(f) != 0;
    const auto why = failed ? lastOsError() : std::string();
    std::fclose(f);
    if (failed) {
        return LoadIssue { p.string(), 0, static_cast<std::int64_t>(bytes.size()), "cannot read the file: " + why };
    }
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f
        || static_cast<unsigned char>(bytes[1]) != 0x8b) {
        asUtf8Text(bytes, jsonPadding()); // first: UTF-16LE text ends in a zero byte of its own
        auto z = dropZeroRuns(bytes);
        (bytes.empty() ? z.tail : z.head) += hole; // all hole: "nothing but zeros", as when they were read
        if (zeros) {
            *zeros = z;
        }
        return bytes;
    }
    auto inflated = inflateGzip(p.string(), bytes, limits);
    if (inflated) {
        asUtf8Text(inflated.value(), jsonPadding());
        const auto z = dropZeroRuns(inflated.value());
        if (zeros) {
            *zeros = z;
        }
    }
    return inflated;
}

namespace {

// What the stream will likely inflate to, so the output is allocated once rather than doubled (a 1 GB trace was
// copied ~2 GB over in growth): the last member's ISIZE trailer (RFC 1952 §2.3.1, the length mod 2^32,
// little-endian). The field is the file's word, so it is never trusted past the cap or past what deflate can
// produce from these bytes (at most 1032 bytes out per byte in, zlib's technical notes); when it is low
// (concatenated members, files over 4 GiB) the string grows as before.
std::uint64_t expectedInflatedSize(const std::string& bytes, std::uint64_t cap)
{
    if (bytes.size() < 18) { // a gzip header and trailer alone are 18 bytes
        return 0;
    }
    const auto* tail = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
    const std::uint64_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::uint64_t(tail[3]) << 24);
    return std::min({ isize, cap, static_cast<std::uint64_t>(bytes.size()) * 1032 });
}

} // namespace

Result<std::string> inflateGzip(const std::string& file, const std::string& bytes, const GzipLimits& limits)
{
    // How far this stream may inflate: its size times the ratio, at least the floor, at most the ceiling.
    const double byRatio = static_cast<double>(bytes.size()) * limits.maxRatio;
    const std::uint64_t cap = static_cast<std::uint64_t>(
        std::clamp(byRatio, static_cast<double>(limits.floorBytes), static_cast<double>(limits.ceilingBytes)));
    std::string out;
    out.reserve(expectedInflatedSize(bytes, cap) + jsonPadding());
    z_stream z {};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        return LoadIssue { file, 0, 0, "cannot start inflating the gzip stream" };
    }
    std::size_t fed = 0;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (z.avail_in == 0 && fed < bytes.size()) { // uInt is 32 bits: feed files over 4 GiB in slices
            const std::size_t slice = std::min<std::size_t>(bytes.size() - fed, 1u << 30);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
            z.avail_in = static_cast<uInt>(slice);
            fed += slice;
        }
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (out.size() > cap) {
            const auto at = static_cast<std::int64_t>(fed - z.avail_in);
            inflateEnd(&z);
            return LoadIssue { file, 0, at,
                "the gzip stream inflates beyond " + std::to_string(cap >> 20) + " MiB (over "
                    + std::to_string(static_cast<int>(limits.maxRatio))
                    + "x its size, the ratio limit): refused as a gzip bomb or a damaged file" };
        }
        if (rc == Z_STREAM_END && (z.avail_in > 0 || fed < bytes.size())) { // concatenated members
            inflateReset(&z);
            rc = Z_OK;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed < bytes.size()) {
            rc = Z_OK; // the slice ran out; the next one follows
        }
    }
    inflateEnd(&z);
    // A corrupt or cut stream gives what inflated before the damage; the format reader reports the truncation.
    out.reserve(out.size() + jsonPadding());
    return out;
}

std::string inflateGzipHead(const std::string& compressed, std::size_t maxBytes)
{
    std::string out(maxBytes, '\0');
    z_stream z {};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        return {};
    }
    // uInt is 32 bits: a head is a few MiB, anything more is not looked at.
    const auto in = std::min<std::size_t>(compressed.size(), 1u << 30);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(in);
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size(), 1u << 30));
    while (z.avail_out > 0 && inflate(&z, Z_NO_FLUSH) == Z_OK) { } // stops at the end, on damage, or when full
    out.resize(std::min<std::size_t>(out.size(), 1u << 30) - z.avail_out);
    inflateEnd(&z);
    return out;
}

} // namespace stallscope
