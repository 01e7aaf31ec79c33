// SPDX-License-Identifier: MIT
#pragma once

// ibhosts, ibswitches and ibrouters (infiniband-diags' node lists, docs/formats.md §5i): one line per node,
// `Ca : 0x7cfe900300a66ca0 ports 2 "node41 HCA-1"`, `Switch : 0x08c0eb0300f6fc26 ports 41 "MF0;leaf-3:MQM8700/U1"
// enhanced port 0 lid 4 lmc 0`. Each declares a node of the fabric (kind, GUID, ports, description) and a switch's
// LID, so perfquery and ibqueryerrors readings of a LID or GUID are named; the list brings no link. Recognised by
// those lines wherever they start on a line (behind a prompt's output, in a program's string). Calling thread.

#include "core/result.h"
#include "import/common/fabric_builder.h"

#include <string>
#include <vector>

namespace stallscope {

struct IbNodeList
{
    std::size_t cas = 0, switches = 0, routers = 0;
};

bool looksLikeIbNodeList(const std::string& text);
// An error when no node line was read; a node line cut or damaged is a warning naming the file and line.
Result<IbNodeList> readIbNodeList(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings);

} // namespace stallscope
