// SPDX-License-Identifier: MIT
#pragma once

// How the InfiniBand tools' files join a raw folder's facts (import/folder/formats.cpp's rows call these): each
// noted in the folder sink, its topology into the fabric builder, and what is read later (iblinkinfo's ports,
// perfquery's samples, the collector's CSVs) kept by its path. Calling thread.

#include "import/common/fabric_builder.h"
#include "import/common/folder_sink.h"
#include "import/infiniband/fabric_tools.h"
#include "import/infiniband/opensm_log.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

std::optional<LoadIssue> addIbnetdiscover(FileInput& in, FolderSink& sink, FabricBuilder& fabric);
std::optional<LoadIssue> addIbNodeList(FileInput& in, FolderSink& sink, FabricBuilder& fabric);
std::optional<LoadIssue> addIblinkinfo(FileInput& in, FolderSink& sink, FabricBuilder& fabric,
    std::vector<std::pair<std::string, IblinkinfoSnapshot>>& linkinfo);
std::optional<LoadIssue> addPerfquery(
    FileInput& in, FolderSink& sink, std::vector<std::pair<DatedFile, std::vector<PerfquerySample>>>& perfquery);
// The collector's CSV is noted and its path kept: it is read once the topology is known.
std::optional<LoadIssue> addCollectorCsv(FileInput& in, FolderSink& sink, std::vector<std::string>& csvs);
// The OpenSM log, stamped in the mapping file's "opensm" zone (`timeZones`), else UTC; the year from `logsClock`.
std::optional<LoadIssue> addOpensmLog(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, std::vector<OpensmLog>& opensm);
// ibsim's net file: recognised, not read.
std::optional<LoadIssue> noteIbsimNet(FileInput& in, FolderSink& sink);

} // namespace stallscope
