// SPDX-License-Identifier: MIT
#pragma once

// Where a JSON document that was cut off while written stops making sense, for documents whose bulk is one array
// of records under a key of the top object: a profiler trace's "traceEvents" (Kineto writes "<name>.tmp" one event
// at a time and renames it when whole; docs/formats.md §3f), a Flight Recorder JSON dump's "entries" (§1e). A
// process killed while it writes, or a full disk, leaves a file that ends anywhere — inside a record, a string, or
// the keys written after the array. What came before the cut is whole records. This scanner finds the end of the
// last whole one, so a reader can walk the document up to there.

#include <cstddef>
#include <string_view>

namespace stallscope {

struct JsonArrayCut
{
    bool found = false; // the top object's array under the key begins in the text
    bool closed = false; // ... and its closing ']' is there too
    bool topClosed = false; // the top object closes: the file was not cut (whatever else is wrong with it)
    // Bytes worth walking: up to the end of the last whole record. simdjson's On-Demand parser walks such a prefix
    // (the top object and the array still open) up to there and then stops with an error; it refuses a prefix
    // whose last bracket is not a '}', so the walk never ends at the array's ']'.
    std::size_t readableEnd = 0;
    std::size_t wholeRecords = 0; // elements of the array that end before the cut
};

// One pass, no recursion, no allocation: strings (with their escapes) and nesting are tracked, nothing is parsed.
JsonArrayCut findJsonArrayCut(std::string_view text, std::string_view key);

} // namespace stallscope
