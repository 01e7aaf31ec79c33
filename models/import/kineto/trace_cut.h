// SPDX-License-Identifier: MIT
#pragma once

// Where a profiler trace that was cut off while written stops making sense. PyTorch's profiler (Kineto's
// ChromeTraceLogger) writes a trace to "<name>.tmp" one event at a time and renames it when the trace is complete:
// a process killed while it writes (the scheduler's SIGKILL at the time limit, the OOM killer, a watchdog abort)
// leaves a file that ends anywhere — inside an event, a string, or the keys written after the events. What came
// before the cut is whole events. This scanner finds the end of the last whole one, so the reader can walk the
// trace up to there (docs/formats.md §3, "traces cut off while written").

#include <cstddef>
#include <string_view>

namespace stallscope {

struct TraceCut
{
    bool eventsFound = false; // the top object's "traceEvents" array begins in the text
    bool eventsClosed = false; // ... and its closing ']' is there too
    bool topClosed = false; // the top object closes: the file was not cut (whatever else is wrong with it)
    // Bytes worth walking: up to the end of the last whole event. simdjson's On-Demand parser walks such a prefix
    // (the top object and the array still open) up to there and then stops with an error; it refuses a prefix
    // whose last bracket is not a '}', so the walk never ends at the array's ']'.
    std::size_t readableEnd = 0;
    std::size_t wholeEvents = 0; // elements of the array that end before the cut
};

// One pass, no recursion, no allocation: strings (with their escapes) and nesting are tracked, nothing is parsed.
TraceCut findTraceCut(std::string_view text);

} // namespace stallscope
