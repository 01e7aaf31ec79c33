// SPDX-License-Identifier: MIT
#pragma once

// The OpenSM log (formats.md §5d): the fabric side's record of a flap. An HCA port the subnet manager removed
// ("drop_mgr_remove_port ... of node:<desc>") is a link going down; one it discovered again
// ("state_mgr_report_new_ports ... of node: <desc>") is the link back up. Trap-128 notices name only the
// switch, not the port, and are counted but not turned into events. Times are local, without a year.

#include "import_rank_log.h"

#include <string>
#include <vector>

namespace stallscope {

struct OpensmPortEvent
{
    TimeNs timeNs = 0;
    std::string nodeDescription; // "gpu-a017 mlx5_3"
    std::uint64_t portGuid = 0;
    bool up = false;
    std::int64_t line = 0;
};

struct OpensmLog
{
    std::vector<OpensmPortEvent> events;
    std::size_t linkStateTraps = 0;
    std::vector<LoadIssue> warnings;
};

bool looksLikeOpensmLog(const std::string& text);
Result<OpensmLog> parseOpensmLog(const std::string& file, const std::string& text, const LogClock& clock = {});

} // namespace stallscope
