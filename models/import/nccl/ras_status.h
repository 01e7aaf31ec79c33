// SPDX-License-Identifier: MIT
#pragma once

// NCCL RAS (2.24+): what `ncclras` (or `echo status | nc localhost 28028`) prints about a running job — the text
// status (job summary, the communicator table, Errors / Warnings blocks naming dead processes, missing ranks,
// ranks behind in their operation counts and ranks with asynchronous errors), the same as JSON (`ncclras -f json`,
// 2.28.7+), and monitor mode (`ncclras -m`, 2.29+: "[2025-12-19 13:07:07] PEER_DEAD: Process … on node …" lines or
// one JSON object per event). docs/formats.md §7b. A status is a snapshot taken while a job hangs: its facts are
// about ranks and processes, not about collectives.

#include "core/result.h"
#include "core/types.h"
#include "import/common/log_clock.h"

#include <string>
#include <vector>

namespace stallscope {

enum class RasFactKind {
    Dead, // a process RAS considers dead: unreachable for 60 s (DEAD; JSON considered_dead; PEER_DEAD)
    Unresponsive, // a process that did not answer the query (INCOMPLETE; JSON unresponsive; PEER_UNRESPONSIVE)
    Missing, // a communicator rank whose data is missing (#g-c INCOMPLETE; JSON missing_ranks)
    Behind, // a rank whose operation count is below the communicator's highest (#g-c MISMATCH)
    AsyncError, // a rank reporting an asynchronous (or initialization) error (#g-c ERROR; JSON async_error ≠ 0)
    Status, // a rank whose communicator status differs from the others' (ABORT, FINALIZE, ...) or is ahead
    PeerEvent, // another monitor event (PEER_RECOVERED, PEER_TIMEOUT_DEAD, ...)
};
std::string_view toString(RasFactKind k); // "considered dead", "unresponsive", ...

struct RasFact
{
    RasFactKind kind = RasFactKind::Dead;
    TimeNs timeNs = kNoTime; // monitor events and JSON statuses carry one (local time); text statuses do not
    std::string comm; // communicator hash, lower-case hex without "0x" or leading zeros ("" for process facts)
    std::uint32_t commSize = 0; // ranks in that communicator, when the output says (0: unknown)
    std::int64_t rank = -1; // rank within `comm`
    std::string host; // the node as RAS names it (an address: "172.16.64.213")
    std::int64_t pid = -1;
    std::string gpu; // "5", "0,1"
    std::int64_t ops = -1; // Behind: the last operation it launched (0: none); the others' in `text`
    std::string text; // readable: "missing from communicator cf264af53edbe986 (rank 21 of 32)"
    std::int64_t line = 0;
};

struct RasReport
{
    std::string form; // "status", "status (JSON)", "monitor", "monitor (JSON)"
    std::string ncclVersion;
    std::uint32_t nodes = 0, processes = 0, gpus = 0; // the job summary (0: not given)
    std::size_t communicators = 0;
    std::vector<RasFact> facts;
    std::vector<LoadIssue> warnings;
};

bool looksLikeRasText(const std::string& text); // "Job summary" + "Communicators", or a monitor banner/event line
bool looksLikeRasJson(const std::string& text); // "communicators_count" or a monitor event ("group": "LIFECYCLE")

// `clock` supplies the zone: RAS stamps in the local time of the host that answered.
Result<RasReport> parseRasText(const std::string& file, const std::string& text, const LogClock& clock = {});
Result<RasReport> parseRasJson(const std::string& file, const std::string& text, const LogClock& clock = {});

// "0x00ae94423cfbb2ef4a" / "00ae94423cfbb2ef4a" → "ae94423cfbb2ef4a" (text prints %016lx, JSON 0x%lx).
std::string canonicalCommHash(std::string_view hash);
// "2025-12-19 13:06:53" in the clock's zone → epoch ns; kNoTime when not that shape.
TimeNs rasTimeNs(std::string_view stamp, const LogClock& clock);

} // namespace stallscope
