// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by tests: temporary folders, small simulated bundles, file comparisons.

#include "core/job_snapshot.h"
#include "sim/config.h"
#include "sim/simulator.h"

#include <filesystem>
#include <string>

namespace stallscope::test {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir
{
public:
    TempDir();
    ~TempDir();
    std::filesystem::path path() const { return m_path; }
    std::string str(const std::string& child = {}) const { return (child.empty() ? m_path : m_path / child).string(); }

private:
    std::filesystem::path m_path;
};

// The "small" preset shrunk further for fast tests: 2 minutes, flap at +60 s.
SimConfig tinyConfig();
SimResult simulateOrFail(const SimConfig& config);

std::string readFile(const std::filesystem::path& p);
// A file of tests/data by its relative name ("logs/rank2.log"): path and contents.
std::filesystem::path testDataPath(const std::string& name);
std::string testData(const std::string& name);
void writeFile(const std::filesystem::path& p, const std::string& content);
// Both snapshots hold the same counter series: ports (GUID, number), kinds, widths, times and values, in order.
bool sameCounterSeries(const JobSnapshot& a, const JobSnapshot& b);
// Each warning as LoadIssue::format() says it, one to a line: what a test searches for a warning's words.
std::string formatted(const std::vector<LoadIssue>& warnings);
// Listing "name size mtime-ns" of every file, to prove a load wrote nothing.
std::string folderFingerprint(const std::filesystem::path& dir);
// `snap` written as the raw folder a cluster leaves behind (sim/raw_writer.h), keeping the Flight Recorder dumps of
// ranks below `recordedRanks` only: the other ranks are known from their logs alone (issue #44).
void writePartialRawFolder(const JobSnapshot& snap, const std::filesystem::path& dir, std::uint32_t recordedRanks);

} // namespace stallscope::test
