// SPDX-License-Identifier: MIT
#pragma once

// A self-contained incident report: report.html (inline CSS, no network) and report.md, with one rendered
// image per incident, all in one folder and referencing only files in it.

#include "render/postmortem_render.h"

#include <string>

namespace stallscope {

struct ReportOptions
{
    bool dark = false;
    QSize imageSize { 1600, 1000 };
    std::vector<Annotation> annotations; // the reviewer's notes: in every image and listed in the report
};

// Writes the report into `dir` (created if needed). Each file is written to a temporary name and renamed.
// Returns an empty string or the reason it failed.
std::string writeReport(const std::string& dir, const RenderInputs& in, const ReportOptions& options = {});

} // namespace stallscope
