// SPDX-License-Identifier: MIT
#pragma once

// What a format's glue writes into as a raw folder is read (import/folder/formats.cpp's table calls it): one file
// as the folder reader hands it over (FileInput), the warnings it may keep (WarningHold), and the folder's notes
// and warnings (FolderSink). Each format's glue, in its own folder under import/, takes a FolderSink and the
// collections of the facts it adds; import/folder's Gathered is a FolderSink and holds those collections.

#include "core/result.h"
#include "core/types.h"
#include "core/warning_cap.h"

#include <any>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope {

// How many warnings each file of a folder keeps (issue #17): a file alone keeps WarningCap::kKeptPerFile; in a
// folder of many files each keeps a share of kKeptPerFolder (never fewer than kKeptAtLeast), so a folder of a
// thousand files of garbage holds a bounded number of warnings, not ten million.
struct WarningHold
{
    static constexpr std::size_t kKeptPerFolder = 100'000;
    static constexpr std::size_t kKeptAtLeast = 100;
    std::size_t keep = WarningCap::kKeptPerFile;
    std::string scope = "a file"; // for the count's message: "the first 100 of <scope> are"

    static WarningHold forFolderOf(std::size_t files);
    // Holds what `file` added to `warnings` from `start` on (holdWarnings).
    void operator()(std::vector<LoadIssue>& warnings, const std::string& file, std::size_t start = 0) const
    {
        holdWarnings(warnings, start, keep, file, scope);
    }
};

// What a format's `parse` returns from a worker thread: a reader's result (Result<T>, T with `warnings`), its
// warnings held to the file's share first.
template <typename Parsed> std::any held(Parsed parsed, const std::string& file, const WarningHold& hold)
{
    if (parsed) {
        hold(parsed->warnings, file);
    }
    return std::any(std::move(parsed));
}

// One file as the folder reader holds it between reading and adding.
struct FileInput
{
    std::filesystem::path path;
    std::string text; // the bytes (gzip inflated), kept for formats added on the calling thread
    std::any parsed; // what a format's `parse` returned on a worker thread
};

struct DatedFile
{
    std::string file;
    TimeNs modified = kNoTime; // the sample time of undated snapshots
};

// When the file was last written, in ns since the epoch; kNoTime when the file system does not say.
TimeNs modifiedNs(const std::filesystem::path& p);

// The folder's notes (the recognised files, counted by kind) and warnings.
struct FolderSink
{
    std::vector<LoadIssue> warnings;
    std::vector<std::string> recognised;
    std::map<std::string, int> counts;

    std::filesystem::path root; // the folder opened: files are named from it ("attempt_1/nccl_trace_rank_3")

    // A file as the recognised list names it: its path inside the folder (two attempts of a job hold files of one
    // name), or its name alone.
    std::string shown(const std::filesystem::path& p) const
    {
        const auto rel = root.empty() ? std::filesystem::path() : p.lexically_relative(root);
        return rel.empty() || *rel.begin() == ".." ? p.filename().string() : rel.string();
    }
    void note(const std::filesystem::path& p, const std::string& what, const std::string& detail)
    {
        recognised.push_back(shown(p) + ": " + what + (detail.empty() ? "" : ", " + detail));
        ++counts[what];
    }
    template <typename W> void warn(const W& ws) { warnings.insert(warnings.end(), ws.begin(), ws.end()); }
};

// "2 considered dead, 1 unresponsive": how many of each kind a file's events or facts hold (their `kind`, named by
// toString).
template <typename Items> std::string countsByKind(const Items& items)
{
    std::map<std::string_view, int> kinds;
    for (const auto& e : items) {
        ++kinds[toString(e.kind)];
    }
    std::string said;
    for (const auto& [kind, n] : kinds) {
        said += (said.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(kind);
    }
    return said;
}

} // namespace stallscope
