// SPDX-License-Identifier: MIT
#pragma once

// Shared by the Flight Recorder front ends (JSON via simdjson, JSON lines, pickle): the fields of one entry
// Stallscope uses, and the semantics every front end applies to them.

#include "import/flight_recorder/flight_recorder.h"

namespace stallscope::fr_detail {

// The fields of one entry that Stallscope uses, as read by any front end.
struct RawEntry
{
    bool p2p = false;
    std::string pg;
    std::optional<std::int64_t> seq;
    std::string profilingName;
    std::optional<std::vector<std::uint64_t>> sizes; // input_sizes[0]
    std::string dtype; // input_dtypes[0]
    TimeNs created = kNoTime, started = kNoTime, completed = kNoTime;
    std::string state = "scheduled";
    bool retired = false;
};

// p2p skipped, bytes = elements × dtype size, retired-not-completed = timed out, entries without a sequence
// number or a creation time skipped with a warning.
void finishEntry(const RawEntry& r, std::size_t index, const std::string& file, RankRecords& d);

// The fast path for pickle dumps (import/flight_recorder/pickle_stream.cpp): nullopt when the file is not in the shape
// it reads, and the caller falls back to the general reader of import/flight_recorder/pickle_reader.h.
std::optional<Result<RankRecords>> parseFlightRecorderPickleStream(const std::string& file, std::string_view bytes);
// The general reader: a tree of the whole pickle (import/flight_recorder/pickle_reader.h), then the entries read off
// it.
Result<RankRecords> parseFlightRecorderPickleTree(const std::string& file, std::string_view bytes);

} // namespace stallscope::fr_detail
