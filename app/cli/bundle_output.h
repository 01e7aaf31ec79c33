// SPDX-License-Identifier: MIT
#pragma once

// What `convert` and `merge` share: their --format and --memory-mb options, and writing what was read as a bundle
// (the input's warnings printed, the bundle, the link heatmap's levels beside it).

#include "cli/cli_options.h"

#include "bundle/writer.h"
#include "core/loaded_job.h"
#include "core/scratch_file.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace stallscope::cli {

// The options themselves, for the commands' tables.
std::vector<OptionSpec> bundleOutputOptions();
// --format and --memory-mb into `options` and `scratch` (its folder: beside `outDir`); "" or the usage error.
std::string readBundleOutputOptions(
    const ParsedArgs& parsed, const std::string& outDir, BundleWriteOptions& options, ScratchPolicy& scratch);
// Prints the warnings to `err`, writes the bundle to `dir` and its link levels; kExitOk, or kExitBadInput after
// "stallscope COMMAND: why".
int writeLoadedBundle(const LoadedJob& loaded, const std::string& dir, const BundleWriteOptions& options,
    const std::string& command, std::ostream& err);
// "The counters outgrew …" when they went through a scratch file, else nothing.
void saySpilled(const LoadedJob& loaded, const ScratchPolicy& scratch, std::ostream& out);

} // namespace stallscope::cli
