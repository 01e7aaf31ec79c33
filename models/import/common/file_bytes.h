// SPDX-License-Identifier: MIT
#pragma once

// A raw file's bytes as every format reader wants them: gzip inflated (profiler traces and rotated logs are often
// .gz), with the spare capacity simdjson reads past the end of a document.

#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace stallscope {

// Bytes of spare capacity simdjson needs after a document (its SIMDJSON_PADDING).
std::size_t jsonPadding();

// How far a gzip file may inflate before it is refused: a bomb (a few MB of zeros that inflate to GBs) must
// not take the machine's memory, while real traces (10–20x) and logs (up to ~50x) always pass.
struct GzipLimits
{
    double maxRatio = 100; // inflated bytes per compressed byte, beyond the floor
    std::uint64_t floorBytes = 256ull << 20; // small files may always inflate this far
    std::uint64_t ceilingBytes = 16ull << 30; // never more than this, whatever the ratio
};

// The file's bytes, gzip members inflated (within `limits`), as UTF-8 without a byte-order mark (asUtf8Text: a UTF-8
// BOM dropped, UTF-16 with its BOM transcoded); capacity ≥ size + jsonPadding(). An error names the
// file (and the compressed offset where inflating stopped).
// Runs of zero bytes at either end are dropped, their lengths in `*zeros` when given. A host that stops while
// writing a file leaves the blocks the filesystem had allocated reading as zeros at its end (ext4 and XFS delayed
// allocation); a writer that does not append, after logrotate's copytruncate, goes on at its old offset and leaves
// a hole of zeros at the start. No format read here begins or ends with a zero byte — text never holds one, a pickle
// begins with PROTO and ends with STOP — while a trace followed by 64 KiB of zeros was refused whole ("JSON document
// ended early"). Dropped after inflating and transcoding, never from gzip bytes (a trailer's length may end in 0).
struct ZeroRuns
{
    std::uint64_t head = 0, tail = 0;
};
Result<std::string> readFileBytes(
    const std::filesystem::path& p, const GzipLimits& limits = {}, ZeroRuns* zeros = nullptr);
// How many bytes at the start of the file are a hole (never written, read as zeros): what a writer that does not
// append leaves after logrotate's copytruncate, gigabytes when the log was large. Found with lseek's SEEK_DATA
// without reading them; 0 when there is none or the filesystem does not say. readFileBytes skips them the same way
// (counted in ZeroRuns::head), so a 5 GB hole before a few lines of log costs nothing to read.
std::uint64_t leadingHoleBytes(const std::filesystem::path& p);
// How many zero bytes end the file (blocks allocated but never written), read back from the end a block at a time:
// for files read in pieces, which readFileBytes does not read.
std::uint64_t trailingZeroBytes(const std::filesystem::path& p);
Result<std::string> inflateGzip(const std::string& file, const std::string& bytes, const GzipLimits& limits = {});
// The first `maxBytes` that the gzip stream beginning `compressed` inflates to (the first member, as far as its
// bytes go): enough to recognise a large file without inflating it whole. Whatever inflated before a cut or damage.
std::string inflateGzipHead(const std::string& compressed, std::size_t maxBytes);

} // namespace stallscope
