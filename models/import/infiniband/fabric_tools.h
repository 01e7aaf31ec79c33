// SPDX-License-Identifier: MIT
#pragma once

// Text output of infiniband-diags as captured on a management host (docs/formats.md §4b, §5b):
// - iblinkinfo (default and -l forms): nodes, links and each port's state; remote ends are named by LID and
//   description only, so they resolve through the LIDs this file and earlier topology files gave.
// - perfquery (standard and -x extended blocks, old short counter names too): counter values per
//   (LID, port). perfquery prints no time; the stamp lines of import/common/sample_stamp.h date the blocks after them.

#include "core/counters.h"
#include "core/result.h"
#include "import/common/fabric_builder.h"

#include <string>
#include <vector>

namespace stallscope {

struct PortStateSample
{
    std::uint64_t guid = 0; // canonical node GUID
    std::uint16_t port = 0;
    bool up = false;
};

struct IblinkinfoSnapshot
{
    TimeNs stampNs = kNoTime; // from a stamp line, if the capture has one
    std::vector<PortStateSample> ports;
    std::size_t links = 0;
};

bool looksLikeIblinkinfo(const std::string& text);
// Adds nodes, links and LIDs to `fabric`; returns every port's state.
Result<IblinkinfoSnapshot> readIblinkinfo(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings);

struct PerfquerySample
{
    std::uint32_t lid = 0;
    std::uint16_t port = 0;
    bool extended = false; // from a "-x" block: 64-bit data and packet counters
    CounterKind kind = CounterKind::LinkDowned;
    TimeNs timeNs = kNoTime; // kNoTime when no stamp line preceded the block
    std::uint64_t value = 0; // raw; data counters in 4-byte words as the port reports them
    std::int64_t line = 0;
};

bool looksLikePerfquery(const std::string& text);
Result<std::vector<PerfquerySample>> readPerfquery(
    const std::string& file, const std::string& text, std::vector<LoadIssue>& warnings);

} // namespace stallscope
