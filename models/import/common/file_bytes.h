// SPDX-License-Identifier: MIT
#pragma once

// A raw file's bytes as every format reader wants them: gzip inflated (profiler traces and rotated logs are often
// .gz), with the spare capacity simdjson reads past the end of a document.

#include <cstddef>
#include <filesystem>
#include <string>

namespace stallscope {

// Bytes of spare capacity simdjson needs after a document (its SIMDJSON_PADDING).
std::size_t jsonPadding();

// The file's bytes, gzip members inflated; capacity ≥ size + jsonPadding(). Empty when it cannot be read.
std::string readFileBytes(const std::filesystem::path& p);

} // namespace stallscope
