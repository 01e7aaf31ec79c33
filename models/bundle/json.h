// SPDX-License-Identifier: MIT
#pragma once

// JSON parts of a bundle: manifest, topology, link events, and the JSON Lines forms of collectives and
// counters. Internal to the bundle reader and writer.

#include "core/job_snapshot.h"
#include "core/result.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace stallscope::bundle {

struct ManifestFiles
{
    std::string collectives;
    std::string counters; // may be empty: a bundle without counters
    std::string linkEvents; // may be empty
    std::string topology; // may be empty
};

std::string manifestToJson(const JobSnapshot& snap, const ManifestFiles& files);
std::string topologyToJson(const JobSnapshot& snap);
void writeLinkEventsJsonl(const JobSnapshot& snap, std::ostream& out);
void writeCollectivesJsonl(const JobSnapshot& snap, std::ostream& out);
void writeCountersJsonl(const JobSnapshot& snap, std::ostream& out);

// Readers fill `snap` (and `owned` for columns); fatal problems return a LoadIssue naming file and line.
std::optional<LoadIssue> parseManifest(
    const std::string& file, const std::string& text, JobSnapshot& snap, ManifestFiles& files);
std::optional<LoadIssue> parseTopology(const std::string& file, const std::string& text, JobSnapshot& snap);
std::optional<LoadIssue> parseLinkEvents(
    const std::string& file, std::istream& in, JobSnapshot& snap, std::vector<LoadIssue>& warnings);
std::optional<LoadIssue> parseCollectivesJsonl(const std::string& file, std::istream& in, JobSnapshot& snap,
    OwnedColumns& owned, std::vector<LoadIssue>& warnings);
std::optional<LoadIssue> parseCountersJsonl(const std::string& file, std::istream& in, JobSnapshot& snap,
    OwnedColumns& owned, std::vector<std::uint32_t>& seriesTimeBlock, std::vector<LoadIssue>& warnings);

} // namespace stallscope::bundle
