// SPDX-License-Identifier: MIT
#pragma once

// The OpenSM log (docs/formats.md §5d): the fabric side's record of a flap. An HCA port the subnet manager removed
// ("drop_mgr_remove_port ... of node:<desc>") is a link going down; one it discovered again
// ("state_mgr_report_new_ports ... of node: <desc>") is the link back up. Trap-128 notices ("Link state
// change") name only the switch; the importer finds the port from the fabric snapshots or counters.
// Times are local, without a year.

#include "core/result.h"
#include "import/common/log_clock.h"

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

// A trap-128 notice: a port of this switch changed state (which port, the trap does not say).
struct OpensmTrap
{
    TimeNs timeNs = 0;
    std::uint32_t lid = 0;
    std::uint64_t guid = 0; // from the log_notice line that follows, 0 when absent
    std::int64_t line = 0;
};

struct OpensmLog
{
    std::vector<OpensmPortEvent> events;
    std::vector<OpensmTrap> traps;
    std::size_t linkStateTraps = 0;
    std::vector<TimeNs> subnetUp; // "SUBNET UP": a sweep finished and the routes are programmed
    std::vector<LoadIssue> warnings;
};

bool looksLikeOpensmLog(const std::string& text);
Result<OpensmLog> parseOpensmLog(const std::string& file, const std::string& text, const LogClock& clock = {});

} // namespace stallscope
