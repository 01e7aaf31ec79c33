// SPDX-License-Identifier: MIT
#pragma once

// How NCCL's reports join a raw folder's facts (import/folder/formats.cpp's rows call these): an Inspector log is
// parsed on a worker thread (its warnings held to the folder's share), then noted in the folder sink and kept in
// `inspector` by its path on the calling thread; RAS output is read, noted and kept in `ras` on the calling thread.

#include "import/common/folder_sink.h"
#include "import/nccl/inspector.h"
#include "import/nccl/ras_status.h"

#include <any>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

std::any parseInspector(const std::string& file, const std::string& text, const WarningHold& hold);
std::optional<LoadIssue> addInspector(
    FileInput& in, FolderSink& sink, std::vector<std::pair<std::string, InspectorFile>>& inspector);

// RAS status or monitor output (text or JSON), stamped in the local time of the host that answered: the mapping
// file's "ras" zone (`timeZones`), else the rank logs' (`logsClock`).
using RasReports = std::vector<std::pair<std::string, RasReport>>;
std::optional<LoadIssue> addRasText(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, RasReports& ras);
std::optional<LoadIssue> addRasJson(FileInput& in, FolderSink& sink, const LogClock& logsClock,
    const std::map<std::string, TimeNs>& timeZones, RasReports& ras);

} // namespace stallscope
