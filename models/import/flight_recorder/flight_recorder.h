// SPDX-License-Identifier: MIT
#pragma once

// PyTorch NCCL Flight Recorder dumps, JSON form (docs/formats.md §1): versions 2.3–2.10, states scheduled /
// started / completed, timing on or off, pg_config and pg_status. One file per rank; the rank comes from the
// file name (<prefix><rank>).

#include "import/common/rank_records.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

// By content: a pickle stream (protocol 2–5 header, 0x80 0x0N), or a JSON object with "version" and
// "entries" (or "pg_config" alone: a dump whose buffer was empty omits entries), or JSON lines whose first line
// is an entry ("collective_seq_id").
bool looksLikeFlightRecorderPickle(std::string_view bytes);
bool looksLikeFlightRecorderJson(const std::string& text);

// The JSON form (an object with version, pg_config, entries); JSON lines (one entry per line, as some
// third-party collectors write) are detected and read by the second function.
Result<RankRecords> parseFlightRecorderJson(const std::string& file, const std::string& text);
Result<RankRecords> parseFlightRecorderJsonLines(const std::string& file, const std::string& text);
// The default pickle form (protocol 2), through the safe reader of import/flight_recorder/pickle_reader.h.
Result<RankRecords> parseFlightRecorderPickle(const std::string& file, std::string_view bytes);

} // namespace stallscope
