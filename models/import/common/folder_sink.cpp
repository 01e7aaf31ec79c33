// SPDX-License-Identifier: MIT
// The folder sink's out-of-line parts: a folder's share of warnings per file, and a file's modification time.
#include "import/common/folder_sink.h"

#include <algorithm>
#include <chrono>

namespace stallscope {

WarningHold WarningHold::forFolderOf(std::size_t files)
{
    WarningHold hold;
    const auto share = kKeptPerFolder / std::max<std::size_t>(files, 1);
    if (share < hold.keep) {
        hold.keep = std::max(share, kKeptAtLeast);
        hold.scope = "each of this folder's " + std::to_string(files) + " files";
    }
    return hold;
}

TimeNs modifiedNs(const std::filesystem::path& p)
{
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(p, ec);
    if (ec) {
        return kNoTime;
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::file_clock::to_sys(t).time_since_epoch())
        .count();
}

} // namespace stallscope
