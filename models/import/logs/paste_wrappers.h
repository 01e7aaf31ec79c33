// SPDX-License-Identifier: MIT
#pragma once

// What people and tools put before a log line when they copy it somewhere: indentation, "> " quote markers, a log
// viewer's "[80746] " line number, a logger's or pdsh's "2025-02-18 12:54 " / "2019-03-01T16:13:44.123Z: " /
// "gpu-a017: " / "10.0.0.5: " prefix, Ray's "(RayWorker pid=12) ", and markdown autolinks "[10.0.0.5](http://…)"
// in a pasted thread (docs/formats.md §2a). The rank-log readers look for their records at the start of a line, so
// these are taken off first — only where a record follows them, so a line the readers already take is never changed.

#include <optional>
#include <string>
#include <string_view>

namespace stallscope::logs {

// The text with those wrappers taken off each line, line for line (line numbers stay those of the file); nullopt
// when no line has one (the common case: no copy is made). A stamp taken off before NCCL's "host:pid:tid [dev]"
// prefix is kept as NCCL's own "[YYYY-MM-DD hh:mm:ss] " stamp, so the line keeps its time.
std::optional<std::string> unwrapPastedLines(std::string_view text);

} // namespace stallscope::logs
