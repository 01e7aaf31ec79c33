// SPDX-License-Identifier: MIT
#pragma once

// Whole small documents read by name: a bundle's manifest, topology and JSON Lines, a review session, an exercise's
// sheet and answer. Such a name can be a named pipe (opening it blocks until some writer comes: the window's loader
// waited forever and Cancel could not stop it), a device (/dev/zero never ends: memory ran out), a folder, or a huge
// file given by mistake. Each is refused, naming the file and what it is, before a byte is read.

#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>

namespace stallscope {

// Why `path` cannot be read as a document ("is a named pipe, not a file", "cannot open the file: …"), or nullopt.
// Does not open it: a named pipe is found by its type.
std::optional<LoadIssue> notAPlainFile(const std::string& path);

// The whole document; an error as above, or when it is larger than `maxBytes` ("is 3.2 GB: more than a
// <what> ever is (at most 64 MiB); is it the right file?").
Result<std::string> readDocument(const std::string& path, std::uint64_t maxBytes, const std::string& what);

inline constexpr std::uint64_t kSmallDocumentBytes = 64ull << 20; // sessions, exercise sheets and answers
inline constexpr std::uint64_t kBundleDocumentBytes = 4ull << 30; // a million ranks' manifest, a vast topology

} // namespace stallscope
