// SPDX-License-Identifier: MIT
#pragma once

// Internal to import/folder: what the sharded convert (import/folder/shard.h) shares with the folder reader
// (read.cpp) — the folder's listing, and files parsed by a shard before the folder is read, which the reading then
// takes instead of reading and parsing them again.

#include "import/common/file_bytes.h"
#include "import/folder/formats.h"

#include <any>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::folder {

// What a folder's listing found: the files to read (sorted) and the copies of /sys/class/infiniband to read as trees.
struct FolderListing
{
    std::vector<std::filesystem::path> files;
    std::vector<std::filesystem::path> sysfsRoots;
    std::uint64_t bytes = 0; // the files' sizes, summed
};

// Every regular file under `dir`, as readFolder lists it; what is left out is a warning. An error when `dir` itself
// cannot be listed.
Result<FolderListing> listFolder(const std::filesystem::path& dir, std::vector<LoadIssue>& warnings);

// One file as a format's `parse` left it on a worker thread: the row that recognised it, what `parse` returned
// (its warnings held to the folder's share), and the zero bytes trimmed from its ends.
struct PreparsedFile
{
    const Format* format = nullptr;
    std::any parsed;
    ZeroRuns zeros;
};

// Files parsed before the folder is read, by their path as the listing names it (dir / relative path). readFolder
// takes each from here (moving it out) instead of reading it.
struct PreparsedFiles
{
    std::map<std::string, PreparsedFile> files;
};

// Reads, recognises and parses `files` of a folder of `folderFiles` files exactly as readFolder would (the same
// memory gate and warning share), on the reading pool; a file whose format has no `parse`, or that could not be
// read, is nullopt (readFolder reads it itself). nullopt as a whole when cancelled.
std::optional<std::vector<std::optional<PreparsedFile>>> parseAlone(const std::vector<std::filesystem::path>& files,
    std::size_t folderFiles, const ScratchPolicy& scratch, Progress& progress);

} // namespace stallscope::folder
