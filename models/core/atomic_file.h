// SPDX-License-Identifier: MIT
#pragma once

// Writing files so that a crash, a full disk or a killed process never leaves a half-written file where a good
// one was: content goes to a temporary file beside the target, is flushed and fsync'd, then renamed over it.
// Used by the bundle writer, review sessions, reports, the raw writer and every command that writes a file.

#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// A file opened for writing with a 1 MiB buffer; finish() flushes, fsyncs and closes it and says what failed.
class DurableFile
{
public:
    explicit DurableFile(const std::filesystem::path& path);
    ~DurableFile();
    DurableFile(const DurableFile&) = delete;
    DurableFile& operator=(const DurableFile&) = delete;

    std::FILE* handle() const { return m_f; }
    explicit operator bool() const { return m_f != nullptr; }
    // "" on success, else strerror of the first failing step.
    std::string finish();

private:
    std::FILE* m_f = nullptr;
    std::vector<char> m_buffer;
};

// strerror(errno), for messages.
std::string errnoText();

// `path` made absolute, without a trailing separator: "out/" names the folder "out", not an empty name inside it
// (a bundle written to "out/" must be renamed into place as "out").
std::filesystem::path absoluteFolder(const std::string& path);

// Writes `content` to `path` durably (not atomically: the caller owns the name). "" or "path: reason".
std::string writeFileDurably(const std::filesystem::path& path, std::string_view content);

// Writes `content` to `path` atomically (temporary file in the same folder, flush, fsync, rename).
// Returns an empty string on success, else a message naming the path; the previous file is then untouched.
std::string writeFileAtomic(const std::string& path, std::string_view content);

// The same for content too large to hold: `write` writes it to the temporary file and returns "" or what failed.
std::string writeFileAtomicWith(const std::string& path, const std::function<std::string(std::FILE*)>& write);

// Tests only: the next writes stop after `bytes` bytes and fail as a full disk would (ENOSPC), until reset with
// nullopt. Lets a test prove that a failed save leaves the previous file intact.
void injectWriteFailureForTesting(std::optional<std::size_t> bytes);

} // namespace stallscope
