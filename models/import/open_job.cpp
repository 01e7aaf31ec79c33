// SPDX-License-Identifier: MIT
#include "import/open_job.h"

#include "bundle/reader.h"
#include "import/folder/raw_folder.h"

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

} // namespace

Result<LoadedJob> openJob(const std::string& path, Progress& progress, const ScratchPolicy& scratch)
{
    try {
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

Result<LoadedJob> openJob(const std::string& path)
{
    NullProgress none;
    return openJob(path, none);
}

} // namespace stallscope
