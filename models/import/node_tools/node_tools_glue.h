// SPDX-License-Identifier: MIT
#pragma once

// How the node tools' outputs join a raw folder's facts (import/folder/formats.cpp's row calls this): each file's
// ports, GPUs and NVLinks into `nodeTools`, noted in the folder sink. A capture that also holds a host log (dmesg
// after ibstat) is read as one too by the row, which knows both formats.

#include "import/common/folder_sink.h"
#include "import/common/node_facts.h"

#include <optional>
#include <vector>

namespace stallscope {

std::optional<LoadIssue> addNodeTools(FileInput& in, FolderSink& sink, std::vector<NodeToolsFile>& nodeTools);

} // namespace stallscope
