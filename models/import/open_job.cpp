// SPDX-License-Identifier: MIT
#include "import/open_job.h"

#include "bundle/reader.h"
#include "import/folder/raw_folder.h"

#include <new>

namespace stallscope {

Result<LoadedJob> openJob(const std::string& path, Progress& progress, const ScratchPolicy& scratch)
{
    try {
        if (isRawFolder(path)) {
            return loadRawFolder(path, progress, {}, scratch); // a folder of raw files, recognised by content
        }
        return loadBundle(path, progress);
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
