// SPDX-License-Identifier: MIT
#include "import/common/file_bytes.h"

#include <simdjson.h>
#include <zlib.h>

#include <cstdio>

namespace stallscope {

namespace fs = std::filesystem;

std::size_t jsonPadding()
{
    return simdjson::SIMDJSON_PADDING;
}

// The file's bytes; gzip files (profiler traces are often .json.gz) are inflated. A corrupt gzip stream
// gives what inflated before the damage; the format reader then reports the truncation.
std::string readFileBytes(const fs::path& p)
{
    std::string bytes;
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
        return bytes;
    }
    bytes.reserve(size + jsonPadding()); // simdjson reads up to its padding past the end
    bytes.resize(size);
    if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
        bytes.resize(std::fread(bytes.data(), 1, size, f));
        std::fclose(f);
    } else {
        bytes.clear();
    }
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f
        || static_cast<unsigned char>(bytes[1]) != 0x8b) {
        return bytes;
    }
    std::string out;
    z_stream z {};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        return bytes;
    }
    z.next_in = reinterpret_cast<Bytef*>(bytes.data());
    z.avail_in = static_cast<uInt>(bytes.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (rc == Z_STREAM_END && z.avail_in > 0) { // concatenated members
            inflateReset(&z);
            rc = Z_OK;
        }
    }
    inflateEnd(&z);
    out.reserve(out.size() + jsonPadding());
    return out;
}

} // namespace stallscope
