// SPDX-License-Identifier: MIT
#pragma once

// How Prometheus files join a raw folder's facts (import/folder/formats.cpp's rows call these). A scrape is scanned
// on a worker thread (scanExposition); on the calling thread its series are resolved against the fabric, its
// readings go into the counter sink under an id per distinct series (provisional until the fabric is known), and
// its states and dates are kept. A scrape too large to hold is read in pieces (ScratchPolicy::pieceBytes),
// reporting on `progress` and stopping when it is cancelled. A query_range answer's host-side series are kept as
// they are, its switch-side ones as columns.

#include "core/progress.h"
#include "core/scratch_file.h"
#include "import/common/counter_sink.h"
#include "import/common/fabric_builder.h"
#include "import/common/folder_sink.h"
#include "import/common/host_facts.h"
#include "import/common/node_facts.h"
#include "import/prometheus/exposition.h"
#include "import/prometheus/http_answers.h"

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallscope {

// A folder's scrapes as read: each file's states and dates (its readings are in the counter sink), and the distinct
// series those readings were put under.
struct ExpositionScrapes
{
    std::vector<std::pair<DatedFile, ExpositionFile>> files;
    std::vector<ExpositionSample> series;
    std::map<std::string, std::uint32_t> seriesIds; // a series' identity → its index in `series`
};

// A switch-side series of a query_range answer, as columns (a week of 1 s points would not fit as samples).
struct MatrixSwitchSeries
{
    std::uint64_t guid = 0; // canonicalised when the counters are added
    std::uint16_t port = 1;
    CounterKind kind = CounterKind::LinkDowned;
    std::vector<TimeNs> timesNs;
    std::vector<std::uint64_t> values; // in the model's units
};

std::any scanExposition(const std::string& file, const std::string& text, const WarningHold& hold);
// `in.parsed` empty: a large file given by its path alone, read in pieces.
std::optional<LoadIssue> addExposition(FileInput& in, FolderSink& sink, FabricBuilder& fabric, CounterSink& counters,
    Progress* progress, const ScratchPolicy& scratch, ExpositionScrapes& scrapes);
std::optional<LoadIssue> addMatrix(FileInput& in, FolderSink& sink, FabricBuilder& fabric,
    std::vector<PromSeries>& matrix, std::vector<MatrixSwitchSeries>& matrixSwitch);

// A dcgm-exporter scrape: every GPU it names into `nodeTools` (one entry, tool "dcgm-exporter", with the NVLink
// error counters above zero), each GPU's last Xid into `hostLogs` as the kernel's Xid line would be, so the Xid
// catalog and the inventory's GPU checks see them.
std::optional<LoadIssue> addDcgm(
    FileInput& in, FolderSink& sink, std::vector<NodeToolsFile>& nodeTools, HostLogFiles& hostLogs);

} // namespace stallscope
