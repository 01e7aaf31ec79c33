// SPDX-License-Identifier: MIT
#pragma once

// Reads `ibnetdiscover` output (plain, and `-p` ports report) into a Topology: switches and CAs with their
// node descriptions and GUIDs, links with both ends' ports, width and speed. Each link appears once (the
// file lists it from both ends). Switch tiers are inferred: a switch with a CA neighbour is a leaf (1),
// the others are spines (2). CA node descriptions "<host> <hca>" give host and HCA names.
// A down link is simply absent from the file (docs/formats.md §5a): diff two snapshots to find it.

#include "core/job_snapshot.h"
#include "core/result.h"
#include "import/common/fabric_builder.h"

#include <string>
#include <vector>

namespace stallscope {

struct ImportedTopology
{
    Topology topology;
    std::vector<LoadIssue> warnings;
};

// Adds what the file says to `fabric` (nodes, links, LIDs, port-GUID aliases); returns the lines used.
Result<std::size_t> readIbnetdiscover(
    const std::string& file, const std::string& text, FabricBuilder& fabric, std::vector<LoadIssue>& warnings);

// One file on its own. `strings` interns the names (the snapshot's pool). Errors name the file and line.
Result<ImportedTopology> parseIbnetdiscover(const std::string& file, const std::string& text, StringPool& strings);

// ibnetdiscover's topology file, plain or -p (a "Switch\t" or "# Topology file" line, or "SW "/"CA " port lines).
// ibsim's net file looks alike but starts its nodes with "Hca\t" and has no GUIDs: not this.
bool looksLikeIbnetdiscover(const std::string& text);
bool looksLikeIbsimNet(const std::string& text);

} // namespace stallscope
