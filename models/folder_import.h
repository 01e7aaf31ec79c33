// SPDX-License-Identifier: MIT
#pragma once

// Opens a folder of raw files as the cluster left them (issue #6): each file is recognised by its content,
// not its name. Recognised so far: Flight Recorder JSON dumps (one per rank), rank logs (rank → host → HCA,
// transport errors, port events), ibnetdiscover output (topology), and the counters CSV of
// `stallscope collect`. Everything else is listed as skipped, with the reason, in the warnings.
// Joins: a rank's HCA is the one NCCL's "Using" line names for its CUDA device; the HCA's node in the topology
// is "<host> <hca>"; collector rows join by host and device.

#include "bundle_reader.h"

namespace stallscope {

// True when `dir` holds no manifest.json (so it is a folder of raw files, not a bundle).
bool isRawFolder(const std::string& dir);

Result<LoadedBundle> loadRawFolder(const std::string& dir, Progress& progress);

} // namespace stallscope
