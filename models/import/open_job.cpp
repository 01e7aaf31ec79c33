// SPDX-License-Identifier: MIT
#include "import/open_job.h"

#include "bundle/reader.h"
#include "import/common/file_bytes.h"
#include "import/common/packed.h"
#include "import/folder/raw_folder.h"

#include <filesystem>
#include <fstream>
#include <new>

namespace stallscope {

namespace {

// One warning for the names the string pool cut (StringPool::kMaxBytes), whichever reader they came from.
void noteNamesCut(Result<LoadedJob>& job, const std::string& path)
{
    if (!job || !job.value().snapshot || job.value().snapshot->strings.cutCount() == 0) {
        return;
    }
    const auto& pool = job.value().snapshot->strings;
    job.value().warnings.push_back({ path, 0, -1,
        std::to_string(pool.cutCount()) + " name(s) or text(s) longer than " + std::to_string(StringPool::kMaxBytes)
            + " bytes (the longest " + std::to_string(pool.longestCut())
            + " bytes) were cut to that, ending in \"…#\" and a hash of the whole: hosts, HCAs and switches are "
              "named in at most 64 bytes (an InfiniBand NodeDescription) to 253 (a DNS name) by the tools that "
              "write them — a damaged or made-up file?" });
}

// A file given where a folder is expected: most often the archive the folder travelled in (`logs.tgz`), or one of
// the folder's files. Says which, and what to open instead. Reads the first 64 KiB (a gzip's, inflated to 4 KiB).
LoadIssue notAFolder(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(64u << 10, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.size() >= 2 && head[0] == '\x1f' && head[1] == '\x8b') {
        head = inflateGzipHead(head, 4096);
    }
    if (const auto packing = packingOf(head)) {
        auto message = packedMessage(*packing);
        message.resize(message.size() - std::string_view(": skipped").size());
        return { path, 0, -1, "not a folder: " + message };
    }
    return { path, 0, -1,
        "not a folder: Stallscope opens the folder a job left (its logs, dumps, traces, fabric files) or a bundle; "
        "open the folder that holds this file" };
}

} // namespace

Result<LoadedJob> openJob(const std::string& path, Progress& progress, const ScratchPolicy& scratch)
{
    try {
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) {
            return notAFolder(path);
        }
        auto job = isRawFolder(path) ? loadRawFolder(path, progress, {}, scratch) // raw files, recognised by content
                                     : loadBundle(path, progress);
        noteNamesCut(job, path);
        return job;
    } catch (const std::bad_alloc&) {
        return LoadIssue { path, 0, -1, "out of memory while opening" };
    } catch (const std::exception& e) {
        return LoadIssue { path, 0, -1, std::string("unexpected error: ") + e.what() };
    }
}

Result<folder::MergedShards> openShards(
    const std::vector<std::string>& shards, Progress& progress, const ScratchPolicy& scratch)
{
    const auto where = shards.empty() ? std::string() : shards.front();
    try {
        auto merged = folder::loadFromShards(shards, progress, scratch);
        if (!merged) {
            return merged.error();
        }
        Result<LoadedJob> job(std::move(merged->job));
        noteNamesCut(job, merged->dir); // as openJob says it of the folder
        merged->job = std::move(job.value());
        return merged;
    } catch (const std::bad_alloc&) {
        return LoadIssue { where, 0, -1, "out of memory while merging shards" };
    } catch (const std::exception& e) {
        return LoadIssue { where, 0, -1, std::string("unexpected error: ") + e.what() };
    }
}

Result<LoadedJob> openJob(const std::string& path)
{
    NullProgress none;
    return openJob(path, none);
}

} // namespace stallscope
