// SPDX-License-Identifier: MIT
#include "cli/bundle_output.h"

#include "open/load_job.h"

#include "core/atomic_file.h"
#include "core/issue_groups.h"
#include "core/parse_number.h"
#include "core/time_format.h"

#include <ostream>

namespace stallscope::cli {

std::vector<OptionSpec> bundleOutputOptions()
{
    return {
        { "format", true, "binary | jsonl: how collectives and counters are written (default binary)" },
        { "memory-mb", true,
            "records or counter samples to hold in memory before spilling them to scratch files beside the "
            "bundle, in MiB "
            "(default: an eighth of the memory the process may use: the machine's, or its cgroup's limit)" },
    };
}

std::string readBundleOutputOptions(
    const ParsedArgs& parsed, const std::string& outDir, BundleWriteOptions& options, ScratchPolicy& scratch)
{
    if (auto f = parsed.find("format")) {
        if (*f != "binary" && *f != "jsonl") {
            return "--format: expected binary or jsonl";
        }
        options.collectives = options.counters = *f == "jsonl" ? ColumnFormat::JsonLines : ColumnFormat::Binary;
    }
    // Scratch files beside the bundle: the disk that must hold it anyway, not a small /tmp.
    scratch.dir = absoluteFolder(outDir).parent_path().string();
    if (auto m = parsed.find("memory-mb")) {
        const auto mb = parseNumber<std::uint64_t>(*m);
        if (!mb || *mb == 0 || *mb > (1ull << 30)) {
            return "--memory-mb: expected a whole number of MiB, 1 or more";
        }
        scratch.memoryBytes = *mb << 20;
    }
    return {};
}

int writeLoadedBundle(const LoadedJob& loaded, const std::string& dir, const BundleWriteOptions& options,
    const std::string& command, std::ostream& err)
{
    for (const auto& g : groupIssues(loaded.warnings)) {
        err << "warning: " << g.format() << '\n';
    }
    if (auto e = writeBundle(*loaded.snapshot, dir, options); !e.empty()) {
        err << "stallscope " << command << ": " << e << '\n';
        return kExitBadInput;
    }
    if (auto e = writeLevels(dir); !e.empty()) {
        err << "warning: the heatmaps' levels were not kept beside the bundle: " << e << '\n';
    }
    return kExitOk;
}

void saySpilled(const LoadedJob& loaded, const ScratchPolicy& scratch, std::ostream& out)
{
    if (loaded.spilledBytes > 0) {
        out << "The counters outgrew " << formatBytes(double(scratch.memoryBytes))
            << " of memory: " << formatBytes(double(loaded.spilledBytes))
            << " of samples went through a scratch file in " << scratch.dir << "\n";
    }
}

} // namespace stallscope::cli
