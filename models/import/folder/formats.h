// SPDX-License-Identifier: MIT
#pragma once

// The table of input formats a raw folder may hold (docs/formats.md). Each row names a format, the recogniser
// its folder under import/ provides (content sniffing: the first bytes and a few markers, never the file name),
// when it is read, and its glue: the parse and add functions, in the format's folder, that write what it says into
// the folder sink (import/common/folder_sink.h) and the members of Gathered the row names. The folder reader
// dispatches through this table only: a new format is a folder under import/ (recogniser, reader, glue), and one
// row here.

#include "import/common/folder_sink.h"
#include "import/folder/gathered.h"

#include <any>
#include <filesystem>
#include <string>
#include <vector>

namespace stallscope::folder {

// The file and warning types a format's glue sees (import/common/folder_sink.h), named here too.
using stallscope::FileInput;
using stallscope::WarningHold;

struct Format
{
    const char* name; // "Flight Recorder pickle dump": for messages and `info`
    bool (*recognise)(const std::string& text);
    // Files whose reading depends on others come later: 0 first; iblinkinfo names peers by the LIDs topology
    // files gave (1); perfquery blocks name ports by LID (2); logs take their year from the dumps (3).
    int phase = 0;
    // Optional: a parse that needs no other file and no shared state, run on a worker thread (dumps, traces:
    // where opening large folders spends its time). Its result goes to FileInput::parsed.
    // It holds its warnings to `hold` before returning: every file's result is kept until all are read.
    std::any (*parse)(const std::string& file, const std::string& text, const WarningHold& hold) = nullptr;
    // Folds the file into `g` on the calling thread; an issue returned leaves the file out with a warning.
    std::optional<LoadIssue> (*add)(FileInput& in, Gathered& g) = nullptr;
    // Files of samples by the hundred million (a week of scrapes or collector rows): a large one (256 MiB and up,
    // not gzip) is recognised from its head and `add` gets its path alone, to read it in pieces. A streamed format
    // without `parse` gets the path alone whatever the size (the collector's CSVs, read again as counters are joined).
    bool streamed = false;
    // Optional: a parse that needs the folder's clock (logs: the dumps' year, the mapping file's zone), known once
    // phase 0 is added; then run on worker threads like `parse`, before the later phases are added in order.
    std::any (*parseWithClock)(const std::string& file, const std::string& text, const LogClock& clock) = nullptr;
};

// In recognition order: the first row whose recogniser accepts the text reads the file.
const std::vector<Format>& formats();
// The row reading `text`, or nullptr when no format recognises it.
const Format* recognise(const std::string& text);

} // namespace stallscope::folder
