// SPDX-License-Identifier: MIT
#pragma once

// Why the last system call failed, in words ("Permission denied", "Input/output error"), for messages that name a
// file: "cannot open the file" alone leaves the reader guessing. Reads errno, which is per thread: call it right
// after the failing call, before anything else can set errno.

#include <cerrno>
#include <string>
#include <system_error>

namespace stallscope {

inline std::string lastOsError()
{
    return std::error_code(errno, std::generic_category()).message();
}

} // namespace stallscope
